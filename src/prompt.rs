//! Questions asked on the user's terminal (`/dev/tty`): `git evolv ask` and
//! the pre-push confirmation use the same code. The terminal is passed in, so
//! a caller without one (CI, IDEs, agents) decides what to do instead.
//!
//! This writes to the terminal, never to stdout or stderr.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::time::Duration;

use dialoguer::console::Term;
use dialoguer::{MultiSelect, Select};
use serde::Serialize;

use crate::error::{Error, Result};
use crate::sys::{self, SigintIgnored};

/// One option of a question: `label: description`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Choice {
    pub label: String,
    pub description: String,
}

impl Choice {
    /// Parses `label: description` (the description is optional).
    pub fn parse(text: &str) -> std::result::Result<Self, String> {
        let (label, description) = match text.split_once(':') {
            Some((l, d)) => (l.trim(), d.trim()),
            None => (text.trim(), ""),
        };
        if label.is_empty() {
            return Err(format!(
                "option `{text}` has no label (expected `label: description`)"
            ));
        }
        Ok(Choice {
            label: label.to_string(),
            description: description.to_string(),
        })
    }

    fn item(&self) -> String {
        if self.description.is_empty() {
            self.label.clone()
        } else {
            format!("{} — {}", self.label, self.description)
        }
    }
}

/// A single- or multi-select question.
#[derive(Debug, Clone)]
pub struct Question {
    pub prompt: String,
    pub choices: Vec<Choice>,
    pub multi: bool,
    /// Indexes preselected (multi) or where the cursor starts (single).
    pub defaults: Vec<usize>,
}

/// What the user answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Indexes into `Question::choices`, in order.
    Selected(Vec<usize>),
    /// Esc, `q` or Ctrl-C.
    Cancelled,
}

/// The controlling terminal, when there is one (`/dev/tty` opens). In a
/// hook, stdin is git's data, so the question must go to the terminal.
pub fn open_terminal() -> Option<Term> {
    let tty: File = OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
        .ok()?;
    let reader = tty.try_clone().ok()?;
    let term = Term::read_write_pair(reader, tty);
    term.is_term().then_some(term)
}

/// Asks `question` on `term`.
pub fn ask(term: &Term, question: &Question) -> Result<Answer> {
    let items: Vec<String> = question.choices.iter().map(Choice::item).collect();
    let _sigint = SigintIgnored::new();
    let _raw = RawMode::enter();
    let result = if question.multi {
        let checked: Vec<bool> = (0..items.len())
            .map(|i| question.defaults.contains(&i))
            .collect();
        MultiSelect::new()
            .with_prompt(question.prompt.as_str())
            .items(&items)
            .defaults(&checked)
            .interact_on_opt(term)
            .map(|o| o.map_or(Answer::Cancelled, Answer::Selected))
    } else {
        Select::new()
            .with_prompt(question.prompt.as_str())
            .items(&items)
            .default(question.defaults.first().copied().unwrap_or(0))
            .interact_on_opt(term)
            .map(|o| o.map_or(Answer::Cancelled, |i| Answer::Selected(vec![i])))
    };
    match result {
        Ok(answer) => Ok(answer),
        Err(dialoguer::Error::IO(e)) if e.kind() == io::ErrorKind::Interrupted => {
            // Ctrl-C in raw mode: the prompt is abandoned mid-way.
            let _ = term.show_cursor();
            let _ = term.write_line("");
            Ok(Answer::Cancelled)
        }
        Err(dialoguer::Error::IO(e)) => Err(Error::io("prompt on", "/dev/tty", e)),
    }
}

/// How long the pre-push confirmation waits for an answer before it takes
/// No; `GIT_EVOLV_PROMPT_TIMEOUT` (seconds) changes it.
pub const CONFIRM_TIMEOUT: Duration = Duration::from_secs(60);

/// A yes/no question typed as people type it: `y` or `yes` (any case) and
/// Enter is yes; `n`, `no`, Enter alone, end of input, or no answer within
/// `timeout` is no. Anything else asks again (three times at most). The
/// terminal stays in its normal line mode, so what is typed is echoed and
/// can be corrected, and Ctrl-C stops git as it always does.
pub fn confirm(prompt: &str, timeout: Duration) -> Result<Confirmation> {
    let mut tty = OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
        .map_err(|e| Error::io("open", "/dev/tty", e))?;
    let deadline = std::time::Instant::now() + timeout;
    let mut question = format!("{prompt} [y/N] ");
    for _ in 0..3 {
        tty.write_all(question.as_bytes())
            .map_err(|e| Error::io("write to", "/dev/tty", e))?;
        let Some(line) = read_line(&mut tty, deadline)? else {
            let _ = tty.write_all(b"\n");
            return Ok(Confirmation::TimedOut);
        };
        match parse_yes_no(&line) {
            Some(true) => return Ok(Confirmation::Yes),
            Some(false) => return Ok(Confirmation::No),
            None => question = format!("Please answer y or n. {prompt} [y/N] "),
        }
    }
    Ok(Confirmation::No)
}

/// The answer to `confirm`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Confirmation {
    Yes,
    No,
    /// Nobody answered in time.
    TimedOut,
}

/// `y`, `yes` → yes; empty, `n`, `no` → no (any case, spaces ignored);
/// anything else → not an answer.
pub fn parse_yes_no(line: &str) -> Option<bool> {
    match line.trim().to_ascii_lowercase().as_str() {
        "y" | "yes" => Some(true),
        "" | "n" | "no" => Some(false),
        _ => None,
    }
}

/// One line from the terminal, `None` when the deadline passes first;
/// end of input is an empty line.
fn read_line(tty: &mut File, deadline: std::time::Instant) -> Result<Option<String>> {
    let mut line = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            return Ok(None);
        }
        let ms = i32::try_from(left.as_millis()).unwrap_or(i32::MAX).max(1);
        let ready = match sys::poll_readable(&*tty, ms) {
            Ok(ready) => ready,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Error::io("wait for", "/dev/tty", e)),
        };
        if !ready {
            return Ok(None);
        }
        let mut byte = [0u8; 1];
        match tty.read(&mut byte) {
            Ok(0) => return Ok(Some(String::from_utf8_lossy(&line).into_owned())),
            Ok(_) if byte[0] == b'\n' || byte[0] == b'\r' => {
                return Ok(Some(String::from_utf8_lossy(&line).into_owned()));
            }
            Ok(_) => line.push(byte[0]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::io("read", "/dev/tty", e)),
        }
    }
}

/// Holds the terminal in raw mode for the whole prompt, not only while a
/// key is being read: keys typed while the question is drawn stay queued
/// instead of being echoed or, for Ctrl-C, turned into a signal.
struct RawMode {
    tty: File,
    original: libc::termios,
}

impl RawMode {
    fn enter() -> Option<Self> {
        let tty = OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/tty")
            .ok()?;
        let original = sys::terminal_settings(&tty).ok()?;
        let mut raw = original;
        sys::make_raw(&mut raw);
        raw.c_oflag = original.c_oflag;
        sys::set_terminal_settings(&tty, &raw).ok()?;
        Some(RawMode { tty, original })
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        // The settings read in `enter`, on the same open terminal.
        let _ = sys::set_terminal_settings(&self.tty, &self.original);
    }
}

#[cfg(test)]
mod tests {
    use super::Choice;

    #[test]
    fn options_parse_label_and_description() {
        let c = Choice::parse("fast: skip the tests").unwrap();
        assert_eq!(
            (c.label.as_str(), c.description.as_str()),
            ("fast", "skip the tests")
        );
        let c = Choice::parse("plain").unwrap();
        assert_eq!((c.label.as_str(), c.description.as_str()), ("plain", ""));
        assert!(Choice::parse(": nothing").is_err());
    }

    #[test]
    fn yes_and_no_are_read_as_typed() {
        // See: issue #17, item 7.
        use super::parse_yes_no;
        for yes in ["y", "Y", "yes", " YES ", "y\r"] {
            assert_eq!(parse_yes_no(yes), Some(true), "{yes:?}");
        }
        for no in ["", "n", "No", "  "] {
            assert_eq!(parse_yes_no(no), Some(false), "{no:?}");
        }
        assert_eq!(parse_yes_no("maybe"), None);
    }
}

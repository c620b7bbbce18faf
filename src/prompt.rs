//! Questions asked on the user's terminal (`/dev/tty`): `git evolv ask` and
//! the pre-push confirmation use the same code. The terminal is passed in, so
//! a caller without one (CI, IDEs, agents) decides what to do instead.
//!
//! This writes to the terminal, never to stdout or stderr.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::AsRawFd;

use dialoguer::console::Term;
use dialoguer::{MultiSelect, Select};
use serde::Serialize;

use crate::error::{Error, Result};

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

/// A yes/no question whose default (and Esc) is No.
// TODO(hooks): #16 item 20: dialoguer's Select wraps around, so Up from the
// default "no" lands on "yes — push anyway". A confirmation must not wrap
// (clamp at both ends, or put "yes" first so Up from "no" stays there).
pub fn confirm(term: &Term, prompt: &str) -> Result<bool> {
    let question = Question {
        prompt: prompt.to_string(),
        choices: vec![
            Choice {
                label: "no".into(),
                description: "cancel the push (default)".into(),
            },
            Choice {
                label: "yes".into(),
                description: "push anyway".into(),
            },
        ],
        multi: false,
        defaults: vec![0],
    };
    Ok(ask(term, &question)? == Answer::Selected(vec![1]))
}

/// Ignores SIGINT while a prompt holds the terminal in raw mode: the
/// terminal library re-raises Ctrl-C as SIGINT, which would kill us before
/// we can restore the cursor and report "cancelled" (exit 130).
struct SigintIgnored {
    previous: libc::sighandler_t,
}

impl SigintIgnored {
    #[allow(unsafe_code)]
    fn new() -> Self {
        // SAFETY: installs the SIG_IGN disposition; no handler code runs.
        let previous = unsafe { libc::signal(libc::SIGINT, libc::SIG_IGN) };
        SigintIgnored { previous }
    }
}

impl Drop for SigintIgnored {
    #[allow(unsafe_code)]
    fn drop(&mut self) {
        if self.previous != libc::SIG_ERR {
            // SAFETY: restores the disposition saved in `new`.
            unsafe {
                libc::signal(libc::SIGINT, self.previous);
            }
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
    #[allow(unsafe_code)]
    fn enter() -> Option<Self> {
        let tty = OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/tty")
            .ok()?;
        let fd = tty.as_raw_fd();
        let mut termios = std::mem::MaybeUninit::<libc::termios>::uninit();
        // SAFETY: `fd` is open for the lifetime of `tty`; tcgetattr fills
        // `termios` when it returns 0, and only then is it read.
        let original = unsafe {
            if libc::tcgetattr(fd, termios.as_mut_ptr()) != 0 {
                return None;
            }
            termios.assume_init()
        };
        let mut raw = original;
        // SAFETY: cfmakeraw only edits the struct it is given.
        unsafe { libc::cfmakeraw(&mut raw) };
        raw.c_oflag = original.c_oflag;
        // SAFETY: `fd` is open and `raw` is a valid termios.
        if unsafe { libc::tcsetattr(fd, libc::TCSADRAIN, &raw) } != 0 {
            return None;
        }
        Some(RawMode { tty, original })
    }
}

impl Drop for RawMode {
    #[allow(unsafe_code)]
    fn drop(&mut self) {
        // SAFETY: restores the settings read in `enter` on the same open fd.
        unsafe {
            libc::tcsetattr(self.tty.as_raw_fd(), libc::TCSADRAIN, &self.original);
        }
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
}

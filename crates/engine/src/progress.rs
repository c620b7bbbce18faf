//! Progress of long work, reported by the library and drawn (or not) by a
//! front end. The library never prints: ops report [`Event`]s to the
//! [`ProgressSink`] of the current scope, and the CLI draws them on stderr
//! (indicatif), the MCP server may send them as notifications, a test may
//! record them. Without a sink every report is a no-op.
//!
//! The sink is installed for the duration of one call with [`scoped`]
//! (the `tracing` crate's `with_default` pattern), so reporting needs no
//! extra parameter through every layer between an op and the loop that
//! does the work: `progress::scoped(sink, || ops::apply::apply(repo, &req))`.
//! Reports come from the thread that called [`scoped`].

use std::cell::RefCell;
use std::rc::Rc;

/// What is being worked on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Task {
    /// propose: files read and edited (`done` scanned, `matched` changed).
    Scan,
    /// apply: the validation worktree checked out (`done` of `total` files).
    Worktree,
    /// apply: a validation command running (`label` = the command, `done` =
    /// lines of output so far, `detail` = its last line; an `Update` comes
    /// at every poll, 20 a second, even when the count did not move, and a
    /// `Line` for each line as it is written).
    Validate,
    /// apply, rollback, recover: files written by a landing.
    Land,
}

/// One report.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// `task` starts; `label` says what it is (a command, a path).
    Start {
        task: Task,
        label: String,
        total: Option<u64>,
    },
    /// `task` has done `done` units; `detail` is free text (matches, a line).
    Update {
        task: Task,
        done: u64,
        total: Option<u64>,
        detail: Option<String>,
    },
    /// One line of output of `task`'s command (`label`), as it was written:
    /// without its line ending, invalid UTF-8 replaced.
    Line {
        task: Task,
        label: String,
        line: String,
    },
    /// `task` is over (whatever the outcome).
    Finish { task: Task },
}

/// Receives the reports of the current scope. Called often (once per file
/// scanned): implementations throttle themselves.
pub trait ProgressSink {
    fn event(&self, event: &Event);
}

/// The sink that ignores everything.
pub struct NoProgress;

impl ProgressSink for NoProgress {
    fn event(&self, _: &Event) {}
}

thread_local! {
    static CURRENT: RefCell<Option<Rc<dyn ProgressSink>>> = const { RefCell::new(None) };
}

/// Runs `f` with `sink` receiving the reports made on this thread; the
/// outer scope's sink is back afterwards, even if `f` panics.
pub fn scoped<R>(sink: Rc<dyn ProgressSink>, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Rc<dyn ProgressSink>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            CURRENT.with(|c| *c.borrow_mut() = self.0.take());
        }
    }
    let outer = CURRENT.with(|c| c.borrow_mut().replace(sink));
    let _restore = Restore(outer);
    f()
}

/// Reports `event` to the current scope's sink, if any.
pub fn report(event: Event) {
    // Cloned out first, so a sink may itself report or open a scope.
    let sink = CURRENT.with(|c| c.borrow().clone());
    if let Some(sink) = sink {
        sink.event(&event);
    }
}

/// Whether a sink is listening (to skip building reports nobody reads).
pub fn active() -> bool {
    CURRENT.with(|c| c.borrow().is_some())
}

/// `Start` of `task`.
pub fn start(task: Task, label: impl Into<String>, total: Option<u64>) {
    if active() {
        report(Event::Start {
            task,
            label: label.into(),
            total,
        });
    }
}

/// `Update` of `task`.
pub fn update(task: Task, done: u64, total: Option<u64>, detail: Option<String>) {
    if active() {
        report(Event::Update {
            task,
            done,
            total,
            detail,
        });
    }
}

/// `Finish` of `task`.
pub fn finish(task: Task) {
    if active() {
        report(Event::Finish { task });
    }
}

/// Follows the output file of a running command (`Task::Validate`): each
/// [`poll`](LineFollower::poll) reports the complete lines written since
/// the last one as `Line` events, then an `Update` with the line count and
/// the last line. Reads at an offset of its own (`pread`), so the writer's
/// position is untouched. Does nothing without a sink.
pub struct LineFollower<'a> {
    task: Task,
    label: &'a str,
    file: &'a std::fs::File,
    offset: u64,
    partial: Vec<u8>,
    lines: u64,
    last: Option<String>,
}

/// A line longer than this is reported in pieces, so a command that never
/// writes a newline cannot grow the buffer without bound.
const MAX_LINE: usize = 64 * 1024;

impl<'a> LineFollower<'a> {
    pub fn new(task: Task, label: &'a str, file: &'a std::fs::File) -> Self {
        LineFollower {
            task,
            label,
            file,
            offset: 0,
            partial: Vec::new(),
            lines: 0,
            last: None,
        }
    }

    /// Reports the lines written since the last poll, then the count.
    pub fn poll(&mut self) {
        if !active() {
            return;
        }
        self.read_new();
        while let Some(i) = self.partial.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.partial.drain(..=i).collect();
            self.emit(&line[..line.len() - 1]);
        }
        if self.partial.len() > MAX_LINE {
            let piece = std::mem::take(&mut self.partial);
            self.emit(&piece);
        }
        // A progress line rewritten with \r (cargo, git) is the freshest
        // news even before its newline comes.
        let detail = last_segment(&self.partial).or_else(|| self.last.clone());
        update(self.task, self.lines, None, detail);
    }

    /// Reports what is left (a last line without its newline too) and the
    /// final count; returns the number of lines.
    pub fn finish(mut self) -> u64 {
        self.poll();
        if !self.partial.is_empty() && active() {
            let rest = std::mem::take(&mut self.partial);
            self.emit(&rest);
            update(self.task, self.lines, None, self.last.clone());
        }
        self.lines
    }

    fn read_new(&mut self) {
        use std::os::unix::fs::FileExt;
        let mut buf = [0u8; 16 * 1024];
        while let Ok(n) = self.file.read_at(&mut buf, self.offset) {
            if n == 0 {
                break;
            }
            self.offset += n as u64;
            self.partial.extend_from_slice(&buf[..n]);
        }
    }

    fn emit(&mut self, line: &[u8]) {
        let text = String::from_utf8_lossy(line);
        let text = text.strip_suffix('\r').unwrap_or(&text).to_string();
        self.lines += 1;
        if let Some(seg) = last_segment(text.as_bytes()) {
            self.last = Some(seg);
        }
        report(Event::Line {
            task: self.task,
            label: self.label.to_string(),
            line: text,
        });
    }
}

/// The last non-blank `\r`-separated piece of `bytes`, trimmed at the end.
fn last_segment(bytes: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(bytes);
    text.split(['\n', '\r'])
        .rfind(|l| !l.trim().is_empty())
        .map(|l| l.trim_end().to_string())
}

/// git's own progress line (`Updating files:  45% (450/1000)`, as
/// `git checkout --progress` writes it): the done and total counts.
pub fn parse_git_progress(line: &str) -> Option<(u64, u64)> {
    let inner = line.rsplit_once('(')?.1;
    let inner = inner.split(')').next()?;
    let (done, total) = inner.split_once('/')?;
    Some((done.trim().parse().ok()?, total.trim().parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Record(RefCell<Vec<Event>>);

    impl ProgressSink for Record {
        fn event(&self, e: &Event) {
            self.0.borrow_mut().push(e.clone());
        }
    }

    #[test]
    fn reports_reach_the_scope_and_only_it() {
        finish(Task::Scan); // no scope: nothing happens
        let outer = Rc::new(Record(RefCell::new(Vec::new())));
        let inner = Rc::new(Record(RefCell::new(Vec::new())));
        scoped(outer.clone(), || {
            start(Task::Land, "files", Some(2));
            scoped(inner.clone(), || update(Task::Land, 1, Some(2), None));
            finish(Task::Land);
        });
        assert!(!active());
        assert_eq!(outer.0.borrow().len(), 2);
        assert_eq!(
            *inner.0.borrow(),
            vec![Event::Update {
                task: Task::Land,
                done: 1,
                total: Some(2),
                detail: None
            }]
        );
    }

    #[test]
    fn a_follower_reports_each_line_as_written_and_counts_them() {
        use std::io::Write;
        let mut file = tempfile::tempfile().unwrap();
        let reader = file.try_clone().unwrap();
        let seen = Rc::new(Record(RefCell::new(Vec::new())));
        let lines = scoped(seen.clone(), || {
            let mut f = LineFollower::new(Task::Validate, "make", &reader);
            file.write_all(b"one\r\ntw").unwrap();
            f.poll();
            file.write_all(b"o\n\xffthree 10%\rthree 90%").unwrap();
            f.poll();
            f.finish()
        });
        assert_eq!(lines, 3);
        let events = seen.0.borrow();
        let text: Vec<String> = events
            .iter()
            .map(|e| match e {
                Event::Line { label, line, .. } => format!("{label}: {line}"),
                Event::Update { done, detail, .. } => {
                    format!("{done} {}", detail.as_deref().unwrap_or("-"))
                }
                other => format!("{other:?}"),
            })
            .collect();
        assert_eq!(
            text,
            [
                "make: one",
                "1 tw",
                "make: two",
                "2 three 90%",
                "2 three 90%",
                "make: \u{fffd}three 10%\rthree 90%",
                "3 three 90%",
            ]
        );
    }

    #[test]
    fn git_progress_lines_parse() {
        assert_eq!(
            parse_git_progress("Updating files:  45% (450/1000)"),
            Some((450, 1000))
        );
        assert_eq!(
            parse_git_progress("Updating files: 100% (1000/1000), done."),
            Some((1000, 1000))
        );
        assert_eq!(parse_git_progress("fatal: bad"), None);
    }
}

//! Progress of long work, reported by the library and drawn (or not) by a
//! front end. The library never prints: ops report [`Event`]s to the
//! [`Progress`] of their `Context` (`crate::context`), and the CLI draws
//! them on stderr (indicatif), the MCP server may send them as
//! notifications, a test may record them. Without a sink every report is
//! a no-op.
//!
//! A `Progress` is a value, cloned into the threads that do the work
//! (`test` runs targets on worker threads), never a thread-local: a sink
//! is `Send + Sync` and receives reports from any of them.

use std::sync::Arc;

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

/// Receives the reports of one operation, from any of its threads. Called
/// often (once per file scanned): implementations throttle themselves.
pub trait ProgressSink: Send + Sync {
    fn event(&self, event: &Event);
}

/// The sink that ignores everything.
pub struct NoProgress;

impl ProgressSink for NoProgress {
    fn event(&self, _: &Event) {}
}

/// Where one operation's reports go: a sink, or nowhere. Cheap to clone.
#[derive(Clone, Default)]
pub struct Progress(Option<Arc<dyn ProgressSink>>);

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.active() {
            "Progress(sink)"
        } else {
            "Progress(none)"
        })
    }
}

impl Progress {
    /// Reports go nowhere.
    pub fn none() -> Progress {
        Progress(None)
    }

    /// Reports go to `sink`.
    pub fn to(sink: Arc<dyn ProgressSink>) -> Progress {
        Progress(Some(sink))
    }

    /// Whether a sink is listening (to skip building reports nobody reads).
    pub fn active(&self) -> bool {
        self.0.is_some()
    }

    /// Reports `event` to the sink, if any.
    pub fn report(&self, event: Event) {
        if let Some(sink) = &self.0 {
            sink.event(&event);
        }
    }

    /// `Start` of `task`.
    pub fn start(&self, task: Task, label: impl Into<String>, total: Option<u64>) {
        if self.active() {
            self.report(Event::Start {
                task,
                label: label.into(),
                total,
            });
        }
    }

    /// `Update` of `task`.
    pub fn update(&self, task: Task, done: u64, total: Option<u64>, detail: Option<String>) {
        if self.active() {
            self.report(Event::Update {
                task,
                done,
                total,
                detail,
            });
        }
    }

    /// `Finish` of `task`.
    pub fn finish(&self, task: Task) {
        if self.active() {
            self.report(Event::Finish { task });
        }
    }
}

/// Follows the output file of a running command (`Task::Validate`): each
/// [`poll`](LineFollower::poll) reports the complete lines written since
/// the last one as `Line` events, then an `Update` with the line count and
/// the last line. Reads at an offset of its own (`pread`), so the writer's
/// position is untouched. Does nothing without a sink.
pub struct LineFollower<'a> {
    progress: &'a Progress,
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
    pub fn new(
        progress: &'a Progress,
        task: Task,
        label: &'a str,
        file: &'a std::fs::File,
    ) -> Self {
        LineFollower {
            progress,
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
        if !self.progress.active() {
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
        self.progress.update(self.task, self.lines, None, detail);
    }

    /// Reports what is left (a last line without its newline too) and the
    /// final count; returns the number of lines.
    pub fn finish(mut self) -> u64 {
        self.poll();
        if !self.partial.is_empty() && self.progress.active() {
            let rest = std::mem::take(&mut self.partial);
            self.emit(&rest);
            self.progress
                .update(self.task, self.lines, None, self.last.clone());
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
        self.progress.report(Event::Line {
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

    use std::sync::Mutex;

    #[derive(Default)]
    struct Record(Mutex<Vec<Event>>);

    impl ProgressSink for Record {
        fn event(&self, e: &Event) {
            self.0.lock().unwrap().push(e.clone());
        }
    }

    #[test]
    fn reports_reach_the_sink_from_every_thread_that_holds_a_clone() {
        Progress::none().finish(Task::Scan); // no sink: nothing happens
        let seen = Arc::new(Record::default());
        let progress = Progress::to(seen.clone());
        progress.start(Task::Land, "files", Some(2));
        let worker = progress.clone();
        std::thread::spawn(move || worker.update(Task::Land, 1, Some(2), None))
            .join()
            .unwrap();
        progress.finish(Task::Land);
        assert!(!Progress::default().active());
        let events = seen.0.lock().unwrap();
        assert_eq!(events.len(), 3);
        assert_eq!(
            events[1],
            Event::Update {
                task: Task::Land,
                done: 1,
                total: Some(2),
                detail: None
            }
        );
    }

    #[test]
    fn a_follower_reports_each_line_as_written_and_counts_them() {
        use std::io::Write;
        let mut file = tempfile::tempfile().unwrap();
        let reader = file.try_clone().unwrap();
        let seen = Arc::new(Record::default());
        let progress = Progress::to(seen.clone());
        let lines = {
            let mut f = LineFollower::new(&progress, Task::Validate, "make", &reader);
            file.write_all(b"one\r\ntw").unwrap();
            f.poll();
            file.write_all(b"o\n\xffthree 10%\rthree 90%").unwrap();
            f.poll();
            f.finish()
        };
        assert_eq!(lines, 3);
        let events = seen.0.lock().unwrap();
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

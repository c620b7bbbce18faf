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
    /// apply: a validation command running (`done` = elapsed milliseconds,
    /// `detail` = its last line of output).
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

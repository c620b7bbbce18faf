//! `notifications/progress` from the library's progress reports
//! (`crate::progress`): a sink installed around a call whose request
//! carries a progress token. It turns reports into notifications with real
//! counts (files scanned of the total, files checked out, lines of
//! validation output, files landed) and hands them to an async task that
//! sends them; nothing here blocks the call's thread.
//!
//! MCP wants `progress` to increase with every notification, and a call
//! may run several phases with counts of their own (apply: checkout,
//! validation, landing). So `progress` counts the units of every phase so
//! far, the earlier phases' final counts plus the current one's, and
//! `total` is known while the current phase has one. The message names
//! the phase and its own count, as the CLI's progress line does. A
//! validation command counts one unit for starting, then one per line, so
//! even a silent command is announced.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use rmcp::model::{ProgressNotificationParam, ProgressToken};
use tokio::sync::mpsc::UnboundedSender;

use crate::progress::{Event, ProgressSink, Task};

/// At most one notification per this interval, except for the start of a
/// phase and its final count.
const MIN_INTERVAL: Duration = Duration::from_millis(100);

/// The sink of one call.
pub struct Notifier {
    token: ProgressToken,
    tx: UnboundedSender<ProgressNotificationParam>,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// Units of the phases that are over.
    base: u64,
    phase: Option<Phase>,
    /// The last `progress` sent, and when.
    sent: Option<(u64, Instant)>,
}

struct Phase {
    task: Task,
    label: String,
    done: u64,
    total: Option<u64>,
    detail: Option<String>,
}

impl Phase {
    /// Units so far: a validation counts its start as one.
    fn units(&self) -> u64 {
        self.done + u64::from(self.task == Task::Validate)
    }

    fn total_units(&self) -> Option<u64> {
        self.total
            .map(|t| t + u64::from(self.task == Task::Validate))
    }

    /// What the phase is at, in the words of the CLI's progress line.
    fn message(&self) -> String {
        let of = |what: &str| match self.total {
            Some(t) => format!("{what}: {}/{t}", self.done),
            None => format!("{what}: {}", self.done),
        };
        let mut text = match self.task {
            Task::Scan => of("Scanning files"),
            Task::Worktree if self.total.is_none() => "Checking out the validation worktree".into(),
            Task::Worktree => format!("{} files", of("Checking out the validation worktree")),
            Task::Validate => format!(
                "Running `{}`: {} line{} of output",
                self.label,
                self.done,
                if self.done == 1 { "" } else { "s" }
            ),
            Task::Land => of("Landing files"),
        };
        if let Some(d) = self.detail.as_deref().filter(|d| !d.is_empty()) {
            text.push_str(&format!(" ({d})"));
        }
        text
    }
}

impl Notifier {
    pub fn new(token: ProgressToken, tx: UnboundedSender<ProgressNotificationParam>) -> Self {
        Notifier {
            token,
            tx,
            state: Mutex::default(),
        }
    }

    /// Sends the current count if it moved, and, unless `now`, if the last
    /// notification is old enough.
    fn send(&self, state: &mut State, now: bool) {
        let Some(phase) = &state.phase else { return };
        let progress = state.base + phase.units();
        if let Some((last, at)) = state.sent
            && (progress <= last || (!now && at.elapsed() < MIN_INTERVAL))
        {
            return;
        }
        let mut param = ProgressNotificationParam::new(self.token.clone(), progress as f64)
            .with_message(phase.message());
        if let Some(t) = phase.total_units() {
            param = param.with_total((state.base + t) as f64);
        }
        // The receiver is gone only when the call is over.
        let _ = self.tx.send(param);
        state.sent = Some((progress, Instant::now()));
    }
}

impl ProgressSink for Notifier {
    fn event(&self, event: &Event) {
        // Reports may come from several threads (test's jobs); the phase
        // model takes them one at a time.
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        match event {
            Event::Start { task, label, total } => {
                if let Some(old) = state.phase.take() {
                    state.base += old.units();
                }
                state.phase = Some(Phase {
                    task: *task,
                    label: label.clone(),
                    done: 0,
                    total: *total,
                    detail: None,
                });
                self.send(&mut state, true);
            }
            Event::Update {
                task,
                done,
                total,
                detail,
            } => {
                let Some(phase) = state.phase.as_mut().filter(|p| p.task == *task) else {
                    return;
                };
                phase.done = (*done).max(phase.done);
                phase.total = total.or(phase.total);
                if detail.is_some() {
                    phase.detail = detail.clone();
                }
                self.send(&mut state, false);
            }
            Event::Finish { task } => {
                if state.phase.as_ref().is_some_and(|p| p.task == *task) {
                    self.send(&mut state, true);
                }
            }
            Event::Line { .. } => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::Progress;
    use rmcp::model::NumberOrString;
    use std::sync::Arc;

    fn run(f: impl FnOnce(&Progress)) -> Vec<(f64, Option<f64>, String)> {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let sink = Arc::new(Notifier::new(
            ProgressToken(NumberOrString::String("t".into())),
            tx,
        ));
        f(&Progress::to(sink));
        let mut out = Vec::new();
        while let Ok(p) = rx.try_recv() {
            out.push((p.progress, p.total, p.message.unwrap_or_default()));
        }
        out
    }

    #[test]
    fn counts_add_up_across_phases_and_always_increase() {
        let sent = run(|progress| {
            progress.start(Task::Scan, "files", Some(3));
            progress.update(Task::Scan, 0, Some(3), Some("0 matched".into()));
            progress.update(Task::Scan, 3, Some(3), Some("1 matched".into()));
            progress.finish(Task::Scan);
            progress.start(Task::Validate, "make", None);
            progress.update(Task::Validate, 0, None, None);
            progress.update(Task::Validate, 2, None, Some("ok".into()));
            progress.finish(Task::Validate);
            progress.start(Task::Land, "files", Some(1));
            progress.update(Task::Land, 1, Some(1), None);
            progress.finish(Task::Land);
        });
        assert_eq!(
            sent,
            [
                (0.0, Some(3.0), "Scanning files: 0/3".to_string()),
                (3.0, Some(3.0), "Scanning files: 3/3 (1 matched)".into()),
                (4.0, None, "Running `make`: 0 lines of output".into()),
                (6.0, None, "Running `make`: 2 lines of output (ok)".into()),
                (7.0, Some(7.0), "Landing files: 1/1".into()),
            ]
        );
    }
}

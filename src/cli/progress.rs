//! Draws the library's progress reports (`crate::progress`) on stderr with
//! indicatif, as git draws its own: only on a terminal, not under
//! `--quiet` or `--json` (the caller decides, see `Output::progress`),
//! and nothing for work that ends within [`DELAY`]. Bars are cleared when
//! their task ends, so they never mix with the output that follows.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::progress::{Event, ProgressSink, Task};

/// Work shorter than this draws nothing.
pub const DELAY: Duration = Duration::from_millis(300);

/// One task's bar, hidden until the task has run for [`DELAY`].
struct Bar {
    bar: ProgressBar,
    started: Instant,
    shown: bool,
}

/// The bars of one command.
#[derive(Default)]
pub struct Bars {
    bars: Mutex<HashMap<Task, Bar>>,
}

fn style(task: Task, total: bool) -> ProgressStyle {
    let template = match (task, total) {
        (Task::Scan, _) => "Scanning files: {pos}/{len} ({msg}) {elapsed}",
        (Task::Worktree, true) => {
            "Checking out the validation worktree: {pos}/{len} files {elapsed}"
        }
        (Task::Worktree, false) => "{spinner} Checking out the validation worktree {elapsed}",
        (Task::Validate, _) => "{spinner} Running {prefix} ({elapsed}) {wide_msg}",
        (Task::Land, _) => "Landing files: {pos}/{len} {elapsed}",
    };
    ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar())
}

impl Bars {
    /// The bars (a report may come from any of the command's threads).
    fn bars(&self) -> MutexGuard<'_, HashMap<Task, Bar>> {
        self.bars.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn start(&self, task: Task, label: &str, total: Option<u64>) {
        let bar = ProgressBar::with_draw_target(total, ProgressDrawTarget::hidden());
        bar.set_style(style(task, total.is_some()));
        if task == Task::Validate {
            bar.set_prefix(format!("`{label}`"));
        }
        let entry = Bar {
            bar,
            started: Instant::now(),
            shown: false,
        };
        if let Some(old) = self.bars().insert(task, entry) {
            old.bar.finish_and_clear();
        }
    }

    fn update(&self, task: Task, done: u64, total: Option<u64>, detail: Option<&str>) {
        let mut bars = self.bars();
        let Some(b) = bars.get_mut(&task) else {
            return;
        };
        if let Some(t) = total
            && b.bar.length() != Some(t)
        {
            b.bar.set_length(t);
            b.bar.set_style(style(task, true));
        }
        if task != Task::Validate {
            b.bar.set_position(done);
        }
        if let Some(d) = detail {
            b.bar.set_message(d.to_string());
        }
        if !b.shown && b.started.elapsed() >= DELAY {
            b.shown = true;
            b.bar
                .set_draw_target(ProgressDrawTarget::stderr_with_hz(10));
        }
        if b.shown {
            b.bar.tick();
        }
    }

    fn finish(&self, task: Task) {
        if let Some(b) = self.bars().remove(&task) {
            b.bar.finish_and_clear();
        }
    }
}

impl ProgressSink for Bars {
    fn event(&self, event: &Event) {
        match event {
            Event::Start { task, label, total } => self.start(*task, label, *total),
            Event::Update {
                task,
                done,
                total,
                detail,
            } => self.update(*task, *done, *total, detail.as_deref()),
            Event::Finish { task } => self.finish(*task),
            // The bar shows the last line, from `Update`.
            Event::Line { .. } => {}
        }
    }
}

impl Drop for Bars {
    fn drop(&mut self) {
        // A task that ended in an error sent no Finish: clear it too.
        for (_, b) in self.bars().drain() {
            b.bar.finish_and_clear();
        }
    }
}

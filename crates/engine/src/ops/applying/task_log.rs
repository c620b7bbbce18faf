//! A background task's `output.log`: what the task says it does, each line
//! a validation command writes as it is written (so `task_output` shows
//! it while the task runs), and the summary of what landed or failed.

use std::fs;
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::error::Error;
use crate::ops::applying::apply;
use crate::progress::{self, Event, ProgressSink};

/// Appends `text` to the task's log; a log that cannot be written loses
/// the text, never the task.
pub(super) fn append_output(dir: &Path, text: &str) {
    if let Ok(mut f) = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join("output.log"))
    {
        let _ = f.write_all(text.as_bytes());
    }
}

/// The task's log as a progress sink: the command line of each validation
/// and each line it writes, appended as they come.
pub(super) struct LogLines {
    file: Mutex<Option<fs::File>>,
    /// Whether any validation output went to the log this way (then the
    /// summary at the end does not repeat its tail).
    streamed: AtomicBool,
}

impl LogLines {
    pub(super) fn new(dir: &Path) -> Self {
        let file = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join("output.log"))
            .ok();
        LogLines {
            file: Mutex::new(file),
            streamed: AtomicBool::new(false),
        }
    }

    /// Whether any validation output went to the log this way.
    pub(super) fn streamed(&self) -> bool {
        self.streamed.load(Ordering::SeqCst)
    }
}

impl ProgressSink for LogLines {
    fn event(&self, event: &Event) {
        let text = match event {
            Event::Start {
                task: progress::Task::Validate,
                label,
                ..
            } => format!("$ {label}\n"),
            Event::Line {
                task: progress::Task::Validate,
                line,
                ..
            } => format!("{line}\n"),
            _ => return,
        };
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(file) = file.as_mut() {
            let _ = file.write_all(text.as_bytes());
            self.streamed.store(true, Ordering::SeqCst);
        }
    }
}

/// `tail` under its summary line, unless the lines went to the log as
/// they were written.
fn push_tail(text: &mut String, tail: &str, streamed: bool) {
    if streamed {
        return;
    }
    text.push_str(tail);
    if !tail.is_empty() && !tail.ends_with('\n') {
        text.push('\n');
    }
}

pub(super) fn describe_landed(o: &apply::ApplyOutcome, streamed: bool) -> String {
    let mut text = String::new();
    for v in &o.validation {
        text.push_str(&format!(
            "`{}` exited {} in {} ms\n",
            v.command, v.exit_code, v.duration_ms
        ));
        push_tail(&mut text, &v.output_tail, streamed);
    }
    let verb = if o.dry_run { "would land" } else { "landed" };
    text.push_str(&format!(
        "{} {verb} as {} on {} ({} file(s), +{} -{})\n",
        o.patch_id,
        o.commit,
        o.branch,
        o.modified_files.len(),
        o.lines_added,
        o.lines_removed
    ));
    text
}

pub(super) fn describe_error(e: &Error, streamed: bool) -> String {
    let mut text = String::new();
    if let Some(reports) = e.to_body().validation {
        for r in reports {
            text.push_str(&format!("`{}` exited {}\n", r.command, r.exit_code));
            push_tail(&mut text, &r.output_tail, streamed);
        }
    }
    text.push_str(&format!("error: {e}\nhint: {}\n", e.hint()));
    text
}

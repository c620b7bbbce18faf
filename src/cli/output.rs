//! Where output goes: data (diffs, JSON, tables) to stdout, errors to
//! stderr. A closed stdout (`| head`) is not an error.

use std::io::{IsTerminal, Write};

use serde::Serialize;

use crate::diff;
use crate::error::Error;

/// `--color`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// The rendering context of one command.
#[derive(Debug, Clone)]
pub struct Output {
    pub json: bool,
    pub color: bool,
    /// The first failed write to stdout other than a closed pipe (a full
    /// disk, EIO): reported at the end, so `> file` never fails silently.
    write_error: std::sync::Arc<std::sync::Mutex<Option<std::io::Error>>>,
}

impl Output {
    /// `auto` colours when stdout is a terminal and `NO_COLOR` is unset or
    /// empty; JSON is never coloured.
    pub fn new(json: bool, choice: ColorChoice) -> Self {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let color = !json
            && match choice {
                ColorChoice::Always => true,
                ColorChoice::Never => false,
                ColorChoice::Auto => !no_color && std::io::stdout().is_terminal(),
            };
        Output {
            json,
            color,
            write_error: Default::default(),
        }
    }

    /// Writes bytes to stdout, ignoring a closed pipe; any other failure
    /// is kept for [`Output::take_write_error`].
    pub fn data(&self, bytes: &[u8]) {
        let mut stdout = std::io::stdout().lock();
        if let Err(e) = stdout.write_all(bytes).and_then(|()| stdout.flush())
            && e.kind() != std::io::ErrorKind::BrokenPipe
            && let Ok(mut slot) = self.write_error.lock()
        {
            slot.get_or_insert(e);
        }
    }

    /// The first write to stdout that failed for a reason other than a
    /// closed pipe, as an error to report (exit 2).
    pub fn take_write_error(&self) -> Option<Error> {
        let e = self.write_error.lock().ok()?.take()?;
        Some(Error::io("write to", "standard output", e))
    }

    /// Writes a line of text to stdout.
    pub fn line(&self, text: &str) {
        self.data(format!("{text}\n").as_bytes());
    }

    /// Writes a unified diff, coloured when enabled.
    pub fn diff(&self, patch: &[u8]) {
        if self.color {
            self.data(&diff::colorize(patch));
        } else {
            self.data(patch);
        }
    }

    /// An outcome as `--json` prints it: `{"success": true, …its fields}`.
    /// The envelope is the front end's; outcomes are plain data.
    pub fn success_json<T: Serialize>(&self, outcome: &T) {
        #[derive(Serialize)]
        struct Envelope<'a, T> {
            success: bool,
            #[serde(flatten)]
            outcome: &'a T,
        }
        self.json_value(&Envelope {
            success: true,
            outcome,
        });
    }

    /// Pretty-printed JSON on stdout.
    pub fn json_value<T: Serialize>(&self, value: &T) {
        let text = serde_json::to_string_pretty(value).expect("outcomes serialise");
        self.line(&text);
    }

    /// Status text on stderr (progress, hints).
    pub fn status(&self, text: &str) {
        let _ = writeln!(std::io::stderr().lock(), "{text}");
    }

    /// Bookkeeping that had to wait, on stderr (under `--json` the outcome
    /// carries it as `warnings`).
    pub fn deferred(&self, d: &crate::store::pending::Deferred) {
        if !self.json {
            self.status(&format!(
                "warning: {} [{}]
hint: {}",
                d.message, d.code, d.hint
            ));
        }
    }

    /// Reports an error: JSON on stdout with `--json`, text on stderr.
    pub fn error(&self, e: &Error) {
        if self.json {
            self.json_value(&serde_json::json!({ "success": false, "error": e.to_body() }));
            return;
        }
        let mut text = format!("error: {e}\n");
        // Each cause once, on its own line (jj's `Caused by:`).
        let mut source = std::error::Error::source(e);
        while let Some(cause) = source {
            text.push_str(&format!("caused by: {cause}\n"));
            source = cause.source();
        }
        if let Some(reports) = e.to_body().validation {
            for r in reports {
                let tail = r.output_tail.trim_end();
                if !tail.is_empty() {
                    text.push_str(&format!(
                        "--- output of `{}` (tail) ---\n{tail}\n",
                        r.command
                    ));
                }
            }
        }
        text.push_str(&format!("hint: {}\n", e.hint()));
        let _ = std::io::stderr().lock().write_all(text.as_bytes());
    }
}

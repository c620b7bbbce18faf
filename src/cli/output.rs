//! Where output goes: data (diffs, JSON, tables) to stdout, through the
//! pager when git would use one (pager.rs); errors, warnings and progress
//! to stderr. Colours follow git's config (color.rs). A closed stdout
//! (`| head`, a pager quit early) is not an error.

use std::io::{IsTerminal, Write};
use std::path::Path;

use serde::Serialize;

use super::color::{self, ColorChoice, ColorInputs, DiffPalette};
use super::pager::{self, PagerInputs, PagerSetting};
use crate::error::{Error, Result};
use crate::progress::Progress;

/// The rendering context of one command.
#[derive(Debug, Clone)]
pub struct Output {
    pub json: bool,
    pub color: bool,
    /// `--quiet`: no progress, no status lines; errors still show.
    pub quiet: bool,
    /// git's diff colours (`color.diff.<slot>`).
    pub palette: DiffPalette,
    /// The first failed write to stdout other than a closed pipe (a full
    /// disk, EIO): reported at the end, so `> file` never fails silently.
    write_error: std::sync::Arc<std::sync::Mutex<Option<std::io::Error>>>,
}

/// The global flags and facts one command's output depends on.
#[derive(Debug, Clone, Default)]
pub struct Flags<'a> {
    pub json: bool,
    pub color: Option<ColorChoice>,
    pub quiet: bool,
    pub no_pager: bool,
    /// The subcommand's name, for `pager.evolv.<name>`.
    pub subcommand: &'a str,
    /// The subcommand's output is long (it pages by default).
    pub pages_by_default: bool,
}

/// A git config reader: `Some(None)` is a bare key (git's implicit true).
pub type Lookup<'a> = &'a dyn Fn(&str) -> Option<Option<String>>;

impl Output {
    /// Plain output: colour only when asked (`--color always`) and never
    /// for JSON; no pager. For callers without a configuration.
    pub fn new(json: bool, choice: ColorChoice) -> Self {
        Output {
            json,
            color: !json && choice == ColorChoice::Always,
            quiet: false,
            palette: DiffPalette::default(),
            write_error: Default::default(),
        }
    }

    /// The output of one command as git would set it up: colours from
    /// `color.evolv` / `color.diff` / `color.ui`, `--color` and `NO_COLOR`,
    /// the diff slots, and the pager (armed, started by the first data).
    pub fn configure(flags: &Flags<'_>, config: Lookup<'_>) -> Result<Self> {
        let stdout_is_tty = std::io::stdout().is_terminal();
        let env = |k: &str| std::env::var(k).ok();
        let pager_in_use = pager::pager_in_use_env();
        let string = |k: &str| config(k).map(|v| v.unwrap_or_else(|| "true".into()));
        let colorbool = |key: &str| -> Result<Option<ColorChoice>> {
            match config(key) {
                None => Ok(None),
                Some(v) => color::parse_colorbool(v.as_deref())
                    .map(Some)
                    .ok_or_else(|| Error::InvalidConfig {
                        key: key.into(),
                        value: v.unwrap_or_default(),
                        expected: "auto, always, never, true or false".into(),
                    }),
            }
        };
        let mut config_choice = None;
        for key in ["color.evolv", "color.diff", "color.ui"] {
            if let Some(c) = colorbool(key)? {
                config_choice = Some(c);
                break;
            }
        }
        let color_pager = match config("color.pager") {
            Some(v) => color::parse_colorbool(v.as_deref()) != Some(ColorChoice::Never),
            None => true,
        };
        let pager_setting = [
            format!("pager.evolv.{}", flags.subcommand),
            "pager.evolv".into(),
        ]
        .iter()
        .find_map(|k| config(k))
        .map(|v| PagerSetting::parse(v.as_deref()));
        let pager_command = pager::choose(&PagerInputs {
            pages_by_default: flags.pages_by_default,
            setting: pager_setting,
            git_pager: env("GIT_PAGER"),
            core_pager: string("core.pager"),
            pager: env("PAGER"),
            stdout_is_tty,
            json: flags.json,
            no_pager: flags.no_pager,
            pager_in_use,
        });
        let color = color::want_color(&ColorInputs {
            flag: flags.color,
            config: config_choice,
            no_color: env("NO_COLOR").is_some_and(|v| !v.is_empty()),
            stdout_is_tty,
            pager_colors: color_pager && (pager_in_use || pager_command.is_some()),
            term_dumb: env("TERM").as_deref() == Some("dumb"),
            json: flags.json,
        });
        let palette = if color {
            DiffPalette::from_config(|k| string(k)).map_err(|(key, value)| {
                Error::InvalidConfig {
                    key,
                    value,
                    expected: "a git colour: up to two colours (normal, black, red, green, yellow, blue, magenta, cyan, white, default, bright<colour>, 0-255, #rrggbb) and attributes (bold, dim, italic, ul, blink, reverse, strike, no<attribute>)".into(),
                }
            })?
        } else {
            DiffPalette::default()
        };
        pager::arm(pager_command);
        Ok(Output {
            json: flags.json,
            color,
            quiet: flags.quiet,
            palette,
            write_error: Default::default(),
        })
    }

    /// Where a command's progress goes: bars drawn on stderr when
    /// allowed, else nowhere.
    pub fn progress(&self) -> Progress {
        if self.progress_allowed() {
            Progress::to(std::sync::Arc::new(super::progress::Bars::default()))
        } else {
            Progress::none()
        }
    }

    /// Whether a manual page may open in man: stdout is a terminal.
    pub fn manual_on_terminal(&self) -> bool {
        !self.json && std::io::stdout().is_terminal()
    }

    /// Whether progress may be drawn: stderr is a terminal, and neither
    /// `--quiet` nor `--json`.
    pub fn progress_allowed(&self) -> bool {
        !self.quiet && !self.json && std::io::stderr().is_terminal()
    }

    /// Writes bytes to stdout, ignoring a closed pipe; any other failure
    /// is kept for [`Output::take_write_error`].
    pub fn data(&self, bytes: &[u8]) {
        pager::start_if_armed();
        let mut stdout = std::io::stdout().lock();
        self.keep_write_error(stdout.write_all(bytes).and_then(|()| stdout.flush()));
    }

    /// Keeps a failed write to stdout for [`Output::take_write_error`]
    /// (a closed pipe is no failure).
    fn keep_write_error(&self, written: std::io::Result<()>) {
        if let Err(e) = written
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
            self.data(&self.palette.paint(patch));
        } else {
            self.data(patch);
        }
    }

    /// `text` in the `commit` slot (`git show`'s first line), if colouring.
    pub fn paint_commit(&self, text: &str) -> String {
        if self.color {
            color::paint_str(&self.palette.commit, text)
        } else {
            text.to_string()
        }
    }

    /// An outcome as `--json` prints it: `{"success": true, …its fields}`.
    /// The envelope is the front end's; outcomes are plain data.
    pub fn success_json<T: Serialize>(&self, outcome: &T) {
        self.json_value(&crate::ops::succeeded::Succeeded::new(outcome));
    }

    /// Pretty-printed JSON on stdout.
    /// Written as it is serialised, through one buffer: `list --json` of
    /// 10,000 proposals is 5 MB, which was built whole, then copied to add
    /// the newline.
    pub fn json_value<T: Serialize>(&self, value: &T) {
        pager::start_if_armed();
        let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
        let written = super::pretty_json::to_writer(&mut out, value)
            .map_err(std::io::Error::from)
            .and_then(|()| out.write_all(b"\n"))
            .and_then(|()| out.flush());
        self.keep_write_error(written);
    }

    /// Status text on stderr (hints, summaries); nothing under `--quiet`.
    pub fn status(&self, text: &str) {
        if self.quiet {
            return;
        }
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

/// Reads the colour and pager settings (`color.*`, `pager.evolv*`,
/// `core.pager`) as git sees them, from the settings of a session without
/// a repository around `dir` (every layer, `git -c` included); nothing is
/// read for `--json`, which neither pages nor colours. A config that
/// cannot be read is an error.
pub fn config_lookup(
    dir: Option<&Path>,
    flags: &Flags<'_>,
) -> Result<impl Fn(&str) -> Option<Option<String>> + use<>> {
    use crate::ops::session::SettingsRequest;
    use crate::ops::{Session, Settings};
    let settings = if flags.json {
        Settings::default()
    } else {
        let start = match dir {
            Some(d) => d.to_path_buf(),
            None => std::env::current_dir().unwrap_or_else(|_| ".".into()),
        };
        Session::open_for::<SettingsRequest>(
            &start,
            crate::context::Context::new(super::CLI_ACTOR),
        )?
        .run(&SettingsRequest)?
    };
    Ok(move |key: &str| settings.raw(key))
}

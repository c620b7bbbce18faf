//! The pager, chosen as git chooses it (`pager.c`, `git.c`): never unless
//! stdout is a terminal, never under `--json`, `--no-pager` or when
//! `GIT_PAGER_IN_USE` says git already paged us; `pager.evolv.<subcommand>`
//! (then `pager.evolv`) may turn it on or off or name a command; the
//! command is `GIT_PAGER`, else that `pager.*` command, else `core.pager`,
//! else `PAGER`, else `less`; an empty command or `cat` means none. It runs
//! under `sh -c` with `LESS=FRX` and `LV=-c` unless those are set, and
//! `GIT_PAGER_IN_USE=true`.
//!
//! Unlike git, the pager starts with the first byte of data on stdout, not
//! when the command starts: progress drawn before then stays on the
//! terminal, and a command that fails before printing anything shows its
//! error without a pager. From then on stdout (and stderr, when it is the
//! terminal, as git does) go to the pager, so later messages do not draw
//! over it. When the pager quits early, writes fail with a broken pipe,
//! which [`super::Output`] ignores: no error is shown.

use std::process::{Child, Command, Stdio};
use std::sync::Mutex;

use crate::sys::{self, StdStream};

/// `pager.evolv` / `pager.evolv.<subcommand>` (`git.c`'s
/// `check_pager_config`): a boolean, or a command that also turns it on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PagerSetting {
    Off,
    On,
    Command(String),
}

impl PagerSetting {
    /// A config value as git reads it: a boolean, else a command. A bare
    /// key (`None`) is true.
    pub fn parse(value: Option<&str>) -> Self {
        match value {
            None => PagerSetting::On,
            Some(v) if is_true(v) => PagerSetting::On,
            Some(v) if is_false(v) => PagerSetting::Off,
            Some(v) => PagerSetting::Command(v.to_string()),
        }
    }
}

fn is_true(v: &str) -> bool {
    matches!(v.to_ascii_lowercase().as_str(), "true" | "yes" | "on" | "1")
}

fn is_false(v: &str) -> bool {
    matches!(
        v.to_ascii_lowercase().as_str(),
        "false" | "no" | "off" | "0" | ""
    )
}

/// Everything the choice depends on, gathered by the caller.
#[derive(Debug, Clone, Default)]
pub struct PagerInputs {
    /// The subcommand pages by default (long output: show, log, list,
    /// propose, lint --range).
    pub pages_by_default: bool,
    /// `pager.evolv.<subcommand>`, else `pager.evolv`.
    pub setting: Option<PagerSetting>,
    pub git_pager: Option<String>,
    pub core_pager: Option<String>,
    pub pager: Option<String>,
    pub stdout_is_tty: bool,
    pub json: bool,
    pub no_pager: bool,
    /// `GIT_PAGER_IN_USE` is true: git runs a pager for us already.
    pub pager_in_use: bool,
}

/// The pager command to run, or `None` for no pager.
pub fn choose(i: &PagerInputs) -> Option<String> {
    if i.json || i.no_pager || i.pager_in_use || !i.stdout_is_tty {
        return None;
    }
    let wanted = match &i.setting {
        Some(PagerSetting::Off) => false,
        Some(PagerSetting::On | PagerSetting::Command(_)) => true,
        None => i.pages_by_default,
    };
    if !wanted {
        return None;
    }
    let from_setting = match &i.setting {
        Some(PagerSetting::Command(c)) => Some(c.clone()),
        _ => None,
    };
    let command = i
        .git_pager
        .clone()
        .or(from_setting)
        .or_else(|| i.core_pager.clone())
        .or_else(|| i.pager.clone())
        .unwrap_or_else(|| "less".to_string());
    (!command.is_empty() && command != "cat").then_some(command)
}

/// Whether `GIT_PAGER_IN_USE` holds a true value, as git's
/// `pager_in_use()` reads it.
pub fn pager_in_use_env() -> bool {
    std::env::var("GIT_PAGER_IN_USE").is_ok_and(|v| is_true(&v))
}

/// The armed or running pager of this process.
enum State {
    Idle,
    Armed(String),
    Running(Child),
}

static STATE: Mutex<State> = Mutex::new(State::Idle);

/// Arms `command` to start at the first data written to stdout.
pub fn arm(command: Option<String>) {
    if let Some(c) = command {
        *STATE.lock().unwrap_or_else(|e| e.into_inner()) = State::Armed(c);
    }
}

/// Starts the armed pager, if any and not yet started. A pager that cannot
/// start leaves stdout as it is, as git does.
pub fn start_if_armed() {
    let mut state = STATE.lock().unwrap_or_else(|e| e.into_inner());
    let State::Armed(command) = &*state else {
        return;
    };
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(command).stdin(Stdio::piped());
    cmd.env("GIT_PAGER_IN_USE", "true");
    for (key, value) in [("LESS", "FRX"), ("LV", "-c")] {
        if std::env::var_os(key).is_none() {
            cmd.env(key, value);
        }
    }
    *state = match cmd.spawn() {
        Ok(mut child) => {
            if let Some(stdin) = child.stdin.take() {
                redirect_to(stdin);
            }
            State::Running(child)
        }
        Err(_) => State::Idle,
    };
}

/// Points stdout (and a terminal stderr) at the pager's stdin.
fn redirect_to(pipe: std::process::ChildStdin) {
    use std::io::{IsTerminal, Write};
    let _ = std::io::stdout().flush();
    let stderr_too = std::io::stderr().is_terminal();
    let _ = sys::point_std_stream(StdStream::Output, &pipe);
    if stderr_too {
        let _ = sys::point_std_stream(StdStream::Error, &pipe);
    }
    // Our copies (1, 2) keep the pipe open; the original closes here.
    drop(pipe);
}

/// Closes our end of the pipe and waits for the pager to exit, as git's
/// `wait_for_pager` does; a no-op without a running pager.
pub fn finish() {
    use std::io::Write;
    let mut state = STATE.lock().unwrap_or_else(|e| e.into_inner());
    if let State::Running(child) = &mut *state {
        let _ = std::io::stdout().flush();
        let _ = std::io::stderr().flush();
        if let Ok(null) = std::fs::OpenOptions::new().write(true).open("/dev/null") {
            // Pointing 1 and 2 at /dev/null closes the pipe's last write
            // ends so the pager sees EOF.
            let _ = sys::point_std_stream(StdStream::Output, &null);
            let _ = sys::point_std_stream(StdStream::Error, &null);
        }
        let _ = child.wait();
    }
    *state = State::Idle;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tty() -> PagerInputs {
        PagerInputs {
            pages_by_default: true,
            stdout_is_tty: true,
            ..Default::default()
        }
    }

    #[test]
    fn git_order_decides_the_command() {
        let mut i = tty();
        assert_eq!(choose(&i).as_deref(), Some("less"));
        i.pager = Some("more".into());
        assert_eq!(choose(&i).as_deref(), Some("more"));
        i.core_pager = Some("most".into());
        assert_eq!(choose(&i).as_deref(), Some("most"));
        i.setting = Some(PagerSetting::Command("bat".into()));
        assert_eq!(choose(&i).as_deref(), Some("bat"));
        i.git_pager = Some("delta".into());
        assert_eq!(choose(&i).as_deref(), Some("delta"));
        i.git_pager = Some("cat".into());
        assert_eq!(choose(&i), None);
        i.git_pager = Some(String::new());
        assert_eq!(choose(&i), None);
    }

    #[test]
    fn never_without_a_terminal_or_when_told_not_to() {
        for off in [
            PagerInputs {
                stdout_is_tty: false,
                ..tty()
            },
            PagerInputs {
                json: true,
                ..tty()
            },
            PagerInputs {
                no_pager: true,
                ..tty()
            },
            PagerInputs {
                pager_in_use: true,
                ..tty()
            },
            PagerInputs {
                setting: Some(PagerSetting::Off),
                ..tty()
            },
            PagerInputs {
                pages_by_default: false,
                ..tty()
            },
        ] {
            assert_eq!(choose(&off), None, "{off:?}");
        }
        let on = PagerInputs {
            pages_by_default: false,
            setting: Some(PagerSetting::On),
            ..tty()
        };
        assert_eq!(choose(&on).as_deref(), Some("less"));
    }

    #[test]
    fn settings_parse_as_git_reads_them() {
        assert_eq!(PagerSetting::parse(None), PagerSetting::On);
        assert_eq!(PagerSetting::parse(Some("yes")), PagerSetting::On);
        assert_eq!(PagerSetting::parse(Some("off")), PagerSetting::Off);
        assert_eq!(
            PagerSetting::parse(Some("less -S")),
            PagerSetting::Command("less -S".into())
        );
    }
}

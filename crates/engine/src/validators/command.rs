//! Configured validators: `evolv.validator.<name>.glob` and
//! `evolv.validator.<name>.command`. The command runs in a temporary
//! directory holding the matching changed files at their repository paths;
//! `{files}` expands to those paths, shell-quoted.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::git::config::Config;
use globset::{Glob, GlobMatcher};

use super::{ChangedFile, ValidatorReport};
use crate::error::{Error, Result};

/// Longest a validator may run.
const TIMEOUT: Duration = Duration::from_secs(120);
/// Bytes of output kept.
const TAIL: usize = 8 * 1024;

/// One configured validator.
pub struct Configured {
    pub name: String,
    pub globs: Vec<(String, GlobMatcher)>,
    pub command: String,
}

/// Every validator in git config, in name order. `config` is the config
/// adapter's (libgit2 does not see `git -c`, and a validator set there
/// must not be silently skipped: #10 item 4, #16).
pub fn configured(config: &Config) -> Result<Vec<Configured>> {
    let mut by_name: std::collections::BTreeMap<String, (Vec<String>, Option<String>)> =
        Default::default();
    for entry in config.entries() {
        let (key, Some(value)) = (entry.key.as_str(), entry.value.as_deref()) else {
            continue;
        };
        let Some(rest) = key.strip_prefix("evolv.validator.") else {
            continue;
        };
        let Some((name, field)) = rest.rsplit_once('.') else {
            continue;
        };
        if !field.eq_ignore_ascii_case("glob") && !field.eq_ignore_ascii_case("command") {
            continue;
        }
        let slot = by_name.entry(name.to_string()).or_default();
        if field.eq_ignore_ascii_case("glob") {
            slot.0.push(value.to_string());
        } else {
            slot.1 = Some(value.to_string());
        }
    }
    let mut out = Vec::new();
    for (name, (globs, command)) in by_name {
        let Some(command) = command else {
            return Err(Error::InvalidConfig {
                key: format!("evolv.validator.{name}.command"),
                value: String::new(),
                expected: "a shell command (the validator has a glob but no command)".into(),
            });
        };
        let globs = if globs.is_empty() {
            vec!["**".to_string()]
        } else {
            globs
        };
        let mut matchers = Vec::new();
        for g in globs {
            let m = Glob::new(&g)
                .map_err(|e| Error::InvalidConfig {
                    key: format!("evolv.validator.{name}.glob"),
                    value: g.clone(),
                    expected: format!("a glob ({e})"),
                })?
                .compile_matcher();
            matchers.push((g, m));
        }
        out.push(Configured {
            name,
            globs: matchers,
            command,
        });
    }
    Ok(out)
}

impl Configured {
    fn matches(&self, path: &str) -> bool {
        let name = path.rsplit('/').next().unwrap_or(path);
        self.globs
            .iter()
            .any(|(g, m)| m.is_match(path) || (!g.contains('/') && m.is_match(name)))
    }
}

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Runs `v` on the changed files it matches; `None` when it matches none.
pub fn run(v: &Configured, files: &[ChangedFile<'_>]) -> Result<Option<ValidatorReport>> {
    let matched: Vec<&ChangedFile<'_>> = files.iter().filter(|f| v.matches(f.path)).collect();
    if matched.is_empty() {
        return Ok(None);
    }
    let dir = tempfile::tempdir().map_err(|e| Error::io("create", "a temporary directory", e))?;
    for f in &matched {
        let p = dir.path().join(f.path);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).map_err(|e| Error::io("create", parent, e))?;
        }
        std::fs::write(&p, f.content).map_err(|e| Error::io("write", &p, e))?;
    }
    let list: Vec<String> = matched.iter().map(|f| quote(f.path)).collect();
    let command = v.command.replace("{files}", &list.join(" "));
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("exec 2>&1; {command}"))
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| Error::io("run", "sh", e))?;
    let mut stdout = child.stdout.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stdout.read_to_end(&mut buf);
        buf
    });
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child
            .try_wait()
            .map_err(|e| Error::io("wait for", "validator", e))?
        {
            break Some(s);
        }
        if start.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let out = reader.join().unwrap_or_default();
    let tail = &out[out.len().saturating_sub(TAIL)..];
    let mut output = String::from_utf8_lossy(tail).into_owned();
    if status.is_none() {
        output.push_str(&format!("\n(killed after {} s)", TIMEOUT.as_secs()));
    }
    Ok(Some(ValidatorReport {
        name: v.name.clone(),
        command: Some(v.command.clone()),
        files: matched.iter().map(|f| f.path.to_string()).collect(),
        passed: status.is_some_and(|s| s.success()),
        output,
        exit_code: status.and_then(|s| s.code()),
        checked: true,
    }))
}

//! The one reader of git configuration. It reads what `git config` reads,
//! in git's order: system, global (XDG, then `~/.gitconfig`, or only
//! `GIT_CONFIG_GLOBAL`), local, worktree (`extensions.worktreeConfig`), then
//! the command line (`GIT_CONFIG_COUNT`/`_KEY_n`/`_VALUE_n`, then
//! `GIT_CONFIG_PARAMETERS`, which is how `git -c k=v evolv …` and hooks run
//! under `git -c` see their settings). `include.path` and `includeIf`
//! (`gitdir:`, `gitdir/i:`, `onbranch:`, `hasconfig:remote.*.url:`) are
//! followed where they appear, as git does.
//!
//! It needs only a git directory, never a libgit2 `Repository`, so the
//! commit-msg hook reads its settings without opening one (issue #14 item
//! 5). libgit2's own config does not see `git -c`; nothing in git-evolv
//! reads config any other way (issue #10 item 4).

mod include;
mod keys;
pub mod parse;

use std::fmt;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

pub use keys::{DOCUMENTED_KEYS, WorktreeMode};

/// Where a setting was read from (git's `--show-scope`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    System,
    Global,
    Local,
    Worktree,
    Command,
}

impl Scope {
    /// git's own word for the scope.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::System => "system",
            Scope::Global => "global",
            Scope::Local => "local",
            Scope::Worktree => "worktree",
            Scope::Command => "command",
        }
    }
}

/// The file (or the command line) a setting came from (git's `--show-origin`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    File(PathBuf),
    CommandLine,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::File(p) => write!(f, "file:{}", p.display()),
            Origin::CommandLine => f.write_str("command line:"),
        }
    }
}

/// One setting, in the order git reads it (later wins).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Canonical key: section and name lowercased, subsection as written.
    pub key: String,
    /// `None` for a bare key (git's implicit `true`).
    pub value: Option<String>,
    pub scope: Scope,
    pub origin: Origin,
}

/// Every setting git would see, read once. Cheap to build (a few small
/// files), `Send + Sync`, and immutable: re-read it to see changes.
#[derive(Debug, Clone, Default)]
pub struct Config {
    entries: Vec<Entry>,
}

/// What the process environment says about config locations and `git -c`
/// settings. Built from the real environment by [`Env::from_process`]; tests
/// build their own.
#[derive(Debug, Clone, Default)]
pub struct Env {
    pub home: Option<PathBuf>,
    pub xdg_config_home: Option<PathBuf>,
    pub config_global: Option<PathBuf>,
    pub config_system: Option<PathBuf>,
    pub no_system: bool,
    pub common_dir: Option<PathBuf>,
    /// `GIT_CONFIG_COUNT` items, then `GIT_CONFIG_PARAMETERS` items.
    pub command_line: Vec<(String, Option<String>)>,
}

impl Env {
    /// The real environment. Malformed `git -c` variables are an error, as
    /// they are for git.
    pub fn from_process() -> Result<Env> {
        let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
        let path = |k: &str| var(k).map(PathBuf::from);
        let text = |k: &str| var(k).map(|v| v.to_string_lossy().into_owned());
        let mut command_line = Vec::new();
        if let Some(count) = text("GIT_CONFIG_COUNT") {
            let n: usize = count.trim().parse().map_err(|_| Error::InvalidConfig {
                key: "GIT_CONFIG_COUNT".into(),
                value: count.clone(),
                expected: "a number of GIT_CONFIG_KEY_<n>/GIT_CONFIG_VALUE_<n> pairs".into(),
            })?;
            for i in 0..n {
                let key = std::env::var_os(format!("GIT_CONFIG_KEY_{i}"));
                let value = std::env::var_os(format!("GIT_CONFIG_VALUE_{i}"));
                match (key, value) {
                    (Some(k), Some(v)) => command_line.push((
                        k.to_string_lossy().into_owned(),
                        Some(v.to_string_lossy().into_owned()),
                    )),
                    _ => {
                        return Err(Error::InvalidConfig {
                            key: "GIT_CONFIG_COUNT".into(),
                            value: count,
                            expected: format!(
                                "GIT_CONFIG_KEY_{i} and GIT_CONFIG_VALUE_{i} to be set"
                            ),
                        });
                    }
                }
            }
        }
        if let Some(params) = text("GIT_CONFIG_PARAMETERS") {
            let items = parse::parse_parameters(&params).ok_or_else(|| Error::InvalidConfig {
                key: "GIT_CONFIG_PARAMETERS".into(),
                value: params.clone(),
                expected: "the sq-quoted 'key=value' list `git -c` writes".into(),
            })?;
            command_line.extend(items);
        }
        Ok(Env {
            home: path("HOME"),
            xdg_config_home: path("XDG_CONFIG_HOME"),
            config_global: path("GIT_CONFIG_GLOBAL"),
            config_system: path("GIT_CONFIG_SYSTEM"),
            no_system: text("GIT_CONFIG_NOSYSTEM").is_some_and(|v| parse_bool(&v) == Some(true)),
            common_dir: path("GIT_COMMON_DIR"),
            command_line,
        })
    }

    /// The global files in git's order: `GIT_CONFIG_GLOBAL` alone, or XDG
    /// then `~/.gitconfig`.
    fn global_files(&self) -> Vec<PathBuf> {
        if let Some(p) = &self.config_global {
            return vec![p.clone()];
        }
        let mut files = Vec::new();
        match (&self.xdg_config_home, &self.home) {
            (Some(x), _) => files.push(x.join("git").join("config")),
            (None, Some(h)) => files.push(h.join(".config").join("git").join("config")),
            (None, None) => {}
        }
        if let Some(h) = &self.home {
            files.push(h.join(".gitconfig"));
        }
        files
    }

    fn system_file(&self) -> Option<PathBuf> {
        if self.no_system {
            return None;
        }
        Some(
            self.config_system
                .clone()
                .unwrap_or_else(|| PathBuf::from("/etc/gitconfig")),
        )
    }
}

impl Config {
    /// The configuration of the repository whose git directory is
    /// `git_dir` (a linked worktree's own git dir works: the local file is
    /// the common dir's), with the process environment.
    pub fn for_git_dir(git_dir: &Path) -> Result<Config> {
        Config::load(Some(git_dir), &Env::from_process()?)
    }

    /// Outside any repository: system, global and command line only.
    pub fn without_repository() -> Result<Config> {
        Config::load(None, &Env::from_process()?)
    }

    /// Reads every layer for `git_dir` (or none) under `env`.
    pub fn load(git_dir: Option<&Path>, env: &Env) -> Result<Config> {
        let mut loader = include::Loader::new(git_dir, env);
        let mut config = loader.load_all()?;
        if loader.saw_hasconfig() {
            // `hasconfig:remote.*.url:` needs every remote URL first: read
            // again with the URLs of the first pass, as git does.
            let urls = config
                .entries
                .iter()
                .filter(|e| e.key.starts_with("remote.") && e.key.ends_with(".url"))
                .filter_map(|e| e.value.clone())
                .collect();
            let mut loader = include::Loader::new(git_dir, env);
            loader.set_remote_urls(urls);
            config = loader.load_all()?;
        }
        Ok(config)
    }

    /// Every setting in the order git read it.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The setting that wins for `key` (the last one read).
    pub fn get(&self, key: &str) -> Option<&Entry> {
        let key = parse::canonical_key(key)?;
        self.entries.iter().rev().find(|e| e.key == key)
    }

    /// The winning value of `key` as text (a bare key reads as "true").
    pub fn string(&self, key: &str) -> Option<&str> {
        self.get(key).map(|e| e.value.as_deref().unwrap_or("true"))
    }

    /// Every value of a multi-valued key, in order (`git config --get-all`).
    /// An empty value resets the list, as git does for list-like keys.
    pub fn all(&self, key: &str) -> Vec<&str> {
        let Some(key) = parse::canonical_key(key) else {
            return Vec::new();
        };
        self.entries
            .iter()
            .filter(|e| e.key == key)
            .map(|e| e.value.as_deref().unwrap_or("true"))
            .collect()
    }

    /// The winning value of `key` as a boolean, git's way (true/yes/on/1,
    /// false/no/off/0/empty, or any integer).
    pub fn bool(&self, key: &str) -> Result<Option<bool>> {
        let Some(entry) = self.get(key) else {
            return Ok(None);
        };
        let Some(value) = &entry.value else {
            return Ok(Some(true));
        };
        parse_bool(value)
            .map(Some)
            .ok_or_else(|| invalid(entry, "a boolean (true/false, yes/no, on/off, 1/0)"))
    }

    /// The winning value parsed by `parse`; an unparsable value is
    /// `invalid_config` naming the key, the value and `expected`.
    pub fn parsed<T>(
        &self,
        key: &str,
        expected: &str,
        parse: impl FnOnce(&str) -> Option<T>,
    ) -> Result<Option<T>> {
        let Some(entry) = self.get(key) else {
            return Ok(None);
        };
        let value = entry.value.as_deref().unwrap_or("true");
        parse(value)
            .map(Some)
            .ok_or_else(|| invalid(entry, expected))
    }

    /// A path value, with `~/` expanded as git expands it.
    pub fn path(&self, key: &str) -> Option<PathBuf> {
        self.string(key).map(expand_home)
    }
}

fn invalid(entry: &Entry, expected: &str) -> Error {
    Error::InvalidConfig {
        key: entry.key.clone(),
        value: entry.value.clone().unwrap_or_default(),
        expected: expected.to_string(),
    }
}

/// git's `git_parse_maybe_bool` plus integers.
pub fn parse_bool(value: &str) -> Option<bool> {
    match value.to_ascii_lowercase().as_str() {
        "true" | "yes" | "on" => Some(true),
        "false" | "no" | "off" | "" => Some(false),
        other => other.parse::<i64>().ok().map(|n| n != 0),
    }
}

/// git's `git_parse_signed`: an integer as `strtoimax` reads it in base
/// 0 (decimal, `0x` hex, a leading `0` for octal), then an optional unit
/// `k`, `m` or `g` (times 1024, 1024² or 1024³) and nothing else. `None`
/// where git says "bad numeric config value".
pub fn parse_int(value: &str) -> Option<i64> {
    let text = value.trim_start();
    let (negative, rest) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let (radix, digits) = match rest.strip_prefix("0x").or_else(|| rest.strip_prefix("0X")) {
        Some(hex) => (16, hex),
        None if rest.len() > 1 && rest.starts_with('0') => (8, &rest[1..]),
        None => (10, rest),
    };
    let end = digits
        .find(|c: char| !c.is_digit(radix))
        .unwrap_or(digits.len());
    let number = match (end, radix) {
        // A lone leading `0` read as octal is the number 0.
        (0, 8) => 0,
        (0, _) => return None,
        _ => i64::from_str_radix(&digits[..end], radix).ok()?,
    };
    let factor: i64 = match &digits[end..] {
        "" => 1,
        "k" | "K" => 1 << 10,
        "m" | "M" => 1 << 20,
        "g" | "G" => 1 << 30,
        _ => return None,
    };
    let n = number.checked_mul(factor)?;
    Some(if negative { -n } else { n })
}

/// `~/x` → `$HOME/x`; anything else unchanged.
fn expand_home(value: &str) -> PathBuf {
    match (value.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) => PathBuf::from(home).join(rest),
        _ => PathBuf::from(value),
    }
}

/// The git directory for `dir` found the way git finds it, without
/// libgit2: `GIT_DIR` if set, else the first `.git` (folder, or file with
/// a `gitdir:` line) from `dir` upwards, else `dir` itself when it is a
/// git directory (a bare repository). `None` outside a repository.
pub fn discover_git_dir(dir: &Path) -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("GIT_DIR").filter(|d| !d.is_empty()) {
        let d = PathBuf::from(d);
        return Some(if d.is_absolute() { d } else { dir.join(d) });
    }
    let start = std::path::absolute(dir).ok()?;
    for folder in start.ancestors() {
        let dot_git = folder.join(".git");
        if dot_git.join("HEAD").is_file() {
            return Some(dot_git);
        }
        if dot_git.is_file()
            && let Ok(text) = std::fs::read_to_string(&dot_git)
            && let Some(target) = text.trim_end().strip_prefix("gitdir: ")
        {
            let target = PathBuf::from(target);
            return Some(if target.is_absolute() {
                target
            } else {
                folder.join(target)
            });
        }
        if folder.join("HEAD").is_file() && folder.join("objects").is_dir() {
            return Some(folder.to_path_buf());
        }
    }
    None
}

#[cfg(test)]
mod tests;

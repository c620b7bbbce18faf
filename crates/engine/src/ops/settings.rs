//! `Settings`: the git configuration a session's use cases run with, read
//! once per session (the repository's every layer, `git -c` included; for
//! a session without a repository, system, global and `git -c`) and handed
//! to every use case. Each key a use case reads has one typed accessor
//! here, with its default and the `invalid_config` error naming the key,
//! its value and what is expected. A value is parsed when a use case asks
//! for it, so a bad value fails only the commands that read that key.
//!
//! The file reader itself is git's own (`evolv_git::config`), the only one.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::git::config::{Config, WorktreeMode, discover_git_dir};
use crate::git::objects::maintenance::AutoGc;
use crate::lint::{CommentChar, LintConfig};
use crate::policy::{PushPolicy, PushToProtected};
use crate::validators::Configured;

/// The git config key: `auto` (ask when the client can be asked; the
/// default), `always` (refuse when it cannot), `never` (never ask).
pub const CONFIRM_KEY: &str = "evolv.mcp.confirm";

/// The git config key that lets clients' execution plans run commands.
pub const ALLOW_PLAN_COMMANDS: &str = "evolv.mcp.allowPlanCommands";

/// `evolv.mcp.confirm`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfirmMode {
    Auto,
    Always,
    Never,
}

/// The settings of a session: one read of git's configuration.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    config: Arc<Config>,
}

impl Settings {
    /// The settings of an already read configuration.
    pub fn new(config: Arc<Config>) -> Settings {
        Settings { config }
    }

    /// The settings around `dir` read without opening a repository: the
    /// repository's git dir if `dir` is in one (found as git finds it,
    /// `GIT_DIR` included), else system, global and `git -c` only.
    pub fn around(dir: &Path) -> Result<Settings> {
        let config = match discover_git_dir(dir) {
            Some(git_dir) => Config::for_git_dir(&git_dir)?,
            None => Config::without_repository()?,
        };
        Ok(Settings::new(Arc::new(config)))
    }

    /// The winning value of a key as git wrote it (`None` inside for a
    /// bare key): for the front ends' own keys (`color.*`, `pager.*`,
    /// `core.pager`), which git defines and they interpret.
    pub fn raw(&self, key: &str) -> Option<Option<String>> {
        self.config.get(key).map(|e| e.value.clone())
    }

    /// `evolv.lintPushes`: a server refuses pushed commits whose message
    /// fails the lint (`evolv.commit.*`). Off unless set.
    pub fn lint_pushes(&self) -> Result<bool> {
        Ok(self.config.bool("evolv.lintPushes")?.unwrap_or(false))
    }

    /// `evolv.receive.validation`: how a server validates pushed code,
    /// `isolated` (the default: in a sandbox) or `verdict` (it runs none
    /// and lands only on a trusted verdict from CI).
    pub fn receive_validation(&self) -> Result<ServerValidation> {
        Ok(self
            .config
            .parsed(
                "evolv.receive.validation",
                "isolated or verdict",
                |v| match v.trim().to_ascii_lowercase().as_str() {
                    "isolated" => Some(ServerValidation::Isolated),
                    "verdict" => Some(ServerValidation::Verdict),
                    _ => None,
                },
            )?
            .unwrap_or(ServerValidation::Isolated))
    }

    /// `evolv.receive.sandbox`: the bubblewrap program a server runs
    /// pushed code in (`bwrap` on `PATH` unless set).
    pub fn receive_sandbox(&self) -> String {
        self.config
            .string("evolv.receive.sandbox")
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .unwrap_or(crate::sandbox::DEFAULT_PROGRAM)
            .to_string()
    }

    /// `evolv.receive.keepRefused`: seconds a server keeps a refused
    /// push's commits (`ops::server::receive::refused`).
    pub fn receive_keep_refused(&self) -> Result<Option<u64>> {
        self.config
            .parsed("evolv.receive.keepRefused", "a number of seconds", |v| {
                v.trim().parse::<u64>().ok()
            })
    }

    /// `evolv.receive.refusedQuota`: how many refused pushes one pusher
    /// may have kept at a time.
    pub fn receive_refused_quota(&self) -> Result<Option<usize>> {
        self.config.parsed(
            "evolv.receive.refusedQuota",
            "a positive whole number",
            |v| v.trim().parse::<usize>().ok().filter(|&n| n > 0),
        )
    }

    /// `evolv.checkpoints.enabled` (default true): whether the agents'
    /// hooks record checkpoints; `false` makes each a no-op.
    pub fn checkpoints_enabled(&self) -> Result<bool> {
        Ok(self
            .config
            .bool("evolv.checkpoints.enabled")?
            .unwrap_or(true))
    }

    /// `evolv.checkpoints.storePrompts` (default false): whether a
    /// checkpoint keeps the prompt text the agent's hook gave.
    pub fn checkpoints_store_prompts(&self) -> Result<bool> {
        Ok(self
            .config
            .bool("evolv.checkpoints.storePrompts")?
            .unwrap_or(false))
    }

    /// `evolv.checkpoints.keep` (default 1,000) and
    /// `evolv.checkpoints.keepDays` (default 14): a session is pruned
    /// only once none of its checkpoints is among the newest `keep` nor
    /// younger than `keepDays` days.
    pub fn checkpoints_retention(&self) -> Result<(u64, u64)> {
        let int = |key: &str, default: u64| -> Result<u64> {
            Ok(self
                .config
                .parsed(key, "a number (0 or more)", parse_git_int)?
                .unwrap_or(default))
        };
        Ok((
            int("evolv.checkpoints.keep", 1000)?,
            int("evolv.checkpoints.keepDays", 14)?,
        ))
    }

    /// `maintenance.auto`, `gc.auto` and `gc.autoPackLimit`: what git's
    /// porcelain would do after writing objects, `None` when it would do
    /// nothing (`maintenance.auto=false`). A value git would refuse counts
    /// as unset: maintenance never fails a command.
    pub fn auto_gc(&self) -> Option<AutoGc> {
        if self.config.bool("maintenance.auto").ok().flatten() == Some(false) {
            return None;
        }
        let int = |key: &str| {
            self.config
                .parsed(key, "an integer", parse_git_int)
                .ok()
                .flatten()
        };
        let defaults = AutoGc::default();
        Some(AutoGc {
            loose_objects: int("gc.auto").unwrap_or(defaults.loose_objects),
            packs: int("gc.autoPackLimit").unwrap_or(defaults.packs),
        })
    }

    /// `evolv.validate`: every value, in order, each one command.
    pub fn validate_commands(&self) -> Vec<String> {
        self.config.validate_commands()
    }

    /// `evolv.timeout`: a positive number of seconds.
    pub fn timeout_secs(&self) -> Result<Option<u64>> {
        self.config.timeout_secs()
    }

    /// `evolv.plan`: the plan file (relative to the top of the work tree).
    pub fn plan_path(&self) -> Option<PathBuf> {
        self.config.plan_path()
    }

    /// `evolv.worktree`: `warm` (the default) or `fresh`.
    pub fn worktree_mode(&self) -> Result<Option<WorktreeMode>> {
        self.config.worktree_mode()
    }

    /// `evolv.validator.<name>.glob` / `.command`, in name order.
    pub fn validators(&self) -> Result<Vec<Configured>> {
        crate::validators::configured(&self.config)
    }

    /// `evolv.summaryTemplate`, when set to something other than blanks.
    pub fn summary_template(&self) -> Option<&str> {
        self.config
            .string("evolv.summaryTemplate")
            .filter(|t| !t.trim().is_empty())
    }

    /// `evolv.protectedBranches`: every value (each a space-separated list).
    pub fn protected_branches(&self) -> Vec<String> {
        self.config.protected_branches()
    }

    /// `evolv.protectedBranches` and `evolv.pushToProtected` as the push
    /// policy, with the one-off override `allow_env`.
    pub fn push_policy(&self, allow_env: bool) -> Result<PushPolicy> {
        let protected = self.protected_branches();
        let mode = self
            .config
            .parsed(
                "evolv.pushToProtected",
                "deny, allow or confirm",
                PushToProtected::parse,
            )?
            .unwrap_or_default();
        PushPolicy::new(&protected, mode, allow_env).map_err(|m| Error::InvalidConfig {
            key: "evolv.protectedbranches".into(),
            value: protected.join(" "),
            expected: format!("space-separated branch globs ({m})"),
        })
    }

    /// `evolv.mcp.confirm` (`auto` by default).
    pub fn confirm_mode(&self) -> Result<ConfirmMode> {
        let Some(raw) = self.config.string(CONFIRM_KEY).map(str::to_string) else {
            return Ok(ConfirmMode::Auto);
        };
        match raw.trim().to_ascii_lowercase().as_str() {
            "auto" | "" => Ok(ConfirmMode::Auto),
            "always" => Ok(ConfirmMode::Always),
            "never" => Ok(ConfirmMode::Never),
            _ => Err(Error::InvalidConfig {
                key: CONFIRM_KEY.into(),
                value: raw,
                expected: "auto, always or never".into(),
            }),
        }
    }

    /// `evolv.mcp.allowPlanCommands`, false unless set.
    pub fn plan_commands_allowed(&self) -> Result<bool> {
        Ok(self.config.bool(ALLOW_PLAN_COMMANDS)?.unwrap_or(false))
    }

    /// `core.hooksPath` with where it was set (`scope origin`).
    pub fn hooks_path(&self) -> Option<(String, String)> {
        self.config.hooks_path()
    }

    /// `commit.cleanup`, for the commit-msg hook.
    pub fn commit_cleanup(&self) -> Option<&str> {
        self.config.string("commit.cleanup")
    }

    /// The lint settings (`evolv.commit.*`, `core.commentChar`).
    pub fn lint(&self) -> Result<LintConfig> {
        let config = &self.config;
        let mut lint = LintConfig::default();
        // Keys in the order they first appear (`scopes` and
        // `rule.scope-enum` interact), each with git's winning value, and
        // every value of the list key.
        let mut names: Vec<&str> = Vec::new();
        for entry in config.entries() {
            if entry.key.starts_with("evolv.commit.") && !names.contains(&entry.key.as_str()) {
                names.push(&entry.key);
            }
        }
        for key in names {
            let rest = &key["evolv.commit.".len()..];
            let values = if rest == "ignoreauthors" {
                config.all(key)
            } else {
                config.string(key).into_iter().collect()
            };
            for value in values {
                lint.apply(rest, value)
                    .map_err(|issue| Error::InvalidConfig {
                        key: key.to_string(),
                        value: value.to_string(),
                        expected: issue.expected,
                    })?;
            }
        }
        let comment = config
            .entries()
            .iter()
            .rev()
            .find(|e| e.key == "core.commentchar" || e.key == "core.commentstring");
        if let Some(entry) = comment {
            lint.comment_char = CommentChar::from_config(entry.value.as_deref().unwrap_or("true"));
        }
        Ok(lint)
    }
}

/// An integer as git reads one: an optional `k`, `m` or `g` suffix
/// (1024-based); a negative count is none (`gc.auto=-1` turns it off).
fn parse_git_int(text: &str) -> Option<u64> {
    let text = text.trim();
    let (digits, unit) = match text.char_indices().last() {
        Some((i, c)) if c.eq_ignore_ascii_case(&'k') => (&text[..i], 1 << 10),
        Some((i, c)) if c.eq_ignore_ascii_case(&'m') => (&text[..i], 1 << 20),
        Some((i, c)) if c.eq_ignore_ascii_case(&'g') => (&text[..i], 1 << 30),
        _ => (text, 1),
    };
    let n: i64 = digits.parse().ok()?;
    Some(u64::try_from(n).unwrap_or(0).saturating_mul(unit))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::config::Env;

    /// Settings from `git -c` pairs alone: no system, global or repository
    /// file is read.
    fn settings(pairs: &[(&str, &str)]) -> Settings {
        let env = Env {
            no_system: true,
            command_line: pairs
                .iter()
                .map(|(k, v)| (k.to_string(), Some(v.to_string())))
                .collect(),
            ..Env::default()
        };
        Settings::new(Arc::new(Config::load(None, &env).unwrap()))
    }

    #[test]
    fn unset_keys_read_as_their_defaults() {
        let s = settings(&[]);
        assert!(s.validate_commands().is_empty());
        assert_eq!(s.timeout_secs().unwrap(), None);
        assert_eq!(s.confirm_mode().unwrap(), ConfirmMode::Auto);
        assert!(!s.plan_commands_allowed().unwrap());
        assert!(s.validators().unwrap().is_empty());
        assert_eq!(s.summary_template(), None);
        assert_eq!(s.lint().unwrap(), LintConfig::default());
    }

    #[test]
    fn a_bad_value_fails_only_the_key_that_holds_it() {
        let s = settings(&[
            ("evolv.timeout", "soon"),
            ("evolv.mcp.confirm", "always"),
            ("evolv.validate", "make test"),
            ("evolv.summaryTemplate", "  "),
        ]);
        let err = s.timeout_secs().unwrap_err();
        assert_eq!(err.code(), "invalid_config");
        assert!(err.to_string().contains("evolv.timeout"), "{err}");
        assert_eq!(s.confirm_mode().unwrap(), ConfirmMode::Always);
        assert_eq!(s.validate_commands(), ["make test"]);
        assert_eq!(s.summary_template(), None);
        let err = settings(&[("evolv.mcp.confirm", "sometimes")])
            .confirm_mode()
            .unwrap_err();
        assert_eq!(err.code(), "invalid_config");
    }
}

/// How a server validates a push (`evolv.receive.validation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerValidation {
    /// `evolv.validate` runs in a sandbox that cannot write the repository.
    Isolated,
    /// No pushed code runs: each `evolv.validate` command needs a passing
    /// verdict for the landing tree, made by CI.
    Verdict,
}

//! ExecutionPlan: the contract every apply obeys — how far it may go, what
//! must hold before and after, and how it is undone. Pure: no I/O. The same
//! type serves the CLI (`--plan`), plan files in a repository and MCP
//! clients; its JSON Schema is derived from it, so the two cannot drift.

mod builder;
mod parse;

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use builder::ExecutionPlanBuilder;

/// An integer field's allowed range and default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bound {
    pub path: &'static str,
    pub min: i64,
    pub max: i64,
    pub default: i64,
}

/// `limits.max_files`.
pub const MAX_FILES: Bound = Bound {
    path: "limits.max_files",
    min: 1,
    max: 100,
    default: 10,
};
/// `limits.max_changes`.
pub const MAX_CHANGES: Bound = Bound {
    path: "limits.max_changes",
    min: 1,
    max: 1000,
    default: 50,
};
/// `limits.timeout_seconds`.
pub const TIMEOUT_SECONDS: Bound = Bound {
    path: "limits.timeout_seconds",
    min: 1,
    max: 300,
    default: 30,
};

impl Bound {
    fn check(&self, value: i64, issues: &mut Vec<PlanIssue>) {
        if value < self.min {
            issues.push(PlanIssue::new(
                self.path,
                format!(
                    "{value} is below the minimum {} (allowed {}..={})",
                    self.min, self.min, self.max
                ),
            ));
        } else if value > self.max {
            issues.push(PlanIssue::new(
                self.path,
                format!(
                    "{value} is above the maximum {} (allowed {}..={})",
                    self.max, self.min, self.max
                ),
            ));
        }
    }
}

/// One problem with a plan: the field path and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct PlanIssue {
    pub path: String,
    pub message: String,
}

impl PlanIssue {
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        PlanIssue {
            path: path.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for PlanIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// The contract an apply obeys: how far it may go, what must hold before
/// and after it, and how it is undone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "ExecutionPlan")]
pub struct ExecutionPlan {
    /// Preview only: do everything up to, not including, moving the branch,
    /// and report what would land. Defaults to true, so a plan that does not
    /// say `false` only previews.
    #[serde(default = "default_dry_run")]
    pub dry_run: bool,
    /// Commands that must succeed before the patch is replayed and after.
    #[serde(default)]
    pub validation: PlanValidation,
    /// How a landed apply is undone. Required.
    pub rollback: PlanRollback,
    /// Bounds on the size and duration of the apply.
    #[serde(default)]
    pub limits: Limits,
    /// Apply several proposals as one unit: stacked in order in one
    /// worktree, validated once, landed with one fast-forward or not at all.
    #[serde(default)]
    pub batch: bool,
}

fn default_dry_run() -> bool {
    true
}

/// Commands run with `sh -c` in the validation worktree.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanValidation {
    /// Run at the current branch head, before the patch is replayed; any
    /// failure stops the apply.
    #[serde(default)]
    #[schemars(inner(pattern(r"\S")))]
    pub pre_conditions: Vec<String>,
    /// Run at the new commit, after the patch is replayed; any failure stops
    /// the apply with nothing landed.
    #[serde(default)]
    #[schemars(inner(pattern(r"\S")))]
    pub expected_outcomes: Vec<String>,
}

/// How a landed apply is undone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend(
    "if" = {"properties": {"strategy": {"const": "manual"}}},
    "then" = {"required": ["commands"], "properties": {"commands": {"minItems": 1}}}
))]
pub struct PlanRollback {
    /// What `git evolv rollback` does by default, and what happens if a step
    /// after the branch has moved fails.
    pub strategy: RollbackStrategy,
    /// The steps to run by hand; required for the `manual` strategy.
    #[serde(default)]
    #[schemars(inner(pattern(r"\S")))]
    pub commands: Vec<String>,
}

/// How an applied patch is undone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RollbackStrategy {
    /// A revert commit of what apply landed (`git revert`).
    GitRevert,
    /// A new commit restoring the changed files' previous contents from the
    /// pre-apply commit, recorded under `refs/evolv/backup/<id>`.
    FileBackup,
    /// Change nothing; print the plan's `commands` as the steps to run.
    Manual,
}

impl RollbackStrategy {
    /// The name used in JSON and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            RollbackStrategy::GitRevert => "git_revert",
            RollbackStrategy::FileBackup => "file_backup",
            RollbackStrategy::Manual => "manual",
        }
    }

    /// All names, for messages.
    pub const NAMES: &'static [&'static str] = &["git_revert", "file_backup", "manual"];

    /// Parses a name.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "git_revert" => Some(RollbackStrategy::GitRevert),
            "file_backup" => Some(RollbackStrategy::FileBackup),
            "manual" => Some(RollbackStrategy::Manual),
            _ => None,
        }
    }
}

/// Bounds checked before anything runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// The most files the apply may change (1 to 100).
    #[serde(default = "default_max_files")]
    #[schemars(range(min = 1, max = 100))]
    pub max_files: i64,
    /// The most changed lines, added plus removed, the apply may land (1 to 1000).
    #[serde(default = "default_max_changes")]
    #[schemars(range(min = 1, max = 1000))]
    pub max_changes: i64,
    /// Seconds the whole apply may take, validation included (1 to 300);
    /// on expiry the running command's process group is killed.
    #[serde(default = "default_timeout_seconds")]
    #[schemars(range(min = 1, max = 300))]
    pub timeout_seconds: i64,
}

fn default_max_files() -> i64 {
    MAX_FILES.default
}
fn default_max_changes() -> i64 {
    MAX_CHANGES.default
}
fn default_timeout_seconds() -> i64 {
    TIMEOUT_SECONDS.default
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_files: MAX_FILES.default,
            max_changes: MAX_CHANGES.default,
            timeout_seconds: TIMEOUT_SECONDS.default,
        }
    }
}

impl ExecutionPlan {
    /// A builder for library users; `build()` runs the same checks.
    pub fn builder() -> ExecutionPlanBuilder {
        ExecutionPlanBuilder::default()
    }

    /// Parses and checks a plan from JSON, reporting every problem at once.
    pub fn from_json(text: &str) -> Result<Self, Vec<PlanIssue>> {
        parse::parse(text)
    }

    /// Checks every value rule: ranges, empty commands, the manual strategy's
    /// steps. All problems are returned, not only the first.
    pub fn validate(&self) -> Result<(), Vec<PlanIssue>> {
        let mut issues = Vec::new();
        check_commands(
            "validation.pre_conditions",
            &self.validation.pre_conditions,
            &mut issues,
        );
        check_commands(
            "validation.expected_outcomes",
            &self.validation.expected_outcomes,
            &mut issues,
        );
        check_commands("rollback.commands", &self.rollback.commands, &mut issues);
        if self.rollback.strategy == RollbackStrategy::Manual && self.rollback.commands.is_empty() {
            issues.push(PlanIssue::new(
                "rollback.commands",
                "[] is empty: the manual strategy needs the steps to run, e.g. [\"git revert HEAD\"]",
            ));
        }
        MAX_FILES.check(self.limits.max_files, &mut issues);
        MAX_CHANGES.check(self.limits.max_changes, &mut issues);
        TIMEOUT_SECONDS.check(self.limits.timeout_seconds, &mut issues);
        if issues.is_empty() {
            Ok(())
        } else {
            Err(issues)
        }
    }

    /// The plan, unless `issues` (found while building it) or `validate`
    /// find a problem: then every one of them.
    fn validated(self, mut issues: Vec<PlanIssue>) -> Result<Self, Vec<PlanIssue>> {
        if let Err(more) = self.validate() {
            issues.extend(more);
        }
        if issues.is_empty() {
            Ok(self)
        } else {
            Err(issues)
        }
    }

    /// The JSON Schema (draft 2020-12) of a plan, every field described.
    pub fn json_schema() -> serde_json::Value {
        let generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
        serde_json::to_value(generator.into_root_schema_for::<ExecutionPlan>())
            .expect("schemas serialise")
    }
}

fn check_commands(path: &str, commands: &[String], issues: &mut Vec<PlanIssue>) {
    for (i, c) in commands.iter().enumerate() {
        if c.trim().is_empty() {
            issues.push(PlanIssue::new(
                format!("{path}[{i}]"),
                "\"\" is empty: give a shell command",
            ));
        }
    }
}

#[cfg(test)]
mod tests;

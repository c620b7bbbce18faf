//! Validators per file type (#13, seed 004's registry): built-in checks
//! that JSON, notebooks, TOML and YAML still parse, and commands from git
//! config (`evolv.validator.<name>.glob` / `.command`). They run on a
//! proposal's changed files only, never the whole tree.

mod builtin;
mod command;

use serde::{Deserialize, Serialize};

use crate::error::Result;

pub use builtin::check as builtin_check;
pub use command::{Configured, configured};

/// A changed file's repository path and new content.
pub struct ChangedFile<'a> {
    pub path: &'a str,
    pub content: &'a [u8],
    /// Its content at the base (at the path it was renamed from); `None`
    /// for a new file. The built-in checks refuse only what the edit made
    /// worse (issue 38 item 21).
    pub base: Option<&'a [u8]>,
    /// Renamed from another path.
    pub renamed: bool,
}

/// What one validator said about some files.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct ValidatorReport {
    /// `json`, `notebook`, `toml`, `yaml`, or the configured name.
    pub name: String,
    /// The configured command, `None` for a built-in check.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    pub files: Vec<String>,
    pub passed: bool,
    /// The parser's error or the command's output (tail).
    pub output: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// Whether the validator looked at the files: a built-in check passes
    /// without looking what the edit cannot have made worse (a mode-only
    /// change, a pure rename, a file already invalid at the base), and
    /// `output` says why.
    #[serde(default = "checked")]
    pub checked: bool,
}

fn checked() -> bool {
    true
}

/// Runs the built-in checks, then every configured validator (the
/// session's settings, `configured`) whose glob matches a changed file.
pub fn run(configured: &[Configured], files: &[ChangedFile<'_>]) -> Result<Vec<ValidatorReport>> {
    let mut reports: Vec<ValidatorReport> = files.iter().filter_map(builtin::check).collect();
    for v in configured {
        if let Some(r) = command::run(v, files)? {
            reports.push(r);
        }
    }
    Ok(reports)
}

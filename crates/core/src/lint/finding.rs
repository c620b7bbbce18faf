//! What the lint reports: one `Finding` per broken rule, gathered in a
//! `Report` per message. A finding is an answer, not an error.

use serde::Serialize;

use super::config::{Rule, Severity};

/// One broken rule, with where and how to fix it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Finding {
    /// The rule's commitlint name (`type-enum`, `header-max-length`, …).
    #[schemars(with = "String")]
    pub rule: Rule,
    pub severity: Severity,
    /// 1-based line in the original text (the file, the argument).
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    pub message: String,
    /// The form the rule expects.
    pub expected: String,
    /// A corrected line, or a hint, when one can be derived.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggestion: Option<String>,
}

/// The verdict on one message.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Report {
    /// Why the message was not linted (merge, revert, fixup!, version, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ignored: Option<String>,
    /// The cleaned message was empty (git aborts such a commit itself).
    pub empty: bool,
    pub findings: Vec<Finding>,
    /// The header with every derivable fix applied, when it had errors.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggested_header: Option<String>,
}

impl Report {
    pub fn errors(&self) -> usize {
        self.count(Severity::Error)
    }

    pub fn warnings(&self) -> usize {
        self.count(Severity::Warning)
    }

    /// No error findings (warnings do not fail a message).
    pub fn passed(&self) -> bool {
        self.errors() == 0
    }

    /// The names of the rules with error findings, sorted and deduplicated.
    pub fn error_rules(&self) -> Vec<&'static str> {
        let mut names: Vec<&'static str> = self
            .findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .map(|f| f.rule.name())
            .collect();
        names.sort_unstable();
        names.dedup();
        names
    }

    fn count(&self, severity: Severity) -> usize {
        self.findings
            .iter()
            .filter(|f| f.severity == severity)
            .count()
    }
}

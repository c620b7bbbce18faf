//! The rule set and its settings: which rules exist, their severities and
//! values, with commitlint's config-conventional as the default. Parsing of
//! `evolv.commit.*` values lives here (pure); reading git config does not.

use serde::Serialize;

use super::clean::CommentChar;

/// How much a rule matters: `off` skips it, `warn` reports without failing,
/// `error` fails the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Off,
    Warning,
    Error,
}

impl Severity {
    /// `off|warn|warning|error`, or commitlint's levels `0|1|2`.
    pub fn parse(value: &str) -> Option<Severity> {
        match value.trim().to_ascii_lowercase().as_str() {
            "off" | "0" | "false" | "none" => Some(Severity::Off),
            "warn" | "warning" | "1" => Some(Severity::Warning),
            "error" | "2" | "true" | "on" => Some(Severity::Error),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Off => "off",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// Every rule, named as commitlint names it, so configurations carry over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rule {
    TypeEnum,
    TypeCase,
    TypeEmpty,
    SubjectEmpty,
    SubjectCase,
    SubjectFullStop,
    HeaderMaxLength,
    HeaderTrim,
    BodyMaxLineLength,
    FooterMaxLineLength,
    BodyLeadingBlank,
    FooterLeadingBlank,
    /// Only when `evolv.commit.scopes` lists scopes.
    ScopeEnum,
    /// Opt-in: a `!` in the header and a `BREAKING CHANGE:` footer go together.
    BreakingChangeFooter,
}

impl Rule {
    pub const ALL: [Rule; 14] = [
        Rule::TypeEnum,
        Rule::TypeCase,
        Rule::TypeEmpty,
        Rule::SubjectEmpty,
        Rule::SubjectCase,
        Rule::SubjectFullStop,
        Rule::HeaderMaxLength,
        Rule::HeaderTrim,
        Rule::BodyMaxLineLength,
        Rule::FooterMaxLineLength,
        Rule::BodyLeadingBlank,
        Rule::FooterLeadingBlank,
        Rule::ScopeEnum,
        Rule::BreakingChangeFooter,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Rule::TypeEnum => "type-enum",
            Rule::TypeCase => "type-case",
            Rule::TypeEmpty => "type-empty",
            Rule::SubjectEmpty => "subject-empty",
            Rule::SubjectCase => "subject-case",
            Rule::SubjectFullStop => "subject-full-stop",
            Rule::HeaderMaxLength => "header-max-length",
            Rule::HeaderTrim => "header-trim",
            Rule::BodyMaxLineLength => "body-max-line-length",
            Rule::FooterMaxLineLength => "footer-max-line-length",
            Rule::BodyLeadingBlank => "body-leading-blank",
            Rule::FooterLeadingBlank => "footer-leading-blank",
            Rule::ScopeEnum => "scope-enum",
            Rule::BreakingChangeFooter => "breaking-change-footer",
        }
    }

    pub fn from_name(name: &str) -> Option<Rule> {
        Rule::ALL.into_iter().find(|r| r.name() == name)
    }

    /// commitlint config-conventional's severity; the two extra rules are off.
    pub fn default_severity(self) -> Severity {
        match self {
            Rule::BodyLeadingBlank | Rule::FooterLeadingBlank => Severity::Warning,
            Rule::ScopeEnum | Rule::BreakingChangeFooter => Severity::Off,
            _ => Severity::Error,
        }
    }
}

impl Serialize for Rule {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// config-conventional's `type-enum`.
pub const DEFAULT_TYPES: [&str; 11] = [
    "build", "chore", "ci", "docs", "feat", "fix", "perf", "refactor", "revert", "style", "test",
];

/// Everything the rules need to know; `Default` is config-conventional.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LintConfig {
    severities: Vec<(Rule, Severity)>,
    pub types: Vec<String>,
    /// Allowed scopes; empty means any scope (and `scope-enum` stays off
    /// unless set explicitly).
    pub scopes: Vec<String>,
    pub header_max_length: usize,
    pub body_max_line_length: usize,
    pub footer_max_line_length: usize,
    /// `core.commentChar` (or `core.commentString`), for cleaning edited messages.
    pub comment_char: CommentChar,
    /// Range mode skips commits whose author matches one of these.
    pub ignore_authors: Vec<String>,
}

impl Default for LintConfig {
    fn default() -> Self {
        LintConfig {
            severities: Rule::ALL
                .into_iter()
                .map(|r| (r, r.default_severity()))
                .collect(),
            types: DEFAULT_TYPES.iter().map(|t| t.to_string()).collect(),
            scopes: Vec::new(),
            header_max_length: 100,
            body_max_line_length: 100,
            footer_max_line_length: 100,
            comment_char: CommentChar::default(),
            ignore_authors: Vec::new(),
        }
    }
}

/// A git config value git-evolv cannot use: what was expected instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigIssue {
    pub expected: String,
}

impl LintConfig {
    pub fn severity(&self, rule: Rule) -> Severity {
        self.severities
            .iter()
            .find(|(r, _)| *r == rule)
            .map_or(Severity::Off, |(_, s)| *s)
    }

    pub fn set_severity(&mut self, rule: Rule, severity: Severity) {
        if let Some(entry) = self.severities.iter_mut().find(|(r, _)| *r == rule) {
            entry.1 = severity;
        }
    }

    /// Applies one `evolv.commit.<key>` value; `key` is what follows
    /// `evolv.commit.` (git config lowercases the section and the last part,
    /// so matching is case-insensitive). Unknown keys are left alone: they
    /// may belong to a newer git-evolv.
    pub fn apply(&mut self, key: &str, value: &str) -> Result<(), ConfigIssue> {
        let lower = key.to_ascii_lowercase();
        if let Some(name) = lower.strip_prefix("rule.") {
            let rule = Rule::from_name(name).ok_or_else(|| ConfigIssue {
                expected: format!(
                    "a rule name, one of: {}",
                    Rule::ALL.map(Rule::name).join(", ")
                ),
            })?;
            let severity = Severity::parse(value).ok_or_else(|| ConfigIssue {
                expected: "off, warn or error".into(),
            })?;
            self.set_severity(rule, severity);
            return Ok(());
        }
        match lower.as_str() {
            "types" => {
                let types = split_list(value);
                if types.is_empty() {
                    return Err(ConfigIssue {
                        expected: "a comma- or space-separated list of types, e.g. feat,fix".into(),
                    });
                }
                self.types = types;
            }
            "scopes" => {
                self.scopes = split_list(value);
                if !self.scopes.is_empty() && self.severity(Rule::ScopeEnum) == Severity::Off {
                    self.set_severity(Rule::ScopeEnum, Severity::Error);
                }
            }
            "headermaxlength" => self.header_max_length = parse_length(value)?,
            "bodymaxlinelength" => self.body_max_line_length = parse_length(value)?,
            "footermaxlinelength" => self.footer_max_line_length = parse_length(value)?,
            "ignoreauthors" => self
                .ignore_authors
                .extend(crate::comma_list::split_comma_list(value)),
            _ => {}
        }
        Ok(())
    }

    /// Whether an author (`Name <email>`) matches `ignore_authors`: a
    /// case-insensitive substring, or a pattern with `*` wildcards.
    pub fn author_ignored(&self, author: &str) -> Option<&str> {
        let author = author.to_lowercase();
        self.ignore_authors
            .iter()
            .find(|p| wildcard_contains(&author, &p.to_lowercase()))
            .map(String::as_str)
    }
}

fn parse_length(value: &str) -> Result<usize, ConfigIssue> {
    value
        .trim()
        .parse::<usize>()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| ConfigIssue {
            expected: "a positive whole number of characters, e.g. 100".into(),
        })
}

fn split_list(value: &str) -> Vec<String> {
    value
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// `pattern` occurs in `text`, where `*` in the pattern matches any run of
/// characters.
fn wildcard_contains(text: &str, pattern: &str) -> bool {
    let mut rest = text;
    for part in pattern.split('*').filter(|p| !p.is_empty()) {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_config_conventional() {
        let c = LintConfig::default();
        assert_eq!(c.severity(Rule::TypeEnum), Severity::Error);
        assert_eq!(c.severity(Rule::BodyLeadingBlank), Severity::Warning);
        assert_eq!(c.severity(Rule::FooterLeadingBlank), Severity::Warning);
        assert_eq!(c.severity(Rule::ScopeEnum), Severity::Off);
        assert_eq!(c.severity(Rule::BreakingChangeFooter), Severity::Off);
        assert_eq!(c.header_max_length, 100);
        assert_eq!(c.types.len(), 11);
    }

    #[test]
    fn rules_severities_and_values_are_configurable() {
        let mut c = LintConfig::default();
        c.apply("rule.subject-case", "off").unwrap();
        c.apply("Rule.Header-Max-Length", "warn").unwrap();
        c.apply("rule.breaking-change-footer", "2").unwrap();
        c.apply("types", "feat, fix wip").unwrap();
        c.apply("headerMaxLength", "72").unwrap();
        c.apply("scopes", "api,cli").unwrap();
        c.apply("ignoreAuthors", "dependabot[bot], GitHub Action")
            .unwrap();
        assert_eq!(c.severity(Rule::SubjectCase), Severity::Off);
        assert_eq!(c.severity(Rule::HeaderMaxLength), Severity::Warning);
        assert_eq!(c.severity(Rule::BreakingChangeFooter), Severity::Error);
        assert_eq!(c.severity(Rule::ScopeEnum), Severity::Error);
        assert_eq!(c.types, ["feat", "fix", "wip"]);
        assert_eq!(c.scopes, ["api", "cli"]);
        assert_eq!(c.header_max_length, 72);
        assert_eq!(c.ignore_authors, ["dependabot[bot]", "GitHub Action"]);
    }

    #[test]
    fn bad_values_say_what_was_expected() {
        let mut c = LintConfig::default();
        let e = c.apply("rule.type-enum", "loud").unwrap_err();
        assert!(e.expected.contains("off, warn or error"), "{e:?}");
        let e = c.apply("rule.no-such-rule", "error").unwrap_err();
        assert!(e.expected.contains("type-enum"), "{e:?}");
        let e = c.apply("headerMaxLength", "-3").unwrap_err();
        assert!(e.expected.contains("positive"), "{e:?}");
        assert!(c.apply("types", " , ").is_err());
        assert!(c.apply("someFutureKey", "x").is_ok());
    }

    #[test]
    fn authors_match_by_substring_or_wildcard() {
        let mut c = LintConfig::default();
        c.apply("ignoreAuthors", "dependabot[bot],renovate*bot")
            .unwrap();
        assert_eq!(
            c.author_ignored("dependabot[bot] <49699333+dependabot[bot]@users.noreply.github.com>"),
            Some("dependabot[bot]")
        );
        assert_eq!(
            c.author_ignored("Renovate Bot <bot@renovateapp.com>"),
            Some("renovate*bot")
        );
        assert_eq!(c.author_ignored("Ada Lovelace <ada@example.com>"), None);
    }
}

//! The rules: each looks at the header or the lines of a cleaned, split
//! message and reports findings at the configured severity. Semantics
//! follow commitlint's rules of the same name, so verdicts agree.

use super::config::{LintConfig, Rule, Severity};
use super::finding::Finding;
use super::header::{self, Header, column, js_len};
use super::message::Parts;
use super::suggest;

/// Collects findings; drops those of rules that are off.
struct Sink<'c> {
    config: &'c LintConfig,
    findings: Vec<Finding>,
}

impl Sink<'_> {
    fn push(
        &mut self,
        rule: Rule,
        (line, column): (usize, usize),
        message: String,
        expected: String,
        suggestion: Option<String>,
    ) {
        let severity = self.config.severity(rule);
        if severity == Severity::Off {
            return;
        }
        self.findings.push(Finding {
            rule,
            severity,
            line,
            column,
            message,
            expected,
            suggestion,
        });
    }

    fn on(&self, rule: Rule) -> bool {
        self.config.severity(rule) != Severity::Off
    }
}

/// The header line: its text, and where a byte of it is.
#[derive(Clone, Copy)]
struct HeaderLine<'t> {
    number: usize,
    text: &'t str,
}

impl HeaderLine<'_> {
    /// The line and column of byte `byte`.
    fn at(&self, byte: usize) -> (usize, usize) {
        (self.number, column(self.text, byte))
    }
}

/// Runs every rule; returns the findings (in line order) and the header
/// with every derivable fix applied, if the header had an error.
pub fn check(parts: &Parts<'_>, config: &LintConfig) -> (Vec<Finding>, Option<String>) {
    let mut sink = Sink {
        config,
        findings: Vec::new(),
    };
    let line = parts.header();
    let header = HeaderLine {
        number: line.number,
        text: line.text.as_str(),
    };
    let fixed = match header::parse(header.text) {
        None => unparsed_header(&mut sink, header),
        Some(h) => header_rules(&mut sink, h, header),
    };
    whole_header_rules(&mut sink, header);
    body_rules(&mut sink, parts);

    let has_header_error = sink
        .findings
        .iter()
        .any(|f| f.line == header.number && f.severity == Severity::Error);
    let fixed = Some(apply_trim_and_stop(&fixed)).filter(|f| has_header_error && f != header.text);
    let mut findings = sink.findings;
    findings.sort_by_key(|f| (f.line, f.column));
    (findings, fixed)
}

/// A header that is not `type(scope): description` at all: no type and no
/// description; returns the header rebuilt in that form.
fn unparsed_header(sink: &mut Sink<'_>, header: HeaderLine<'_>) -> String {
    let config = sink.config;
    let text = header.text;
    let types = config.types.join(", ");
    let form = "type(scope): description, e.g. `feat(parser): accept tabs`".to_string();
    let rebuilt = suggest::rebuild_header(text, &config.types);
    let what = if text.contains(':') {
        "the header is not `type(scope): description` (a type of letters, digits or _, then `: ` with a space)"
    } else {
        "the header has no type"
    };
    sink.push(
        Rule::TypeEmpty,
        header.at(0),
        what.to_string(),
        format!("{form}; type one of: {types}"),
        Some(rebuilt.clone()),
    );
    sink.push(
        Rule::SubjectEmpty,
        header.at(0),
        "no description after `type: `".into(),
        form,
        Some(rebuilt.clone()),
    );
    rebuilt
}

/// The rules on the header as a whole line, parsed or not: its full stop,
/// its length, its surrounding whitespace.
fn whole_header_rules(sink: &mut Sink<'_>, header: HeaderLine<'_>) {
    let config = sink.config;
    let text = header.text;
    // commitlint: the header ends in `.` but not `...`, unless the first
    // `:` is the last character.
    let colon_last = text.find(':').is_some_and(|i| i > 0 && i == text.len() - 1);
    if !colon_last && text.ends_with('.') && !text.ends_with("...") {
        sink.push(
            Rule::SubjectFullStop,
            header.at(text.len() - 1),
            "the description ends with a full stop".into(),
            "no `.` at the end of the header".into(),
            Some(text[..text.len() - 1].to_string()),
        );
    }
    let len = js_len(text);
    if len > config.header_max_length {
        let cut = text
            .char_indices()
            .nth(config.header_max_length)
            .map_or(text.len(), |(i, _)| i);
        sink.push(
            Rule::HeaderMaxLength,
            header.at(cut),
            format!(
                "the header is {len} characters long, more than {}",
                config.header_max_length
            ),
            format!(
                "at most {} characters; put details in the body",
                config.header_max_length
            ),
            None,
        );
    }
    if text.len() != text.trim().len() {
        let col = if text.starts_with(char::is_whitespace) {
            0
        } else {
            text.trim_end().len()
        };
        sink.push(
            Rule::HeaderTrim,
            header.at(col),
            "the header starts or ends with whitespace".into(),
            "no leading or trailing whitespace".into(),
            Some(text.trim().to_string()),
        );
    }
}

/// The rules on a parsed header's parts; returns the header rebuilt with
/// the fixes they suggest.
fn header_rules(sink: &mut Sink<'_>, h: Header<'_>, header: HeaderLine<'_>) -> String {
    let ty = type_rules(sink, &h, header);
    scope_rule(sink, &h, header);
    let subject = subject_rules(sink, &h, header);
    let scope = h.scope.map(|s| format!("({s})")).unwrap_or_default();
    let bang = if h.breaking { "!" } else { "" };
    format!("{ty}{scope}{bang}: {subject}")
}

/// The type: present, in lower case, one of the allowed; returns it fixed
/// as far as the rules can tell.
fn type_rules(sink: &mut Sink<'_>, h: &Header<'_>, header: HeaderLine<'_>) -> String {
    let config = sink.config;
    let text = header.text;
    let types = config.types.join(", ");
    let mut ty = h.ty.to_string();
    if h.ty.is_empty() {
        sink.push(
            Rule::TypeEmpty,
            header.at(0),
            "the type is empty".into(),
            format!("one of: {types}"),
            Some(format!("<type>{}", text.trim_start())),
        );
        return ty;
    }
    let lower = h.ty.to_lowercase();
    // commitlint counts a type starting with a digit as lower case.
    if lower != h.ty && !lower.starts_with(|c: char| c.is_ascii_digit()) {
        sink.push(
            Rule::TypeCase,
            header.at(0),
            format!("the type `{}` is not in lower case", h.ty),
            format!("`{lower}`"),
            Some(format!("{lower}{}", &text[h.ty.len()..])),
        );
        ty = lower;
    }
    if !config.types.iter().any(|t| t == h.ty) {
        let near = suggest::nearest_type(h.ty, &config.types);
        let suggestion = near
            .as_ref()
            .map(|t| format!("did you mean `{t}`? {t}{}", &text[h.ty.len()..]));
        sink.push(
            Rule::TypeEnum,
            header.at(0),
            format!("the type `{}` is not an allowed type", h.ty),
            format!("one of: {types}"),
            suggestion,
        );
        if let Some(t) = near {
            ty = t;
        }
    }
    ty
}

/// The scope, when scopes are configured: each of its parts allowed.
fn scope_rule(sink: &mut Sink<'_>, h: &Header<'_>, header: HeaderLine<'_>) {
    let config = sink.config;
    let Some(scope) = h.scope else {
        return;
    };
    if config.scopes.is_empty() || !sink.on(Rule::ScopeEnum) {
        return;
    }
    let unknown: Vec<&str> = scope
        .split([',', '/'])
        .map(str::trim)
        .filter(|s| !config.scopes.iter().any(|x| x == s))
        .collect();
    if !unknown.is_empty() {
        sink.push(
            Rule::ScopeEnum,
            header.at(h.scope_at),
            format!("the scope `{}` is not an allowed scope", unknown.join(", ")),
            format!("one of: {}", config.scopes.join(", ")),
            None,
        );
    }
}

/// The description: present, not starting with a capital; returns it
/// fixed as far as the rules can tell.
fn subject_rules(sink: &mut Sink<'_>, h: &Header<'_>, header: HeaderLine<'_>) -> String {
    if h.subject.is_empty() {
        sink.push(
            Rule::SubjectEmpty,
            header.at(h.subject_at),
            "the description is empty".into(),
            "a short description after `type: `".into(),
            None,
        );
        return String::new();
    }
    if !h.subject.starts_with(|c: char| c.is_uppercase()) {
        return h.subject.to_string();
    }
    // commitlint's sentence-, start-, pascal- and upper-case all mean,
    // for a subject starting with a letter: that letter is upper case.
    let lowered = suggest::lower_first(h.subject);
    sink.push(
        Rule::SubjectCase,
        header.at(h.subject_at),
        "the description starts with a capital letter (sentence-, start-, pascal- or upper-case)"
            .into(),
        "a description starting in lower case, e.g. `add x`".into(),
        lowered
            .as_ref()
            .map(|s| format!("{}{s}", &header.text[..h.subject_at])),
    );
    lowered.unwrap_or_else(|| h.subject.to_string())
}

fn apply_trim_and_stop(header: &str) -> String {
    let h = header.trim();
    match h.strip_suffix('.') {
        Some(s) if !h.ends_with("...") => s.to_string(),
        _ => h.to_string(),
    }
}

fn body_rules(sink: &mut Sink<'_>, parts: &Parts<'_>) {
    let config = sink.config;
    if (parts.body_start.is_some() || parts.footer_start.is_some()) && !parts.second_line_blank() {
        let l = &parts.lines[1];
        sink.push(
            Rule::BodyLeadingBlank,
            (l.number, 1),
            "no blank line between the header and the body".into(),
            "a blank line after the header".into(),
            None,
        );
    }
    let misplaced = parts.unseparated_footers.or(parts
        .footer_start
        .filter(|&fs| fs > 1 && !parts.lines[fs - 1].text.is_empty()));
    if let Some(i) = misplaced {
        sink.push(
            Rule::FooterLeadingBlank,
            (parts.lines[i].number, 1),
            "no blank line before the footer".into(),
            "a blank line between the body and the footers (`Token: value`, `Closes #1`)".into(),
            None,
        );
    }
    for (i, l) in parts.lines.iter().enumerate().skip(1) {
        let in_footer = parts.footer_start.is_some_and(|fs| i >= fs);
        let (rule, max, what) = if in_footer {
            (
                Rule::FooterMaxLineLength,
                config.footer_max_line_length,
                "footer",
            )
        } else {
            (Rule::BodyMaxLineLength, config.body_max_line_length, "body")
        };
        let len = js_len(&l.text);
        // commitlint exempts lines with a URL: they cannot be wrapped.
        if len > max && !has_url(&l.text) {
            sink.push(
                rule,
                (l.number, max + 1),
                format!("this {what} line is {len} characters long, more than {max}"),
                format!("{what} lines of at most {max} characters (wrap the text)"),
                None,
            );
        }
    }
    if sink.on(Rule::BreakingChangeFooter) {
        breaking_rule(sink, parts);
    }
}

fn breaking_rule(sink: &mut Sink<'_>, parts: &Parts<'_>) {
    let header = parts.header();
    let bang = header::parse(&header.text).is_some_and(|h| h.breaking);
    match (bang, parts.breaking_footer()) {
        (true, None) => sink.push(
            Rule::BreakingChangeFooter,
            (header.number, 1),
            "the header has `!` but there is no `BREAKING CHANGE:` footer".into(),
            "a `BREAKING CHANGE: <what breaks and how to migrate>` footer".into(),
            None,
        ),
        (false, Some(f)) => {
            let h = header::parse(&header.text);
            let suggestion = h.map(|h| {
                let at = h.subject_at - 2;
                format!("{}!{}", &header.text[..at], &header.text[at..])
            });
            sink.push(
                Rule::BreakingChangeFooter,
                (parts.lines[f.line].number, 1),
                format!("a `{}` footer but no `!` in the header", f.token),
                "`type(scope)!: description` for a breaking change".into(),
                suggestion,
            );
        }
        _ => {}
    }
}

/// commitlint's `\bhttps?://\S+`.
fn has_url(line: &str) -> bool {
    line.match_indices("http").any(|(i, _)| {
        let before_ok = line[..i]
            .chars()
            .next_back()
            .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_'));
        let rest = &line[i + 4..];
        let rest = rest.strip_prefix('s').unwrap_or(rest);
        before_ok
            && rest
                .strip_prefix("://")
                .is_some_and(|r| r.starts_with(|c: char| !c.is_whitespace()))
    })
}

#[cfg(test)]
mod tests {
    use super::has_url;

    #[test]
    fn urls_are_recognised_like_commitlint() {
        assert!(has_url("see https://example.com/a/very/long/path"));
        assert!(has_url("http://x"));
        assert!(!has_url("https:// nothing"));
        assert!(!has_url("xhttps://example.com"));
        assert!(!has_url("no url here"));
    }
}

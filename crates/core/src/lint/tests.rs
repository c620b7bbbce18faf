//! One test per rule, plus cleaning, ignores and suggestions end to end.

use super::*;

fn check(msg: &str) -> Report {
    lint(msg, CleanMode::Edit, &LintConfig::default())
}

fn check_with(msg: &str, settings: &[(&str, &str)]) -> Report {
    let mut c = LintConfig::default();
    for (k, v) in settings {
        c.apply(k, v).unwrap();
    }
    lint(msg, CleanMode::Edit, &c)
}

fn rules(r: &Report) -> Vec<(&'static str, Severity)> {
    r.findings
        .iter()
        .map(|f| (f.rule.name(), f.severity))
        .collect()
}

/// Each rule named, as an error.
fn errors(names: &[&'static str]) -> Vec<(&'static str, Severity)> {
    names.iter().map(|&name| (name, Severity::Error)).collect()
}

/// The one finding of `r`, which must be an error of `rule`.
#[track_caller]
fn only_error<'r>(r: &'r Report, rule: &'static str) -> &'r Finding {
    assert_eq!(rules(r), errors(&[rule]));
    finding(r, rule)
}

/// What the finding of `rule` suggests.
fn suggestion<'r>(r: &'r Report, rule: &str) -> Option<&'r str> {
    finding(r, rule).suggestion.as_deref()
}

fn finding<'r>(r: &'r Report, rule: &str) -> &'r Finding {
    r.findings
        .iter()
        .find(|f| f.rule.name() == rule)
        .unwrap_or_else(|| panic!("no {rule} finding in {:#?}", r.findings))
}

#[test]
fn valid_messages_have_no_findings() {
    for m in [
        "feat: add user authentication",
        "feat(auth): add login support",
        "fix(api)!: drop the v1 endpoints\n\nThey were deprecated in 2.0.\n\nBREAKING CHANGE: v1 is gone\nRefs #42",
        "docs: explain `Config` in README",
        "chore(deps): bump serde from 1.0.1 to 1.0.2",
        "perf: 2x faster diff",
        "refactor: use Vec::with_capacity\n\nLong body text that explains why.\n\nCo-authored-by: A <a@example.com>",
        "feat: support ... ellipsis...",
    ] {
        let r = check(m);
        assert!(r.findings.is_empty(), "{m}: {:#?}", r.findings);
        assert!(r.passed());
    }
}

#[test]
fn type_enum_suggests_the_nearest_type() {
    let r = check("feet: add x");
    let f = only_error(&r, "type-enum");
    assert_eq!((f.line, f.column), (1, 1));
    assert!(f.expected.contains("feat, fix"), "{}", f.expected);
    assert_eq!(
        f.suggestion.as_deref(),
        Some("did you mean `feat`? feat: add x")
    );
    assert_eq!(r.suggested_header.as_deref(), Some("feat: add x"));
}

#[test]
fn type_case_lowercases_the_type() {
    let r = check("Feat: x");
    assert_eq!(rules(&r), errors(&["type-case", "type-enum"]));
    assert_eq!(suggestion(&r, "type-case"), Some("feat: x"));
    assert_eq!(r.suggested_header.as_deref(), Some("feat: x"));
}

#[test]
fn type_empty_and_subject_empty_for_a_plain_sentence() {
    let r = check("add login");
    assert_eq!(rules(&r), errors(&["type-empty", "subject-empty"]));
    let f = finding(&r, "type-empty");
    assert_eq!(f.suggestion.as_deref(), Some("<type>: add login"));
    assert!(
        f.expected.contains("build, chore, ci, docs, feat, fix"),
        "{}",
        f.expected
    );
}

#[test]
fn missing_space_after_colon_is_not_accepted() {
    // git-conventional alone would accept this header.
    let r = check("fix:x");
    assert_eq!(r.error_rules(), ["subject-empty", "type-empty"]);
    assert_eq!(suggestion(&r, "type-empty"), Some("fix: x"));
    let r = check("PROJ-123: do x");
    assert_eq!(r.error_rules(), ["subject-empty", "type-empty"]);
}

#[test]
fn empty_type_and_empty_subject_in_a_parsed_header() {
    let r = check(": x");
    assert_eq!(rules(&r), [("type-empty", Severity::Error)]);
    let r = check_with("feat: ", &[]);
    // Trailing whitespace is cleaned away, leaving `feat:`, which does not parse.
    assert_eq!(r.error_rules(), ["subject-empty", "type-empty"]);
}

#[test]
fn subject_case_rejects_a_capital_first_letter() {
    let r = check("feat: Add login");
    let f = only_error(&r, "subject-case");
    assert_eq!((f.line, f.column), (1, 7));
    assert_eq!(f.suggestion.as_deref(), Some("feat: add login"));
    // Acronyms are errors too, as in commitlint, but not lowered.
    let r = check("docs: README typo");
    assert_eq!(r.error_rules(), ["subject-case"]);
    assert_eq!(finding(&r, "subject-case").suggestion, None);
    // Not starting with a letter: not judged.
    assert!(check("fix: 404 on /login").passed());
    assert!(check("fix: `Config` default").passed());
}

#[test]
fn subject_full_stop() {
    let r = check("fix: handle nil.");
    let f = only_error(&r, "subject-full-stop");
    assert_eq!(f.column, 16);
    assert_eq!(f.suggestion.as_deref(), Some("fix: handle nil"));
    assert!(check("fix: and so on...").passed());
}

#[test]
fn header_max_length_counts_like_javascript() {
    let long = format!("feat: {}", "a".repeat(94));
    assert!(check(&long).passed(), "exactly 100");
    let r = check(&format!("{long}b"));
    assert_eq!(rules(&r), [("header-max-length", Severity::Error)]);
    assert_eq!(finding(&r, "header-max-length").column, 101);
    let r = check_with("feat: a fine header", &[("headerMaxLength", "10")]);
    assert_eq!(r.error_rules(), ["header-max-length"]);
}

#[test]
fn header_trim_leading_whitespace() {
    let r = check("  feat: x");
    assert!(r.error_rules().contains(&"header-trim"), "{r:#?}");
    assert_eq!(suggestion(&r, "header-trim"), Some("feat: x"));
}

#[test]
fn body_and_footer_line_lengths() {
    let long = "b".repeat(101);
    let r = check(&format!("feat: x\n\n{long}"));
    let f = only_error(&r, "body-max-line-length");
    assert_eq!((f.line, f.column), (3, 101));
    let r = check(&format!("feat: x\n\nbody\n\nRefs: {long}"));
    assert_eq!(rules(&r), [("footer-max-line-length", Severity::Error)]);
    // A line with a URL cannot be wrapped: exempt, as in commitlint.
    let r = check(&format!("feat: x\n\nsee https://example.com/{long}"));
    assert!(r.passed(), "{r:#?}");
}

#[test]
fn leading_blank_lines_are_warnings() {
    let r = check("feat: x\nbody right under the header");
    assert_eq!(rules(&r), [("body-leading-blank", Severity::Warning)]);
    assert!(r.passed());
    assert_eq!(r.warnings(), 1);
    let r = check("feat: x\n\nbody\nSigned-off-by: A <a@b>");
    assert_eq!(rules(&r), [("footer-leading-blank", Severity::Warning)]);
    assert_eq!(finding(&r, "footer-leading-blank").line, 4);
    assert!(r.passed());
    let r = check("feat: x\n\nbody\n\nRefs: #1");
    assert!(r.findings.is_empty(), "{r:#?}");
}

#[test]
fn severities_are_configurable() {
    let r = check_with(
        "Feat: X",
        &[("rule.type-case", "off"), ("rule.subject-case", "warn")],
    );
    assert_eq!(
        rules(&r),
        [
            ("type-enum", Severity::Error),
            ("subject-case", Severity::Warning)
        ]
    );
    let r = check_with("wip: x", &[("types", "feat,fix,wip")]);
    assert!(r.passed(), "{r:#?}");
}

#[test]
fn scope_enum_when_scopes_are_configured() {
    let r = check_with("feat(cli): x", &[("scopes", "api,cli")]);
    assert!(r.passed());
    let r = check_with("feat(web,cli): x", &[("scopes", "api,cli")]);
    assert_eq!(rules(&r), [("scope-enum", Severity::Error)]);
    assert_eq!(finding(&r, "scope-enum").column, 6);
    assert!(check("feat(anything): x").passed());
}

#[test]
fn breaking_change_rule_is_opt_in_and_needs_both_marks() {
    let bang_only = "feat!: drop x";
    let footer_only = "feat: drop x\n\nBREAKING CHANGE: x is gone";
    let both = "feat!: drop x\n\nBREAKING CHANGE: x is gone";
    assert!(check(bang_only).findings.is_empty());
    assert!(check(footer_only).findings.is_empty());
    let on = [("rule.breaking-change-footer", "error")];
    assert_eq!(
        check_with(bang_only, &on).error_rules(),
        ["breaking-change-footer"]
    );
    let r = check_with(footer_only, &on);
    let f = finding(&r, "breaking-change-footer");
    assert_eq!(f.line, 3);
    assert_eq!(f.suggestion.as_deref(), Some("feat!: drop x"));
    assert!(check_with(both, &on).findings.is_empty());
    let arrow = "feat(api)!: drop x\n\nBREAKING-CHANGE: x is gone";
    assert!(check_with(arrow, &on).findings.is_empty());
}

#[test]
fn line_numbers_point_into_the_original_text() {
    let raw = "# Please enter the commit message\n\nfeat: x\n\n# comment\nok body\n\nRefs: https://x\n{long}\n";
    let raw = raw.replace("{long}", &"z".repeat(120));
    let r = check(&raw);
    let f = finding(&r, "footer-max-line-length");
    assert_eq!(f.line, 9);
}

#[test]
fn comments_and_scissors_are_cleaned_before_linting() {
    let raw = "feat: x\n\n# Please enter the commit message for your changes.\n# ------------------------ >8 ------------------------\n# Do not modify or remove the line above.\ndiff --git a/f b/f\n+Capital Letters And A Very Long Line ....................................................................\n";
    assert!(check(raw).findings.is_empty(), "{:#?}", check(raw));
    let r = lint(
        "feat: x\n\n# Not A Comment In History",
        CleanMode::Stored,
        &LintConfig::default(),
    );
    assert!(r.findings.is_empty());
    let mut c = LintConfig::default();
    c.comment_char = CommentChar::from_config(";");
    let r = lint("Bad header\n; comment", CleanMode::Edit, &c);
    assert_eq!(r.error_rules(), ["subject-empty", "type-empty"]);
}

#[test]
fn ignored_and_empty_messages_pass() {
    for m in [
        "Merge branch 'main' into x",
        "Revert \"feat: x\"",
        "fixup! feat: x",
        "v1.2.3",
    ] {
        let r = check(m);
        assert!(r.ignored.is_some() && r.findings.is_empty(), "{m}");
    }
    let r = check("# all comments\n\n");
    assert!(r.empty && r.passed());
}

#[test]
fn findings_serialise_with_rule_names() {
    let r = check("feet: x");
    let v = serde_json::to_value(&r).unwrap();
    assert_eq!(v["findings"][0]["rule"], "type-enum");
    assert_eq!(v["findings"][0]["severity"], "error");
    assert_eq!(v["findings"][0]["line"], 1);
}

#[test]
fn never_panics_on_odd_input() {
    let mut all_on = LintConfig::default();
    for rule in Rule::ALL {
        all_on.set_severity(rule, Severity::Error);
    }
    all_on.apply("scopes", "api").unwrap();
    let odd = [
        "feat(",
        "feat(a",
        ")",
        "(): ",
        "!: x",
        "feat!:",
        "feat(😀)!: é\u{301}\r\n\r\nBREAKING CHANGE:",
        "\u{feff}feat: bom",
        "feat: x\n\nToken:",
        "feat: x\n\nToken: \n #",
        "feat: x\n\n\n\nBREAKING CHANGE: y\n\ncontinued\nRefs #",
        "# ------------------------ >8 ------------------------",
        "\r\r\r",
        "Merged PR",
        "chore(",
        "chore():1.2.3",
        "v",
        "😀😀😀: 😀",
    ];
    for m in odd {
        let chars: Vec<(usize, char)> = m.char_indices().collect();
        for (i, _) in chars {
            for config in [&LintConfig::default(), &all_on] {
                for mode in [CleanMode::Edit, CleanMode::Stored] {
                    let r = lint(&m[..i], mode, config);
                    assert!(r.findings.iter().all(|f| f.line >= 1 && f.column >= 1));
                }
            }
        }
        let r = lint(m, CleanMode::Edit, &all_on);
        assert!(
            r.findings.iter().all(|f| f.line >= 1 && f.column >= 1),
            "{m}"
        );
    }
}

//! Agreement with commitlint: the corpus in `fixtures/commits/corpus.json`
//! holds real and realistic messages with the verdict commitlint
//! (config-conventional) gave each one (`scripts/commitlint_verdicts.mjs`).
//! Our verdict (errors or not) must match on at least 98% of them.

use serde::Deserialize;

use super::{CleanMode, LintConfig, lint};

#[derive(Deserialize)]
struct Corpus {
    messages: Vec<Entry>,
}

#[derive(Deserialize)]
struct Entry {
    id: usize,
    message: String,
    commitlint: Verdict,
}

#[derive(Deserialize)]
struct Verdict {
    valid: bool,
    errors: Vec<String>,
    warnings: Vec<String>,
}

#[test]
#[allow(clippy::print_stdout)]
fn verdicts_agree_with_commitlint_on_the_corpus() {
    let corpus: Corpus =
        serde_json::from_str(include_str!("../../../../fixtures/commits/corpus.json")).unwrap();
    let config = LintConfig::default();
    let total = corpus.messages.len();
    assert!(total >= 300, "the corpus has only {total} messages");
    let mut same_verdict = 0;
    let mut same_rules = 0;
    let mut disagreements = Vec::new();
    let mut rule_differences = Vec::new();
    let mut same_warnings = 0;
    for e in &corpus.messages {
        // History holds messages as git stored them.
        let report = lint(&e.message, CleanMode::Stored, &config);
        let ours: Vec<&str> = report.error_rules();
        if report.passed() == e.commitlint.valid {
            same_verdict += 1;
        } else {
            disagreements.push(format!(
                "#{} {:?}: commitlint {:?}, ours {:?}",
                e.id, e.message, e.commitlint.errors, ours
            ));
        }
        let mut warnings: Vec<&str> = report
            .findings
            .iter()
            .filter(|f| f.severity == super::Severity::Warning)
            .map(|f| f.rule.name())
            .collect();
        warnings.sort_unstable();
        warnings.dedup();
        if warnings == e.commitlint.warnings {
            same_warnings += 1;
        }
        if ours == e.commitlint.errors {
            same_rules += 1;
        } else {
            rule_differences.push(format!(
                "#{} {:?}: commitlint {:?}, ours {:?}",
                e.id, e.message, e.commitlint.errors, ours
            ));
        }
    }
    let pct = |n: usize| 100.0 * n as f64 / total as f64;
    println!(
        "commitlint agreement: verdict {same_verdict}/{total} = {:.2}%, error rules {same_rules}/{total} = {:.2}%, warning rules {same_warnings}/{total} = {:.2}%",
        pct(same_verdict),
        pct(same_rules),
        pct(same_warnings)
    );
    for d in &disagreements {
        println!("  verdict differs: {d}");
    }
    for d in &rule_differences {
        println!("  rules differ: {d}");
    }
    assert!(
        pct(same_verdict) >= 98.0,
        "agreement {:.2}% < 98%:\n{}",
        pct(same_verdict),
        disagreements.join("\n")
    );
}

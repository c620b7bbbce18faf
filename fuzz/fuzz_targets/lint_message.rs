//! The commit-message linter never panics on any text, in either cleaning
//! mode, and every finding points at a line of the message.
#![no_main]

use git_evolv::lint::{CleanMode, LintConfig, lint};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let config = LintConfig::default();
    for mode in [CleanMode::Edit, CleanMode::Stored] {
        let report = lint(&text, mode, &config);
        let lines = text.split('\n').count().max(1);
        for finding in &report.findings {
            assert!(finding.line >= 1 && finding.line <= lines, "{finding:?} in {text:?}");
        }
    }
});

//! What an edit list did to each file, and what the validators said about
//! it, as stored in an edit proposal's metadata (issue 12 item 2: the
//! review page and `show` give "operation type, locator, warnings and
//! validator results per file"). Plain data: `ops::proposing::edit` fills it at
//! propose time, `ops::reading::review::file_results` reads it back per file.
//!
//! Every field reads with a default, and the operation type is kept as
//! text, so a record written by a newer git-evolv (a new kind, a new
//! field) never stops an older one from loading the proposal.

use serde::{Deserialize, Serialize};

use crate::validators::ValidatorReport;

/// Where a file's change sits in its new content: the first to the last
/// changed line, 1-based, end column exclusive (`ops::proposing::edit`'s
/// locator).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct Span {
    pub start_line: usize,
    pub start_col: usize,
    pub end_line: usize,
    pub end_col: usize,
}

/// One changed file of an edit list, as proposed.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct FileRecord {
    pub path: String,
    /// `create`, `modify`, `delete` or `rename`.
    pub operation_type: String,
    /// The old path of a rename.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_path: Option<String>,
    /// The changed region; absent for a delete or a binary file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locator: Option<Span>,
    /// Same-line warnings of the edits of this file.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// A file's record with the validators that checked it: what `show` and
/// the review page give per file.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct FileResult {
    #[serde(flatten)]
    pub record: FileRecord,
    /// The validators whose files include this one (built-in parsers and
    /// configured commands), as they ran when the proposal was made.
    pub validators: Vec<ValidatorReport>,
}

/// Each record joined with the reports that name its path (a report of a
/// command run over several files appears under each of them).
pub fn per_file(records: &[FileRecord], reports: &[ValidatorReport]) -> Vec<FileResult> {
    records
        .iter()
        .map(|r| FileResult {
            record: r.clone(),
            validators: reports
                .iter()
                .filter(|v| v.files.iter().any(|f| f == &r.path))
                .cloned()
                .collect(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(name: &str, files: &[&str], passed: bool) -> ValidatorReport {
        ValidatorReport {
            name: name.into(),
            command: None,
            files: files.iter().map(|f| f.to_string()).collect(),
            passed,
            output: String::new(),
            exit_code: None,
            checked: true,
        }
    }

    #[test]
    fn each_file_gets_the_reports_that_name_it() {
        let rec = |p: &str| FileRecord {
            path: p.into(),
            operation_type: "modify".into(),
            from_path: None,
            locator: None,
            warnings: Vec::new(),
        };
        let reports = [
            report("json", &["a.json"], false),
            report("lint", &["a.json", "b.toml"], true),
        ];
        let out = per_file(&[rec("a.json"), rec("b.toml"), rec("c.txt")], &reports);
        let names: Vec<Vec<&str>> = out
            .iter()
            .map(|f| f.validators.iter().map(|v| v.name.as_str()).collect())
            .collect();
        assert_eq!(names, [vec!["json", "lint"], vec!["lint"], vec![]]);
    }

    #[test]
    fn a_record_from_a_newer_version_still_reads() {
        let r: FileRecord = serde_json::from_str(
            r#"{"path":"x","operation_type":"copy","new_field":1,"locator":null}"#,
        )
        .unwrap();
        assert_eq!(r.operation_type, "copy");
        assert_eq!(r.locator, None);
    }
}

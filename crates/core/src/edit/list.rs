//! The edit-list format: one JSON document shared by the CLI
//! (`propose --edits`), the library (`ops::proposing::edit`) and the MCP
//! server. Parsing names the edit's index and field of any mistake; nothing
//! here reads files or git.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::failure::EditFailure;
use super::path::check_path;

/// A list of edits proposed together as one proposal.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "EditList")]
pub struct EditList {
    /// One-line summary of the proposal (default: a description of the edits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Base the edits on this pending proposal's tree instead of HEAD (a stack).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub onto: Option<String>,
    /// Store the edits that succeeded and report the ones that failed,
    /// instead of storing nothing when one fails.
    #[serde(default, skip_serializing_if = "is_false")]
    pub keep_going: bool,
    /// How validator failures count (default strict).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<CheckMode>,
    /// The edits, applied per file in list order (range edits of a file first, together).
    pub edits: Vec<Edit>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// One edit of one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum Edit {
    /// Replace exact text: `old` must occur exactly once unless `replace_all`.
    Replace {
        /// Repository-relative path of the file.
        path: String,
        /// The exact text to find (`\n` also matches `\r\n` in a CRLF file).
        old: String,
        /// The text to put in its place (`\n` takes the file's line ending).
        new: String,
        /// Replace every occurrence instead of requiring exactly one.
        #[serde(default)]
        replace_all: bool,
    },
    /// A regex replacement in one file (`$1`/`${name}` expand to captures).
    Regex {
        /// Repository-relative path of the file.
        path: String,
        /// The regex (multi-line mode: `^`/`$` match at line ends).
        pattern: String,
        /// The replacement.
        replacement: String,
        /// At most this many replacements; 0 means all.
        #[serde(default)]
        max_count: usize,
    },
    /// Replace a range given by line/column or by offsets (1-based lines and
    /// columns, 0-based offsets, Unicode scalar values, end exclusive), always
    /// relative to the file at the base.
    Range {
        /// Repository-relative path of the file.
        path: String,
        /// Where the range is.
        locator: Locator,
        /// The text to put in its place (`\n` takes the file's line ending).
        new: String,
    },
    /// Create the file, or replace its whole content; stored byte for byte.
    Write {
        /// Repository-relative path of the file.
        path: String,
        /// The complete new content.
        content: String,
    },
    /// Delete the file.
    Delete {
        /// Repository-relative path of the file.
        path: String,
    },
    /// Rename the file, keeping its content and mode.
    Rename {
        /// Repository-relative path of the file.
        path: String,
        /// Its new repository-relative path.
        to: String,
    },
    /// Replace, insert or delete one cell of a Jupyter notebook.
    Notebook {
        /// Repository-relative path of the `.ipynb` file.
        path: String,
        /// What to do with the cell.
        mode: CellMode,
        /// The cell's 0-based index; for insert the new cell goes after it (-1: at the top).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cell: Option<i64>,
        /// The cell's `id` (nbformat 4.5 and newer), instead of `cell`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cell_id: Option<String>,
        /// The cell's type (insert: default code; replace: default unchanged).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cell_type: Option<CellType>,
        /// The cell's new source (replace and insert).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        source: Option<String>,
        /// Keep a replaced code cell's outputs and execution count.
        #[serde(default)]
        keep_outputs: bool,
    },
}

/// What a failing validator does to the proposal.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CheckMode {
    /// A failing validator rejects the proposal (the default).
    #[default]
    Strict,
    /// Store the proposal and report the failures.
    Warn,
    /// Report only; store nothing.
    Only,
}

/// What a notebook edit does to its cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CellMode {
    Replace,
    Insert,
    Delete,
}

/// A notebook cell's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CellType {
    Code,
    Markdown,
    Raw,
}

impl CellType {
    /// The name nbformat uses.
    pub fn as_str(self) -> &'static str {
        match self {
            CellType::Code => "code",
            CellType::Markdown => "markdown",
            CellType::Raw => "raw",
        }
    }
}

/// A range: either all four line/column fields or both offsets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Locator {
    /// First line (1-based).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub start_line: Option<usize>,
    /// First column (1-based, in Unicode scalar values).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub start_col: Option<usize>,
    /// Line of the end (1-based).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub end_line: Option<usize>,
    /// Column of the end, exclusive (1-based).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub end_col: Option<usize>,
    /// Start offset (0-based, Unicode scalar values, after any BOM).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_offset: Option<usize>,
    /// End offset, exclusive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_offset: Option<usize>,
}

/// A locator once its shape is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Position {
    /// 1-based line and column.
    LineCol(usize, usize),
    /// 0-based offset.
    Offset(usize),
}

impl Locator {
    /// The start and end of a well-formed locator, or which field is wrong.
    pub fn positions(&self) -> Result<(Position, Position), String> {
        let lc = [self.start_line, self.start_col, self.end_line, self.end_col];
        let off = [self.start_offset, self.end_offset];
        let any_lc = lc.iter().any(Option::is_some);
        let any_off = off.iter().any(Option::is_some);
        if any_lc && any_off {
            return Err("give either start_line/start_col/end_line/end_col or start_offset/end_offset, not both".into());
        }
        if any_off {
            return match (self.start_offset, self.end_offset) {
                (Some(s), Some(e)) => Ok((Position::Offset(s), Position::Offset(e))),
                (None, _) => Err("start_offset is missing".into()),
                (_, None) => Err("end_offset is missing".into()),
            };
        }
        let names = ["start_line", "start_col", "end_line", "end_col"];
        for (v, name) in lc.iter().zip(names) {
            match v {
                None => return Err(format!("{name} is missing")),
                Some(0) => return Err(format!("{name} is 0; lines and columns start at 1")),
                Some(_) => {}
            }
        }
        let [Some(sl), Some(sc), Some(el), Some(ec)] = lc else {
            unreachable!("checked above")
        };
        Ok((Position::LineCol(sl, sc), Position::LineCol(el, ec)))
    }
}

impl Edit {
    /// The file the edit works on.
    pub fn path(&self) -> &str {
        match self {
            Edit::Replace { path, .. }
            | Edit::Regex { path, .. }
            | Edit::Range { path, .. }
            | Edit::Write { path, .. }
            | Edit::Delete { path }
            | Edit::Rename { path, .. }
            | Edit::Notebook { path, .. } => path,
        }
    }

    /// The `op` name.
    pub fn op(&self) -> &'static str {
        match self {
            Edit::Replace { .. } => "replace",
            Edit::Regex { .. } => "regex",
            Edit::Range { .. } => "range",
            Edit::Write { .. } => "write",
            Edit::Delete { .. } => "delete",
            Edit::Rename { .. } => "rename",
            Edit::Notebook { .. } => "notebook",
        }
    }

    /// Shape checks that need no file: paths, locators, notebook fields.
    pub fn check(&self, index: usize) -> Result<(), EditFailure> {
        let bad = |field: &str, why: String| {
            EditFailure::invalid(
                Some(index),
                self.path(),
                format!("edits[{index}].{field}: {why}"),
            )
        };
        check_path(self.path()).map_err(|why| bad("path", why))?;
        match self {
            Edit::Replace { old, .. } if old.is_empty() => Err(bad(
                "old",
                "is empty; give the exact text to replace (use op \"write\" for a whole file)"
                    .into(),
            )),
            Edit::Regex { pattern, .. } if pattern.is_empty() => {
                Err(bad("pattern", "is empty".into()))
            }
            Edit::Range { locator, .. } => locator
                .positions()
                .map(|_| ())
                .map_err(|why| bad("locator", why)),
            Edit::Rename { path, to } => {
                check_path(to).map_err(|why| bad("to", why))?;
                if path == to {
                    return Err(bad("to", format!("is the same path as path ('{to}')")));
                }
                Ok(())
            }
            Edit::Notebook {
                mode,
                cell,
                cell_id,
                source,
                ..
            } => {
                if cell.is_some() == cell_id.is_some() {
                    return Err(bad(
                        "cell",
                        "give exactly one of cell (an index) and cell_id".into(),
                    ));
                }
                if *mode != CellMode::Insert && cell.is_some_and(|c| c < 0) {
                    return Err(bad("cell", "is negative; cell indexes start at 0".into()));
                }
                if *mode == CellMode::Insert && cell.is_some_and(|c| c < -1) {
                    return Err(bad("cell", "is below -1 (-1 inserts at the top)".into()));
                }
                if *mode != CellMode::Delete && source.is_none() {
                    return Err(bad(
                        "source",
                        "is missing; replace and insert need the cell's source".into(),
                    ));
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

impl EditList {
    /// Parses an edit list from JSON, naming the index and field of the
    /// first mistake (`invalid_input`, exit 2).
    pub fn from_json(text: &str) -> Result<EditList, String> {
        let value: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| format!("the edit list is not valid JSON: {e}"))?;
        let serde_json::Value::Object(mut top) = value else {
            return Err("the edit list must be a JSON object with an \"edits\" array".into());
        };
        let edits = top
            .remove("edits")
            .ok_or("the edit list has no \"edits\" field")?;
        let serde_json::Value::Array(items) = edits else {
            return Err("\"edits\" must be an array".into());
        };
        let mut list: EditList = serde_json::from_value(serde_json::Value::Object({
            let mut m = top;
            m.insert("edits".into(), serde_json::Value::Array(Vec::new()));
            m
        }))
        .map_err(|e| format!("the edit list: {e}"))?;
        for (i, item) in items.into_iter().enumerate() {
            let op = item.get("op").and_then(|v| v.as_str()).map(str::to_owned);
            let edit: Edit = serde_json::from_value(item).map_err(|e| match &op {
                Some(op) => format!("edits[{i}] (op \"{op}\"): {e}"),
                None => format!("edits[{i}]: {e}"),
            })?;
            list.edits.push(edit);
        }
        if list.edits.is_empty() {
            return Err("\"edits\" is empty: give at least one edit".into());
        }
        Ok(list)
    }

    /// The JSON Schema (draft 2020-12) of an edit list.
    pub fn json_schema() -> serde_json::Value {
        let generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
        serde_json::to_value(generator.into_root_schema_for::<EditList>())
            .expect("schemas serialise")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_op_of_the_issue_example() {
        let list = EditList::from_json(
            r#"{"message": "m", "onto": "patch_1_ab", "edits": [
             {"path": "src/a.rs", "op": "replace", "old": "x", "new": "y", "replace_all": false},
             {"path": "src/a.rs", "op": "regex", "pattern": "a", "replacement": "b", "max_count": 0},
             {"path": "src/b.rs", "op": "range", "locator": {"start_line": 12, "start_col": 1, "end_line": 20, "end_col": 1}, "new": "z"},
             {"path": "src/b.rs", "op": "range", "locator": {"start_offset": 120, "end_offset": 180}, "new": "z"},
             {"path": "src/new.rs", "op": "write", "content": "c"},
             {"path": "old.rs", "op": "delete"},
             {"path": "old_name.rs", "op": "rename", "to": "new_name.rs"},
             {"path": "nb/a.ipynb", "op": "notebook", "mode": "replace", "cell": 3, "cell_type": "code", "source": "s"}
            ]}"#,
        )
        .unwrap();
        assert_eq!(list.edits.len(), 8);
        for (i, e) in list.edits.iter().enumerate() {
            e.check(i).unwrap();
        }
    }

    #[test]
    fn unknown_fields_and_ops_name_the_index() {
        let err = EditList::from_json(r#"{"edits": [{"path": "a", "op": "delete"}, {"path": "a", "op": "replace", "old": "x", "new": "y", "typo": 1}]}"#).unwrap_err();
        assert!(
            err.starts_with("edits[1] (op \"replace\")") && err.contains("typo"),
            "{err}"
        );
        let err = EditList::from_json(r#"{"edits": [{"path": "a", "op": "frob"}]}"#).unwrap_err();
        assert!(err.contains("edits[0]") && err.contains("frob"), "{err}");
        let err = EditList::from_json(r#"{"edits": [], "extra": 1}"#).unwrap_err();
        assert!(err.contains("extra"), "{err}");
    }

    #[test]
    fn locators_need_one_complete_shape() {
        let l = Locator {
            start_line: Some(1),
            ..Default::default()
        };
        assert_eq!(l.positions().unwrap_err(), "start_col is missing");
        let l = Locator {
            start_offset: Some(1),
            start_line: Some(1),
            ..Default::default()
        };
        assert!(l.positions().unwrap_err().contains("not both"));
        let l = Locator {
            start_line: Some(0),
            start_col: Some(1),
            end_line: Some(1),
            end_col: Some(1),
            ..Default::default()
        };
        assert!(l.positions().unwrap_err().contains("start at 1"));
    }

    #[test]
    fn the_schema_is_draft_2020_12_and_lists_the_ops() {
        let s = EditList::json_schema();
        assert_eq!(s["$schema"], "https://json-schema.org/draft/2020-12/schema");
        let text = s.to_string();
        for op in [
            "replace", "regex", "range", "write", "delete", "rename", "notebook",
        ] {
            assert!(text.contains(&format!("\"{op}\"")), "{op}");
        }
    }
}

//! Runs a whole edit list over the files of a base tree, in memory. Range
//! edits of a file go first, together, against the base; then every other
//! edit in list order, each on the result of the one before. A failed edit
//! changes nothing and is reported; the caller decides whether the others
//! may be stored (`keep_going`). Pure: the base comes in as a map.

use std::collections::BTreeMap;

use super::failure::{EditCode, EditFailure};
use super::list::{Edit, EditList};
use super::range::{self, RangeEdit};
use super::replace::{self, ReplaceEdit};
use super::slot::Slot;
use super::text::Change;
use super::{FileEdit, Replacer, is_binary, notebook};

/// What a path is at the base.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BaseEntry {
    /// A regular file.
    File {
        content: Vec<u8>,
        mode: i32,
        /// Its blob id, quoted in failures.
        blob: String,
    },
    /// Nothing at this path.
    Missing,
    /// Something an edit may not touch, described ("a directory", "a
    /// symlink", "inside the symlink 'x'").
    Other(String),
}

impl BaseEntry {
    /// A regular, non-executable file (mode 100644) of `content`, whose
    /// blob id is `blob`.
    pub fn regular(content: &[u8], blob: &str) -> Self {
        BaseEntry::File {
            content: content.to_vec(),
            mode: 0o100644,
            blob: blob.into(),
        }
    }
}

/// How a file changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    Create,
    Modify,
    Delete,
    Rename,
}

/// One changed path, base content against new content.
#[derive(Debug, Clone)]
pub struct FileChange {
    pub path: String,
    /// The path it was renamed from.
    pub from: Option<String>,
    pub kind: ChangeKind,
    pub old: Option<Vec<u8>>,
    /// `None` when deleted.
    pub new: Option<Vec<u8>>,
    /// The mode of the new file (the old one's for a delete).
    pub mode: i32,
    pub warnings: Vec<String>,
    /// The edits that changed it, in list order.
    pub edits: Vec<usize>,
}

/// The result of running an edit list.
#[derive(Debug, Clone, Default)]
pub struct EngineOutcome {
    pub files: Vec<FileChange>,
    pub failures: Vec<EditFailure>,
    /// Indexes of the edits that succeeded.
    pub applied: Vec<usize>,
    pub warnings: Vec<String>,
}

struct Run<'a> {
    base: &'a BTreeMap<String, BaseEntry>,
    slots: BTreeMap<String, Slot>,
    new_id: &'a mut dyn FnMut() -> String,
}

/// Runs `list` against `base` (every path the list names must be a key;
/// absent keys count as missing). `new_id` makes notebook cell ids.
pub fn run(
    list: &EditList,
    base: &BTreeMap<String, BaseEntry>,
    new_id: &mut dyn FnMut() -> String,
) -> EngineOutcome {
    let mut out = EngineOutcome::default();
    let mut run = Run {
        base,
        slots: BTreeMap::new(),
        new_id,
    };
    let mut ok = vec![true; list.edits.len()];
    for (i, e) in list.edits.iter().enumerate() {
        if let Err(f) = e.check(i) {
            out.failures.push(f);
            ok[i] = false;
        }
    }
    // Range edits first, per file, together, against the base.
    let mut range_paths: Vec<&str> = Vec::new();
    for (i, e) in list.edits.iter().enumerate() {
        if let Edit::Range { path, .. } = e
            && ok[i]
            && !range_paths.contains(&path.as_str())
        {
            range_paths.push(path);
        }
    }
    for path in range_paths {
        let edits: Vec<RangeEdit<'_>> = list
            .edits
            .iter()
            .enumerate()
            .filter(|(i, _)| ok[*i])
            .filter_map(|(i, e)| match e {
                Edit::Range {
                    path: p,
                    locator,
                    new,
                } if p == path => Some(RangeEdit {
                    index: i,
                    locator,
                    new,
                }),
                _ => None,
            })
            .collect();
        let failed = run.ranges(path, &edits);
        for f in failed {
            ok[f.index.unwrap_or(0)] = false;
            out.failures.push(f);
        }
    }
    for (i, e) in list.edits.iter().enumerate() {
        if !ok[i] || matches!(e, Edit::Range { .. }) {
            continue;
        }
        if let Err(f) = run.one(i, e) {
            ok[i] = false;
            out.failures.push(f);
        }
    }
    out.failures.sort_by_key(|f| f.index);
    out.applied = (0..list.edits.len()).filter(|&i| ok[i]).collect();
    run.finish(&mut out);
    out
}

impl Run<'_> {
    fn base_entry(&self, path: &str) -> &BaseEntry {
        self.base.get(path).unwrap_or(&BaseEntry::Missing)
    }

    /// The current state of `path`, or why no edit may touch it.
    fn slot(&mut self, index: usize, path: &str) -> Result<&mut Slot, EditFailure> {
        if !self.slots.contains_key(path) {
            let slot = match self.base_entry(path) {
                BaseEntry::File { content, mode, .. } => {
                    Slot::new(Some(content.clone()), *mode, Some(path))
                }
                BaseEntry::Missing => Slot::new(None, 0o100644, None),
                BaseEntry::Other(what) => {
                    return Err(EditFailure::invalid(
                        Some(index),
                        path,
                        format!(
                            "edits[{index}].path: '{path}' is {what} at the base; edits change regular files only"
                        ),
                    ));
                }
            };
            self.slots.insert(path.to_string(), slot);
        }
        Ok(self.slots.get_mut(path).expect("inserted above"))
    }

    fn blob(&self, path: &str) -> Option<String> {
        match self.base_entry(path) {
            BaseEntry::File { blob, .. } => Some(blob.clone()),
            _ => None,
        }
    }

    fn ranges(&mut self, path: &str, edits: &[RangeEdit<'_>]) -> Vec<EditFailure> {
        let first = edits.first().map(|e| e.index).unwrap_or(0);
        let content = match self.base_entry(path) {
            BaseEntry::File { content, .. } => content.clone(),
            BaseEntry::Missing => {
                return edits
                    .iter()
                    .map(|e| {
                        EditFailure::invalid(
                            Some(e.index),
                            path,
                            format!("edits[{}]: {path} does not exist at the base, so a range in it means nothing", e.index),
                        )
                    })
                    .collect();
            }
            BaseEntry::Other(_) => {
                return match self.slot(first, path) {
                    Err(f) => edits
                        .iter()
                        .map(|e| EditFailure {
                            index: Some(e.index),
                            ..f.clone()
                        })
                        .collect(),
                    Ok(_) => Vec::new(),
                };
            }
        };
        let (new, changes, failures) = range::apply(path, &content, edits);
        let blob = self.blob(path);
        let failures = failures
            .into_iter()
            .map(|mut f| {
                f.detail.blob = blob.clone();
                f
            })
            .collect();
        if !changes.is_empty() {
            let slot = self.slot(first, path).expect("a file at the base");
            slot.commit(path, &content, new, &changes);
        }
        failures
    }

    /// Runs one edit that is not a range edit on the current state of its
    /// file (or files, for a rename).
    fn one(&mut self, i: usize, e: &Edit) -> Result<(), EditFailure> {
        let path = e.path();
        match e {
            Edit::Replace {
                old,
                new,
                replace_all,
                ..
            } => {
                let edit = ReplaceEdit {
                    index: i,
                    path,
                    old,
                    new,
                    replace_all: *replace_all,
                };
                self.replace(&edit)
            }
            Edit::Regex {
                pattern,
                replacement,
                max_count,
                ..
            } => self.regex(i, path, pattern, replacement, *max_count),
            Edit::Write { content, .. } => self.write(i, path, content),
            Edit::Delete { .. } => self.delete(i, path),
            Edit::Rename { to, .. } => self.rename(i, path, to),
            Edit::Notebook { .. } => self.notebook(i, e),
            Edit::Range { .. } => unreachable!("range edits run first"),
        }
    }

    /// The current content of `path`, which the edit needs to exist.
    fn existing(&mut self, i: usize, path: &str, what: &str) -> Result<Vec<u8>, EditFailure> {
        let slot = self.slot(i, path)?;
        slot.content.clone().ok_or_else(|| not_found(i, path, what))
    }

    fn replace(&mut self, edit: &ReplaceEdit<'_>) -> Result<(), EditFailure> {
        let (i, path) = (edit.index, edit.path);
        let blob = self.blob(path);
        let content = self.existing(i, path, "does not exist")?;
        let (out, changes) = replace::apply(&content, edit).map_err(|mut f| {
            f.detail.blob = blob;
            f
        })?;
        self.commit(path, &content, out, &changes);
        Ok(())
    }

    fn regex(
        &mut self,
        i: usize,
        path: &str,
        pattern: &str,
        replacement: &str,
        max_count: usize,
    ) -> Result<(), EditFailure> {
        let content = self.existing(i, path, "does not exist")?;
        let out = regex_edit(i, path, &content, pattern, replacement, max_count)?;
        let changes = diff_span(i, &content, &out);
        self.commit(path, &content, out, &changes);
        Ok(())
    }

    fn write(&mut self, i: usize, path: &str, text: &str) -> Result<(), EditFailure> {
        let slot = self.slot(i, path)?;
        let old = slot.content.clone().unwrap_or_default();
        if slot.content.as_deref() == Some(text.as_bytes()) {
            return Err(EditFailure::new(
                Some(i),
                path,
                EditCode::AlreadyApplied,
                format!("edits[{i}]: {path} already has exactly this content"),
                "drop this edit from the list",
            ));
        }
        let changes = [Change {
            edit: i,
            start: 0,
            end: old.len(),
            new_len: text.len(),
        }];
        slot.commit(path, &old, text.as_bytes().to_vec(), &changes);
        Ok(())
    }

    fn delete(&mut self, i: usize, path: &str) -> Result<(), EditFailure> {
        let slot = self.slot(i, path)?;
        if slot.content.is_none() {
            return Err(not_found(
                i,
                path,
                "does not exist, so it cannot be deleted",
            ));
        }
        slot.content = None;
        slot.edits.push(i);
        Ok(())
    }

    fn rename(&mut self, i: usize, path: &str, to: &str) -> Result<(), EditFailure> {
        let to_missing = {
            let dst = self.slot(i, to).map_err(|mut f| {
                f.message = f.message.replace(".path:", ".to:");
                f
            })?;
            dst.content.is_none()
        };
        if !to_missing {
            return Err(EditFailure::invalid(
                Some(i),
                path,
                format!(
                    "edits[{i}].to: {to} already exists; delete it first if you mean to replace it"
                ),
            ));
        }
        let src = self.slot(i, path)?;
        let Some(content) = src.content.take() else {
            return Err(not_found(
                i,
                path,
                "does not exist, so it cannot be renamed",
            ));
        };
        src.edits.push(i);
        let (mode, origin) = (src.mode, src.origin.clone());
        let dst = self.slots.get_mut(to).expect("created above");
        dst.content = Some(content);
        dst.mode = mode;
        dst.origin = origin;
        dst.edits.push(i);
        Ok(())
    }

    fn notebook(&mut self, i: usize, e: &Edit) -> Result<(), EditFailure> {
        let path = e.path();
        let content =
            self.existing(i, path, "does not exist; a notebook edit never creates one")?;
        let out = notebook::edit(i, path, &content, e, self.new_id)?;
        let changes = diff_span(i, &content, &out);
        self.commit(path, &content, out, &changes);
        Ok(())
    }

    /// Takes `new` as the content of `path`, whose slot an edit looked up.
    fn commit(&mut self, path: &str, input: &[u8], new: Vec<u8>, changes: &[Change]) {
        let slot = self.slots.get_mut(path).expect("looked up by the edit");
        slot.commit(path, input, new, changes);
    }

    fn finish(self, out: &mut EngineOutcome) {
        let first = out.files.len();
        for (path, slot) in &self.slots {
            let base = self.base_entry(path);
            let (old, old_mode) = match base {
                BaseEntry::File { content, mode, .. } => (Some(content.clone()), *mode),
                _ => (None, 0),
            };
            let kind = match (&old, &slot.content) {
                (None, None) => continue,
                (Some(_), None) => ChangeKind::Delete,
                (None, Some(_)) => match &slot.origin {
                    Some(o)
                        if matches!(self.base_entry(o), BaseEntry::File { .. })
                            && self.slots.get(o).is_some_and(|s| s.content.is_none()) =>
                    {
                        ChangeKind::Rename
                    }
                    _ => ChangeKind::Create,
                },
                (Some(a), Some(b)) => {
                    if a == b && old_mode == slot.mode {
                        continue;
                    }
                    ChangeKind::Modify
                }
            };
            let from = (kind == ChangeKind::Rename)
                .then(|| slot.origin.clone())
                .flatten();
            let (old, edits) = match &from {
                Some(f) => {
                    let src = match self.base_entry(f) {
                        BaseEntry::File { content, .. } => Some(content.clone()),
                        _ => None,
                    };
                    let mut edits = self.slots[f].edits.clone();
                    edits.extend(&slot.edits);
                    edits.sort_unstable();
                    edits.dedup();
                    (src, edits)
                }
                None => (old, slot.edits.clone()),
            };
            out.warnings.extend(slot.warnings.iter().cloned());
            out.files.push(FileChange {
                path: path.clone(),
                from,
                kind,
                old,
                new: slot.content.clone(),
                mode: if slot.content.is_some() {
                    slot.mode
                } else {
                    old_mode
                },
                warnings: slot.warnings.clone(),
                edits,
            });
        }
        // A rename's source is part of its rename entry, not a delete of
        // its own. Only there: a rename into a path an earlier edit freed
        // (`[delete a, rename b→a]`) reports `a` modified, and `b` must
        // still go, as `git mv` would take it away.
        let sources: Vec<String> = out.files[first..]
            .iter()
            .filter(|f| f.kind == ChangeKind::Rename)
            .filter_map(|f| f.from.clone())
            .collect();
        let mut at = first;
        while at < out.files.len() {
            let f = &out.files[at];
            if f.kind == ChangeKind::Delete && sources.contains(&f.path) {
                out.files.remove(at);
            } else {
                at += 1;
            }
        }
    }
}

/// An edit's path is not there (or no longer is).
fn not_found(i: usize, path: &str, what: &str) -> EditFailure {
    EditFailure::new(
        Some(i),
        path,
        EditCode::NotFound,
        format!("edits[{i}]: {path} {what}"),
        "check the path: it is relative to the top of the repository and read from the base (HEAD, or the proposal given as onto)",
    )
}

/// One change covering everything between the common prefix and suffix.
fn diff_span(edit: usize, old: &[u8], new: &[u8]) -> Vec<Change> {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let max_suffix = old.len().min(new.len()) - prefix;
    let suffix = old
        .iter()
        .rev()
        .zip(new.iter().rev())
        .take(max_suffix)
        .take_while(|(a, b)| a == b)
        .count();
    vec![Change {
        edit,
        start: prefix,
        end: old.len() - suffix,
        new_len: new.len() - suffix - prefix,
    }]
}

fn regex_edit(
    i: usize,
    path: &str,
    content: &[u8],
    pattern: &str,
    replacement: &str,
    max_count: usize,
) -> Result<Vec<u8>, EditFailure> {
    if is_binary(content) {
        return Err(EditFailure::new(
            Some(i),
            path,
            EditCode::BinaryFile,
            format!("edits[{i}]: {path} is a binary file"),
            "text edits cannot change binary files; use op \"write\" or \"delete\"",
        ));
    }
    let invalid =
        |e: crate::Error| EditFailure::invalid(Some(i), path, format!("edits[{i}].pattern: {e}"));
    let replacer = Replacer::new(pattern, replacement, false).map_err(invalid)?;
    // One engine for every regex edit, a limit included (#16 item 9: the
    // anchors, empty matches and group checks are the engine's).
    let limit = if max_count == 0 {
        usize::MAX
    } else {
        max_count
    };
    let out = match replacer.edit_at_most(content, limit) {
        FileEdit::Changed { content, .. } => Some(content),
        FileEdit::Unchanged { matches } => {
            return Err(unchanged(i, path, pattern, matches));
        }
        FileEdit::Binary => None,
    };
    out.ok_or_else(|| {
        EditFailure::new(
            Some(i),
            path,
            EditCode::BinaryFile,
            format!("edits[{i}]: {path} is a binary file"),
            "use op \"write\"",
        )
    })
}

fn unchanged(i: usize, path: &str, pattern: &str, matches: usize) -> EditFailure {
    if matches == 0 {
        EditFailure::new(
            Some(i),
            path,
            EditCode::NoMatch,
            format!("edits[{i}]: pattern '{pattern}' matched nothing in {path}"),
            "check the regex against the file at the base (`git evolv cat`)",
        )
    } else {
        EditFailure::new(
            Some(i),
            path,
            EditCode::AlreadyApplied,
            format!(
                "edits[{i}]: pattern '{pattern}' matched {matches} time(s) in {path}, but every replacement reproduced the text"
            ),
            "drop this edit from the list",
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base(files: &[(&str, &str)]) -> BTreeMap<String, BaseEntry> {
        files
            .iter()
            .map(|(p, c)| (p.to_string(), BaseEntry::regular(c.as_bytes(), "b")))
            .collect()
    }

    fn list(json: &str) -> EditList {
        EditList::from_json(json).unwrap()
    }

    fn ids() -> impl FnMut() -> String {
        let mut n = 0;
        move || {
            n += 1;
            format!("id{n}")
        }
    }

    #[test]
    fn edits_of_one_file_apply_in_order_with_ranges_first() {
        let b = base(&[("a", "one\ntwo\nthree\n")]);
        let l = list(
            r#"{"edits": [
            {"op": "replace", "path": "a", "old": "TWO", "new": "2"},
            {"op": "range", "path": "a", "locator": {"start_line": 2, "start_col": 1, "end_line": 2, "end_col": 4}, "new": "TWO"}
        ]}"#,
        );
        let out = run(&l, &b, &mut ids());
        assert!(out.failures.is_empty(), "{:?}", out.failures);
        assert_eq!(out.files[0].new.as_deref(), Some(&b"one\n2\nthree\n"[..]));
        assert!(
            out.warnings.iter().any(|w| w.contains("both touch line 2")),
            "{:?}",
            out.warnings
        );
    }

    #[test]
    fn every_failure_is_listed_and_the_rest_applied() {
        let b = base(&[("a", "x\n"), ("b", "y\n")]);
        let l = list(
            r#"{"edits": [
            {"op": "replace", "path": "a", "old": "nope", "new": "z"},
            {"op": "delete", "path": "missing"},
            {"op": "replace", "path": "b", "old": "y", "new": "w"}
        ]}"#,
        );
        let out = run(&l, &b, &mut ids());
        let codes: Vec<_> = out.failures.iter().map(|f| (f.index, f.code)).collect();
        assert_eq!(
            codes,
            vec![(Some(0), EditCode::NoMatch), (Some(1), EditCode::NotFound)]
        );
        assert_eq!(out.applied, vec![2]);
        assert_eq!(out.files.len(), 1);
    }

    #[test]
    fn rename_keeps_content_and_mode_then_edits_follow() {
        let mut b = base(&[("a", "x\n")]);
        b.insert(
            "a".into(),
            BaseEntry::File {
                content: b"x\n".to_vec(),
                mode: 0o100755,
                blob: "b".into(),
            },
        );
        let l = list(
            r#"{"edits": [
            {"op": "rename", "path": "a", "to": "d/b"},
            {"op": "replace", "path": "d/b", "old": "x", "new": "y"}
        ]}"#,
        );
        let out = run(&l, &b, &mut ids());
        assert!(out.failures.is_empty(), "{:?}", out.failures);
        assert_eq!(out.files.len(), 1);
        let f = &out.files[0];
        assert_eq!(
            (f.kind, f.from.as_deref(), f.mode),
            (ChangeKind::Rename, Some("a"), 0o100755)
        );
        assert_eq!(f.new.as_deref(), Some(&b"y\n"[..]));
    }

    /// What each path becomes: `None` where it is deleted; paths no entry
    /// names keep their base content.
    fn outcome_tree(out: &EngineOutcome) -> BTreeMap<String, Option<String>> {
        let mut tree = BTreeMap::new();
        for f in &out.files {
            if let Some(from) = &f.from {
                tree.insert(from.clone(), None);
            }
            let new = f
                .new
                .as_ref()
                .map(|n| String::from_utf8_lossy(n).into_owned());
            tree.insert(f.path.clone(), new);
        }
        tree
    }

    /// A rename removes its source even into a path an earlier edit of the
    /// list freed (issue 25: both lists used to keep `b`, as a copy).
    #[test]
    fn a_rename_into_a_freed_path_removes_its_source() {
        let cases = [
            (
                r#"{"edits": [{"op": "delete", "path": "a"}, {"op": "rename", "path": "b", "to": "a"}]}"#,
                vec![("a", Some("B\n")), ("b", None)],
            ),
            (
                r#"{"edits": [{"op": "rename", "path": "a", "to": "c"}, {"op": "rename", "path": "b", "to": "a"}]}"#,
                vec![("a", Some("B\n")), ("b", None), ("c", Some("A\n"))],
            ),
        ];
        for (json, want) in cases {
            let out = run(
                &list(json),
                &base(&[("a", "A\n"), ("b", "B\n")]),
                &mut ids(),
            );
            assert!(out.failures.is_empty(), "{json}: {:?}", out.failures);
            let want: BTreeMap<String, Option<String>> = want
                .into_iter()
                .map(|(p, c)| (p.to_string(), c.map(str::to_string)))
                .collect();
            assert_eq!(outcome_tree(&out), want, "{json}");
        }
    }

    #[test]
    fn range_on_a_missing_file_is_invalid_input() {
        let l = list(
            r#"{"edits": [{"op": "range", "path": "n", "locator": {"start_offset": 0, "end_offset": 0}, "new": "x"}]}"#,
        );
        let out = run(&l, &BTreeMap::new(), &mut ids());
        assert_eq!(out.failures[0].code, EditCode::InvalidInput);
    }
}

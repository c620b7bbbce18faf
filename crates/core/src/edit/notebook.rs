//! `op: notebook`: replace, insert or delete one cell of a Jupyter
//! notebook. Only the edited cell's text is rewritten; every other byte
//! (nbformat, metadata, other cells and their outputs, key order,
//! indentation) stays as it was, so the diff shows only that cell.

use super::failure::{EditCode, EditFailure};
use super::json_order::{Json, Layout, Reader, write};
use super::json_splice::Splice;
use super::list::{CellMode, CellType, Edit};

/// A notebook's `cells` array as spans of the text.
struct Cells {
    /// Byte offsets of `[` and `]`.
    open: usize,
    close: usize,
    /// Each cell's span and value.
    items: Vec<(usize, usize, Json)>,
}

/// Applies a notebook edit to `content`; `new_id` makes cell ids.
pub fn edit(
    index: usize,
    path: &str,
    content: &[u8],
    e: &Edit,
    new_id: &mut dyn FnMut() -> String,
) -> Result<Vec<u8>, EditFailure> {
    let Edit::Notebook {
        mode,
        cell,
        cell_id,
        cell_type,
        source,
        keep_outputs,
        ..
    } = e
    else {
        unreachable!("called for notebook edits only")
    };
    let at = At { index, path };
    let (text, with_ids) = read_notebook(&at, content)?;
    let cells = find_cells(text)
        .ok_or_else(|| at.invalid("has no \"cells\" array at the top level".into()))?;
    let target = target_cell(&at, &cells, *mode, *cell, cell_id.as_deref())?;
    let src = source.as_deref().unwrap_or_default();
    let mut out = String::with_capacity(text.len() + 256);
    match mode {
        CellMode::Delete => delete_cell(text, &cells, target as usize, &mut out),
        CellMode::Replace => {
            let change = Replacement {
                cell_type: *cell_type,
                source: source.as_deref(),
                keep_outputs: *keep_outputs,
            };
            replace_cell(&at, text, &cells, target as usize, &change, &mut out)?
        }
        CellMode::Insert => {
            let kind = cell_type.unwrap_or(CellType::Code);
            let cell = new_cell(&cells, kind, src, with_ids, new_id);
            insert_cell(text, &cells, target, &cell, &mut out);
        }
    }
    Ok(out.into_bytes())
}

/// The edit a failure names: its index in the list and its file.
struct At<'a> {
    index: usize,
    path: &'a str,
}

impl At<'_> {
    fn invalid(&self, msg: String) -> EditFailure {
        let (index, path) = (self.index, self.path);
        EditFailure::invalid(Some(index), path, format!("edits[{index}]: {path}: {msg}"))
    }
}

/// The notebook's text, and whether its cells carry ids (nbformat 4.5 and
/// newer); fails unless it is an nbformat 4 notebook.
fn read_notebook<'t>(at: &At, content: &'t [u8]) -> Result<(&'t str, bool), EditFailure> {
    let text = std::str::from_utf8(content)
        .map_err(|e| at.invalid(format!("is not UTF-8 ({e}), so it is not a notebook")))?;
    let doc: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        at.invalid(format!(
            "is not valid notebook JSON: {e} (line {}, column {})",
            e.line(),
            e.column()
        ))
    })?;
    let major = doc.get("nbformat").and_then(|v| v.as_u64());
    let minor = doc
        .get("nbformat_minor")
        .and_then(|v| v.as_u64())
        .unwrap_or(0);
    let Some(major) = major else {
        return Err(at.invalid("has no \"nbformat\" version: it is not a Jupyter notebook".into()));
    };
    if major < 4 {
        return Err(at.invalid(format!(
            "is nbformat {major}; only nbformat 4 notebooks can be edited"
        )));
    }
    Ok((text, major > 4 || minor >= 5))
}

/// The cell the edit names (by index or by id), checked to exist; -1 is
/// "before the first" for an insert.
fn target_cell(
    at: &At,
    cells: &Cells,
    mode: CellMode,
    cell: Option<i64>,
    cell_id: Option<&str>,
) -> Result<i64, EditFailure> {
    let (index, path) = (at.index, at.path);
    let n = cells.items.len();
    let oob = |c: i64| {
        EditFailure::new(
            Some(index),
            path,
            EditCode::OutOfBounds,
            format!(
                "edits[{index}]: cell {c} does not exist in {path} (it has {n} cells, numbered from 0)"
            ),
            "count cells from 0; insert after cell -1 to put a cell at the top",
        )
    };
    let target: i64 = match (cell, cell_id) {
        (Some(c), _) => c,
        (None, Some(id)) => cells
            .items
            .iter()
            .position(|(_, _, v)| v.get("id").and_then(Json::as_str) == Some(id))
            .map(|p| p as i64)
            .ok_or_else(|| {
                EditFailure::new(
                    Some(index),
                    path,
                    EditCode::NotFound,
                    format!("edits[{index}]: no cell of {path} has id '{id}'"),
                    "cell ids are in the notebook's JSON (nbformat 4.5 and newer); or give the cell's index",
                )
            })?,
        (None, None) => return Err(at.invalid("give cell or cell_id".into())),
    };
    let valid = match mode {
        CellMode::Insert => (-1..n as i64).contains(&target),
        _ => (0..n as i64).contains(&target),
    };
    if !valid {
        return Err(oob(target));
    }
    Ok(target)
}

/// Writes `text` without cell `i` (and one separator beside it) to `out`.
fn delete_cell(text: &str, cells: &Cells, i: usize, out: &mut String) {
    let n = cells.items.len();
    let (s, e) = if n == 1 {
        (cells.open + 1, cells.close)
    } else if i + 1 < n {
        (cells.items[i].0, cells.items[i + 1].0)
    } else {
        (cells.items[i - 1].1, cells.items[i].1)
    };
    out.push_str(&text[..s]);
    out.push_str(&text[e..]);
}

/// What a replace sets in the cell.
struct Replacement<'a> {
    cell_type: Option<CellType>,
    source: Option<&'a str>,
    keep_outputs: bool,
}

/// Writes `text` with cell `i` given the new source and type to `out`;
/// outputs go unless a code cell stays code and keeps them.
fn replace_cell(
    at: &At,
    text: &str,
    cells: &Cells,
    i: usize,
    change: &Replacement,
    out: &mut String,
) -> Result<(), EditFailure> {
    let (index, path) = (at.index, at.path);
    let (s, e, old) = &cells.items[i];
    let cell = old;
    let old_type = cell
        .get("cell_type")
        .and_then(Json::as_str)
        .unwrap_or("code")
        .to_string();
    let new_type = change
        .cell_type
        .map(CellType::as_str)
        .unwrap_or(&old_type)
        .to_string();
    let src = change.source.unwrap_or_default();
    let as_lines = !matches!(cell.get("source"), Some(Json::Str(_)));
    let new_source = source_json(src, as_lines);
    if cell.get("source").map(source_text).as_deref() == Some(src) && new_type == old_type {
        return Err(EditFailure::new(
            Some(index),
            path,
            EditCode::AlreadyApplied,
            format!("edits[{index}]: cell {i} of {path} already has this source and type"),
            "drop this edit from the list",
        ));
    }
    // Only the members the edit changes are rewritten; every other byte of
    // the cell (metadata, id, escapes, line ends) stays as it was.
    let mut members = Splice::object(text, *s)
        .ok_or_else(|| at.invalid(format!("cell {i} is not a JSON object")))?;
    if new_type != old_type {
        members.set("cell_type", &json_string(&new_type));
    }
    let mut written = String::new();
    write(&new_source, &cell_layout(text, *s, cells), 1, &mut written);
    members.set("source", &line_ends_of(text, written));
    if new_type == "code" {
        if old_type != "code" || !change.keep_outputs {
            members.set("outputs", "[]");
            members.set("execution_count", "null");
        }
    } else {
        members.remove("outputs");
        members.remove("execution_count");
    }
    out.push_str(&text[..*s]);
    out.push_str(&members.apply(*s, *e));
    out.push_str(&text[*e..]);
    Ok(())
}

/// `written` (laid out with `\n`) with the line ends of `text`: a CRLF
/// notebook keeps CRLF in what an edit writes.
fn line_ends_of(text: &str, written: String) -> String {
    if text.contains("\r\n") {
        written.replace('\n', "\r\n")
    } else {
        written
    }
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).expect("strings serialise")
}

/// A new cell of `kind` holding `src`, its source spelled as the other
/// cells spell theirs, with a fresh id when the notebook's cells have ids.
fn new_cell(
    cells: &Cells,
    kind: CellType,
    src: &str,
    with_ids: bool,
    new_id: &mut dyn FnMut() -> String,
) -> Json {
    let mut cell = Json::Obj(Vec::new());
    cell.set("cell_type", Json::Str(kind.as_str().into()));
    cell.set("metadata", Json::Obj(Vec::new()));
    let as_lines = !cells
        .items
        .iter()
        .any(|(_, _, c)| matches!(c.get("source"), Some(Json::Str(_))));
    cell.set("source", source_json(src, as_lines));
    if kind == CellType::Code {
        cell.set("outputs", Json::Arr(Vec::new()));
        cell.set("execution_count", Json::Null);
    }
    if with_ids {
        let mut id = new_id();
        while cells
            .items
            .iter()
            .any(|(_, _, c)| c.get("id").and_then(Json::as_str) == Some(&id))
        {
            id = new_id();
        }
        cell.set("id", Json::Str(id));
    }
    cell
}

/// Writes `text` with `cell` after cell `target` (-1: at the top) to
/// `out`, laid out as the cells beside it (or the file's top level).
fn insert_cell(text: &str, cells: &Cells, target: i64, cell: &Json, out: &mut String) {
    let n = cells.items.len();
    if n == 0 {
        let top = top_unit(text);
        let l = Layout {
            unit: top.clone(),
            base: top.clone().map(|u| u.repeat(2)).unwrap_or_default(),
            colon: ": ",
            comma: ", ",
        };
        let mut inside = String::new();
        if let Some(u) = &top {
            inside.push('\n');
            inside.push_str(&u.repeat(2));
        }
        write(cell, &l, 0, &mut inside);
        if let Some(u) = &top {
            inside.push('\n');
            inside.push_str(u);
        }
        out.push_str(&text[..=cells.open]);
        out.push_str(&line_ends_of(text, inside));
        out.push_str(&text[cells.close..]);
        return;
    }
    // The separator between cells as the file writes it.
    let l0 = cell_layout(text, cells.items[0].0, cells);
    let sep_text = if n > 1 {
        text[cells.items[0].1..cells.items[1].0].to_string()
    } else if l0.unit.is_some() {
        format!(",\n{}", l0.base)
    } else {
        l0.comma.to_string()
    };
    let mut new_cell = String::new();
    write(cell, &l0, 0, &mut new_cell);
    let new_cell = line_ends_of(text, new_cell);
    if target == -1 {
        let at = cells.items[0].0;
        out.push_str(&text[..at]);
        out.push_str(&new_cell);
        out.push_str(&sep_text);
        out.push_str(&text[at..]);
    } else {
        let at = cells.items[target as usize].1;
        out.push_str(&text[..at]);
        out.push_str(&sep_text);
        out.push_str(&new_cell);
        out.push_str(&text[at..]);
    }
}

/// The cell's source as one string.
fn source_text(v: &Json) -> String {
    match v {
        Json::Str(s) => s.clone(),
        Json::Arr(items) => items.iter().filter_map(Json::as_str).collect(),
        _ => String::new(),
    }
}

/// Source as nbformat writes it: a list of lines, each but the last
/// ending in `\n`.
fn source_json(src: &str, as_lines: bool) -> Json {
    if as_lines {
        Json::Arr(
            src.split_inclusive('\n')
                .map(|l| Json::Str(l.to_string()))
                .collect(),
        )
    } else {
        Json::Str(src.to_string())
    }
}

/// The whitespace of the line holding byte `at`, and the unit the cell's
/// own lines are indented by.
fn cell_layout(text: &str, at: usize, cells: &Cells) -> Layout {
    let line_start = text[..at].rfind('\n').map(|p| p + 1).unwrap_or(0);
    let base = text[line_start..at].to_string();
    let base = if base.trim().is_empty() {
        base
    } else {
        String::new()
    };
    let cell_text = cells
        .items
        .iter()
        .find(|(s, _, _)| *s == at)
        .map(|(s, e, _)| &text[*s..*e])
        .unwrap_or(&text[at..]);
    let unit = cell_text.find('\n').map(|nl| {
        let rest = &cell_text[nl + 1..];
        let ws: String = rest
            .chars()
            .take_while(|c| *c == ' ' || *c == '\t')
            .collect();
        ws.strip_prefix(base.as_str()).unwrap_or(" ").to_string()
    });
    let unit = unit
        .filter(|u| !u.is_empty())
        .or_else(|| cell_text.contains('\n').then(|| " ".to_string()));
    let compact_colon = if cell_text.contains("\": ") {
        ": "
    } else {
        ":"
    };
    let comma = if cell_text.contains(", ") { ", " } else { "," };
    Layout {
        unit,
        base,
        colon: compact_colon,
        comma,
    }
}

/// The indentation unit of the top-level object, `None` when on one line.
fn top_unit(text: &str) -> Option<String> {
    let open = text.find('{')?;
    let rest = &text[open + 1..];
    let nl = rest.find('\n')?;
    let ws: String = rest[nl + 1..]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect();
    Some(if ws.is_empty() { " ".into() } else { ws })
}

fn find_cells(text: &str) -> Option<Cells> {
    let mut r = Reader::new(text);
    r.expect(b'{')?;
    if r.peek()? == b'}' {
        return None;
    }
    loop {
        let key = r.string()?;
        r.expect(b':')?;
        if key == "cells" {
            r.expect(b'[')?;
            let open = r.pos - 1;
            let mut items = Vec::new();
            if r.peek()? == b']' {
                r.pos += 1;
                return Some(Cells {
                    open,
                    close: r.pos - 1,
                    items,
                });
            }
            loop {
                r.peek()?;
                let s = r.pos;
                let v = r.value()?;
                items.push((s, r.pos, v));
                match r.peek()? {
                    b',' => r.pos += 1,
                    b']' => {
                        r.pos += 1;
                        return Some(Cells {
                            open,
                            close: r.pos - 1,
                            items,
                        });
                    }
                    _ => return None,
                }
            }
        }
        r.value()?;
        match r.peek()? {
            b',' => r.pos += 1,
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NB: &str = r##"{
 "cells": [
  {
   "cell_type": "markdown",
   "id": "aaa",
   "metadata": {},
   "source": [
    "# Title"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 1,
   "id": "bbb",
   "metadata": {},
   "outputs": [
    {
     "name": "stdout",
     "output_type": "stream",
     "text": [
      "2\n"
     ]
    }
   ],
   "source": [
    "print(1 + 1)"
   ]
  }
 ],
 "metadata": {
  "kernelspec": {"name": "python3"}
 },
 "nbformat": 4,
 "nbformat_minor": 5
}
"##;

    fn nb_edit(json: &str) -> Result<String, EditFailure> {
        let e: Edit = serde_json::from_str(json).unwrap();
        let mut n = 0;
        let mut ids = move || {
            n += 1;
            format!("new{n}")
        };
        edit(0, "a.ipynb", NB.as_bytes(), &e, &mut ids).map(|b| String::from_utf8(b).unwrap())
    }

    #[test]
    fn replacing_code_clears_outputs_and_touches_only_that_cell() {
        let out = nb_edit(r#"{"op":"notebook","path":"a.ipynb","mode":"replace","cell":1,"source":"print(3)\nx"}"#).unwrap();
        assert!(out.starts_with(&NB[..NB.find("  {\n   \"cell_type\": \"code\"").unwrap()]));
        assert!(out.contains("\"execution_count\": null"), "{out}");
        assert!(out.contains("\"outputs\": []"), "{out}");
        assert!(
            out.contains("\"source\": [\n    \"print(3)\\n\",\n    \"x\"\n   ]"),
            "{out}"
        );
        assert!(out.ends_with(&NB[NB.find(" ],\n \"metadata\"").unwrap()..]));
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["cells"][1]["id"], "bbb");
    }

    #[test]
    fn keep_outputs_keeps_them() {
        let out = nb_edit(r#"{"op":"notebook","path":"a.ipynb","mode":"replace","cell_id":"bbb","source":"print(2)","keep_outputs":true}"#).unwrap();
        assert!(out.contains("\"output_type\": \"stream\""));
        assert!(out.contains("\"execution_count\": 1"));
    }

    #[test]
    fn insert_at_top_and_after_and_delete() {
        let out = nb_edit(
            r#"{"op":"notebook","path":"a.ipynb","mode":"insert","cell":-1,"source":"import os"}"#,
        )
        .unwrap();
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["cells"][0]["source"][0], "import os");
        assert_eq!(v["cells"][0]["id"], "new1");
        assert_eq!(v["cells"][0]["outputs"], serde_json::json!([]));
        assert!(v["cells"][0]["execution_count"].is_null());
        let out = nb_edit(r#"{"op":"notebook","path":"a.ipynb","mode":"insert","cell":1,"cell_type":"markdown","source":"end"}"#).unwrap();
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["cells"][2]["cell_type"], "markdown");
        assert!(v["cells"][2].get("outputs").is_none());
        let out =
            nb_edit(r#"{"op":"notebook","path":"a.ipynb","mode":"delete","cell":0}"#).unwrap();
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["cells"].as_array().unwrap().len(), 1);
        assert_eq!(v["cells"][0]["id"], "bbb");
    }

    /// Every byte outside the edited member stays (issue 25): a one-line
    /// `metadata` with `\u00e9` and `\/` escapes, and CRLF line ends, in
    /// the edited cell as in the others.
    #[test]
    fn a_replace_changes_only_the_cells_source_bytes() {
        let crlf = NB.replace('\n', "\r\n").replace(
            "\"metadata\": {},\r\n   \"outputs\"",
            "\"metadata\": {\"tags\": [\"caf\\u00e9\", \"a\\/b\"]},\r\n   \"outputs\"",
        );
        assert!(crlf.contains("caf\\u00e9"), "the fixture has the escapes");
        let e: Edit = serde_json::from_str(
            r#"{"op":"notebook","path":"a.ipynb","mode":"replace","cell":1,"source":"print(3)","keep_outputs":true}"#,
        )
        .unwrap();
        let out = edit(0, "a.ipynb", crlf.as_bytes(), &e, &mut || "x".into()).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(
            !out.replace("\r\n", "").contains('\n'),
            "only CRLF: {out:?}"
        );
        let (before, after) = (&crlf, &out);
        let start = before.find("print(1 + 1)").expect("the old source");
        assert_eq!(before[..start], after[..start], "bytes before the source");
        let tail = &before[start + "print(1 + 1)".len()..];
        assert!(after.ends_with(tail), "bytes after the source: {after:?}");
    }

    #[test]
    fn missing_cells_are_out_of_bounds_or_not_found() {
        let e =
            nb_edit(r#"{"op":"notebook","path":"a.ipynb","mode":"delete","cell":5}"#).unwrap_err();
        assert_eq!(e.code, EditCode::OutOfBounds);
        let e = nb_edit(r#"{"op":"notebook","path":"a.ipynb","mode":"delete","cell_id":"zzz"}"#)
            .unwrap_err();
        assert_eq!(e.code, EditCode::NotFound);
    }
}

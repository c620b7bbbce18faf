//! `op: range`: replace a span given by line/column or offsets. All range
//! edits of one file refer to the file at the base and apply together, so
//! they must not overlap; positions count Unicode scalar values after any
//! BOM, lines and columns from 1, and the end is exclusive.

use super::failure::{EditCode, EditFailure};
use super::is_binary;
use super::list::{Locator, Position};
use super::text::{Change, bom_len, is_crlf, line_count, to_eol};

/// One range edit of a file.
pub struct RangeEdit<'a> {
    pub index: usize,
    pub locator: &'a Locator,
    pub new: &'a str,
}

/// A resolved range: byte offsets into the whole content (BOM included).
#[derive(Debug, Clone, Copy)]
struct Span {
    index: usize,
    start: usize,
    end: usize,
}

/// Applies every range edit of one file together. Edits that fail are
/// returned as failures; the others are applied (the caller decides whether
/// a partial result may be kept).
pub fn apply(
    path: &str,
    content: &[u8],
    edits: &[RangeEdit<'_>],
) -> (Vec<u8>, Vec<Change>, Vec<EditFailure>) {
    let text = match as_text(path, content, edits) {
        Ok(text) => text,
        Err(failures) => return (content.to_vec(), Vec::new(), failures),
    };
    let bom = bom_len(content);
    let index = TextIndex::new(text);
    let mut failures = Vec::new();
    let spans = resolve_all(&index, bom, path, edits, &mut failures);
    let kept = drop_overlaps(&index, bom, path, spans, &mut failures);
    let (out, changes) = splice(content, edits, &kept);
    (out, changes, failures)
}

/// The text after any BOM, or a failure for every edit when the file is
/// binary or not UTF-8 (range positions count Unicode characters).
fn as_text<'a>(
    path: &str,
    content: &'a [u8],
    edits: &[RangeEdit<'_>],
) -> Result<&'a str, Vec<EditFailure>> {
    if is_binary(content) {
        return Err(edits
            .iter()
            .map(|e| {
                EditFailure::new(
                    Some(e.index),
                    path,
                    EditCode::BinaryFile,
                    format!("edits[{}]: {path} is a binary file", e.index),
                    "range edits need text; use op \"write\" or \"delete\"",
                )
            })
            .collect());
    }
    std::str::from_utf8(&content[bom_len(content)..]).map_err(|_| {
        edits
            .iter()
            .map(|e| {
                EditFailure::invalid(
                    Some(e.index),
                    path,
                    format!(
                        "edits[{}]: {path} is not UTF-8 text, and range edits count Unicode characters",
                        e.index
                    ),
                )
            })
            .collect()
    })
}

/// The byte span of each edit's locator; a locator that does not fit the
/// file is a failure instead.
fn resolve_all(
    index: &TextIndex<'_>,
    bom: usize,
    path: &str,
    edits: &[RangeEdit<'_>],
    failures: &mut Vec<EditFailure>,
) -> Vec<Span> {
    let mut spans = Vec::new();
    for e in edits {
        match resolve(index, e.locator) {
            Ok((start, end)) => spans.push(Span {
                index: e.index,
                start: start + bom,
                end: end + bom,
            }),
            Err((code, why)) => failures.push(EditFailure::new(
                Some(e.index),
                path,
                code,
                format!("edits[{}]: {path}: {why}", e.index),
                match code {
                    EditCode::OutOfBounds => "compute the locator from the file at the base (`git evolv cat <id|HEAD> <path> -n`)",
                    _ => "move the locator to a character boundary outside the CRLF line ending",
                },
            )),
        }
    }
    spans
}

/// The spans in file order with no two overlapping: of two that overlap,
/// the one later in the list fails, naming both.
fn drop_overlaps(
    index: &TextIndex<'_>,
    bom: usize,
    path: &str,
    mut spans: Vec<Span>,
    failures: &mut Vec<EditFailure>,
) -> Vec<Span> {
    // Sorted by start, zero-width inserts before a range starting at the
    // same point, ties in list order.
    spans.sort_by_key(|s| (s.start, s.end, s.index));
    let mut kept: Vec<Span> = Vec::with_capacity(spans.len());
    for s in spans {
        if let Some(prev) = kept.last()
            && overlaps(prev, &s)
        {
            let (a, b) = if prev.index < s.index {
                (prev, &s)
            } else {
                (&s, prev)
            };
            let loser = s.index.max(prev.index);
            failures.push(EditFailure::new(
                Some(loser),
                path,
                EditCode::OverlappingEdits,
                format!(
                    "edits[{}] and edits[{}] overlap in {path}: {} and {}",
                    a.index,
                    b.index,
                    describe(index, bom, a),
                    describe(index, bom, b)
                ),
                "range edits of one file all refer to the file at the base: merge the two edits into one, or make the ranges disjoint",
            ));
            if loser == prev.index {
                kept.pop();
                kept.push(s);
            }
            continue;
        }
        kept.push(s);
    }
    kept
}

/// `content` with each kept span replaced by its edit's new text (in the
/// file's line ending), and the changes made.
fn splice(content: &[u8], edits: &[RangeEdit<'_>], kept: &[Span]) -> (Vec<u8>, Vec<Change>) {
    let crlf = is_crlf(content);
    let news: std::collections::HashMap<usize, String> = edits
        .iter()
        .map(|e| (e.index, to_eol(e.new, crlf)))
        .collect();
    let mut out = Vec::with_capacity(content.len());
    let mut last = 0;
    let mut changes = Vec::with_capacity(kept.len());
    for s in kept {
        let new = &news[&s.index];
        out.extend_from_slice(&content[last..s.start]);
        out.extend_from_slice(new.as_bytes());
        last = s.end;
        changes.push(Change {
            edit: s.index,
            start: s.start,
            end: s.end,
            new_len: new.len(),
        });
    }
    out.extend_from_slice(&content[last..]);
    (out, changes)
}

/// Ranges overlap when they share a character; touching ones do not, and
/// a zero-width insert overlaps only a range strictly around it.
fn overlaps(a: &Span, b: &Span) -> bool {
    if a.start == a.end || b.start == b.end {
        let (p, r) = if a.start == a.end { (a, b) } else { (b, a) };
        return r.start < p.start && p.start < r.end;
    }
    a.start < b.end && b.start < a.end
}

fn describe(index: &TextIndex<'_>, bom: usize, s: &Span) -> String {
    let (l1, c1) = index.line_col(s.start - bom);
    let (l2, c2) = index.line_col(s.end - bom);
    format!("{l1}:{c1}-{l2}:{c2}")
}

/// Line starts and character counts of a text.
struct TextIndex<'a> {
    text: &'a str,
    /// Byte offset of each line's start; a file ending in `\n` has a last,
    /// empty line (its end) that a locator may point at.
    starts: Vec<usize>,
}

impl<'a> TextIndex<'a> {
    fn new(text: &'a str) -> Self {
        let mut starts = vec![0];
        starts.extend(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i + 1),
        );
        TextIndex { text, starts }
    }

    /// The 1-based line and column of byte offset `at`.
    fn line_col(&self, at: usize) -> (usize, usize) {
        let line = self.starts.partition_point(|&s| s <= at);
        let col = self.text[self.starts[line - 1]..at].chars().count() + 1;
        (line, col)
    }

    /// The byte offset of a position, or why it is refused.
    fn byte(&self, pos: Position) -> Result<usize, (EditCode, String)> {
        match pos {
            Position::Offset(o) => {
                let mut seen = 0usize;
                for (b, _) in self.text.char_indices() {
                    if seen == o {
                        return self.not_inside_crlf(b, || format!("offset {o}"));
                    }
                    seen += 1;
                }
                if seen == o {
                    return Ok(self.text.len());
                }
                Err((
                    EditCode::OutOfBounds,
                    format!("offset {o} exceeds file length ({seen} characters)"),
                ))
            }
            Position::LineCol(line, col) => {
                // The line after the last one, column 1, is the end of the
                // file even without a final newline (`--lines` ends there).
                if line == self.starts.len() + 1 && col == 1 && !self.text.ends_with('\n') {
                    return Ok(self.text.len());
                }
                if line > self.starts.len() {
                    return Err((
                        EditCode::OutOfBounds,
                        format!(
                            "line {line} exceeds file length ({} lines)",
                            line_count(self.text.as_bytes())
                        ),
                    ));
                }
                let start = self.starts[line - 1];
                let end = self
                    .starts
                    .get(line)
                    .map(|&n| n - 1)
                    .unwrap_or(self.text.len());
                let body = &self.text[start..end];
                let (body, cr) = match body.strip_suffix('\r') {
                    Some(b) if end < self.text.len() => (b, true),
                    _ => (body, false),
                };
                let chars = body.chars().count();
                if col == chars + 2 && cr {
                    return Err((
                        EditCode::InvalidLocator,
                        format!("line {line}, column {col} splits the CRLF line ending"),
                    ));
                }
                if col > chars + 1 {
                    return Err((
                        EditCode::OutOfBounds,
                        format!(
                            "column {col} exceeds the length of line {line} ({chars} characters)"
                        ),
                    ));
                }
                let off = body
                    .char_indices()
                    .nth(col - 1)
                    .map(|(b, _)| b)
                    .unwrap_or(body.len());
                Ok(start + off)
            }
        }
    }

    fn not_inside_crlf(
        &self,
        b: usize,
        what: impl Fn() -> String,
    ) -> Result<usize, (EditCode, String)> {
        let bytes = self.text.as_bytes();
        if b > 0 && bytes[b - 1] == b'\r' && bytes.get(b) == Some(&b'\n') {
            return Err((
                EditCode::InvalidLocator,
                format!("{} splits a CRLF line ending", what()),
            ));
        }
        Ok(b)
    }
}

fn resolve(index: &TextIndex<'_>, locator: &Locator) -> Result<(usize, usize), (EditCode, String)> {
    let (start, end) = locator
        .positions()
        .map_err(|why| (EditCode::InvalidInput, why))?;
    let s = index.byte(start)?;
    let e = index.byte(end)?;
    if e < s {
        return Err((
            EditCode::InvalidLocator,
            "the range ends before it starts".into(),
        ));
    }
    Ok((s, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lc(sl: usize, sc: usize, el: usize, ec: usize) -> Locator {
        Locator {
            start_line: Some(sl),
            start_col: Some(sc),
            end_line: Some(el),
            end_col: Some(ec),
            ..Default::default()
        }
    }

    fn off(s: usize, e: usize) -> Locator {
        Locator {
            start_offset: Some(s),
            end_offset: Some(e),
            ..Default::default()
        }
    }

    fn run(content: &[u8], edits: &[(Locator, &str)]) -> (Vec<u8>, Vec<EditFailure>) {
        let list: Vec<RangeEdit<'_>> = edits
            .iter()
            .enumerate()
            .map(|(i, (l, n))| RangeEdit {
                index: i,
                locator: l,
                new: n,
            })
            .collect();
        let (out, _, f) = apply("f", content, &list);
        (out, f)
    }

    #[test]
    fn line_col_is_one_based_and_end_exclusive() {
        let (out, f) = run(b"abc\ndef\n", &[(lc(1, 2, 2, 2), "X")]);
        assert!(f.is_empty());
        assert_eq!(out, b"aXef\n");
    }

    #[test]
    fn offsets_count_scalar_values_after_the_bom() {
        let (out, f) = run("\u{feff}héllo".as_bytes(), &[(off(1, 2), "E")]);
        assert!(f.is_empty());
        assert_eq!(out, "\u{feff}hEllo".as_bytes());
    }

    #[test]
    fn out_of_bounds_names_the_file_length() {
        let text = "x\n".repeat(52);
        let (_, f) = run(text.as_bytes(), &[(lc(60, 1, 60, 1), "")]);
        assert_eq!(f[0].code, EditCode::OutOfBounds);
        assert!(
            f[0].message
                .contains("line 60 exceeds file length (52 lines)"),
            "{}",
            f[0].message
        );
    }

    #[test]
    fn splitting_crlf_is_an_invalid_locator() {
        let (_, f) = run(b"ab\r\ncd\r\n", &[(lc(1, 4, 2, 1), "")]);
        assert_eq!(f[0].code, EditCode::InvalidLocator);
        let (_, f) = run(b"ab\r\ncd\r\n", &[(off(3, 4), "")]);
        assert_eq!(f[0].code, EditCode::InvalidLocator);
        let (out, f) = run(b"ab\r\ncd\r\n", &[(lc(1, 3, 1, 3), "\nX")]);
        assert!(f.is_empty());
        assert_eq!(out, b"ab\r\nX\r\ncd\r\n");
    }

    #[test]
    fn overlaps_name_both_touching_is_fine_inserts_keep_order() {
        let (_, f) = run(b"abcdef", &[(off(0, 3), "x"), (off(2, 4), "y")]);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].code, EditCode::OverlappingEdits);
        assert!(
            f[0].message.contains("edits[0] and edits[1]"),
            "{}",
            f[0].message
        );
        let (out, f) = run(b"abcdef", &[(off(0, 3), "x"), (off(3, 6), "y")]);
        assert!(f.is_empty());
        assert_eq!(out, b"xy");
        let (out, _) = run(b"ab", &[(off(1, 1), "1"), (off(1, 1), "2")]);
        assert_eq!(out, b"a12b");
    }
}

//! Reads an envelope as Codex's own parser does (its lenient mode): the
//! text is trimmed, its first line must be `*** Begin Patch` and its last
//! `*** End Patch` (each compared without surrounding whitespace), or the
//! two inside a `<<EOF` … `EOF` heredoc a shell would have unwrapped. File
//! headers are compared without surrounding whitespace; the lines inside a
//! file's part are taken as written.

use super::Chunk;
use crate::patch::{Body, FilePatch, PatchError};

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const ADD: &str = "*** Add File: ";
const DELETE: &str = "*** Delete File: ";
const UPDATE: &str = "*** Update File: ";
const MOVE: &str = "*** Move to: ";
const END_OF_FILE: &str = "*** End of File";

/// The heredoc openers Codex unwraps when a model passes `apply_patch
/// <<'EOF' …` as one argument instead of through a shell.
const HEREDOCS: [&str; 3] = ["<<EOF", "<<'EOF'", "<<\"EOF\""];

/// Whether `first`, a patch's first non-blank line, opens an envelope:
/// `*** Begin Patch`, or a heredoc that holds one.
pub fn opens_envelope(first: &[u8]) -> bool {
    let first = first.trim_ascii();
    first == BEGIN.as_bytes() || HEREDOCS.iter().any(|h| first == h.as_bytes())
}

/// A line of the envelope with its 1-based line number in the text.
#[derive(Clone, Copy)]
struct Line<'a> {
    text: &'a str,
    number: usize,
}

/// The envelope's file operations, in order.
pub fn parse(text: &[u8]) -> Result<Vec<FilePatch>, PatchError> {
    // An envelope is text: a lossy copy would change names and lines.
    let text = std::str::from_utf8(text).map_err(|e| {
        let line = text[..e.valid_up_to()].iter().filter(|&&b| b == b'\n').count() + 1;
        PatchError::at(line, "not UTF-8: an apply_patch envelope is text (give a unified diff for other bytes, or commit them with git)")
    })?;
    let lines = trimmed_lines(text);
    let body = inside_markers(&lines)?;
    let mut files = Vec::new();
    let mut at = 0;
    while at < body.len() {
        files.push(operation(body, &mut at)?);
    }
    if files.is_empty() {
        return Err(PatchError::at(
            1,
            "the envelope changes no file: add an `*** Add File:`, `*** Update File:` or `*** Delete File:` part",
        ));
    }
    Ok(files)
}

/// The lines of `text` without the blank lines around them (Codex trims
/// the whole text), each without its `\n` or `\r\n`.
fn trimmed_lines(text: &str) -> Vec<Line<'_>> {
    let mut lines: Vec<Line<'_>> = text
        .split('\n')
        .enumerate()
        .map(|(i, l)| Line {
            text: l.strip_suffix('\r').unwrap_or(l),
            number: i + 1,
        })
        .collect();
    while lines.last().is_some_and(|l| l.text.trim().is_empty()) {
        lines.pop();
    }
    let blank = lines
        .iter()
        .take_while(|l| l.text.trim().is_empty())
        .count();
    lines.drain(..blank);
    lines
}

/// The lines between `*** Begin Patch` and `*** End Patch`, which must
/// be the first and the last line, or the first and last inside a heredoc.
fn inside_markers<'a, 'b>(lines: &'b [Line<'a>]) -> Result<&'b [Line<'a>], PatchError> {
    let strict = |lines: &'b [Line<'a>]| -> Result<&'b [Line<'a>], PatchError> {
        match lines {
            [first, .., last] if first.text.trim() == BEGIN && last.text.trim() == END => {
                Ok(&lines[1..lines.len() - 1])
            }
            [first, ..] if first.text.trim() != BEGIN => Err(PatchError::at(
                first.number,
                format!("the first line must be `{BEGIN}`"),
            )),
            [] => Err(PatchError::at(
                1,
                format!("the first line must be `{BEGIN}`"),
            )),
            [.., last] => Err(PatchError::at(
                last.number,
                format!(
                    "the last line must be `{END}` (the patch ends without it, or has more after it)"
                ),
            )),
        }
    };
    let first_error = match strict(lines) {
        Ok(body) => return Ok(body),
        Err(e) => e,
    };
    // Codex trims the whole text, so the opener may be indented and the
    // closer followed by spaces.
    let heredoc = |first: &Line<'_>| HEREDOCS.contains(&first.text.trim_start());
    match lines {
        [first, .., last]
            if heredoc(first) && last.text.trim_end().ends_with("EOF") && lines.len() >= 4 =>
        {
            strict(&lines[1..lines.len() - 1])
        }
        [first, .., last] if heredoc(first) => Err(PatchError::at(
            last.number,
            format!(
                "the envelope opens a heredoc with `{}` but its last line does not end with `EOF` (or it holds no envelope)",
                first.text.trim()
            ),
        )),
        _ => Err(first_error),
    }
}

/// The file operation whose header is `lines[*at]`, with the lines after
/// it (`at` moves past them).
fn operation(lines: &[Line<'_>], at: &mut usize) -> Result<FilePatch, PatchError> {
    let header = lines[*at];
    *at += 1;
    let number = header.number;
    let file = |old: Option<&str>, new: Option<&str>, body| FilePatch {
        old_path: old.map(str::to_string),
        new_path: new.map(str::to_string),
        old_mode: None,
        new_mode: None,
        copy: false,
        body,
        line: number,
    };
    // Codex forgives whitespace around a file header, not inside it.
    let trimmed = header.text.trim();
    if let Some(path) = trimmed.strip_prefix(ADD) {
        let mut content = String::new();
        while let Some(added) = lines.get(*at).and_then(|l| l.text.strip_prefix('+')) {
            content.push_str(added);
            content.push('\n');
            *at += 1;
        }
        Ok(file(
            None,
            Some(path.trim()),
            Body::Content(content.into_bytes()),
        ))
    } else if let Some(path) = trimmed.strip_prefix(DELETE) {
        // Whatever the file holds goes: the new content is nothing.
        Ok(file(Some(path.trim()), None, Body::Content(Vec::new())))
    } else if let Some(path) = trimmed.strip_prefix(UPDATE) {
        let path = path.trim();
        let mut target = path;
        if let Some(to) = lines.get(*at).and_then(|l| l.text.strip_prefix(MOVE)) {
            target = to.trim();
            *at += 1;
        }
        let chunks = chunks(lines, at)?;
        if chunks.is_empty() {
            // Codex refuses a move without a change as it refuses any
            // update without one.
            return Err(PatchError::in_file(
                path,
                Some(number),
                "`*** Update File` with no chunk: give the `@@` chunks of the change (a rename alone is a unified diff's `rename from`/`rename to`)",
            ));
        }
        Ok(file(Some(path), Some(target), Body::Chunks(chunks)))
    } else {
        let what = if trimmed.is_empty() {
            "a blank line".to_string()
        } else {
            format!("`{}`", header.text)
        };
        Err(PatchError::at(
            number,
            format!(
                "{what} is not a file header: each part starts with `*** Add File: <path>`, `*** Delete File: <path>` or `*** Update File: <path>`, and nothing may follow `*** End Patch`"
            ),
        ))
    }
}

/// An `Update File`'s chunks, up to the next line that starts with `*`.
/// Blank lines between chunks are skipped.
fn chunks(lines: &[Line<'_>], at: &mut usize) -> Result<Vec<Chunk>, PatchError> {
    let mut out = Vec::new();
    while let Some(line) = lines.get(*at) {
        if line.text.trim().is_empty() {
            *at += 1;
            continue;
        }
        if line.text.starts_with('*') {
            break;
        }
        out.push(chunk(lines, at, out.is_empty())?);
    }
    Ok(out)
}

/// One chunk from `lines[*at]`: its `@@` line (the first chunk may leave
/// it out), then its ` `, `-`, `+` and empty lines, up to a line that is
/// none of these or `*** End of File`.
fn chunk(lines: &[Line<'_>], at: &mut usize, first: bool) -> Result<Chunk, PatchError> {
    let start = lines[*at];
    let anchor = if start.text == "@@" {
        *at += 1;
        None
    } else if let Some(anchor) = start.text.strip_prefix("@@ ") {
        *at += 1;
        Some(anchor.to_string())
    } else if first {
        None
    } else {
        return Err(PatchError::at(
            start.number,
            format!(
                "`{}` starts a chunk without its `@@` line: every chunk but the first starts with `@@` or `@@ <line to find>`",
                start.text
            ),
        ));
    };
    let mut chunk = Chunk {
        anchor,
        old: Vec::new(),
        new: Vec::new(),
        context: Vec::new(),
        at_end: false,
        line: start.number,
    };
    let mut taken = 0;
    while let Some(line) = lines.get(*at) {
        if line.text == END_OF_FILE {
            if taken == 0 {
                return Err(no_lines(line.number));
            }
            chunk.at_end = true;
            *at += 1;
            return Ok(chunk);
        }
        let mut rest = line.text.chars();
        match rest.next() {
            // An empty line: a context line whose leading space the
            // model left out.
            None | Some(' ') => {
                chunk.context.push((chunk.old.len(), chunk.new.len()));
                chunk.old.push(rest.as_str().to_string());
                chunk.new.push(rest.as_str().to_string());
            }
            Some('-') => chunk.old.push(rest.as_str().to_string()),
            Some('+') => chunk.new.push(rest.as_str().to_string()),
            Some(_) if taken == 0 => {
                return Err(PatchError::at(
                    line.number,
                    format!(
                        "`{}` in a chunk: a line must start with ' ' (context), '-' (removed) or '+' (added)",
                        line.text
                    ),
                ));
            }
            // The next chunk's `@@`, or the next file's header.
            Some(_) => break,
        }
        taken += 1;
        *at += 1;
    }
    if taken == 0 {
        return Err(no_lines(start.number + 1));
    }
    Ok(chunk)
}

fn no_lines(line: usize) -> PatchError {
    PatchError::at(
        line,
        "the chunk has no lines: after `@@` come the chunk's ' ', '-' and '+' lines",
    )
}

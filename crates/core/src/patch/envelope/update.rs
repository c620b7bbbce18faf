//! Applies an `Update File`'s chunks as Codex does. The chunks are looked
//! for in order: an `@@ <line>` anchor is found first and the chunk after
//! it; each chunk is looked for after the lines the chunk before it
//! matched. A chunk that only adds lines goes at the end of the file and
//! moves the search on by nothing, so the next chunk may match lines
//! before it. A chunk whose last line is an empty context line (a blank
//! line before `*** End Patch`) is looked for without that line when it
//! is not found with it.

use super::Chunk;
use super::seek::seek;
use super::text::{Replacement, TextFile};
use crate::patch::PatchError;

/// `base` with `chunks` applied; `path` names it in errors.
pub fn apply_chunks(chunks: &[Chunk], path: &str, base: &[u8]) -> Result<Vec<u8>, PatchError> {
    let text = std::str::from_utf8(base).map_err(|e| {
        PatchError::in_file(
            path,
            chunks.first().map(|c| c.line),
            format!(
                "the file at the base is not UTF-8 text (byte {}), and an apply_patch update changes text: give a unified diff for it",
                e.valid_up_to()
            ),
        )
    })?;
    let file = TextFile::parse(text);
    let lines = file.texts();
    let mut replacements = Vec::new();
    let mut from = 0;
    for chunk in chunks {
        if let Some(anchor) = &chunk.anchor {
            let found =
                seek(&lines, std::slice::from_ref(anchor), from, false).ok_or_else(|| {
                    PatchError::not_found(
                        path,
                        chunk.line,
                        format!(
                            "the context line `@@ {anchor}` is not in the file (after line {from})"
                        ),
                    )
                })?;
            from = found + 1;
        }
        if chunk.old.is_empty() {
            replacements.push((lines.len(), 0, chunk.new.clone()));
            continue;
        }
        let (start, old_len, new_len) =
            find(&lines, chunk, from).ok_or_else(|| not_found(path, chunk, &lines, from))?;
        replacements.extend(around_context(chunk, start, old_len, new_len));
        from = start + old_len;
    }
    // Additions at the end were listed where their chunk was.
    replacements.sort_by_key(|(start, _, _)| *start);
    Ok(file.replaced(&replacements))
}

/// Where `chunk`'s old lines start at or after `from`, and how many of its
/// old and new lines count: all of them, or all but a last empty context
/// line that is not in the file.
fn find(lines: &[String], chunk: &Chunk, from: usize) -> Option<(usize, usize, usize)> {
    let (old, new) = (chunk.old.len(), chunk.new.len());
    if let Some(start) = seek(lines, &chunk.old, from, chunk.at_end) {
        return Some((start, old, new));
    }
    if chunk.old.last().is_some_and(String::is_empty) {
        let new = new - usize::from(chunk.new.last().is_some_and(String::is_empty));
        let start = seek(lines, &chunk.old[..old - 1], from, chunk.at_end)?;
        return Some((start, old - 1, new));
    }
    None
}

/// The replacements that make `chunk` at `start`: the runs of removed and
/// added lines between its context lines. Context lines are not replaced,
/// so they keep the file's own text and line ending.
fn around_context(chunk: &Chunk, start: usize, old_len: usize, new_len: usize) -> Vec<Replacement> {
    let mut out = Vec::new();
    let (mut old_at, mut new_at) = (0, 0);
    let context = chunk
        .context
        .iter()
        .take_while(|&&(old, new)| old < old_len && new < new_len);
    for &(old, new) in context.chain([&(old_len, new_len)]) {
        if old != old_at || new != new_at {
            out.push((
                start + old_at,
                old - old_at,
                chunk.new[new_at..new].to_vec(),
            ));
        }
        (old_at, new_at) = (old + 1, new + 1);
    }
    out
}

fn not_found(path: &str, chunk: &Chunk, lines: &[String], from: usize) -> PatchError {
    let text = lines.join("\n");
    let wanted = chunk.old.join("\n");
    let region = crate::patch::closest_region(&text, &wanted);
    let order = if from > 0 && seek(lines, &chunk.old, 0, false).is_some() {
        format!(
            "; they are before line {}, where the chunk before it ended: chunks must follow the file's order",
            from + 1
        )
    } else {
        String::new()
    };
    PatchError::not_found(
        path,
        chunk.line,
        format!("the chunk's old lines are not in the file{order}{region}"),
    )
}

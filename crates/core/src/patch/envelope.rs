//! The `*** Begin Patch` … `*** End Patch` envelope of OpenAI's apply_patch
//! tool, which Codex models write: `*** Add File:` (every line `+`),
//! `*** Delete File:`, `*** Update File:` (optionally `*** Move to:`) with
//! chunks of ` `, `-` and `+` lines, each chunk optionally after an `@@`
//! line naming a context line to find first, and `*** End of File` to pin
//! a chunk to the end. Lines are found as the tool documents: exactly,
//! then ignoring trailing whitespace, then ignoring surrounding whitespace.
//! Unlike the tool, the file's own line ending and final newline are kept.

use super::names::trim_eol;
use super::{Body, FilePatch, PatchError};

/// One chunk of an `Update File`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// The `@@ <line>` anchor: found first, the chunk looked for after it.
    pub anchor: Option<String>,
    pub old: Vec<String>,
    pub new: Vec<String>,
    /// `*** End of File`: the old lines end the file.
    pub at_end: bool,
    /// The patch's line the chunk starts on.
    pub line: usize,
}

/// The envelope's file operations, in order.
pub fn parse(text: &[u8]) -> Result<Vec<FilePatch>, PatchError> {
    // An envelope is text: a lossy copy would change names and lines.
    let text = std::str::from_utf8(text).map_err(|e| {
        let line = text[..e.valid_up_to()].iter().filter(|&&b| b == b'\n').count() + 1;
        PatchError::at(line, "not UTF-8: an apply_patch envelope is text (give a unified diff for other bytes, or commit them with git)")
    })?;
    let lines: Vec<&str> = text
        .lines()
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let mut at = lines
        .iter()
        .position(|l| l.trim() == "*** Begin Patch")
        .ok_or_else(|| PatchError::at(1, "no `*** Begin Patch` line"))?
        + 1;
    let mut files = Vec::new();
    loop {
        let Some(line) = lines.get(at) else {
            return Err(PatchError::at(
                at + 1,
                "the patch ends without `*** End Patch`",
            ));
        };
        let number = at + 1;
        at += 1;
        if line.trim() == "*** End Patch" {
            break;
        }
        if line.trim().is_empty() {
            continue;
        }
        files.push(operation(&lines, &mut at, line, number)?);
    }
    if files.is_empty() {
        return Err(PatchError::at(1, "the envelope changes no file"));
    }
    Ok(files)
}

/// One `*** Add File:`, `*** Delete File:` or `*** Update File:` on line
/// `number`, with the lines after it (`at` moves past them).
fn operation(
    lines: &[&str],
    at: &mut usize,
    line: &str,
    number: usize,
) -> Result<FilePatch, PatchError> {
    let file = |old: Option<&str>, new: Option<&str>, body| FilePatch {
        old_path: old.map(str::to_string),
        new_path: new.map(str::to_string),
        old_mode: None,
        new_mode: None,
        copy: false,
        body,
        line: number,
    };
    if let Some(path) = line.strip_prefix("*** Add File: ") {
        let mut content = String::new();
        while let Some(added) = lines.get(*at).and_then(|l| l.strip_prefix('+')) {
            content.push_str(added);
            content.push('\n');
            *at += 1;
        }
        Ok(file(
            None,
            Some(path.trim()),
            Body::Content(content.into_bytes()),
        ))
    } else if let Some(path) = line.strip_prefix("*** Delete File: ") {
        // Whatever the file holds goes: the new content is nothing.
        Ok(file(Some(path.trim()), None, Body::Content(Vec::new())))
    } else if let Some(path) = line.strip_prefix("*** Update File: ") {
        let mut target = path.trim();
        if let Some(to) = lines.get(*at).and_then(|l| l.strip_prefix("*** Move to: ")) {
            target = to.trim();
            *at += 1;
        }
        let chunks = chunks(lines, at)?;
        if chunks.is_empty() && target == path.trim() {
            return Err(PatchError::in_file(
                path.trim(),
                Some(number),
                "`*** Update File` with no chunk",
            ));
        }
        let body = if chunks.is_empty() {
            Body::Nothing
        } else {
            Body::Chunks(chunks)
        };
        Ok(file(Some(path.trim()), Some(target), body))
    } else {
        Err(PatchError::at(
            number,
            format!(
                "`{line}` is not `*** Add File:`, `*** Delete File:`, `*** Update File:` or `*** End Patch`"
            ),
        ))
    }
}

/// An `Update File`'s chunks, up to the next `***` line.
fn chunks(lines: &[&str], at: &mut usize) -> Result<Vec<Chunk>, PatchError> {
    let mut out: Vec<Chunk> = Vec::new();
    while let Some(&line) = lines.get(*at) {
        let number = *at + 1;
        if line.starts_with("*** ") && line.trim() != "*** End of File" {
            break;
        }
        *at += 1;
        if let Some(anchor) = line.strip_prefix("@@") {
            let anchor = anchor.trim();
            out.push(Chunk {
                anchor: (!anchor.is_empty()).then(|| anchor.to_string()),
                old: Vec::new(),
                new: Vec::new(),
                at_end: false,
                line: number,
            });
            continue;
        }
        if out.is_empty() {
            // The first chunk may leave out its `@@`.
            out.push(Chunk {
                anchor: None,
                old: Vec::new(),
                new: Vec::new(),
                at_end: false,
                line: number,
            });
        }
        let chunk = out.last_mut().expect("a chunk was pushed");
        if line.trim() == "*** End of File" {
            chunk.at_end = true;
            continue;
        }
        match line.chars().next() {
            Some('+') => chunk.new.push(line[1..].to_string()),
            Some('-') => chunk.old.push(line[1..].to_string()),
            Some(' ') => {
                chunk.old.push(line[1..].to_string());
                chunk.new.push(line[1..].to_string());
            }
            // An empty line, its leading space trimmed by the model.
            None => {
                chunk.old.push(String::new());
                chunk.new.push(String::new());
            }
            Some(_) => {
                return Err(PatchError::at(
                    number,
                    format!("`{line}` in a chunk: a line must start with ' ', '-' or '+'"),
                ));
            }
        }
    }
    Ok(out)
}

/// Applies the chunks in order to `base`; each is looked for after the
/// one before.
pub fn apply_chunks(chunks: &[Chunk], path: &str, base: &[u8]) -> Result<Vec<u8>, PatchError> {
    let crlf = base.windows(2).any(|w| w == b"\r\n");
    let final_newline = base.is_empty() || base.ends_with(b"\n");
    let text = String::from_utf8_lossy(base);
    let mut lines: Vec<String> = text
        .split('\n')
        .map(|l| trim_eol(l.as_bytes()))
        .map(|l| String::from_utf8_lossy(l).into_owned())
        .collect();
    if lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
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
            let end = lines.len();
            lines.splice(end..end, chunk.new.iter().cloned());
            from = lines.len();
            continue;
        }
        let Some(start) = seek(&lines, &chunk.old, from, chunk.at_end) else {
            return Err(not_found(path, chunk, &lines));
        };
        lines.splice(start..start + chunk.old.len(), chunk.new.iter().cloned());
        from = start + chunk.new.len();
    }
    let eol = if crlf { "\r\n" } else { "\n" };
    let mut out = lines.join(eol);
    if final_newline && !lines.is_empty() {
        out.push_str(eol);
    }
    Ok(out.into_bytes())
}

/// Where `wanted` is in `lines` at or after `from` (at the very end when
/// `at_end`), compared exactly, then without trailing whitespace, then
/// without surrounding whitespace.
fn seek(lines: &[String], wanted: &[String], from: usize, at_end: bool) -> Option<usize> {
    if wanted.len() > lines.len() {
        return None;
    }
    let last = lines.len() - wanted.len();
    let starts = if at_end {
        last..=last
    } else {
        from.min(last + 1)..=last
    };
    let compare: [fn(&str, &str) -> bool; 3] = [
        |a, b| a == b,
        |a, b| a.trim_end() == b.trim_end(),
        |a, b| a.trim() == b.trim(),
    ];
    compare.iter().find_map(|same| {
        starts
            .clone()
            .find(|&at| wanted.iter().zip(&lines[at..]).all(|(w, l)| same(w, l)))
    })
}

fn not_found(path: &str, chunk: &Chunk, lines: &[String]) -> PatchError {
    let text = lines.join("\n");
    let wanted = chunk.old.join("\n");
    let region = super::closest_region(&text, &wanted);
    PatchError::not_found(
        path,
        chunk.line,
        format!("the chunk's old lines are not in the file{region}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::patch::apply::apply;

    fn none(_: &[u8], _: usize) -> Option<Vec<u8>> {
        None
    }

    const PATCH: &str = "*** Begin Patch
*** Add File: hello.txt
+Hello world
*** Update File: src/app.py
*** Move to: src/main.py
@@ def greet():
-print(\"Hi\")
+print(\"Hello, world!\")
*** Delete File: obsolete.txt
*** End Patch
";

    #[test]
    fn the_tools_own_example_reads_and_applies() {
        let files = parse(PATCH.as_bytes()).unwrap();
        assert_eq!(files.len(), 3);
        assert_eq!(files[0].new_path.as_deref(), Some("hello.txt"));
        assert_eq!(
            apply(&files[0], "hello.txt", None, &none).unwrap().unwrap(),
            b"Hello world\n"
        );
        let app =
            b"import x\n\ndef greet():\n    print(\"Hi\")\n\ndef other():\n    print(\"Hi\")\n";
        let out = apply(&files[1], "src/app.py", Some(app), &none)
            .unwrap()
            .unwrap();
        assert_eq!(
            out,
            b"import x\n\ndef greet():\nprint(\"Hello, world!\")\n\ndef other():\n    print(\"Hi\")\n",
            "found after the anchor, ignoring the indentation the model left out"
        );
        assert_eq!(files[1].new_path.as_deref(), Some("src/main.py"));
        assert_eq!(
            apply(&files[2], "obsolete.txt", Some(b"x\n"), &none).unwrap(),
            None
        );
    }

    #[test]
    fn crlf_and_a_missing_final_newline_are_kept() {
        let files =
            parse(b"*** Begin Patch\n*** Update File: f\n@@\n a\n-b\n+B\n*** End Patch\n").unwrap();
        let out = apply(&files[0], "f", Some(b"a\r\nb\r\nc"), &none)
            .unwrap()
            .unwrap();
        assert_eq!(out, b"a\r\nB\r\nc");
    }

    #[test]
    fn lines_that_are_not_there_name_the_closest() {
        let files = parse(b"*** Begin Patch\n*** Update File: f\n@@\n-gone\n+new\n*** End Patch\n")
            .unwrap();
        let err = apply(&files[0], "f", Some(b"a\ngon\n"), &none).unwrap_err();
        assert!(err.message.contains("closest"), "{err}");
        assert!(parse(b"*** Begin Patch\n*** Frobnicate: f\n*** End Patch\n").is_err());
        assert!(
            parse(b"*** Begin Patch\n*** Add File: f\n+x\n").is_err(),
            "no end"
        );
    }
}

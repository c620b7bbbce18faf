//! Unified diffs as `git diff` (with its extended headers and binary
//! patches) and `diff -u` write them. Text before, between and after the
//! files' parts (a commit message, `Index:` lines, a diffstat) is skipped
//! as git apply skips it.

use super::binary;
use super::names::{header_name, trim_eol, unquote, utf8_name};
use super::{Body, FilePatch, Hunk, HunkLine, PatchError};

/// The patch's lines, each with its end of line.
struct Lines<'a> {
    lines: Vec<&'a [u8]>,
    at: usize,
}

impl<'a> Lines<'a> {
    fn peek(&self) -> Option<&'a [u8]> {
        self.lines.get(self.at).copied()
    }
    fn next(&mut self) -> Option<&'a [u8]> {
        let line = self.peek()?;
        self.at += 1;
        Some(line)
    }
    /// 1-based number of the line `peek` returns.
    fn number(&self) -> usize {
        self.at + 1
    }
}

/// Every file part of a unified diff, in order. A patch with none is an
/// error: git apply says "No valid patches in input".
pub fn parse(text: &[u8]) -> Result<Vec<FilePatch>, PatchError> {
    let mut lines = Lines {
        lines: text.split_inclusive(|&b| b == b'\n').collect(),
        at: 0,
    };
    let mut files = Vec::new();
    while let Some(line) = lines.peek() {
        if let Some(rest) = line.strip_prefix(b"diff --git ") {
            let start = lines.number();
            lines.next();
            files.push(git_part(&mut lines, rest, start)?);
        } else if line.starts_with(b"--- ")
            && lines
                .lines
                .get(lines.at + 1)
                .is_some_and(|l| l.starts_with(b"+++ "))
            && lines
                .lines
                .get(lines.at + 2)
                .is_some_and(|l| l.starts_with(b"@@ -"))
        {
            let start = lines.number();
            let (old_path, new_path) = old_and_new(&mut lines)?;
            let hunks = hunks(&mut lines)?;
            files.push(FilePatch {
                old_path,
                new_path,
                old_mode: None,
                new_mode: None,
                copy: false,
                body: Body::Hunks(hunks),
                line: start,
            });
        } else {
            lines.next();
        }
    }
    if files.is_empty() {
        return Err(PatchError::at(
            1,
            "no file changes found: expected `diff --git` or `---`/`+++`/`@@` lines",
        ));
    }
    Ok(files)
}

/// The `---` and `+++` lines' names.
fn old_and_new(lines: &mut Lines<'_>) -> Result<(Option<String>, Option<String>), PatchError> {
    let mut name = |marker: &[u8]| {
        let number = lines.number();
        let line = lines.next().unwrap_or_default();
        let rest = line.strip_prefix(marker).unwrap_or_default();
        header_name(rest).map_err(|why| PatchError::at(number, why))
    };
    Ok((name(b"--- ")?, name(b"+++ ")?))
}

/// A `diff --git` part: its extended headers, then hunks or a binary
/// patch (or nothing, for a rename or mode change alone).
fn git_part(lines: &mut Lines<'_>, names: &[u8], start: usize) -> Result<FilePatch, PatchError> {
    let (mut old_path, mut new_path) = git_names(trim_eol(names));
    let mut file = FilePatch {
        old_path: None,
        new_path: None,
        old_mode: None,
        new_mode: None,
        copy: false,
        body: Body::Nothing,
        line: start,
    };
    let (mut created, mut deleted) = (false, false);
    while let Some(line) = lines.peek() {
        let number = lines.number();
        let text = trim_eol(line);
        let mode =
            |rest: &[u8]| parse_mode(rest).ok_or_else(|| PatchError::at(number, "a bad file mode"));
        let name = |rest: &[u8]| header_path(rest).map_err(|why| PatchError::at(number, why));
        if let Some(rest) = text.strip_prefix(b"old mode ") {
            file.old_mode = Some(mode(rest)?);
        } else if let Some(rest) = text.strip_prefix(b"new mode ") {
            file.new_mode = Some(mode(rest)?);
        } else if let Some(rest) = text.strip_prefix(b"deleted file mode ") {
            file.old_mode = Some(mode(rest)?);
            deleted = true;
        } else if let Some(rest) = text.strip_prefix(b"new file mode ") {
            file.new_mode = Some(mode(rest)?);
            created = true;
        } else if let Some(rest) = text.strip_prefix(b"rename from ") {
            old_path = Some(format!("a/{}", name(rest)?));
        } else if let Some(rest) = text.strip_prefix(b"rename to ") {
            new_path = Some(format!("b/{}", name(rest)?));
        } else if let Some(rest) = text.strip_prefix(b"copy from ") {
            old_path = Some(format!("a/{}", name(rest)?));
            file.copy = true;
        } else if let Some(rest) = text.strip_prefix(b"copy to ") {
            new_path = Some(format!("b/{}", name(rest)?));
        } else if let Some(rest) = text.strip_prefix(b"index ") {
            // `index abc..def 100644`: the mode, unchanged.
            if let Some(m) = rest.split(|&b| b == b' ').nth(1) {
                let m = mode(m)?;
                file.old_mode.get_or_insert(m);
                file.new_mode.get_or_insert(m);
            }
        } else if text.starts_with(b"similarity index ")
            || text.starts_with(b"dissimilarity index ")
        {
        } else if line.starts_with(b"--- ") {
            let (old, new) = old_and_new(lines)?;
            // The `---`/`+++` names are git's own; `a/`/`b/` included.
            old_path = old.or(if created { None } else { old_path });
            new_path = new.or(if deleted { None } else { new_path });
            file.body = Body::Hunks(hunks(lines)?);
            break;
        } else if text == b"GIT binary patch" {
            lines.next();
            let (patch, used) = binary::parse(&lines.lines[lines.at..], number + 1)?;
            lines.at += used;
            file.body = Body::Binary(patch);
            break;
        } else if text.starts_with(b"Binary files ") {
            lines.next();
            file.body = Body::BinaryWithoutData;
            break;
        } else {
            break;
        }
        lines.next();
    }
    file.old_path = if created { None } else { old_path };
    file.new_path = if deleted { None } else { new_path };
    Ok(file)
}

/// `diff --git a/x b/x`: the two names. Unquoted names with spaces are
/// ambiguous; git's rule: the line holds the same name twice, so split
/// where both halves (after their prefixes) agree.
fn git_names(names: &[u8]) -> (Option<String>, Option<String>) {
    if names.first() == Some(&b'"') {
        if let Ok((old, rest)) = unquote(names) {
            let rest = rest.trim_ascii_start();
            let new = if rest.first() == Some(&b'"') {
                unquote(rest).ok().map(|(n, _)| n)
            } else {
                utf8_name(rest).ok()
            };
            return (Some(old), new);
        }
        return (None, None);
    }
    let Ok(text) = std::str::from_utf8(names) else {
        return (None, None);
    };
    let same = text
        .match_indices(' ')
        .map(|(i, _)| (&text[..i], &text[i + 1..]))
        .find(|(old, new)| without_prefix(old) == without_prefix(new));
    match same {
        Some((old, new)) => (Some(old.to_string()), Some(new.to_string())),
        None => (None, None),
    }
}

/// A `rename from` / `copy to` … name: C-quoted, or the rest of the line.
fn header_path(rest: &[u8]) -> Result<String, &'static str> {
    if rest.first() == Some(&b'"') {
        unquote(rest).map(|(name, _)| name)
    } else {
        utf8_name(rest)
    }
}

fn without_prefix(name: &str) -> &str {
    name.split_once('/').map_or(name, |(_, rest)| rest)
}

fn parse_mode(text: &[u8]) -> Option<u32> {
    let text = std::str::from_utf8(text.trim_ascii()).ok()?;
    u32::from_str_radix(text, 8).ok()
}

/// The hunks that follow a `+++` line.
fn hunks(lines: &mut Lines<'_>) -> Result<Vec<Hunk>, PatchError> {
    let mut out = Vec::new();
    while let Some(line) = lines.peek() {
        if !line.starts_with(b"@@ -") {
            break;
        }
        let number = lines.number();
        lines.next();
        let mut hunk =
            header(line).ok_or_else(|| PatchError::at(number, "a bad `@@` hunk header"))?;
        hunk.line = number;
        body(lines, &mut hunk)?;
        out.push(hunk);
    }
    Ok(out)
}

/// `@@ -a[,b] +c[,d] @@…`
fn header(line: &[u8]) -> Option<Hunk> {
    let text = std::str::from_utf8(line).ok()?;
    let rest = text.strip_prefix("@@ -")?;
    let (ranges, _) = rest.split_once(" @@")?;
    let (old, new) = ranges.split_once(" +")?;
    let range = |r: &str| -> Option<(usize, usize)> {
        match r.split_once(',') {
            Some((start, count)) => Some((start.parse().ok()?, count.parse().ok()?)),
            None => Some((r.parse().ok()?, 1)),
        }
    };
    let (old_start, old_count) = range(old)?;
    let (new_start, new_count) = range(new)?;
    Some(Hunk {
        old_start,
        old_count,
        new_start,
        new_count,
        lines: Vec::new(),
        line: 0,
    })
}

/// A hunk's lines, until both counts are used up.
fn body(lines: &mut Lines<'_>, hunk: &mut Hunk) -> Result<(), PatchError> {
    let (mut old, mut new) = (hunk.old_count, hunk.new_count);
    while old > 0 || new > 0 {
        let number = lines.number();
        let Some(line) = lines.next() else {
            return Err(PatchError::at(
                number,
                "the patch ends inside a hunk (its line counts are too large)",
            ));
        };
        let (kind, content) = match line.first() {
            Some(b' ') => (b' ', &line[1..]),
            // An empty context line, as some tools trim the space.
            Some(b'\n') => (b' ', line),
            Some(b'\r') if line == b"\r\n" => (b' ', &line[..0]),
            Some(b'-') => (b'-', &line[1..]),
            Some(b'+') => (b'+', &line[1..]),
            Some(b'\\') => {
                mark_no_newline(hunk);
                continue;
            }
            _ => {
                return Err(PatchError::at(
                    number,
                    "a line in a hunk that is not ' ', '-' or '+' (the hunk's line counts do not match its lines)",
                ));
            }
        };
        let content = content.to_vec();
        match kind {
            b' ' if old > 0 && new > 0 => {
                old -= 1;
                new -= 1;
                hunk.lines.push(HunkLine::Context(content));
            }
            b'-' if old > 0 => {
                old -= 1;
                hunk.lines.push(HunkLine::Remove(content));
            }
            b'+' if new > 0 => {
                new -= 1;
                hunk.lines.push(HunkLine::Add(content));
            }
            _ => {
                return Err(PatchError::at(
                    number,
                    "the hunk has more lines than its header counts",
                ));
            }
        }
    }
    // `\ No newline at end of file` after the hunk's last line.
    while lines.peek().is_some_and(|l| l.starts_with(b"\\")) {
        lines.next();
        mark_no_newline(hunk);
    }
    Ok(())
}

/// `\ No newline at end of file`: the line before it has no end of line.
fn mark_no_newline(hunk: &mut Hunk) {
    if let Some(HunkLine::Context(c) | HunkLine::Remove(c) | HunkLine::Add(c)) =
        hunk.lines.last_mut()
    {
        strip_newline(c);
    }
}

fn strip_newline(content: &mut Vec<u8>) {
    if content.ends_with(b"\n") {
        content.pop();
    }
}

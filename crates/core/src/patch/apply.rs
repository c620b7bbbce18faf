//! Applies a file's part of a patch to its base content, as git apply
//! does: each hunk's old lines must be in the file byte for byte; they
//! are looked for where the hunk says, then ever further before and after
//! it; a hunk at the start (or with no trailing context, at the end) must
//! match there. No fuzz: a hunk whose lines are not there is an error
//! naming the hunk and the closest region.

use super::binary::{BinaryHunk, apply_delta};
use super::{Body, FilePatch, Hunk, HunkLine, PatchError, envelope};

/// Inflates zlib data that must come to `size` bytes; `None` when it
/// does not.
pub type Inflate<'a> = &'a dyn Fn(&[u8], usize) -> Option<Vec<u8>>;

/// The new content of `file` (`None`: deleted) from its base content
/// (`None`: no such file at the base). `path` names it in errors.
pub fn apply(
    file: &FilePatch,
    path: &str,
    base: Option<&[u8]>,
    inflate: Inflate<'_>,
) -> Result<Option<Vec<u8>>, PatchError> {
    let created = file.old_path.is_none();
    match (created, base) {
        (true, Some(_)) if !file.copy => {
            return Err(PatchError::in_file(
                path,
                Some(file.line),
                "the patch creates it, but it already exists at the base",
            ));
        }
        (false, None) => {
            return Err(PatchError::in_file(
                path,
                Some(file.line),
                "the patch changes it, but it does not exist at the base",
            ));
        }
        _ => {}
    }
    let base = base.unwrap_or_default();
    let new = match &file.body {
        Body::Nothing => base.to_vec(),
        Body::Hunks(hunks) => apply_hunks(hunks, path, base)?,
        Body::Content(content) => content.clone(),
        Body::Chunks(chunks) => envelope::apply_chunks(chunks, path, base)?,
        Body::Binary(patch) => apply_binary(&patch.forward, base, inflate).ok_or_else(|| {
            PatchError::in_file(
                path,
                Some(file.line),
                "the binary patch does not fit the file at the base (or its data is damaged)",
            )
        })?,
        Body::BinaryWithoutData => {
            return Err(PatchError::in_file(
                path,
                Some(file.line),
                "the patch says the binary file differs but holds no data: make it with `git diff --binary`",
            ));
        }
    };
    if file.new_path.is_none() {
        if !new.is_empty() {
            return Err(PatchError::in_file(
                path,
                Some(file.line),
                "the patch deletes it, but the file at the base has more than the patch removes",
            ));
        }
        return Ok(None);
    }
    Ok(Some(new))
}

fn apply_binary(hunk: &BinaryHunk, base: &[u8], inflate: Inflate<'_>) -> Option<Vec<u8>> {
    let data = inflate(&hunk.deflated, hunk.size)?;
    if hunk.delta {
        apply_delta(base, &data)
    } else {
        Some(data)
    }
}

/// Applies `hunks` in order, each to the result of the ones before.
pub fn apply_hunks(hunks: &[Hunk], path: &str, base: &[u8]) -> Result<Vec<u8>, PatchError> {
    let mut lines: Vec<Vec<u8>> = base
        .split_inclusive(|&b| b == b'\n')
        .map(<[u8]>::to_vec)
        .collect();
    for (n, hunk) in hunks.iter().enumerate() {
        let old: Vec<&[u8]> = side(hunk, false).collect();
        let new: Vec<Vec<u8>> = side(hunk, true).map(<[u8]>::to_vec).collect();
        // git: a hunk at the top must match there; one without trailing
        // context must match at the end.
        let trailing = hunk
            .lines
            .iter()
            .rev()
            .take_while(|l| matches!(l, HunkLine::Context(_)))
            .count();
        let must_begin = hunk.old_start <= 1;
        let must_end = trailing == 0;
        let wanted = hunk.new_start.saturating_sub(1);
        let Some(at) = find(&lines, &old, wanted, must_begin, must_end) else {
            return Err(no_fit(path, n, hunk, &lines, &old));
        };
        lines.splice(at..at + old.len(), new);
    }
    Ok(lines.concat())
}

/// A hunk's lines before it (`new` false: context and removed lines) or
/// after it (context and added lines).
fn side(hunk: &Hunk, new: bool) -> impl Iterator<Item = &[u8]> {
    hunk.lines.iter().filter_map(move |l| match (l, new) {
        (HunkLine::Context(c), _) | (HunkLine::Remove(c), false) | (HunkLine::Add(c), true) => {
            Some(c.as_slice())
        }
        _ => None,
    })
}

/// Where `old` is in `lines`: tried at `wanted` first, then one line
/// further back and one further on, in turn, as git's `find_pos` does.
fn find(
    lines: &[Vec<u8>],
    old: &[&[u8]],
    wanted: usize,
    must_begin: bool,
    must_end: bool,
) -> Option<usize> {
    if old.len() > lines.len() {
        return None;
    }
    let last = lines.len() - old.len();
    let start = if must_begin {
        0
    } else if must_end {
        last
    } else {
        wanted.min(last)
    };
    let fits = |at: usize| {
        (!must_begin || at == 0)
            && (!must_end || at == last)
            && old
                .iter()
                .zip(&lines[at..])
                .all(|(a, b)| *a == b.as_slice())
    };
    let (mut back, mut on) = (start, start);
    if fits(start) {
        return Some(start);
    }
    loop {
        let mut moved = false;
        if on < last {
            on += 1;
            moved = true;
            if fits(on) {
                return Some(on);
            }
        }
        if back > 0 {
            back -= 1;
            moved = true;
            if fits(back) {
                return Some(back);
            }
        }
        if !moved {
            return None;
        }
    }
}

/// The error for hunk `n` that fits nowhere: the closest region and its
/// first line that differs.
fn no_fit(path: &str, n: usize, hunk: &Hunk, lines: &[Vec<u8>], old: &[&[u8]]) -> PatchError {
    let text = String::from_utf8_lossy(&lines.concat()).into_owned();
    let wanted = String::from_utf8_lossy(&old.concat()).into_owned();
    let region = super::closest_region(&text, &wanted);
    PatchError::not_found(
        path,
        hunk.line,
        format!(
            "hunk #{} (@@ -{},{} +{},{} @@) does not apply: its old lines are not in the file at the base{region}",
            n + 1,
            hunk.old_start,
            hunk.old_count,
            hunk.new_start,
            hunk.new_count
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::super::unified;
    use super::*;

    fn patch_of(text: &str) -> FilePatch {
        unified::parse(text.as_bytes()).unwrap().remove(0)
    }

    fn no_inflate(_: &[u8], _: usize) -> Option<Vec<u8>> {
        None
    }

    #[test]
    fn hunks_apply_where_they_say_or_moved() {
        let p = patch_of("--- a/f\n+++ b/f\n@@ -2,3 +2,3 @@\n b\n-c\n+C\n d\n");
        let out = apply(&p, "f", Some(b"a\nb\nc\nd\ne\n"), &no_inflate).unwrap();
        assert_eq!(out.unwrap(), b"a\nb\nC\nd\ne\n");
        // Two lines were added above: the hunk is found 2 lines further on.
        let out = apply(&p, "f", Some(b"x\ny\na\nb\nc\nd\ne\n"), &no_inflate).unwrap();
        assert_eq!(out.unwrap(), b"x\ny\na\nb\nC\nd\ne\n");
    }

    #[test]
    fn missing_newlines_and_crlf_are_kept() {
        let p = patch_of(
            "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\r\n-b\r\n\\ No newline at end of file\n+B\r\n\\ No newline at end of file\n",
        );
        let out = apply(&p, "f", Some(b"a\r\nb\r"), &no_inflate).unwrap();
        assert_eq!(out.unwrap(), b"a\r\nB\r");
        let out = apply(&p, "f", Some(b"a\r\nb"), &no_inflate);
        assert!(
            out.is_err(),
            "the patch's last line is `b\\r`, the file's `b`"
        );
        let p = patch_of(
            "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\r\n-b\n\\ No newline at end of file\n+B\n",
        );
        let out = apply(&p, "f", Some(b"a\r\nb"), &no_inflate).unwrap();
        assert_eq!(out.unwrap(), b"a\r\nB\n");
    }

    #[test]
    fn a_hunk_that_fits_nowhere_names_the_hunk_and_the_closest_line() {
        let p = patch_of("--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
        let err = apply(&p, "f", Some(b"a\nbee\nc\n"), &no_inflate).unwrap_err();
        assert_eq!(err.path.as_deref(), Some("f"));
        assert!(err.message.contains("hunk #1"), "{err}");
        assert!(err.message.contains("line 2 differs"), "{err}");
        assert!(err.message.contains("`bee`"), "{err}");
    }

    #[test]
    fn creation_and_deletion_check_the_base() {
        let create = patch_of("--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+new\n");
        assert_eq!(
            apply(&create, "n", None, &no_inflate).unwrap().unwrap(),
            b"new\n"
        );
        assert!(apply(&create, "n", Some(b"x\n"), &no_inflate).is_err());
        let delete = patch_of("--- a/n\n+++ /dev/null\n@@ -1 +0,0 @@\n-new\n");
        assert_eq!(
            apply(&delete, "n", Some(b"new\n"), &no_inflate).unwrap(),
            None
        );
        assert!(apply(&delete, "n", Some(b"new\nmore\n"), &no_inflate).is_err());
    }
}

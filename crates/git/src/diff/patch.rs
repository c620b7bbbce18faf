//! Diffs between trees, in git's own patch format, and the one line diff
//! behind every hunk a user sees (issue 39 item 7): libgit2's xdiff, with
//! the options of [`options`], read as text ([`patch_text`]) or as
//! structured hunks ([`file_hunks`], `Repo::file_diffs`).

use crate::Context;
use crate::{on_object, on_path};
use evolv_core::diff::hunks::{Hunk, HunkLine, LineKind};
use git2::{Diff, DiffFormat, DiffOptions, Repository, Tree};

use crate::RepoPath;
use crate::error::Result;

/// The options of every line diff the adapter makes, so that each place
/// that shows a change shows the same hunks, and `git diff`'s: three lines
/// of context, Myers' algorithm, and git's indent heuristic (on in git by
/// default since 2.14, off in libgit2: without it an insertion beside a
/// blank line and a closing brace slides to where `git show` does not put
/// it). The repository's `diff.algorithm` and `diff.indentHeuristic` are
/// not read: git's defaults, on every machine.
pub(crate) fn options() -> DiffOptions {
    let mut opts = DiffOptions::new();
    opts.context_lines(3).indent_heuristic(true);
    opts
}

/// The diff `old → new` in `repo`, its ids abbreviated to `abbrev` hex
/// digits (`None`: libgit2 reads `core.abbrev` itself, and refuses it).
fn tree_diff<'r>(
    repo: &'r Repository,
    (old, new): (&Tree<'_>, &Tree<'_>),
    only: Option<&[impl AsRef<[u8]>]>,
    abbrev: Option<u16>,
) -> Result<Diff<'r>> {
    let mut opts = options();
    opts.show_binary(true);
    if let Some(digits) = abbrev {
        opts.id_abbrev(digits);
    }
    if let Some(paths) = only {
        // Exact paths: libgit2 then skips the rest of a large tree.
        opts.disable_pathspec_match(true);
        for p in paths {
            opts.pathspec(p.as_ref());
        }
    }
    repo.diff_tree_to_tree(Some(old), Some(new), Some(&mut opts))
        .context(|| {
            on_object("compare trees", old.id()).said(format!(
                "compare tree {} with tree {}",
                old.id(),
                new.id()
            ))
        })
}

/// The unified diff `old → new` exactly as `git diff` prints it
/// (`diff --git`, `index`, `---`/`+++`, hunks with 3 lines of context),
/// limited to `only` when the caller knows which paths differ (exact
/// paths, as bytes: names that are not UTF-8 included).
pub fn patch_text(
    repo: &crate::Repo,
    old: &crate::objects::view::Tree<'_>,
    new: &crate::objects::view::Tree<'_>,
    only: Option<&[impl AsRef<[u8]>]>,
) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    write_patch(repo, old, new, only, &mut |bytes| {
        out.extend_from_slice(bytes);
        true
    })?;
    Ok(out)
}

/// [`patch_text`], handed to `sink` a line at a time instead of held: a
/// diff of 30,000 files is never in memory at once. `sink` returns false
/// to stop.
pub fn write_patch(
    repo: &crate::Repo,
    old: &crate::objects::view::Tree<'_>,
    new: &crate::objects::view::Tree<'_>,
    only: Option<&[impl AsRef<[u8]>]>,
    sink: &mut dyn FnMut(&[u8]) -> bool,
) -> Result<()> {
    let old = old.raw();
    let new = new.raw();
    let handle = without_index(repo)?;
    let tree = |id: crate::Oid| {
        handle
            .find_tree(id.raw())
            .context(|| on_object("read tree", id))
    };
    let (old, new) = (
        tree(crate::Oid::from(old.id()))?,
        tree(crate::Oid::from(new.id()))?,
    );
    let diff = tree_diff(&handle, (&old, &new), only, abbrev(repo))?;
    let mut line_buf = Vec::new();
    diff.print(DiffFormat::Patch, |_, _, line| {
        line_buf.clear();
        match line.origin() {
            '+' | '-' | ' ' => line_buf.push(line.origin() as u8),
            _ => {}
        }
        line_buf.extend_from_slice(line.content());
        sink(&line_buf)
    })
    .context(|| "print a diff")?;
    Ok(())
}

/// One file's diff from its two contents in memory, as [`patch_text`]
/// prints it for that file, without the trees, the object store or an
/// attribute lookup (libgit2's per-file `.gitattributes` lookup resolved
/// every path with `realpath`, a large part of a big propose). Only for
/// paths no attribute applies to, which is what makes the two the same:
/// both use git's default diff driver. `Send`: runs beside the scan.
#[derive(Debug, Clone, Copy)]
pub struct FilePatcher {
    abbrev: u16,
}

impl FilePatcher {
    /// For `repo`: its `core.abbrev` (see [`abbrev`]), which the tree diff
    /// uses too. `None` for a value libgit2 would refuse (callers use
    /// `patch_text`).
    pub fn new(repo: &crate::Repo) -> Option<Self> {
        abbrev(repo).map(|abbrev| FilePatcher { abbrev })
    }

    /// The diff of `path` (mode `mode`, unchanged) from `old` to `new`;
    /// empty when they are equal.
    pub fn patch(&self, path: &[u8], mode: i32, old: &[u8], new: &[u8]) -> Result<Vec<u8>> {
        let mut opts = options();
        opts.show_binary(true).id_abbrev(self.abbrev);
        let name = crate::types::path::fs_path(path);
        let mut patch =
            git2::Patch::from_buffers(old, Some(name), new, Some(name), Some(&mut opts))
                .context(|| on_path("diff", name))?;
        let mut text = patch
            .to_buf()
            .context(|| on_path("print the diff of", name))?
            .to_vec();
        // libgit2 gives buffers mode 100644; the tree diff prints the
        // entry's mode on the `index` line, once, at its end.
        if mode != 0o100644 {
            fix_index_mode(&mut text, mode);
        }
        Ok(text)
    }
}

/// `core.abbrev`, read as the rest of git's config is (every layer, `git
/// -c` included), as libgit2 takes it: the hex digits of the ids on an
/// `index` line, 7 when unset or `auto`, all 40 for `false`, at most 40.
/// `None` for a value libgit2 refuses (below 4, or not a number) or a
/// config that cannot be read.
fn abbrev(repo: &crate::Repo) -> Option<u16> {
    let config = repo.config().ok()?;
    let Some(value) = config.string("core.abbrev") else {
        return Some(7);
    };
    if value.eq_ignore_ascii_case("auto") {
        return Some(7);
    }
    match crate::config::parse_int(value).and_then(|n| i32::try_from(n).ok()) {
        Some(n) if n < 4 => None,
        Some(n) => Some(n.min(40) as u16),
        None => (crate::config::parse_bool(value) == Some(false)).then_some(40),
    }
}

/// Rewrites the mode at the end of the `index` line (the second line).
fn fix_index_mode(text: &mut Vec<u8>, mode: i32) {
    let Some(first_end) = text.iter().position(|&b| b == b'\n') else {
        return;
    };
    let Some(len) = text[first_end + 1..].iter().position(|&b| b == b'\n') else {
        return;
    };
    let line_end = first_end + 1 + len;
    let line = &text[first_end + 1..line_end];
    if line.starts_with(b"index ") && line.ends_with(b" 100644") {
        let at = line_end - b"100644".len();
        text.splice(at..line_end, format!("{mode:o}").into_bytes());
    }
}

/// A second handle on `repo` whose index is empty and in memory. libgit2
/// looks up each file's diff driver in `.gitattributes`, which loads and
/// checksums the whole on-disk index: work that grows with the repository,
/// for a diff of a few paths. Attributes still come from the
/// working tree's `.gitattributes` files.
fn without_index(repo: &crate::Repo) -> Result<Repository> {
    let dir = repo.raw().path();
    let handle = Repository::open(dir).context(|| on_path("open", dir))?;
    git2::Index::new()
        .and_then(|mut index| handle.set_index(&mut index))
        .context(|| {
            on_path("give an empty index", dir)
                .said(format!("give {} an empty index", dir.display()))
        })?;
    Ok(handle)
}

/// Lines added and removed between two trees, counted from the patch of
/// `paths`, the paths that differ (a whole-tree diff walks every entry).
pub fn line_stats(
    repo: &crate::Repo,
    old: &crate::objects::view::Tree<'_>,
    new: &crate::objects::view::Tree<'_>,
    paths: &[RepoPath],
) -> Result<(usize, usize)> {
    let mut rest = Vec::new();
    let (mut added, mut removed) = (0, 0);
    for path in paths {
        match blob_line_stats(repo, old.raw(), new.raw(), path)? {
            Some((a, r)) => {
                added += a;
                removed += r;
            }
            None => rest.push(path.clone()),
        }
    }
    if !rest.is_empty() {
        let (a, r) = evolv_core::diff::line_counts(&patch_text(repo, old, new, Some(&rest))?);
        added += a;
        removed += r;
    }
    Ok((added, removed))
}

/// The lines added and removed at `path`, diffed blob to blob, for a path
/// no attribute can reach (so its diff driver is the default one) whose
/// entries are blobs of the same kind on both sides: libgit2's tree diff
/// looks up each file's diff driver in the attribute files of every
/// parent directory, twice per path (14 `readlink`s and 20 stats per file
/// of a codemod; issue 14 item 1). `None`: ask the tree diff.
fn blob_line_stats(
    repo: &crate::Repo,
    old: &Tree<'_>,
    new: &Tree<'_>,
    path: &RepoPath,
) -> Result<Option<(usize, usize)>> {
    if !repo.surely_unattributed(path) {
        return Ok(None);
    }
    let entry = |t: &Tree<'_>| t.get_path(path.fs()).ok();
    let (a, b) = (entry(old), entry(new));
    let is_link = |e: &git2::TreeEntry<'_>| e.filemode() == crate::types::mode::SYMLINK as i32;
    let blobs = [&a, &b].iter().all(|e| {
        e.as_ref()
            .is_none_or(|e| e.kind() == Some(git2::ObjectType::Blob))
    });
    let kinds_differ = matches!((&a, &b), (Some(x), Some(y)) if is_link(x) != is_link(y));
    if !blobs || kinds_differ {
        return Ok(None);
    }
    let content = |e: &Option<git2::TreeEntry<'_>>| -> Result<Option<git2::Blob<'_>>> {
        Ok(match e {
            Some(e) => Some(
                repo.raw()
                    .find_blob(e.id())
                    .context(|| on_object("read blob", e.id()))?,
            ),
            None => None,
        })
    };
    let (old_blob, new_blob) = (content(&a)?, content(&b)?);
    let old_bytes: &[u8] = old_blob.as_ref().map_or(&[], git2::Blob::content);
    let new_bytes: &[u8] = new_blob.as_ref().map_or(&[], git2::Blob::content);
    let (_, added, removed) =
        git2::Patch::from_buffers(old_bytes, None, new_bytes, None, Some(&mut options()))
            .and_then(|patch| patch.line_stats())
            .context(|| "count a diff's lines")?;
    Ok(Some((added, removed)))
}

/// The hunks turning `old` into `new`, as [`patch_text`] finds them for a
/// file with those contents (no attribute consulted); none for contents
/// xdiff finds binary. The hunks of an edit's results: the ones `show`,
/// the review page and `apply -i` give for the same change.
pub fn file_hunks(old: &[u8], new: &[u8]) -> Result<Vec<Hunk>> {
    git2::Patch::from_buffers(old, None, new, None, Some(&mut options()))
        .and_then(|patch| hunks_of(&patch))
        .context(|| "diff two contents")
}

/// A patch's hunks, each line's text lossily UTF-8 without its line end;
/// git's "no newline at end of file" markers are not lines.
pub(crate) fn hunks_of(patch: &git2::Patch<'_>) -> std::result::Result<Vec<Hunk>, git2::Error> {
    let mut out = Vec::with_capacity(patch.num_hunks());
    for h in 0..patch.num_hunks() {
        let (hunk, count) = patch.hunk(h)?;
        let mut lines = Vec::with_capacity(count);
        for l in 0..count {
            let line = patch.line_in_hunk(h, l)?;
            let kind = match line.origin() {
                ' ' => LineKind::Context,
                '-' => LineKind::Removed,
                '+' => LineKind::Added,
                _ => continue,
            };
            let text = String::from_utf8_lossy(line.content());
            let text = text.trim_end_matches('\n').trim_end_matches('\r');
            lines.push(HunkLine {
                kind,
                text: text.to_string(),
            });
        }
        out.push(Hunk::numbered(
            (hunk.old_start() as usize, hunk.old_lines() as usize),
            (hunk.new_start() as usize, hunk.new_lines() as usize),
            lines,
        ));
    }
    Ok(out)
}

/// The paths of an index's conflicts, sorted.
pub fn conflict_paths(index: &git2::Index) -> Result<Vec<String>> {
    let mut paths: Vec<String> = index
        .conflicts()
        .context(|| "list an index's conflicts")?
        .flatten()
        .filter_map(|c| c.our.or(c.their).or(c.ancestor))
        // Named as git names them (quoted when not plain UTF-8).
        .map(|e| RepoPath::from(&e.path[..]).to_string())
        .collect();
    paths.sort();
    paths.dedup();
    Ok(paths)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(old: &str, new: &str) -> Vec<String> {
        file_hunks(old.as_bytes(), new.as_bytes())
            .unwrap()
            .into_iter()
            .map(|h| h.header)
            .collect()
    }

    #[test]
    fn hunks_are_numbered_as_git_numbers_them() {
        let old = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";
        let new = "1\n2\n3\n4\n5\nsix\n7\n8\n9\n10\n";
        let hunks = file_hunks(old.as_bytes(), new.as_bytes()).unwrap();
        assert_eq!(hunks.len(), 1);
        assert_eq!(hunks[0].header, "@@ -3,7 +3,7 @@");
        assert_eq!(
            hunks[0].lines[3],
            HunkLine {
                kind: LineKind::Removed,
                text: "6".into()
            }
        );
        assert_eq!(headers("", "a\n"), ["@@ -0,0 +1 @@"]);
        assert_eq!(headers("a\n", "a"), ["@@ -1 +1 @@"]);
        assert!(headers("x\0y\n", "x\0z\n").is_empty(), "binary: no hunks");
    }

    /// The hunk headers of `git diff` between two blobs of these contents,
    /// without the function context git adds.
    fn git_headers(old: &str, new: &str) -> Vec<String> {
        let dir = crate::test_git::new_repo();
        let blob = |name: &str, content: &str| {
            std::fs::write(dir.path().join(name), content).unwrap();
            crate::test_git::git(dir.path(), &["hash-object", "-w", name])
        };
        let (a, b) = (blob("old", old), blob("new", new));
        crate::test_git::git(dir.path(), &["diff", &a, &b])
            .lines()
            .filter_map(|l| l.strip_prefix("@@ "))
            .map(|l| format!("@@ {} @@", l.split(" @@").next().unwrap()))
            .collect()
    }

    /// A block inserted beside a blank line and closing braces, where git's
    /// indent heuristic moves it (xdiff alone says `@@ -2,6 +2,10 @@`), and
    /// two blocks of the same length swapped, where another line diff
    /// (`similar`'s Myers: `@@ -1,5 +1,14 @@`) moves the other block.
    #[test]
    fn ambiguous_changes_are_split_into_the_hunks_git_diff_gives() {
        let f = |name: &str, body: &str| format!("fn {name}() {{\n{body}}}\n");
        let nested = "    if c {\n        x();\n    }\n";
        let old = [
            f("f0", &format!("    y();\n{nested}")),
            f("f1", nested),
            f("f2", "    y();\n"),
            f("f3", "    y();\n    y();\n"),
        ]
        .join("\n");
        let new = [
            f(
                "f0",
                &format!("    y();\n    if c {{\n        x();\n{nested}\n    }}\n"),
            ),
            f("f1", nested),
            f("f3", "    y();\n    y();\n"),
            f("f2", "    y();\n"),
        ]
        .join("\n");
        assert_eq!(headers(&old, &new)[0], "@@ -1,8 +1,12 @@");
        assert_eq!(headers(&old, &new), git_headers(&old, &new));

        let lines = |name: &str| -> String { (1..=8).map(|i| format!("{name} {i}\n")).collect() };
        let (a, b) = (lines("item"), lines("other"));
        let old = format!("start\n\n{a}\n{b}\nend\n");
        let new = format!("start\n\n{b}\n{a}\nend\n");
        assert_eq!(
            headers(&old, &new),
            ["@@ -1,14 +1,5 @@", "@@ -18,4 +9,13 @@"]
        );
        assert_eq!(headers(&old, &new), git_headers(&old, &new));
    }
}

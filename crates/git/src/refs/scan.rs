//! The refs under one prefix, read as git's files backend stores them: the
//! `packed-refs` file and the loose files under the prefix's directory, a
//! loose ref hiding a packed one of the same name.
//!
//! libgit2 answers the same question by parsing every line of
//! `packed-refs` into a sorted cache and copying the cache for each
//! iterator: at 10,000 proposals that was a quarter of `list`. Here only
//! the lines under the prefix are kept. Where this reader could differ
//! from libgit2 (a reftable repository, a symbolic or damaged ref, an odd
//! name) it answers `None` and the caller asks libgit2.

use std::collections::BTreeMap;
use std::path::Path;

use crate::Oid;

/// Every ref whose name starts with `prefix` (which ends in `/`), sorted
/// by name; `None` where libgit2 must be asked instead.
pub fn under(common_dir: &Path, prefix: &str) -> Option<Vec<(String, Oid)>> {
    if !prefix.starts_with("refs/") || !prefix.ends_with('/') {
        return None;
    }
    if common_dir.join("reftable").exists() {
        return None;
    }
    let mut refs = Vec::new();
    match std::fs::read(common_dir.join("packed-refs")) {
        Ok(bytes) => packed(&bytes, prefix, &mut refs)?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(_) => return None,
    }
    let dir = common_dir.join(prefix.trim_end_matches('/'));
    let mut loose_refs = BTreeMap::new();
    loose(&dir, prefix.trim_end_matches('/'), &mut loose_refs)?;
    // A sorted file's lines come in name order: 10,000 names inserted into
    // a map one by one were a twelfth of `list`. Only where a loose ref is
    // there to hide a packed one are the two merged through the map.
    if loose_refs.is_empty() {
        if !refs.is_sorted_by(|a: &(String, Oid), b| a.0 < b.0) {
            // As the map kept them: by name, the last line of a name wins.
            refs.sort_by(|a, b| a.0.cmp(&b.0));
            refs.dedup_by(|later, earlier| {
                let same = later.0 == earlier.0;
                if same {
                    std::mem::swap(later, earlier);
                }
                same
            });
        }
        return Some(refs);
    }
    let mut all: BTreeMap<String, Oid> = refs.into_iter().collect();
    all.append(&mut loose_refs);
    Some(all.into_iter().collect())
}

/// The lines of `packed-refs` under `prefix` (a peeled `^` line follows
/// the ref it peels and is skipped). A file git marks `sorted` is searched
/// for the prefix's first line and read only while names are under it:
/// the proposals' prefix and the markers' are a few lines each of a file
/// of 20,000.
fn packed(bytes: &[u8], prefix: &str, refs: &mut Vec<(String, Oid)>) -> Option<()> {
    let (sorted, body) = header(bytes);
    let start = if sorted {
        body + first_at_or_after(&bytes[body..], prefix.as_bytes())
    } else {
        0
    };
    for line in bytes[start..].split(|&b| b == b'\n') {
        if line.is_empty() || line[0] == b'#' || line[0] == b'^' {
            continue;
        }
        let space = line.iter().position(|&b| b == b' ')?;
        let name = &line[space + 1..];
        if !name.starts_with(prefix.as_bytes()) {
            if sorted && name > prefix.as_bytes() {
                break;
            }
            continue;
        }
        let name = std::str::from_utf8(name).ok()?;
        if !plain_name(name) {
            return None;
        }
        refs.push((name.to_string(), hex_id(&line[..space])?));
    }
    Some(())
}

/// Whether the header line says the file is sorted, and where the refs
/// start.
fn header(bytes: &[u8]) -> (bool, usize) {
    if !bytes.starts_with(b"# pack-refs with:") {
        return (false, 0);
    }
    let end = line_end(bytes, 0);
    let traits = &bytes[..end];
    let sorted = traits.split(|&b| b == b' ').any(|t| t == b"sorted");
    (sorted, (end + 1).min(bytes.len()))
}

/// The offset of the first line of sorted `body` whose ref is not below
/// `prefix` (a ref line's name compared; a `^` line belongs to the ref
/// line before it).
fn first_at_or_after(body: &[u8], prefix: &[u8]) -> usize {
    let (mut lo, mut hi) = (0, body.len());
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let mut start = line_start(body, mid);
        if body.get(start) == Some(&b'^') && start > 0 {
            start = line_start(body, start - 1);
        }
        let line = &body[start..line_end(body, start)];
        let name = line
            .iter()
            .position(|&b| b == b' ')
            .map_or(line, |space| &line[space + 1..]);
        if name < prefix {
            // Past `mid`'s own line (the ref or the `^` line after it).
            lo = (line_end(body, mid) + 1).min(hi);
        } else {
            hi = start;
        }
    }
    lo
}

fn line_start(bytes: &[u8], at: usize) -> usize {
    bytes[..at]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |nl| nl + 1)
}

fn line_end(bytes: &[u8], at: usize) -> usize {
    bytes[at..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |nl| at + nl)
}

/// The loose refs in `dir` (named `name`) and below it.
fn loose(dir: &Path, name: &str, refs: &mut BTreeMap<String, Oid>) -> Option<()> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Some(()),
        Err(_) => return None,
    };
    for entry in entries {
        let entry = entry.ok()?;
        let file = entry.file_name();
        let file = file.to_str()?;
        // git's lock files and temporaries are no refs.
        if file.ends_with(".lock") || file.starts_with('.') {
            continue;
        }
        let full = format!("{name}/{file}");
        if !plain_name(&full) {
            return None;
        }
        let kind = entry.file_type().ok()?;
        if kind.is_dir() {
            loose(&entry.path(), &full, refs)?;
        } else if kind.is_file() {
            let bytes = std::fs::read(entry.path()).ok()?;
            let text = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
            // A symbolic ref (`ref: …`) or anything else but an id.
            refs.insert(full, hex_id(text)?);
        } else {
            return None;
        }
    }
    Some(())
}

/// A name libgit2 would read the same way: letters, digits and `_-./`,
/// no empty, `.`-led or `.lock` component, no `..`. One pass over the
/// bytes: 10,000 names split and searched were an eighth of `list`.
fn plain_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    let mut start = 0; // where the current component starts
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'/' => {
                if !plain_component(&bytes[start..i]) {
                    return false;
                }
                start = i + 1;
            }
            b'.' if i > 0 && bytes[i - 1] == b'.' => return false,
            b'_' | b'-' | b'.' => {}
            _ if b.is_ascii_alphanumeric() => {}
            _ => return false,
        }
    }
    plain_component(&bytes[start..])
}

fn plain_component(c: &[u8]) -> bool {
    !c.is_empty() && c[0] != b'.' && !c.ends_with(b".lock")
}

/// The object id spelled by exactly 40 lower- or upper-case hex digits.
fn hex_id(text: &[u8]) -> Option<Oid> {
    if text.len() != 40 {
        return None;
    }
    let mut raw = [0u8; 20];
    for (i, pair) in text.chunks_exact(2).enumerate() {
        raw[i] = (nibble(pair[0])? << 4) | nibble(pair[1])?;
    }
    Oid::from_bytes(&raw).ok()
}

fn nibble(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_git::git;

    /// What libgit2 lists under `prefix`, sorted.
    fn libgit2(path: &Path, prefix: &str) -> Vec<(String, Oid)> {
        let repo = crate::Repo::new_any(git2::Repository::open(path).unwrap());
        let mut refs = repo.refs_matching(&format!("{prefix}*")).unwrap();
        refs.sort();
        refs
    }

    fn scan(path: &Path, prefix: &str) -> Option<Vec<(String, Oid)>> {
        under(&path.join(".git"), prefix)
    }

    /// The rule `plain_name` checks in one pass, spelled out.
    fn plain_name_spelled_out(name: &str) -> bool {
        name.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'/'))
            && name
                .split('/')
                .all(|c| !c.is_empty() && !c.starts_with('.') && !c.ends_with(".lock"))
            && !name.as_bytes().windows(2).any(|w| w == b"..")
    }

    #[test]
    fn plain_names_are_those_the_rule_allows() {
        let parts = [
            "", "a", "refs", ".", "..", ".a", "a.", "a.lock", "x.lockx", "é", " ", "a-b_c.d", "/",
        ];
        let mut tried = 0;
        for a in parts {
            for b in parts {
                for c in parts {
                    for name in [
                        format!("{a}/{b}/{c}"),
                        format!("{a}{b}/{c}"),
                        format!("{a}{b}{c}"),
                    ] {
                        assert_eq!(plain_name(&name), plain_name_spelled_out(&name), "{name:?}");
                        tried += 1;
                    }
                }
            }
        }
        assert!(tried > 6000);
        assert!(plain_name("refs/evolv/proposals/patch_1_ab"));
        assert!(!plain_name("refs/evolv/proposals/a..b"));
    }

    #[test]
    fn packed_and_loose_refs_read_as_libgit2_reads_them() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path();
        git(path, &["init", "-q", "-b", "main"]);
        git(path, &["commit", "-q", "--allow-empty", "-m", "one"]);
        git(path, &["commit", "-q", "--allow-empty", "-m", "two"]);
        for (name, rev) in [("a", "HEAD"), ("b", "HEAD~1"), ("deep/c", "HEAD")] {
            git(path, &["update-ref", &format!("refs/evolv/p/{name}"), rev]);
        }
        git(path, &["tag", "-a", "-m", "t", "v1"]);
        git(path, &["pack-refs", "--all"]);
        // Loose again, over the packed one, and one only loose.
        git(path, &["update-ref", "refs/evolv/p/a", "HEAD~1"]);
        git(path, &["update-ref", "refs/evolv/p/d", "HEAD"]);
        git(path, &["update-ref", "refs/evolv/px", "HEAD"]);
        std::fs::write(path.join(".git/refs/evolv/p/e.lock"), "junk").unwrap();
        let found = scan(path, "refs/evolv/p/").expect("read");
        assert_eq!(found, libgit2(path, "refs/evolv/p/"));
        let names: Vec<&str> = found.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "refs/evolv/p/a",
                "refs/evolv/p/b",
                "refs/evolv/p/d",
                "refs/evolv/p/deep/c"
            ]
        );
        assert_eq!(scan(path, "refs/none/"), Some(Vec::new()));
        assert_eq!(
            scan(path, "refs/tags/").expect("tags"),
            libgit2(path, "refs/tags/")
        );
    }

    #[test]
    fn a_sorted_packed_file_is_searched_for_each_prefix_as_libgit2_reads_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path();
        git(path, &["init", "-q", "-b", "main"]);
        git(path, &["commit", "-q", "--allow-empty", "-m", "one"]);
        for i in 0..40 {
            for kind in ["a", "evolv/applied", "evolv/proposals", "evolv/proposalsx"] {
                git(
                    path,
                    &["update-ref", &format!("refs/{kind}/r{i:02}"), "HEAD"],
                );
            }
            // Annotated tags add the `^` lines a search can land on.
            git(path, &["tag", "-a", "-m", "t", &format!("v{i:02}")]);
        }
        git(path, &["pack-refs", "--all"]);
        let packed = std::fs::read_to_string(path.join(".git/packed-refs")).unwrap();
        assert!(packed.starts_with("# pack-refs with:") && packed.contains(" sorted"));
        for prefix in [
            "refs/",
            "refs/a/",
            "refs/evolv/applied/",
            "refs/evolv/proposals/",
            "refs/heads/",
            "refs/tags/",
            "refs/b/",
            "refs/zzz/",
        ] {
            let found = scan(path, prefix).expect(prefix);
            assert_eq!(found, libgit2(path, prefix), "{prefix}");
        }
        assert_eq!(scan(path, "refs/evolv/proposals/").unwrap().len(), 40);
        assert_eq!(scan(path, "refs/tags/").unwrap().len(), 40);
    }

    #[test]
    fn a_packed_file_not_marked_sorted_is_read_whole_and_sorted() {
        let (one, two) = ("1".repeat(40), "2".repeat(40));
        let text = format!(
            "# pack-refs with: peeled\n{one} refs/z/one\n{one} refs/p/b\n{one} refs/a/x\n{one} refs/p/a\n{two} refs/p/b\n"
        );
        let dir = tempfile::tempdir().unwrap();
        let read = |text: &str| {
            std::fs::write(dir.path().join("packed-refs"), text).unwrap();
            under(dir.path(), "refs/p/").unwrap()
        };
        let found = read(&text);
        let names: Vec<&str> = found.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["refs/p/a", "refs/p/b"]);
        // A name twice: its last line, as a map kept it.
        assert_eq!(found[1].1.to_string(), two);
        // No header at all: the same.
        assert_eq!(read(&text[25..]), found);
    }

    #[test]
    fn what_libgit2_must_read_is_left_to_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path();
        git(path, &["init", "-q", "-b", "main"]);
        git(path, &["commit", "-q", "--allow-empty", "-m", "one"]);
        git(path, &["update-ref", "refs/evolv/p/a", "HEAD"]);
        assert!(scan(path, "refs/evolv/p/").is_some());
        git(path, &["symbolic-ref", "refs/evolv/p/s", "refs/heads/main"]);
        assert_eq!(scan(path, "refs/evolv/p/"), None, "symbolic");
        git(path, &["update-ref", "-d", "--no-deref", "refs/evolv/p/s"]);
        std::fs::write(path.join(".git/refs/evolv/p/bad"), "not an id\n").unwrap();
        assert_eq!(scan(path, "refs/evolv/p/"), None, "damaged");
        std::fs::remove_file(path.join(".git/refs/evolv/p/bad")).unwrap();
        assert!(scan(path, "refs/evolv/p/").is_some());
        std::fs::create_dir(path.join(".git/reftable")).unwrap();
        assert_eq!(scan(path, "refs/evolv/p/"), None, "reftable");
    }
}

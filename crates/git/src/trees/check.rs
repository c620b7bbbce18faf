//! What `git fsck` refuses in a tree object that names alone do not show:
//! entries out of git's order, an entry named twice, a name with `/`, an
//! empty name, or a mode git does not know. libgit2 reads such a tree (it
//! came by fetch from a hostile clone) without complaint; git's fsck and
//! `transfer.fsckObjects` refuse it, and so does a landing. A
//! `.gitmodules` or `.gitattributes` a changed path names must be a blob
//! whose content fsck accepts (`gitmodules`); one the proposal does
//! not touch is left as the repository has it.

use std::collections::HashMap;

use crate::trees::gitmodules;
use crate::types::path::RepoPath;
use crate::{Oid, Repo};

/// The modes git writes in a tree.
const MODES: [&[u8]; 5] = [b"100644", b"100755", b"120000", b"40000", b"160000"];

impl Repo {
    /// Why `git fsck` would refuse a tree on the way from `root` to any of
    /// `paths`, naming the tree's path; `None` when every such tree is
    /// well formed. Each tree is read and checked once, however many paths
    /// go through it. A tree that cannot be read is the caller's to report.
    pub fn fsck_refusal(&self, root: Oid, paths: &[RepoPath]) -> Option<(String, String)> {
        let odb = self.raw().odb().ok()?;
        let mut checked = Checked::new();
        for path in paths {
            let mut tree = root;
            // The tree's own path is spelled out only for a refusal.
            let mut depth = 0;
            let components: Vec<&[u8]> = path.as_bytes().split(|&b| b == b'/').collect();
            let at =
                |depth: usize| shown(&String::from_utf8_lossy(&components[..depth].join(&b'/')));
            for component in &components[..components.len().saturating_sub(1)] {
                let subtrees = match verdict(&odb, &mut checked, tree)? {
                    Ok(subtrees) => subtrees,
                    Err(why) => return Some((at(depth), why.clone())),
                };
                let Some(next) = subtrees.get(*component) else {
                    break;
                };
                if let Some(dotfile) = Dotfile::named(component) {
                    return Some((at(depth), dotfile.not_a_file()));
                }
                tree = *next;
                depth += 1;
            }
            // The tree holding the path's own entry.
            if let Err(why) = verdict(&odb, &mut checked, tree)? {
                return Some((at(depth), why.clone()));
            }
            let leaf = components.last().copied().unwrap_or_default();
            if let Some(dotfile) = Dotfile::named(leaf)
                && let Err(why) = dotfile.verdict(&odb, tree, leaf)
            {
                return Some((at(depth), why));
            }
        }
        None
    }
}

/// Each tree checked: its subtrees by name, or why fsck refuses it.
type Checked = HashMap<Oid, Result<HashMap<Vec<u8>, Oid>, String>>;

/// `tree`'s verdict, read and checked the first time it is asked for;
/// `None` when it cannot be read.
fn verdict<'m>(
    odb: &git2::Odb<'_>,
    checked: &'m mut Checked,
    tree: Oid,
) -> Option<&'m Result<HashMap<Vec<u8>, Oid>, String>> {
    Some(match checked.entry(tree) {
        std::collections::hash_map::Entry::Occupied(known) => known.into_mut(),
        std::collections::hash_map::Entry::Vacant(new) => {
            let object = odb.read(tree.raw()).ok()?;
            new.insert(check(object.data()))
        }
    })
}

/// A tree object's subtrees by name, or why git's fsck refuses it.
fn check(data: &[u8]) -> Result<HashMap<Vec<u8>, Oid>, String> {
    let entries = parse(data)?;
    if let Some(why) = malformed(&entries) {
        return Err(why.to_string());
    }
    Ok(entries
        .iter()
        .filter(|e| e.mode == b"40000")
        .map(|e| (e.name.to_vec(), e.id))
        .collect())
}

/// A file whose content git's fsck checks (`gitmodules*`, `gitattributes*`).
#[derive(Clone, Copy)]
enum Dotfile {
    Modules,
    Attributes,
}

impl Dotfile {
    fn named(component: &[u8]) -> Option<Dotfile> {
        if evolv_core::git_names::is_gitmodules_alias(component) {
            Some(Dotfile::Modules)
        } else if evolv_core::git_names::is_gitattributes_alias(component) {
            Some(Dotfile::Attributes)
        } else {
            None
        }
    }

    fn name(self) -> &'static str {
        match self {
            Dotfile::Modules => "gitmodules",
            Dotfile::Attributes => "gitattributes",
        }
    }

    fn not_a_file(self) -> String {
        let name = self.name();
        format!("its '.{name}' is not a file (git fsck: {name}Blob)")
    }

    /// The largest such file fsck reads (`core.bigFileThreshold`'s default
    /// for `.gitmodules`, git's `ATTR_MAX_FILE_SIZE`).
    fn limit(self) -> usize {
        match self {
            Dotfile::Modules => 512 << 20,
            Dotfile::Attributes => 100 << 20,
        }
    }

    /// Why fsck refuses the entry `leaf` of `tree` (a symbolic link is the
    /// name check's to judge: its blob is a target, not content). A blob
    /// that is not here is not judged, as fsck lets a partial clone's
    /// promised objects be.
    fn verdict(self, odb: &git2::Odb<'_>, tree: Oid, leaf: &[u8]) -> Result<(), String> {
        let Ok(object) = odb.read(tree.raw()) else {
            return Ok(());
        };
        let entries = parse(object.data())?;
        let Some(entry) = entries.iter().find(|e| e.name == leaf) else {
            return Ok(());
        };
        match entry.mode {
            b"40000" | b"160000" => return Err(self.not_a_file()),
            b"120000" => return Ok(()),
            _ => {}
        }
        let name = self.name();
        let Ok((size, _)) = odb.read_header(entry.id.raw()) else {
            return Ok(());
        };
        if size > self.limit() {
            return Err(format!(
                "its '.{name}' is larger than git reads (git fsck: {name}Large)"
            ));
        }
        let Ok(blob) = odb.read(entry.id.raw()) else {
            return Ok(());
        };
        let why = match self {
            Dotfile::Modules => gitmodules::refusal(blob.data()),
            Dotfile::Attributes => long_attributes_line(blob.data()),
        };
        why.map_or(Ok(()), |why| Err(format!("its '.{name}' {why}")))
    }
}

/// git's attribute reader stops at the first NUL and ignores a line of
/// `ATTR_MAX_LINE_LENGTH` (2048) bytes or more, which fsck refuses.
fn long_attributes_line(content: &[u8]) -> Option<String> {
    const LINE_LIMIT: usize = 2048;
    let text = content.split(|&b| b == 0).next().unwrap_or_default();
    let (number, _) = text
        .split(|&b| b == b'\n')
        .enumerate()
        .find(|(_, line)| line.len() >= LINE_LIMIT)?;
    Some(format!(
        "has a line (line {}) of {LINE_LIMIT} bytes or more, which git ignores (git fsck: gitattributesLineLength)",
        number + 1
    ))
}

fn shown(at: &str) -> String {
    if at.is_empty() {
        "the top-level tree".to_string()
    } else {
        format!("the tree at '{at}'")
    }
}

struct Entry<'a> {
    mode: &'a [u8],
    name: &'a [u8],
    id: Oid,
}

/// A tree object's entries, or why it is not one.
fn parse(data: &[u8]) -> Result<Vec<Entry<'_>>, &'static str> {
    let mut entries = Vec::new();
    let mut rest = data;
    while !rest.is_empty() {
        let space = rest
            .iter()
            .position(|&b| b == b' ')
            .ok_or("a tree entry has no mode")?;
        let nul = rest
            .iter()
            .position(|&b| b == 0)
            .ok_or("a tree entry has no end")?;
        if nul < space || rest.len() < nul + 21 {
            return Err("a tree entry is cut short");
        }
        let id =
            Oid::from_bytes(&rest[nul + 1..nul + 21]).map_err(|_| "a tree entry has a bad id")?;
        entries.push(Entry {
            mode: &rest[..space],
            name: &rest[space + 1..nul],
            id,
        });
        rest = &rest[nul + 21..];
    }
    Ok(entries)
}

/// What git's fsck reports as an error in these entries, if anything.
fn malformed(entries: &[Entry<'_>]) -> Option<&'static str> {
    for e in entries {
        if e.name.is_empty() {
            return Some("it has an entry with an empty name (git fsck: emptyName)");
        }
        if e.name.contains(&b'/') {
            return Some("it has an entry whose name holds '/' (git fsck: fullPathname)");
        }
        if e.name == b"." || e.name == b".." {
            return Some("it has an entry named '.' or '..' (git fsck: hasDot)");
        }
        if !MODES.contains(&e.mode) {
            return Some("it has an entry with a mode git does not write (git fsck: badFilemode)");
        }
    }
    // git's order: by name, a tree's name compared as if it ended in '/'.
    let key = |e: &Entry<'_>| {
        let mut k = e.name.to_vec();
        if e.mode == b"40000" {
            k.push(b'/');
        }
        k
    };
    for pair in entries.windows(2) {
        if pair[0].name == pair[1].name {
            return Some("it names an entry twice (git fsck: duplicateEntries)");
        }
        if key(&pair[0]) > key(&pair[1]) {
            return Some("its entries are not in git's order (git fsck: treeNotSorted)");
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{Entry, long_attributes_line, malformed};
    use crate::Oid;

    fn entry<'a>(mode: &'a str, name: &'a str) -> Entry<'a> {
        Entry {
            mode: mode.as_bytes(),
            name: name.as_bytes(),
            id: Oid::from_bytes(&[1; 20]).unwrap(),
        }
    }

    #[test]
    fn what_fsck_refuses_is_found_and_git_order_passes() {
        let fine = [
            entry("100644", "a.txt"),
            entry("40000", "a"),
            entry("100644", "b"),
        ];
        assert_eq!(malformed(&fine), None, "a.txt sorts before the tree a/");
        let cases: [&[Entry]; 6] = [
            &[entry("100644", "a"), entry("100644", "a")],
            &[entry("100644", "b"), entry("100644", "a")],
            &[entry("100644", "a/b")],
            &[entry("100644", "")],
            &[entry("100644", "..")],
            &[entry("100664", "a")],
        ];
        for entries in cases {
            assert!(malformed(entries).is_some());
        }
    }

    #[test]
    fn an_attributes_line_git_ignores_is_found_up_to_the_first_nul() {
        let long = "x".repeat(2048);
        assert!(long_attributes_line(format!("a\n{long}\n").as_bytes()).is_some());
        assert_eq!(long_attributes_line("x".repeat(2047).as_bytes()), None);
        assert_eq!(long_attributes_line(format!("a\0{long}").as_bytes()), None);
    }
}

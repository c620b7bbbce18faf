//! Writing a proposal's new objects at once: its blobs and the trees above
//! them, as one pack without delta search when there are many (as git
//! writes new objects), loose when there are few.

use crate::Context;
use crate::on_object;
use std::collections::BTreeMap;

use crate::Oid;
use git2::ObjectType;

use crate::error::{Error, Result};
use crate::formats::pack::PackedObject;

/// Above this many objects one pack is written instead of loose objects: a
/// repository-wide rename must not leave tens of thousands of loose files,
/// and a one-file edit must not leave a pack per proposal.
pub const PACK_THRESHOLD: usize = 64;

/// A new object: always its pack entry; its raw content too when it may
/// be written loose (callers keep it for the first [`PACK_THRESHOLD`]).
#[derive(Debug)]
pub struct NewObject {
    pub packed: PackedObject,
    pub(crate) raw: Option<(ObjectType, Vec<u8>)>,
}

impl NewObject {
    /// A new blob, packed; `content` kept when it may be written loose.
    pub fn blob(packed: PackedObject, content: Option<Vec<u8>>) -> Self {
        NewObject {
            packed,
            raw: content.map(|c| (ObjectType::Blob, c)),
        }
    }
}

impl NewObject {
    /// A new tree from gix's tree editor (`trees::edit`), packed, its raw
    /// entries kept.
    pub(crate) fn tree(tree: &gix_object::Tree) -> Result<Self> {
        let mut raw = Vec::new();
        gix_object::WriteTo::write_to(tree, &mut raw).map_err(|e| Error::Internal {
            at: "the tree editor",
            message: format!("a tree could not be written: {e}"),
        })?;
        Ok(NewObject {
            packed: PackedObject::tree(&raw)?,
            raw: Some((ObjectType::Tree, raw)),
        })
    }
}

/// Writes `objects`: loose when there are at most [`PACK_THRESHOLD`] and
/// each still has its raw content, otherwise one pack.
pub fn write_objects(repo: &crate::Repo, objects: &[&NewObject]) -> Result<()> {
    if objects.len() <= PACK_THRESHOLD && objects.iter().all(|o| o.raw.is_some()) {
        let odb = repo.raw().odb().context(|| "open the object database")?;
        for o in objects {
            if let Some((kind, raw)) = &o.raw {
                odb.write(*kind, raw)
                    .context(|| on_object(write_operation(*kind), o.packed.oid))?;
            }
        }
        return Ok(());
    }
    let packed: Vec<&PackedObject> = objects.iter().map(|o| &o.packed).collect();
    let dir = repo.raw().commondir().join("objects").join("pack");
    let name =
        crate::formats::pack::write_pack(&dir, &packed, crate::repo::durable::pack_flush(repo))?;
    // libgit2 caches the pack list; without a refresh `repo` would not see
    // the new pack and reject trees that point into it.
    repo.raw()
        .odb()
        .and_then(|odb| odb.refresh())
        .context(|| crate::on_path("see the new pack", name))
}

/// The operation that writes an object of `kind` (`write tree`).
fn write_operation(kind: ObjectType) -> &'static str {
    match kind {
        ObjectType::Blob => "write blob",
        ObjectType::Tree => "write tree",
        ObjectType::Commit => "write commit",
        ObjectType::Tag => "write tag",
        ObjectType::Any => "write any",
    }
}

/// One file of `base` that gets a new blob.
#[derive(Debug, Clone, Copy)]
pub struct FileUpdate<'a> {
    /// The exact path (a name need not be UTF-8).
    pub path: &'a [u8],
    pub oid: Oid,
    /// The entry's mode as git writes it (`0o100644`, `0o100755`).
    pub mode: i32,
}

/// The trees of `base` with `updates` (existing files only, sorted by
/// path or not) put in: the new root's id and every new tree object, built
/// here rather than by libgit2's tree updater, which wrote each tree as a
/// loose object and read it back (a large part of a propose). Entries keep
/// their order and, when untouched, their raw mode, as libgit2 did. The
/// base trees are read raw, their entries copied as they are (libgit2's
/// parsed trees cost more than the hashing).
pub fn updated_trees(
    repo: &crate::Repo,
    base: &crate::objects::view::Tree<'_>,
    updates: &[FileUpdate<'_>],
) -> Result<(Oid, Vec<NewObject>)> {
    let base = base.raw();
    let mut out = Vec::new();
    let odb = repo.raw().odb().context(|| "open the object database")?;
    let root = rebuild(&odb, crate::Oid::from(base.id()), b"", updates, &mut out)?;
    Ok((root, out))
}

/// One entry of a raw tree.
struct RawEntry<'a> {
    /// Its mode, as the digits written.
    mode: &'a [u8],
    name: &'a [u8],
    id: &'a [u8],
    /// The entry's bytes, whole.
    whole: &'a [u8],
}

/// The first entry of the raw tree entries `data`, and the rest.
fn next_entry(data: &[u8]) -> Option<(RawEntry<'_>, &[u8])> {
    let space = data.iter().position(|&b| b == b' ')?;
    let after = &data[space + 1..];
    let nul = after.iter().position(|&b| b == 0)?;
    let id = after.get(nul + 1..nul + 21)?;
    let end = space + 1 + nul + 21;
    let entry = RawEntry {
        mode: &data[..space],
        name: &after[..nul],
        id,
        whole: &data[..end],
    };
    Some((entry, &data[end..]))
}

fn rebuild(
    odb: &git2::Odb<'_>,
    tree_id: Oid,
    dir: &[u8],
    updates: &[FileUpdate<'_>],
    out: &mut Vec<NewObject>,
) -> Result<Oid> {
    let mut files: BTreeMap<&[u8], (Oid, i32)> = BTreeMap::new();
    let mut subdirs: BTreeMap<&[u8], Vec<FileUpdate<'_>>> = BTreeMap::new();
    for u in updates {
        let rest = &u.path[dir.len()..];
        match rest.iter().position(|&b| b == b'/') {
            None => {
                files.insert(rest, (u.oid, u.mode));
            }
            Some(slash) => subdirs.entry(&rest[..slash]).or_default().push(*u),
        }
    }
    let object = odb
        .read(tree_id.raw())
        .context(|| on_object("read tree", tree_id))?;
    let corrupt = || Error::Corrupt {
        what: format!("tree {tree_id}"),
        message: format!("tree {tree_id} is corrupt (`git fsck` names what is wrong)"),
    };
    if object.kind() != ObjectType::Tree {
        return Err(corrupt());
    }
    let data = object.data();
    let mut raw = Vec::with_capacity(data.len() + 64);
    let mut found = 0;
    let mut rest = data;
    while !rest.is_empty() {
        let (entry, next) = next_entry(rest).ok_or_else(corrupt)?;
        let RawEntry {
            mode,
            name,
            id,
            whole,
        } = entry;
        rest = next;
        if let Some(&(oid, new_mode)) = files.get(name) {
            found += 1;
            push_octal(&mut raw, new_mode);
            raw.push(b' ');
            raw.extend_from_slice(name);
            raw.push(0);
            raw.extend_from_slice(oid.as_bytes());
        } else if let (Some(group), true) = (subdirs.get(name), is_tree_mode(mode)) {
            found += 1;
            let sub_dir = [dir, name, b"/"].concat();
            let sub = Oid::from_bytes(id)?;
            let oid = rebuild(odb, sub, &sub_dir, group, out)?;
            raw.extend_from_slice(mode);
            raw.push(b' ');
            raw.extend_from_slice(name);
            raw.push(0);
            raw.extend_from_slice(oid.as_bytes());
        } else {
            raw.extend_from_slice(whole);
        }
    }
    if found != files.len() + subdirs.len() {
        return Err(Error::Corrupt {
            what: format!("tree {tree_id}"),
            message: format!(
                "a changed file under '{}' is not in the base tree {tree_id}",
                String::from_utf8_lossy(dir),
            ),
        });
    }
    let packed = PackedObject::tree(&raw)?;
    let oid = packed.oid;
    out.push(NewObject {
        packed,
        raw: Some((ObjectType::Tree, raw)),
    });
    Ok(oid)
}

/// Whether raw mode digits name a tree (`40000`, or `040000` as some
/// old tools wrote it).
fn is_tree_mode(digits: &[u8]) -> bool {
    let mut mode = 0u32;
    for &d in digits {
        mode = (mode << 3) | u32::from(d.wrapping_sub(b'0') & 7);
    }
    mode & 0o170000 == 0o040000
}

/// `mode` in octal, as git writes it in a tree (no leading zero).
fn push_octal(out: &mut Vec<u8>, mode: i32) {
    let mut digits = [0u8; 12];
    let mut n = mode as u32;
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n & 7) as u8;
        n >>= 3;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

/// The id `path`'s content would have as a blob (no filters), as
/// `git hash-object --no-filters` gives it: with the SHA-1 of the `sha1`
/// crate, which uses the CPU's SHA instructions where libgit2's
/// collision-detecting one (`Oid::hash_file`) took three times as long
/// (the landing hashes every changed file it checks against its index
/// entry).
pub fn hash_blob_file(path: &std::path::Path) -> std::io::Result<Oid> {
    use sha1::{Digest, Sha1};
    use std::io::Read;
    let mut file = std::fs::File::open(path)?;
    let len = file.metadata()?.len();
    let mut hasher = Sha1::new();
    hasher.update(format!("blob {len}\0").as_bytes());
    let mut buf = vec![0u8; (len as usize).clamp(1, 1 << 20)];
    let mut read = 0u64;
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        read += n as u64;
        hasher.update(&buf[..n]);
    }
    if read != len {
        // It changed while read: not the content its size says.
        return Err(std::io::Error::other("the file changed while it was read"));
    }
    Oid::from_bytes(&hasher.finalize()).map_err(std::io::Error::other)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_hashes_to_the_blob_id_git_gives_it() {
        let dir = tempfile::tempdir().unwrap();
        for (name, content) in [
            ("empty", Vec::new()),
            ("text", b"hello\r\nworld\n".to_vec()),
            ("big", (0..3_000_000u32).map(|i| (i % 253) as u8).collect()),
        ] {
            let path = dir.path().join(name);
            std::fs::write(&path, &content).unwrap();
            let git = crate::test_git::git(dir.path(), &["hash-object", "--no-filters", name]);
            assert_eq!(hash_blob_file(&path).unwrap().to_string(), git, "{name}");
        }
    }

    /// The trees built here are the ones libgit2's tree updater builds.
    #[test]
    fn updated_trees_match_libgit2s_tree_updater() {
        let dir = tempfile::tempdir().unwrap();
        let repo = crate::Repo::new_any(git2::Repository::init(dir.path()).unwrap());
        let blob = |s: &str| repo.raw().blob(s.as_bytes()).unwrap();
        let mut index = repo.raw().index().unwrap();
        let files = [
            ("a.txt", 0o100644),
            ("a/b.txt", 0o100644),
            ("a/c/d.sh", 0o100755),
            ("a-b/e", 0o100644),
            ("z", 0o100644),
        ];
        for (path, mode) in files {
            let entry = git2::IndexEntry {
                ctime: git2::IndexTime::new(0, 0),
                mtime: git2::IndexTime::new(0, 0),
                dev: 0,
                ino: 0,
                mode,
                uid: 0,
                gid: 0,
                file_size: 0,
                id: blob(path),
                flags: 0,
                flags_extended: 0,
                path: path.as_bytes().to_vec(),
            };
            index.add(&entry).unwrap();
        }
        let base = repo.raw().find_tree(index.write_tree().unwrap()).unwrap();
        let updates = [
            FileUpdate {
                path: b"a/c/d.sh",
                oid: crate::Oid::from(blob("new d")),
                mode: 0o100755,
            },
            FileUpdate {
                path: b"a.txt",
                oid: crate::Oid::from(blob("new a")),
                mode: 0o100644,
            },
            FileUpdate {
                path: b"a-b/e",
                oid: crate::Oid::from(blob("new e")),
                mode: 0o100644,
            },
        ];
        let mut expected = git2::build::TreeUpdateBuilder::new();
        for u in &updates {
            let mode = if u.mode == 0o100755 {
                git2::FileMode::BlobExecutable
            } else {
                git2::FileMode::Blob
            };
            expected.upsert(u.path, u.oid.raw(), mode);
        }
        let expected = expected.create_updated(repo.raw(), &base).unwrap();
        let (root, trees) = updated_trees(
            &repo,
            &crate::objects::view::Tree::new(base.clone()),
            &updates,
        )
        .unwrap();
        assert_eq!(root, crate::Oid::from(expected));
        assert_eq!(trees.len(), 4, "root, a, a/c, a-b");
        for t in &trees {
            let (kind, raw) = t.raw.as_ref().unwrap();
            assert_eq!(t.packed.oid, Oid::hash_object(*kind, raw).unwrap());
        }
        let missing = [FileUpdate {
            path: b"a/nope",
            oid: crate::Oid::from(blob("x")),
            mode: 0o100644,
        }];
        assert!(updated_trees(&repo, &crate::objects::view::Tree::new(base), &missing).is_err());
    }
}

//! git's index file (`gitformat-index`), read with gitoxide's `gix-index`
//! and written by git-evolv itself. libgit2 verifies the trailing SHA-1 of the whole index on every
//! read and hashes it again on every write, with collision detection: on a
//! large repository that was most of an apply's instructions.
//! git skips the check on read, and so does this reader; the writer hashes
//! with a plain SHA-1 (the checksum guards against torn files, not
//! attackers).
//!
//! Versions 2, 3 and 4 are read and written back in the version read (3
//! when extended flags appear in a version 2 index). Extensions: the cache
//! tree (`TREE`) is kept and invalidated along changed paths, as git does;
//! resolve-undo (`REUC`) is kept; the others are optional caches keyed to
//! the old file (untracked cache, fsmonitor, offset tables) and are dropped,
//! as libgit2 drops them. A split index (`link`) and a sparse index (`sdir`)
//! are reported for the caller to deal with; a split index is then read
//! whole, its shared index included, by [`IndexFile::read_split`].
//!
//! gix-index decodes the entries; the extensions this writer keeps are
//! taken from the file's own bytes (gix-index does not hand out the
//! resolve-undo extension), found past the entries whose on-disk sizes
//! follow from what gix-index decoded.

mod cache_tree;
mod patch;

pub use patch::Patch;

use cache_tree::{CacheTree, invalidate, parse_tree, write_tree};

use crate::Oid;
use sha1::{Digest, Sha1};

pub(crate) const HEADER: usize = 12;
pub(crate) const CHECKSUM: usize = 20;
/// An entry's fixed part: stat data, mode, ids, size, object id, flags.
pub(crate) const FIXED: usize = 62;
pub(crate) const FLAG_EXTENDED: u16 = 0x4000;
const FLAG_ASSUME_VALID: u16 = 0x8000;
const STAGE_MASK: u16 = 0x3000;
pub(crate) const NAME_MASK: u16 = 0x0fff;
const FLAG_EXTENDED_INTENT: u16 = 0x2000;
const FLAG_EXTENDED_SKIP: u16 = 0x4000;

/// Why an index file could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unreadable {
    /// A split index (`link` extension).
    Split,
    /// A sparse index (`sdir` extension).
    Sparse,
    /// Some other mandatory extension, or an unknown version.
    Unsupported(String),
    /// Not a well-formed index.
    Corrupt(String),
}

/// One index entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub ctime: (u32, u32),
    pub mtime: (u32, u32),
    pub dev: u32,
    pub ino: u32,
    pub mode: u32,
    pub uid: u32,
    pub gid: u32,
    pub size: u32,
    pub id: [u8; 20],
    /// The assume-valid bit and the stage; name length and the extended bit
    /// are derived when written.
    pub flags: u16,
    pub flags_extended: u16,
    pub path: Vec<u8>,
}

impl Entry {
    pub fn stage(&self) -> u16 {
        (self.flags & STAGE_MASK) >> 12
    }

    pub fn oid(&self) -> Oid {
        Oid::from_bytes(&self.id).expect("20 bytes are an oid")
    }

    fn key(&self) -> (&[u8], u16) {
        (&self.path, self.stage())
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Extension {
    Tree(CacheTree),
    Kept([u8; 4], Vec<u8>),
}

/// A parsed index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexFile {
    pub version: u32,
    /// Sorted by path, then stage.
    pub entries: Vec<Entry>,
    extensions: Vec<Extension>,
}

/// The extensions after the entries (`raw`: each signature and its
/// data): a split or sparse index, or an unknown mandatory extension, is
/// refused first; then `deferred` (a fault in the entries that a split
/// index would have excused) is; `TREE` is parsed and `REUC` kept,
/// optional others dropped.
fn read_extensions(
    raw: Vec<RawExtension<'_>>,
    deferred: Option<&str>,
) -> Result<Vec<Extension>, Unreadable> {
    let signatures = || raw.iter().map(|(sig, _)| sig);
    if signatures().any(|s| s == b"link") {
        return Err(Unreadable::Split);
    }
    if signatures().any(|s| s == b"sdir") {
        return Err(Unreadable::Sparse);
    }
    if let Some(s) = signatures().find(|s| !s[0].is_ascii_uppercase()) {
        return Err(Unreadable::Unsupported(format!(
            "index extension '{}'",
            String::from_utf8_lossy(s)
        )));
    }
    if let Some(what) = deferred {
        return Err(corrupt(what));
    }
    let mut extensions = Vec::new();
    for (sig, data) in raw {
        match &sig {
            b"TREE" => extensions.push(Extension::Tree(parse_tree(data)?)),
            b"REUC" => extensions.push(Extension::Kept(sig, data.to_vec())),
            _ => {}
        }
    }
    Ok(extensions)
}

/// An extension's signature and data.
type RawExtension<'a> = ([u8; 4], &'a [u8]);

/// The extensions in `body` (the file less its checksum) from `at` on.
fn raw_extensions(body: &[u8], at: usize) -> Result<Vec<RawExtension<'_>>, Unreadable> {
    let mut r = Reader {
        buf: body,
        pos: at.min(body.len()),
    };
    if at > body.len() {
        return Err(corrupt("truncated"));
    }
    let mut raw = Vec::new();
    while r.pos < r.buf.len() {
        let mut sig = [0u8; 4];
        sig.copy_from_slice(r.take(4)?);
        let len = r.u32()? as usize;
        raw.push((sig, r.take(len)?));
    }
    Ok(raw)
}

/// Where the entries of `state`, as stored in a `version` file, end.
fn entries_end(state: &gix_index::State, version: u32) -> usize {
    let mut at = HEADER;
    let mut previous: &[u8] = &[];
    for e in state.entries() {
        let path: &[u8] = e.path(state);
        let fixed = FIXED
            + if e.flags.bits() & u32::from(FLAG_EXTENDED) != 0 {
                2
            } else {
                0
            };
        if version == 4 {
            let common = previous
                .iter()
                .zip(path)
                .take_while(|(a, b)| a == b)
                .count();
            at += fixed + varint_len(previous.len() - common) + (path.len() - common) + 1;
            previous = path;
        } else {
            at += (fixed + path.len() + 8) & !7;
        }
    }
    at
}

fn varint_len(mut value: usize) -> usize {
    let mut n = 1;
    value >>= 7;
    while value != 0 {
        value -= 1;
        n += 1;
        value >>= 7;
    }
    n
}

/// gix-index's entries as this module's.
fn entries_of(state: &gix_index::State) -> (Vec<Entry>, Option<&'static str>) {
    let mut entries: Vec<Entry> = Vec::with_capacity(state.entries().len());
    let mut deferred = None;
    for e in state.entries() {
        let bits = e.flags.bits();
        let entry = Entry {
            ctime: (e.stat.ctime.secs, e.stat.ctime.nsecs),
            mtime: (e.stat.mtime.secs, e.stat.mtime.nsecs),
            dev: e.stat.dev,
            ino: e.stat.ino,
            mode: e.mode.bits(),
            uid: e.stat.uid,
            gid: e.stat.gid,
            size: e.stat.size,
            id: e.id.as_bytes().try_into().expect("SHA-1 ids are 20 bytes"),
            flags: (bits as u16) & (FLAG_ASSUME_VALID | STAGE_MASK),
            flags_extended: ((bits >> 16) as u16) & (FLAG_EXTENDED_INTENT | FLAG_EXTENDED_SKIP),
            path: e.path(state).to_vec(),
        };
        // A split index names replaced entries by position only (an
        // empty path), so such faults count only if no `link` follows.
        if entry.path.is_empty() {
            deferred.get_or_insert("empty path");
        }
        if let Some(last) = entries.last()
            && last.key() >= entry.key()
        {
            deferred.get_or_insert("entries out of order");
        }
        entries.push(entry);
    }
    (entries, deferred)
}

/// What gix-index says of `buf`, sorted into [`Unreadable`].
fn decode(buf: &[u8]) -> Result<gix_index::State, Unreadable> {
    let options = gix_index::decode::Options {
        // One thread: a landing runs beside others; git reads on one too
        // unless `index.threads` and an offset table say otherwise.
        thread_limit: Some(1),
        ..Default::default()
    };
    let decoded = gix_index::State::from_bytes(
        buf,
        filetime::FileTime::zero(),
        gix_hash::Kind::Sha1,
        options,
    );
    decoded.map(|(state, _)| state).map_err(|e| {
        let message = crate::types::gix_fail::cause(&e).message;
        if message.contains("link extension") {
            return Unreadable::Split;
        }
        match message.split_once("mandatory extension '") {
            Some((_, rest)) if rest.starts_with("sdir'") => Unreadable::Sparse,
            Some((_, rest)) => Unreadable::Unsupported(format!(
                "index extension '{}'",
                rest.split('\'').next().unwrap_or(rest)
            )),
            None => Unreadable::Corrupt(message),
        }
    })
}

/// Appends entry `e` in `version`'s layout (version 4: its path
/// prefix-compressed against `previous`).
fn write_entry(out: &mut Vec<u8>, e: &Entry, version: u32, previous: &[u8]) {
    let start = out.len();
    for v in [
        e.ctime.0, e.ctime.1, e.mtime.0, e.mtime.1, e.dev, e.ino, e.mode, e.uid, e.gid, e.size,
    ] {
        out.extend_from_slice(&v.to_be_bytes());
    }
    out.extend_from_slice(&e.id);
    let name_len = e.path.len().min(usize::from(NAME_MASK)) as u16;
    let mut flags = e.flags | name_len;
    if e.flags_extended != 0 {
        flags |= FLAG_EXTENDED;
    }
    out.extend_from_slice(&flags.to_be_bytes());
    if e.flags_extended != 0 {
        out.extend_from_slice(&e.flags_extended.to_be_bytes());
    }
    if version == 4 {
        let common = previous
            .iter()
            .zip(&e.path)
            .take_while(|(a, b)| a == b)
            .count();
        write_varint(out, previous.len() - common);
        out.extend_from_slice(&e.path[common..]);
        out.push(0);
    } else {
        out.extend_from_slice(&e.path);
        let len = out.len() - start;
        let padded = (len + 8) & !7;
        out.resize(start + padded, 0);
    }
}

fn corrupt(what: &str) -> Unreadable {
    Unreadable::Corrupt(what.to_string())
}

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], Unreadable> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.buf.len())
            .ok_or_else(|| corrupt("truncated"))?;
        let out = &self.buf[self.pos..end];
        self.pos = end;
        Ok(out)
    }

    fn u32(&mut self) -> Result<u32, Unreadable> {
        let b = self.take(4)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// git's offset varint (version 4 path prefixes).
    #[cfg(test)]
    fn varint(&mut self) -> Result<usize, Unreadable> {
        let mut c = self.take(1)?[0];
        let mut value = usize::from(c & 127);
        while c & 128 != 0 {
            c = self.take(1)?[0];
            value = value
                .checked_add(1)
                .and_then(|v| v.checked_mul(128))
                .and_then(|v| v.checked_add(usize::from(c & 127)))
                .ok_or_else(|| corrupt("path prefix overflows"))?;
        }
        Ok(value)
    }

    fn until_nul(&mut self) -> Result<&'a [u8], Unreadable> {
        let rest = &self.buf[self.pos..];
        let n = rest
            .iter()
            .position(|&b| b == 0)
            .ok_or_else(|| corrupt("unterminated path"))?;
        self.pos += n + 1;
        Ok(&rest[..n])
    }
}

/// The version of the index `buf`, if it is one git-evolv reads.
fn header(buf: &[u8]) -> Result<u32, Unreadable> {
    if buf.len() < HEADER + CHECKSUM || &buf[..4] != b"DIRC" {
        return Err(corrupt("no index signature"));
    }
    let version = u32::from_be_bytes([buf[4], buf[5], buf[6], buf[7]]);
    if !(2..=4).contains(&version) {
        return Err(Unreadable::Unsupported(format!("index version {version}")));
    }
    Ok(version)
}

impl IndexFile {
    /// The index of a repository that has no index file yet.
    pub fn empty() -> IndexFile {
        IndexFile {
            version: 2,
            entries: Vec::new(),
            extensions: Vec::new(),
        }
    }

    /// Parses an index file's bytes (the trailing checksum is not checked).
    pub fn parse(buf: &[u8]) -> Result<IndexFile, Unreadable> {
        let version = header(buf)?;
        let state = decode(buf)?;
        let body = &buf[..buf.len() - CHECKSUM];
        let raw = raw_extensions(body, entries_end(&state, version))?;
        let (entries, deferred) = entries_of(&state);
        let extensions = read_extensions(raw, deferred)?;
        Ok(IndexFile {
            version,
            entries,
            extensions,
        })
    }

    /// Reads the split index at `path`, whose bytes are `buf`: its entries
    /// are those of the shared index it names with its own applied (as
    /// gix-index merges them), its extensions its own. `None` when the
    /// file at `path` is no longer `buf` (replaced meanwhile).
    pub fn read_split(buf: &[u8], path: &std::path::Path) -> Result<Option<IndexFile>, Unreadable> {
        let version = header(buf)?;
        let own = decode(buf)?;
        let body = &buf[..buf.len() - CHECKSUM];
        let raw = raw_extensions(body, entries_end(&own, version))?;
        let kept: Vec<_> = raw.into_iter().filter(|(sig, _)| sig != b"link").collect();
        let extensions = read_extensions(kept, None)?;
        let options = gix_index::decode::Options {
            thread_limit: Some(1),
            ..Default::default()
        };
        let whole = gix_index::File::at(path, gix_hash::Kind::Sha1, true, options)
            .map_err(|e| Unreadable::Corrupt(crate::types::gix_fail::cause(&e).message))?;
        if whole.checksum().map(|c| c.as_bytes().to_vec()).as_deref() != Some(&buf[body.len()..]) {
            return Ok(None);
        }
        let (entries, deferred) = entries_of(&whole);
        if let Some(what) = deferred {
            return Err(corrupt(what));
        }
        Ok(Some(IndexFile {
            // Written back plain, in the version of the split file.
            version,
            entries,
            extensions,
        }))
    }

    /// The position of `path` at `stage`, or where it would go.
    fn find(&self, path: &[u8], stage: u16) -> std::result::Result<usize, usize> {
        self.entries
            .binary_search_by(|e| e.key().cmp(&(path, stage)))
    }

    /// The entry of `path` at `stage`.
    pub fn get(&self, path: &[u8], stage: u16) -> Option<&Entry> {
        self.find(path, stage).ok().map(|i| &self.entries[i])
    }

    /// Whether `path` has an entry at stage 1, 2 or 3 (a conflict): one
    /// search, for the first entry at or after stage 1 of `path`.
    pub fn conflicted(&self, path: &[u8]) -> bool {
        let at = self.entries.partition_point(|e| e.key() < (path, 1));
        self.entries
            .get(at)
            .is_some_and(|e| e.path == path && (1..=3).contains(&e.stage()))
    }

    /// Replaces every entry of the given paths (all stages) by the new
    /// entry, or by none; the cache tree is invalidated along each path.
    pub fn replace(&mut self, mut changes: Vec<(Vec<u8>, Option<Entry>)>) {
        changes.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        changes.dedup_by(|b, a| a.0 == b.0);
        for ext in &mut self.extensions {
            if let Extension::Tree(root) = ext {
                for (path, _) in &changes {
                    invalidate(root, path);
                }
            }
        }
        // Every path's old entries (all stages) form one run in the sorted
        // entries, and its new entry, if any, takes the run's place: the
        // untouched runs in between are moved over whole.
        let old = std::mem::take(&mut self.entries);
        let cuts: Vec<(usize, usize)> = changes
            .iter()
            .map(|(path, _)| {
                let lo = old.partition_point(|e| e.path.as_slice() < path.as_slice());
                let hi = lo + old[lo..].partition_point(|e| e.path == *path);
                (lo, hi)
            })
            .collect();
        let mut merged = Vec::with_capacity(old.len() + changes.len());
        let mut rest = old.into_iter();
        let mut pos = 0;
        for ((_, entry), (lo, hi)) in changes.into_iter().zip(cuts) {
            merged.extend(rest.by_ref().take(lo - pos));
            rest.by_ref().take(hi - lo).for_each(drop);
            merged.extend(entry);
            pos = hi;
        }
        merged.extend(rest);
        self.entries = merged;
    }

    /// Marks entries that git could take for clean by their stat data
    /// although the file changed in the same second as the index was last
    /// written ("racily clean"): their size is zeroed, so git compares
    /// their content, as git's own writer does (see `racy-git.txt`).
    pub fn smudge_racy(&mut self, index_mtime_secs: u32) {
        for e in &mut self.entries {
            if e.mode != crate::types::mode::GITLINK && e.mtime.0 >= index_mtime_secs && e.size != 0
            {
                e.size = 0;
            }
        }
    }

    /// The file's bytes, trailing checksum included.
    pub fn serialize(&self) -> Vec<u8> {
        let extended = self.entries.iter().any(|e| e.flags_extended != 0);
        let version = if extended && self.version == 2 {
            3
        } else {
            self.version
        };
        let mut out = Vec::with_capacity(HEADER + self.entries.len() * 96);
        out.extend_from_slice(b"DIRC");
        out.extend_from_slice(&version.to_be_bytes());
        out.extend_from_slice(&(self.entries.len() as u32).to_be_bytes());
        let mut previous: &[u8] = &[];
        for e in &self.entries {
            write_entry(&mut out, e, version, previous);
            previous = &e.path;
        }
        for ext in &self.extensions {
            let (sig, data) = match ext {
                Extension::Tree(root) => {
                    let mut data = Vec::new();
                    write_tree(root, &mut data);
                    (*b"TREE", data)
                }
                Extension::Kept(sig, data) => (*sig, data.clone()),
            };
            out.extend_from_slice(&sig);
            out.extend_from_slice(&(data.len() as u32).to_be_bytes());
            out.extend_from_slice(&data);
        }
        let sum = Sha1::digest(&out);
        out.extend_from_slice(&sum);
        out
    }
}

fn write_varint(out: &mut Vec<u8>, mut value: usize) {
    let mut bytes = [0u8; 16];
    let mut pos = bytes.len() - 1;
    bytes[pos] = (value & 127) as u8;
    value >>= 7;
    while value != 0 {
        value -= 1;
        pos -= 1;
        bytes[pos] = 128 | (value & 127) as u8;
        value >>= 7;
    }
    out.extend_from_slice(&bytes[pos..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn entry(path: &str, stage: u16) -> Entry {
        Entry {
            ctime: (1, 2),
            mtime: (3, 4),
            dev: 5,
            ino: 6,
            mode: 0o100644,
            uid: 7,
            gid: 8,
            size: 9,
            id: [0xab; 20],
            flags: stage << 12,
            flags_extended: 0,
            path: path.as_bytes().to_vec(),
        }
    }

    pub(super) fn index(version: u32, paths: &[&str]) -> IndexFile {
        IndexFile {
            version,
            entries: paths.iter().map(|p| entry(p, 0)).collect(),
            extensions: vec![Extension::Tree(CacheTree {
                name: Vec::new(),
                count: paths.len() as i64,
                id: Some([1; 20]),
                children: vec![CacheTree {
                    name: b"a".to_vec(),
                    count: 2,
                    id: Some([2; 20]),
                    children: Vec::new(),
                }],
            })],
        }
    }

    #[test]
    fn a_path_is_conflicted_by_an_entry_at_stage_1_2_or_3_only() {
        let mut idx = index(2, &["a", "c", "d"]);
        idx.entries.insert(1, entry("b", 1));
        idx.entries.insert(2, entry("b", 3));
        idx.entries.push(entry("e", 2));
        assert!(idx.conflicted(b"b"));
        assert!(idx.conflicted(b"e"));
        for clean in ["a", "c", "d", "bb", "", "f"] {
            assert!(!idx.conflicted(clean.as_bytes()), "{clean}");
        }
    }

    #[test]
    fn every_version_round_trips() {
        for version in [2, 3, 4] {
            let idx = index(version, &["a/x", "a/y", "b", "c/long/path/name.txt"]);
            let bytes = idx.serialize();
            assert_eq!(IndexFile::parse(&bytes).unwrap(), idx, "v{version}");
        }
    }

    #[test]
    fn extended_flags_make_version_2_a_version_3() {
        let mut idx = index(2, &["a", "b"]);
        idx.entries[1].flags_extended = 1 << 14;
        let back = IndexFile::parse(&idx.serialize()).unwrap();
        assert_eq!(back.version, 3);
        assert_eq!(back.entries[1].flags_extended, 1 << 14);
    }

    #[test]
    fn replace_keeps_order_drops_stages_and_invalidates_the_tree() {
        let mut idx = index(2, &["a/x", "a/y", "b"]);
        idx.entries.insert(2, entry("a/z", 2));
        idx.replace(vec![
            (b"a/z".to_vec(), Some(entry("a/z", 0))),
            (b"b".to_vec(), None),
            (b"0".to_vec(), Some(entry("0", 0))),
        ]);
        let paths: Vec<_> = idx
            .entries
            .iter()
            .map(|e| (String::from_utf8(e.path.clone()).unwrap(), e.stage()))
            .collect();
        assert_eq!(
            paths,
            [("0", 0), ("a/x", 0), ("a/y", 0), ("a/z", 0)].map(|(p, s)| (p.to_string(), s))
        );
        let Extension::Tree(root) = &idx.extensions[0] else {
            panic!()
        };
        assert_eq!((root.count, root.id), (-1, None));
        assert_eq!((root.children[0].count, root.children[0].id), (-1, None));
        // A file replacing the directory `a` drops its subtree.
        idx.replace(vec![(b"a".to_vec(), Some(entry("a", 0)))]);
        let Extension::Tree(root) = &idx.extensions[0] else {
            panic!()
        };
        assert!(root.children.is_empty());
    }

    #[test]
    fn varints_match_gits_encoding() {
        for value in [0usize, 1, 127, 128, 129, 16383, 16511, 16512, 1 << 20] {
            let mut out = Vec::new();
            write_varint(&mut out, value);
            let mut r = Reader { buf: &out, pos: 0 };
            assert_eq!(r.varint().unwrap(), value);
            assert_eq!(r.pos, out.len());
        }
        // From git's varint.c: 128 is encoded as 0x80 0x00.
        let mut out = Vec::new();
        write_varint(&mut out, 128);
        assert_eq!(out, [0x80, 0x00]);
    }

    #[test]
    fn split_sparse_and_unknown_mandatory_extensions_are_named() {
        for (sig, want) in [
            (*b"link", Unreadable::Split),
            (*b"sdir", Unreadable::Sparse),
            (
                *b"zzzz",
                Unreadable::Unsupported("index extension 'zzzz'".into()),
            ),
        ] {
            let mut idx = index(2, &["a"]);
            idx.extensions = vec![Extension::Kept(sig, vec![1, 2, 3])];
            assert_eq!(IndexFile::parse(&idx.serialize()), Err(want));
        }
        // Optional ones the writer does not keep are dropped.
        let mut idx = index(2, &["a"]);
        idx.extensions = vec![Extension::Kept(*b"UNTR", vec![1, 2, 3])];
        assert!(
            IndexFile::parse(&idx.serialize())
                .unwrap()
                .extensions
                .is_empty()
        );
    }

    #[test]
    fn racily_clean_entries_are_smudged_and_others_kept() {
        let mut idx = index(2, &["old", "racy", "sub"]);
        idx.entries[0].mtime = (99, 0);
        idx.entries[1].mtime = (100, 5);
        idx.entries[2].mtime = (100, 0);
        idx.entries[2].mode = 0o160000;
        idx.smudge_racy(100);
        let sizes: Vec<u32> = idx.entries.iter().map(|e| e.size).collect();
        assert_eq!(
            sizes,
            [9, 0, 9],
            "only the file written in the index's second"
        );
    }

    #[test]
    fn long_paths_keep_their_length_past_the_12_bit_field() {
        let long = "d/".repeat(2500) + "f";
        let idx = index(3, &[long.as_str()]);
        assert_eq!(IndexFile::parse(&idx.serialize()).unwrap(), idx);
    }

    /// git, sealed off from the machine's config, with an identity.
    fn git(dir: &std::path::Path, args: &[&str]) {
        crate::test_git::git(dir, args);
    }

    #[test]
    fn indexes_git_wrote_are_written_back_byte_for_byte() {
        for version in ["2", "3", "4"] {
            let dir = tempfile::tempdir().unwrap();
            let d = dir.path();
            git(d, &["init", "-q"]);
            for (p, c) in [
                ("a/x.txt", "x"),
                ("a/b/y.txt", "y"),
                ("z", "z"),
                ("a-b", "-"),
            ] {
                std::fs::create_dir_all(d.join(p).parent().unwrap()).unwrap();
                std::fs::write(d.join(p), c).unwrap();
            }
            git(d, &["add", "."]);
            git(d, &["commit", "-qm", "c"]);
            git(d, &["update-index", "--index-version", version]);
            if version != "2" {
                git(d, &["update-index", "--skip-worktree", "z"]);
            }
            // A cache tree for the whole index.
            git(d, &["write-tree"]);
            let bytes = std::fs::read(d.join(".git/index")).unwrap();
            let parsed = round_trip(&bytes, version);
            assert_eq!(parsed.entries.len(), 4, "v{version}");
            assert!(
                matches!(parsed.extensions.first(), Some(Extension::Tree(t)) if t.count == 4),
                "v{version}: {:?}",
                parsed.extensions
            );
        }
    }

    #[test]
    fn optional_caches_git_wrote_are_dropped_and_git_reads_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        git(d, &["init", "-q"]);
        std::fs::create_dir_all(d.join("a")).unwrap();
        std::fs::write(d.join("a/x"), "x").unwrap();
        git(d, &["add", "."]);
        git(d, &["update-index", "--untracked-cache"]);
        git(
            d,
            &["-c", "core.untrackedCache=true", "status", "--porcelain"],
        );
        let bytes = std::fs::read(d.join(".git/index")).unwrap();
        assert!(
            bytes.windows(4).any(|w| w == b"UNTR"),
            "git wrote an untracked cache"
        );
        let parsed = IndexFile::parse(&bytes).unwrap();
        let ours = parsed.serialize();
        assert!(!ours.windows(4).any(|w| w == b"UNTR"));
        let listing = |d: &std::path::Path| {
            std::process::Command::new("git")
                .args(["ls-files", "-s", "--debug"])
                .current_dir(d)
                .output()
                .unwrap()
        };
        let before = listing(d);
        std::fs::write(d.join(".git/index"), &ours).unwrap();
        let after = listing(d);
        assert!(after.status.success(), "{after:?}");
        assert_eq!(before.stdout, after.stdout);
    }

    #[test]
    fn resolve_undo_git_wrote_is_kept_byte_for_byte() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let commit = |m: &str| {
            git(d, &["commit", "-qam", m]);
        };
        git(d, &["init", "-q", "-b", "main"]);
        std::fs::write(d.join("f"), "base\n").unwrap();
        std::fs::write(d.join("g"), "g\n").unwrap();
        git(d, &["add", "."]);
        commit("base");
        git(d, &["checkout", "-q", "-b", "side"]);
        std::fs::write(d.join("f"), "side\n").unwrap();
        commit("side");
        git(d, &["checkout", "-q", "main"]);
        std::fs::write(d.join("f"), "main\n").unwrap();
        commit("main");
        let merge = std::process::Command::new("git")
            .args(["merge", "-q", "side"])
            .current_dir(d)
            .output()
            .unwrap();
        assert!(!merge.status.success(), "a conflict");
        std::fs::write(d.join("f"), "both\n").unwrap();
        git(d, &["add", "f"]);
        for version in ["2", "4"] {
            git(d, &["update-index", "--index-version", version]);
            let bytes = std::fs::read(d.join(".git/index")).unwrap();
            assert!(
                bytes.windows(4).any(|w| w == b"REUC"),
                "git kept resolve-undo"
            );
            round_trip(&bytes, version);
        }
    }

    /// The index file `bytes` (of index version `version`), parsed; it
    /// serializes back to the same bytes.
    fn round_trip(bytes: &[u8], version: &str) -> IndexFile {
        let parsed = IndexFile::parse(bytes).unwrap();
        assert!(
            parsed.serialize() == bytes,
            "v{version}: not byte-identical"
        );
        parsed
    }

    #[test]
    fn a_split_index_git_wrote_is_read_whole_and_written_back_plain() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        git(d, &["init", "-q"]);
        for (p, c) in [("a/x", "x"), ("a/y", "y"), ("b", "b"), ("c", "c")] {
            std::fs::create_dir_all(d.join(p).parent().unwrap()).unwrap();
            std::fs::write(d.join(p), c).unwrap();
        }
        git(d, &["add", "."]);
        git(d, &["update-index", "--split-index"]);
        // The split file's own entries: one replaced, one added, one gone.
        std::fs::write(d.join("a/y"), "y2").unwrap();
        std::fs::write(d.join("new"), "n").unwrap();
        git(d, &["add", "a/y", "new"]);
        git(d, &["rm", "-q", "--cached", "b"]);
        let path = d.join(".git/index");
        let bytes = std::fs::read(&path).unwrap();
        assert!(
            bytes.windows(4).any(|w| w == b"link"),
            "git wrote a split index"
        );
        assert_eq!(IndexFile::parse(&bytes), Err(Unreadable::Split));
        let whole = IndexFile::read_split(&bytes, &path).unwrap().unwrap();
        let paths: Vec<&[u8]> = whole.entries.iter().map(|e| e.path.as_slice()).collect();
        assert_eq!(paths, [&b"a/x"[..], b"a/y", b"c", b"new"]);
        // git reads the plain index written from it as it reads the split one.
        let listing = |index: Option<&std::path::Path>| {
            let mut cmd = std::process::Command::new("git");
            cmd.args(["ls-files", "-s", "--debug"]).current_dir(d);
            if let Some(index) = index {
                cmd.env("GIT_INDEX_FILE", index);
            }
            let out = cmd.output().unwrap();
            assert!(out.status.success(), "{out:?}");
            // Less git's in-memory flags (a split index marks entries
            // CE_UPDATE_IN_BASE), which `--debug` prints too.
            String::from_utf8(out.stdout)
                .unwrap()
                .lines()
                .map(|l| l.split("\tflags:").next().unwrap_or(l).to_string())
                .collect::<Vec<_>>()
        };
        let plain = d.join(".git/plain-index");
        std::fs::write(&plain, whole.serialize()).unwrap();
        assert!(
            !std::fs::read(&plain)
                .unwrap()
                .windows(4)
                .any(|w| w == b"link")
        );
        assert_eq!(listing(Some(&plain)), listing(None));
        // A file that is no longer the bytes read: read again.
        let mut other = bytes.clone();
        let n = other.len();
        other[n - 1] ^= 1;
        assert_eq!(IndexFile::read_split(&other, &path), Ok(None));
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        let good = index(4, &["a/x", "a/y"]).serialize();
        for cut in 0..good.len() {
            let _ = IndexFile::parse(&good[..cut]);
        }
        let mut bad = good.clone();
        bad[HEADER + FIXED] = 0xff; // a version 4 prefix of 0x7f.. bytes
        let _ = IndexFile::parse(&bad);
    }
}

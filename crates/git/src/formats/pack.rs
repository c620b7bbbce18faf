//! Writes many new objects (a proposal's blobs and trees) as one pack without delta search, as git itself
//! writes new objects (issue 14 item 2): libgit2's packbuilder searched
//! deltas between every pair in its window (`find_deltas`, most of a large
//! propose's cycles). Each object is hashed and zlib-compressed on its own
//! (level 1, git's `core.looseCompression` default; small ones stored), which callers may do
//! on several threads; `git gc` computes deltas later, as it does for
//! git's own new objects. The pack and its version 2 index are written
//! into the folder the caller names by temp file and rename, pack first,
//! flushed before the rename as far as the caller says (`PackFlush`: how
//! far git's `core.fsync` and `core.fsyncMethod` make git flush the packs
//! it writes is `durable`'s to read, not this codec's).

use std::fs;
use std::io::Write;
use std::path::Path;

use crate::Oid;
use sha1::{Digest, Sha1};

use crate::error::{Error, Result};
use crate::sys::writeback;
use crate::sys::zlib::{self, crc32};

/// Pack entry type of a blob.
const OBJ_BLOB: u8 = 3;
/// Pack entry type of a tree.
const OBJ_TREE: u8 = 2;
/// zlib level of the blobs a proposal stores: none (stored blocks). Their
/// compression was a quarter of a propose's CPU on a real repository's
/// deltified pack (tokio, 332 files: `deflate` 26–29% in `perf`, at level
/// 1), work neither `git grep` nor `git diff` does; the pack holds the new
/// contents at their own size until `git gc` (or the maintenance run after
/// a write) repacks them, deltified and compressed, with the rest. Trees
/// are stored too: mostly object ids, which do not compress.
const LEVEL: i32 = 0;

/// One object ready for a pack: its id and its pack entry (type-and-size
/// header, then the zlib stream), with the entry's CRC-32 for the index.
#[derive(Debug, Clone)]
pub struct PackedObject {
    pub oid: Oid,
    entry: Vec<u8>,
    crc: u32,
}

impl PackedObject {
    /// Hashes and compresses a blob of `content`.
    pub fn blob(content: &[u8]) -> Result<Self> {
        Self::new(OBJ_BLOB, "blob", content, LEVEL)
    }

    /// Hashes and compresses a tree object of `content` (raw entries).
    pub fn tree(content: &[u8]) -> Result<Self> {
        Self::new(OBJ_TREE, "tree", content, LEVEL)
    }

    fn new(kind: u8, name: &str, content: &[u8], level: i32) -> Result<Self> {
        let mut hasher = Sha1::new();
        hasher.update(format!("{name} {}\0", content.len()).as_bytes());
        hasher.update(content);
        let oid = Oid::from_bytes(&hasher.finalize())?;
        let mut entry = entry_header(kind, content.len());
        deflate_into(content, level, &mut entry)?;
        // zlib was given room for the whole input; kept are thousands of
        // entries a fraction of that size (57 of a real-code propose's
        // 101 MB of heap went to the difference).
        entry.shrink_to_fit();
        let crc = crc32(&entry);
        Ok(PackedObject { oid, entry, crc })
    }
}

/// The variable-length type-and-size header of a pack entry.
fn entry_header(kind: u8, size: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(16);
    let mut rest = size >> 4;
    let mut byte = (kind << 4) | (size & 0x0f) as u8;
    while rest != 0 {
        out.push(byte | 0x80);
        byte = (rest & 0x7f) as u8;
        rest >>= 7;
    }
    out.push(byte);
    out
}

/// zlib's window and hash sizes for `len` bytes of input: the smallest
/// window that holds the whole input (at least 512 bytes, at most zlib's
/// 32 KiB) and a hash table to match. `compress2` always takes the largest,
/// and clearing its 64 KiB hash table cost more than compressing a small
/// source file (issue 14 item 2: 20 M of a 300-file propose's 714 M
/// instructions). Any window size is a valid zlib stream for git.
fn window_bits(len: usize) -> (i32, i32) {
    let bits = (usize::BITS - len.max(1).leading_zeros()) as i32;
    let window = bits.clamp(9, 15);
    (window, (window - 6).clamp(1, 8))
}

/// Appends the zlib stream of `data` at `level` to `out`.
pub fn deflate_into(data: &[u8], level: i32, out: &mut Vec<u8>) -> Result<()> {
    let (window, mem_level) = window_bits(data.len());
    zlib::deflate_into(data, level, window, mem_level, out).map_err(|rc| Error::Internal {
        at: "the pack writer's zlib",
        message: format!("zlib failed to compress an object (code {rc})"),
    })
}

/// Writes `objects` (duplicates allowed) as one pack with its index into
/// `dir` (an object store's `pack` folder), flushed as the caller's
/// `flush` says; the pack's name (`pack-<checksum>`).
pub fn write_pack(dir: &Path, objects: &[&PackedObject], flush: PackFlush) -> Result<String> {
    let mut order: Vec<&PackedObject> = objects.to_vec();
    order.sort_by_key(|b| b.oid);
    order.dedup_by_key(|b| b.oid);
    fs::create_dir_all(dir).map_err(|e| Error::io("create", dir, e))?;
    let pack = write_pack_file(dir, &order)?;
    let idx = index_v2(&order, &pack.offsets, &pack.sum);
    install(dir, pack, &idx, flush)
}

/// A pack written to a temp file: where each entry starts, and the
/// checksum that ends it (and names it).
struct WrittenPack {
    file: tempfile::NamedTempFile,
    offsets: Vec<u64>,
    sum: sha1::digest::Output<Sha1>,
}

/// The pack: header, entries, SHA-1 of it all, written as it is hashed
/// (never a second copy of every entry in memory).
fn write_pack_file(dir: &Path, order: &[&PackedObject]) -> Result<WrittenPack> {
    let file = new_temp(dir)?;
    let failed = |e| Error::io("write", file.path().to_path_buf(), e);
    let mut out = std::io::BufWriter::with_capacity(1 << 16, file.as_file());
    let mut hasher = Sha1::new();
    let mut put = |bytes: &[u8]| {
        hasher.update(bytes);
        out.write_all(bytes)
    };
    put(b"PACK").map_err(failed)?;
    put(&2u32.to_be_bytes()).map_err(failed)?;
    put(&(order.len() as u32).to_be_bytes()).map_err(failed)?;
    let mut offsets = Vec::with_capacity(order.len());
    let mut at = 12u64;
    for b in order {
        offsets.push(at);
        put(&b.entry).map_err(failed)?;
        at += b.entry.len() as u64;
    }
    let sum = hasher.finalize();
    out.write_all(&sum).map_err(failed)?;
    out.flush().map_err(failed)?;
    drop(out);
    Ok(WrittenPack { file, offsets, sum })
}

/// The pack's index, version 2: fan-out, ids, CRCs, offsets (large ones
/// in a table of their own), the pack's checksum and its own.
fn index_v2(order: &[&PackedObject], offsets: &[u64], pack_sum: &[u8]) -> Vec<u8> {
    let mut idx = Vec::with_capacity(8 + 1024 + order.len() * 28 + 40);
    idx.extend_from_slice(&[0xff, b't', b'O', b'c']);
    idx.extend_from_slice(&2u32.to_be_bytes());
    let mut fanout = [0u32; 256];
    for b in order {
        fanout[b.oid.as_bytes()[0] as usize] += 1;
    }
    let mut total = 0;
    for count in fanout {
        total += count;
        idx.extend_from_slice(&total.to_be_bytes());
    }
    for b in order {
        idx.extend_from_slice(b.oid.as_bytes());
    }
    for b in order {
        idx.extend_from_slice(&b.crc.to_be_bytes());
    }
    let mut large = Vec::new();
    for &offset in offsets {
        if offset < 0x8000_0000 {
            idx.extend_from_slice(&(offset as u32).to_be_bytes());
        } else {
            idx.extend_from_slice(&(0x8000_0000 | large.len() as u32).to_be_bytes());
            large.push(offset);
        }
    }
    for offset in large {
        idx.extend_from_slice(&offset.to_be_bytes());
    }
    idx.extend_from_slice(pack_sum);
    let idx_sum = Sha1::digest(&idx);
    idx.extend_from_slice(&idx_sum);
    idx
}

/// Writes the index beside the pack, flushes both as `flush` says and
/// renames them into place, the pack first; the pack's name.
fn install(dir: &Path, pack: WrittenPack, idx: &[u8], flush: PackFlush) -> Result<String> {
    let name = format!("pack-{}", hex(&pack.sum));
    let pack_tmp = pack.file;
    read_only(&pack_tmp)?;
    let idx_tmp = new_temp(dir)?;
    idx_tmp
        .as_file()
        .write_all(idx)
        .map_err(|e| Error::io("write", idx_tmp.path().to_path_buf(), e))?;
    read_only(&idx_tmp)?;
    // Both written before either is flushed; where the caller says the
    // file system orders them (`PackFlush::ordered`), their data is waited
    // for and nothing more.
    let ordered = (flush.pack || flush.index)
        && flush.ordered
        && writeback::wait(pack_tmp.as_file()).is_ok()
        && writeback::wait(idx_tmp.as_file()).is_ok();
    if !ordered {
        flush.apply(&pack_tmp, flush.pack)?;
        flush.apply(&idx_tmp, flush.index)?;
    }
    // Readers find a pack through its index: the pack goes first.
    persist(pack_tmp, &dir.join(format!("{name}.pack")))?;
    persist(idx_tmp, &dir.join(format!("{name}.idx")))?;
    Ok(name)
}

/// How a new pack and its index are flushed before they are renamed into
/// place: the caller's decision (`durable::pack_flush` makes it from git's
/// config and the file system), as git flushes a pack it writes
/// (`finalize_hashfile` with `CSUM_FSYNC`, through `fsync_component`).
/// git flushes neither the directory nor the rename, and neither does
/// this.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PackFlush {
    /// Flush the pack (`core.fsync`'s `pack` component).
    pub pack: bool,
    /// Flush its `.idx` (`pack-metadata`).
    pub index: bool,
    /// Only write the data back (`core.fsyncMethod=writeout-only`: Linux
    /// `sync_file_range`), no `fsync`.
    pub writeout_only: bool,
    /// The file system commits every name change in order, after the data
    /// waited for before it: waiting for the two files' data is enough,
    /// their names (and any ref naming their objects) are committed after
    /// it or not at all.
    pub ordered: bool,
}

impl PackFlush {
    /// Flushes `file` when `wanted`.
    fn apply(&self, file: &tempfile::NamedTempFile, wanted: bool) -> Result<()> {
        if !wanted {
            return Ok(());
        }
        let failed = |e| Error::io("flush", file.path().to_path_buf(), e);
        if self.writeout_only && writeback::wait(file.as_file()).is_ok() {
            return Ok(());
        }
        file.as_file().sync_all().map_err(failed)
    }
}

/// A new temp file in `dir`.
fn new_temp(dir: &Path) -> Result<tempfile::NamedTempFile> {
    tempfile::Builder::new()
        .prefix("tmp_evolv_")
        .tempfile_in(dir)
        .map_err(|e| Error::io("create a temp file in", dir, e))
}

/// Makes a written file read-only, as git leaves its packs.
fn read_only(tmp: &tempfile::NamedTempFile) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    tmp.as_file()
        .set_permissions(fs::Permissions::from_mode(0o444))
        .map_err(|e| Error::io("write", tmp.path().to_path_buf(), e))
}

/// Renames a written temp file to `target`.
fn persist(tmp: tempfile::NamedTempFile, target: &Path) -> Result<()> {
    tmp.persist(target)
        .map_err(|e| Error::io("rename into place", target, e.error))?;
    Ok(())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_pack_is_read_back_by_libgit2_and_verified_by_git() {
        let dir = tempfile::tempdir().unwrap();
        let repo = crate::Repo::new_any(git2::Repository::init(dir.path()).unwrap());
        let big: Vec<u8> = (0..200_000u32).flat_map(|i| i.to_le_bytes()).collect();
        let contents: Vec<Vec<u8>> = vec![
            b"hello\n".to_vec(),
            Vec::new(),
            b"hello\n".to_vec(),
            big,
            b"x".repeat(15),
            b"y".repeat(16),
            // Stored, then window sizes between the smallest and the largest.
            (0..700u32).map(|i| (i * 7 % 251) as u8 + 1).collect(),
            (0..3000u32).map(|i| (i * 11 % 89) as u8 + 1).collect(),
            (0..20_000u32).map(|i| (i * 13 % 97) as u8 + 1).collect(),
        ];
        let blobs: Vec<PackedObject> = contents
            .iter()
            .map(|c| PackedObject::blob(c).unwrap())
            .collect();
        let flush = PackFlush {
            pack: true,
            index: true,
            writeout_only: false,
            ordered: false,
        };
        let packs = dir.path().join(".git/objects/pack");
        write_pack(&packs, &blobs.iter().collect::<Vec<_>>(), flush).unwrap();
        repo.raw().odb().unwrap().refresh().unwrap();
        for (c, b) in contents.iter().zip(&blobs) {
            assert_eq!(b.oid, Oid::hash_object(git2::ObjectType::Blob, c).unwrap());
            assert_eq!(repo.raw().find_blob(b.oid.raw()).unwrap().content(), &c[..]);
        }
        let packs: Vec<_> = fs::read_dir(dir.path().join(".git/objects/pack"))
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "idx"))
            .collect();
        assert_eq!(packs.len(), 1);
        let pack = packs[0].to_str().unwrap();
        let text = crate::test_git::git(dir.path(), &["verify-pack", "-v", pack]);
        assert!(text.contains("non delta: 8 objects"), "{text}");
    }
}

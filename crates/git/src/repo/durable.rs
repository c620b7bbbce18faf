//! Durability across a power cut, beyond git's defaults (git flushes packs
//! but not loose objects, refs, the index or working-tree files). A
//! landing's journal is flushed before anything moves; the objects, refs
//! and index the landing writes are flushed before the journal is
//! deleted, so after a power cut either the journal is still there (and
//! recovery finishes the landing, rewriting any file the cut tore) or every
//! one of them is on disk. Working-tree files are flushed only with
//! `evolv.fsyncWorktree` (`flushes_worktree`), as git flushes none.
//!
//! Flushes are targeted, as git's batch mode: the landing waits for its
//! own files' data (`settle`), then one `fsync` of a fresh file commits the
//! file system's journal (`barrier`). A whole-file-system `syncfs` would
//! wait for every other process's writes too; it is only the fallback
//! where one `fsync` does not order everything before it (`targeted`).

use std::fs::File;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::Path;

use crate::error::{Error, Result};
use crate::formats::pack::PackFlush;
use crate::repo::learnt::Learnt;
use crate::sys::writeback;

/// How the landing flushes, from git's own `core.fsync` and
/// `core.fsyncMethod` (read once per handle, `git -c` included):
///
/// - `Batch` (the default, and `core.fsyncMethod=batch` or
///   `writeout-only`): like git's batch mode, each staged file's writeback
///   is started as it is written, and before the branch moves the landing
///   waits for each one's data, then commits with one `fsync`;
/// - `PerFile` (`core.fsyncMethod=fsync`): one `fdatasync` per staged file;
/// - `Off` (`core.fsync=none`, a list that removes every component, or
///   git's `GIT_TEST_FSYNC=0`):
///   no flush at all, git's speed. A power cut may then lose a landing's
///   writes in any order; recovery still finishes or undoes the landing
///   from whatever survived (a file the cut emptied is written again while
///   the journal is there), but a landed commit may be lost.
///   A crash (not a power cut) loses nothing either way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flush {
    Batch,
    PerFile,
    Off,
}

impl Learnt for Flush {}

/// The flush policy of this repository (see `Flush`), read once per
/// handle.
pub fn policy(repo: &crate::Repo) -> Flush {
    repo.learnt(|| {
        let Ok(config) = repo.config() else {
            return Flush::Batch;
        };
        if test_off()
            || config
                .string("core.fsync")
                .is_some_and(|v| fsync_components(v) == 0)
        {
            return Flush::Off;
        }
        match config.string("core.fsyncMethod") {
            Some(m) if m.eq_ignore_ascii_case("fsync") => Flush::PerFile,
            _ => Flush::Batch,
        }
    })
}

/// Whether git would flush a ref it writes here: `core.fsync` names the
/// `reference` component (`committed`, `added`, `all` do too; git's
/// default does not), and `GIT_TEST_FSYNC=0` does not turn flushing off.
/// Bookkeeping that only has to be as durable as a ref (the journal of an
/// undo that moves refs) is flushed exactly then. Read once per handle.
pub fn flushes_refs(repo: &crate::Repo) -> bool {
    #[derive(Clone, Copy)]
    struct FlushesRefs(bool);
    impl Learnt for FlushesRefs {}
    let learnt = repo.learnt(|| {
        let components = repo
            .config()
            .ok()
            .and_then(|c| c.string("core.fsync").map(fsync_components))
            .unwrap_or(DEFAULT_COMPONENTS);
        FlushesRefs(!test_off() && components & REFERENCE != 0)
    });
    learnt.0
}

/// How a pack this process writes is flushed (see `PackFlush`): as git
/// flushes the packs it writes, from `core.fsync` (the pack itself with
/// the `pack` component, its `.idx` with `pack-metadata`; both by
/// default) and `core.fsyncMethod` (`writeout-only` writes the data back
/// without `fsync`), read once per handle; `GIT_TEST_FSYNC=0` turns it
/// off, as in git. Where the file system commits every name change in
/// order after the data waited for before it (`ordered`, batch mode), the
/// data is waited for and nothing more: an `fsync` only made the pack
/// durable the moment it was written, a journal commit (longest right
/// after a `git reset` rewrote the index: BENCHMARKS.md, issue 25 item 20)
/// that git makes for none of a new commit's objects under its default
/// `core.fsync`, which leaves loose objects to the kernel.
pub fn pack_flush(repo: &crate::Repo) -> PackFlush {
    #[derive(Clone, Copy)]
    struct FromConfig(PackFlush);
    impl Learnt for FromConfig {}
    let FromConfig(flush) = repo.learnt(|| {
        let test_off = test_off();
        FromConfig(match repo.config() {
            Ok(config) => pack_flush_of(
                config.string("core.fsync"),
                config.string("core.fsyncMethod"),
                test_off,
            ),
            Err(_) => pack_flush_of(None, None, test_off),
        })
    });
    PackFlush {
        ordered: (flush.pack || flush.index) && policy(repo) == Flush::Batch && ordered(repo),
        ..flush
    }
}

/// The pack flush that `core.fsync` = `value` and `core.fsyncMethod` =
/// `method` ask for, file system aside (`ordered` false).
fn pack_flush_of(value: Option<&str>, method: Option<&str>, test_off: bool) -> PackFlush {
    let components = value.map_or(DEFAULT_COMPONENTS, fsync_components);
    PackFlush {
        pack: !test_off && components & PACK != 0,
        index: !test_off && components & PACK_METADATA != 0,
        writeout_only: method.is_some_and(|m| m.eq_ignore_ascii_case("writeout-only")),
        ordered: false,
    }
}

/// `GIT_TEST_FSYNC=0`: git's switch that turns every flush off.
pub fn test_off() -> bool {
    std::env::var("GIT_TEST_FSYNC")
        .ok()
        .and_then(|v| crate::config::parse_bool(&v))
        == Some(false)
}

/// `core.fsync` components (git's `fsync_component_names`).
pub const LOOSE_OBJECT: u8 = 1;
pub const PACK: u8 = 2;
pub const PACK_METADATA: u8 = 4;
pub const COMMIT_GRAPH: u8 = 8;
pub const INDEX: u8 = 16;
pub const REFERENCE: u8 = 32;
const COMPONENT_NAMES: [(&str, u8); 10] = [
    ("loose-object", LOOSE_OBJECT),
    ("pack", PACK),
    ("pack-metadata", PACK_METADATA),
    ("commit-graph", COMMIT_GRAPH),
    ("index", INDEX),
    ("reference", REFERENCE),
    ("objects", LOOSE_OBJECT | PACK),
    ("derived-metadata", PACK_METADATA | COMMIT_GRAPH),
    ("committed", LOOSE_OBJECT | PACK | REFERENCE),
    ("added", LOOSE_OBJECT | PACK | REFERENCE | INDEX),
];
/// git's default: objects and derived metadata, less loose objects.
pub const DEFAULT_COMPONENTS: u8 = PACK | PACK_METADATA | COMMIT_GRAPH;

/// The components a `core.fsync` value names, read as git's
/// `parse_fsync_components` reads it: items separated by commas (blanks
/// after a comma skipped), `-x` removes x, and what is added stays
/// whatever comes after it; `none` empties the default only as the last
/// item (git compares the rest of the string with it); an item names every
/// component whose name it starts (git's `strncmp` over the item's
/// length: `pack` is `pack` and `pack-metadata`); an empty item ends the
/// list.
pub fn fsync_components(value: &str) -> u8 {
    let mut current = DEFAULT_COMPONENTS;
    let (mut positive, mut negative) = (0u8, 0u8);
    let mut rest = value;
    loop {
        rest = rest.trim_start_matches([',', ' ', '\t', '\n', '\r']);
        if rest.is_empty() {
            break;
        }
        if rest == "none" {
            current = 0;
            break;
        }
        let (item, next) = rest.split_once(',').unwrap_or((rest, ""));
        rest = next;
        let (negated, name) = match item.strip_prefix('-') {
            Some(name) => (true, name),
            None => (false, item),
        };
        if name.is_empty() {
            break;
        }
        let mut flags = 0u8;
        if "all".starts_with(name) {
            flags = u8::MAX;
        }
        for (component, bits) in COMPONENT_NAMES {
            if component.starts_with(name) {
                flags |= bits;
            }
        }
        if negated {
            negative |= flags;
        } else {
            positive |= flags;
        }
    }
    (current & !negative) | positive
}

/// Starts `file`'s writeback when the landing's flush will wait for it
/// file by file (`targeted`). Where the landing flushes whole file systems
/// instead, `syncfs` writes everything back in one pass, and starting each
/// file's writeback on its own only cost the thread writing it.
pub fn start_writeback_if_targeted(repo: &crate::Repo, file: &File) {
    if targeted(repo) {
        writeback::start(file);
    }
}

/// Whether a file system of this type commits every metadata change
/// (creations, renames, removals) through one journal, in order, and
/// flushes the device's cache when it commits: then one `fsync` of a fresh
/// file makes every earlier name change durable, and with it the data
/// already waited for — the premise of git's `core.fsyncMethod=batch`.
/// XFS does, and ext4 with its journal (jbd2); for anything else (ext4
/// made or mounted without a journal, btrfs logs per inode, network and
/// overlay file systems pass calls on) the landing flushes the whole file
/// system instead.
fn journals_in_order(dir: &Path) -> bool {
    #[cfg(target_os = "linux")]
    {
        const EXT4: i64 = 0xEF53;
        const XFS: i64 = 0x5846_5342;
        match crate::sys::calls::filesystem_type(dir) {
            Some(XFS) => true,
            Some(EXT4) => ext4_journal(dir),
            _ => false,
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = dir;
        false
    }
}

/// Whether the ext4 file system holding `dir` has its journal: jbd2 lists
/// each journal it runs as `/proc/fs/jbd2/<device>-<inode>`, the device
/// named as in `/sys/dev/block/<major>:<minor>`. Unknown (no `/proc` or
/// `/sys`): no.
fn ext4_journal(dir: &Path) -> bool {
    #[cfg(target_os = "linux")]
    {
        let Ok(meta) = std::fs::metadata(dir) else {
            return false;
        };
        let dev = meta.dev();
        let link = format!("/sys/dev/block/{}:{}", libc::major(dev), libc::minor(dev));
        let Some(name) = std::fs::read_link(link)
            .ok()
            .and_then(|l| l.file_name().map(|n| n.to_string_lossy().into_owned()))
        else {
            return false;
        };
        let prefix = format!("{name}-");
        std::fs::read_dir("/proc/fs/jbd2").is_ok_and(|entries| {
            entries
                .flatten()
                .any(|e| e.file_name().to_string_lossy().starts_with(&prefix))
        })
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = dir;
        false
    }
}

/// Debug builds only: `GIT_EVOLV_TEST_ORDERED_FS=1` takes the file system
/// for one that `journals_in_order`, so the tests can check the targeted
/// flushes on a machine whose file system is not one.
fn assumed_in_order() -> bool {
    cfg!(debug_assertions)
        && std::env::var_os("GIT_EVOLV_TEST_ORDERED_FS").is_some_and(|v| v == "1")
}

/// Whether the targeted flushes (`settle` + `barrier`) are enough for this
/// repository: its git dir, common dir and working tree are on one file
/// system that `journals_in_order`. Learnt once per handle.
fn targeted(repo: &crate::Repo) -> bool {
    #[derive(Clone, Copy)]
    struct Targeted(bool);
    impl Learnt for Targeted {}
    let learnt = repo.learnt(|| {
        let mut dirs = vec![repo.raw().path(), repo.raw().commondir()];
        dirs.extend(repo.raw().workdir());
        let devs: Vec<u64> = dirs
            .iter()
            .filter_map(|d| std::fs::metadata(d).ok().map(|m| m.dev()))
            .collect();
        Targeted(
            devs.len() == dirs.len()
                && devs.iter().all(|d| *d == devs[0])
                && (journals_in_order(repo.raw().path()) || assumed_in_order()),
        )
    });
    learnt.0
}

/// Whether a file that must be durable no later than what is written after
/// it may be only `settle`d where it is written: the file system commits
/// every name change in order, after the data waited for before it
/// (`order`). Elsewhere it is flushed on its own (`fsync`, rename,
/// directory `fsync`); with flushing off (`core.fsync=none`), not at all.
pub fn ordered(repo: &crate::Repo) -> bool {
    policy(repo) != Flush::Off && targeted(repo)
}

/// Whether files are flushed at all (not under `core.fsync=none`).
pub fn flushes(repo: &crate::Repo) -> bool {
    policy(repo) != Flush::Off
}

/// The opt-in key that makes a landing wait for its working-tree files'
/// data before the branch moves, as it did before issue 25 item 20.
pub const FSYNC_WORKTREE: &str = "evolv.fsyncWorktree";

/// Whether the landing flushes the working-tree files it writes
/// (`evolv.fsyncWorktree=true`, and flushing not off). By default it does
/// not, as git's checkout and merge never do (`core.fsync` has no
/// working-tree component): the objects, the landing's journal, the refs
/// and the index keep their flushes, and a file a power cut emptied is
/// found by content and rewritten by recovery while the journal is left
/// (RELIABILITY.md, "Power loss"). Waiting for each file's data was most
/// of a 3,000-file landing's time on a journaled ext4. Read once per
/// handle; a value that is not a boolean reads as unset here and is
/// refused by `check_worktree_setting` before anything is written.
pub fn flushes_worktree(repo: &crate::Repo) -> bool {
    #[derive(Clone, Copy)]
    struct FsyncWorktree(bool);
    impl Learnt for FsyncWorktree {}
    flushes(repo)
        && repo
            .learnt(|| FsyncWorktree(worktree_setting(repo).unwrap_or(false)))
            .0
}

/// Refuses an `evolv.fsyncWorktree` that is not a boolean, naming it.
pub fn check_worktree_setting(repo: &crate::Repo) -> Result<()> {
    worktree_setting(repo).map(drop)
}

fn worktree_setting(repo: &crate::Repo) -> Result<bool> {
    let config = repo.config()?;
    Ok(config.bool(FSYNC_WORKTREE)?.unwrap_or(false))
}

/// The first half of a flush: the data of `files` (written by this
/// landing; a missing one is skipped) reaches the device — writeout only in
/// batch mode, one `fdatasync` each under `core.fsyncMethod=fsync`. The
/// caller follows it with `barrier`, or with an `fsync` of a file it
/// writes next (the journal), which is one.
///
/// Where the targeted flush does not hold (`targeted`), no later `fsync`
/// orders these files, so they are made durable here, each on its own
/// with its directory and that one's (`fsync`, as POSIX asks of a new
/// name): a landing's loose objects are a handful (its commit; the blobs
/// and trees are in propose's pack), and a whole-file-system flush would
/// also wait for every other process's writes. Past `ALONE_MAX` files
/// existing, one `syncfs` is the cheaper flush.
pub fn settle<P: AsRef<Path>>(
    repo: &crate::Repo,
    files: impl IntoIterator<Item = P>,
) -> Result<()> {
    let policy = policy(repo);
    if policy == Flush::Off {
        return Ok(());
    }
    let targeted = targeted(repo);
    let mut alone = Vec::new();
    for path in files {
        let path = path.as_ref();
        let Some(file) = open_to_flush(path)? else {
            continue;
        };
        if !targeted {
            alone.push((path.to_path_buf(), file));
            if alone.len() > ALONE_MAX {
                return flush_filesystems(repo);
            }
            continue;
        }
        let done = match policy {
            Flush::PerFile => file.sync_data(),
            _ => writeback::wait(&file),
        };
        done.map_err(|e| Error::io("flush to disk", path, e))?;
    }
    let mut dirs = std::collections::BTreeSet::new();
    for (path, file) in alone {
        file.sync_all()
            .map_err(|e| Error::io("flush to disk", &path, e))?;
        let parent = path.parent().map(Path::to_path_buf);
        dirs.extend(
            parent
                .iter()
                .filter_map(|p| p.parent())
                .map(Path::to_path_buf),
        );
        dirs.extend(parent);
    }
    for dir in dirs {
        File::open(&dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| Error::io("flush to disk", &dir, e))?;
    }
    Ok(())
}

/// `settle` for files still open: the staging threads wait for the temp
/// files they wrote themselves, a batch at a time, instead of the landing's
/// thread opening each one again by name (3,000 `open`s and `close`s, in
/// turn, for a 3,000-file landing). Only where `ordered`: elsewhere
/// the caller drops them, and the flush after them is a whole file system's.
/// Empties `files`.
pub fn settle_open(repo: &crate::Repo, files: &mut Vec<(std::path::PathBuf, File)>) -> Result<()> {
    let per_file = policy(repo) == Flush::PerFile;
    for (path, file) in files.drain(..) {
        let done = if per_file {
            file.sync_data()
        } else {
            writeback::wait(&file)
        };
        done.map_err(|e| Error::io("flush to disk", &path, e))?;
    }
    Ok(())
}

/// How many files `settle` flushes one by one where the targeted flush does
/// not hold, before it flushes the whole file system instead.
const ALONE_MAX: usize = 64;

/// `path` opened for a flush: not through a symlink (its target is in its
/// own inode, which the barrier covers), never blocking on a FIFO; `None`
/// when it is missing (a packed object has no loose file) or a symlink.
fn open_to_flush(path: &Path) -> Result<Option<File>> {
    let opened = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path);
    match opened {
        Ok(f) => Ok(Some(f)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => Ok(None),
        Err(e) => Err(Error::io("open", path, e)),
    }
}

/// The second half: one `fsync` of a fresh file in the git dir commits the
/// file system's journal — every name created, renamed or removed so far,
/// in order — and flushes the device's cache, so everything `settle`d
/// before it is durable (git's batch mode ends the same way). Where that
/// does not hold, the whole file system is flushed.
pub fn barrier(repo: &crate::Repo) -> Result<()> {
    if policy(repo) == Flush::Off {
        return Ok(());
    }
    if !targeted(repo) {
        return flush_filesystems(repo);
    }
    let dir = repo.raw().path().join("evolv");
    let path = dir.join(format!("{BARRIER_PREFIX}{}", std::process::id()));
    let written = std::fs::create_dir_all(&dir)
        .and_then(|()| File::create(&path))
        .and_then(|f| f.sync_all());
    let _ = std::fs::remove_file(&path);
    written.map_err(|e| Error::io("flush to disk", &path, e))
}

/// The name of `barrier`'s file, `<git-dir>/evolv/flush.<pid>`, before the
/// pid (one a killed process left is removed with the landing's other
/// leftovers).
pub const BARRIER_PREFIX: &str = "flush.";

/// `settle` then `barrier`: `files` are durable when it returns.
pub fn flush<P: AsRef<Path>>(repo: &crate::Repo, files: impl IntoIterator<Item = P>) -> Result<()> {
    if policy(repo) != Flush::Off && !targeted(repo) {
        return flush_filesystems(repo);
    }
    settle(repo, files)?;
    barrier(repo)
}

/// Makes `files` (written by this process) durable no later than anything
/// this process writes after them: what must survive a power cut whenever
/// the next write does (N's objects and the landing's journal before the
/// branch moves; a captured proposal before the work tree is put back).
/// Where one journal commits every name change in order and flushes the
/// device's cache before it commits (`targeted`), their data is waited for
/// and nothing more: the later write is committed with them or after them,
/// never alone. The `barrier` it used to end with only made them durable
/// the moment it returned — a journal commit that git, whose default
/// `core.fsync` flushes no ref, never makes before it moves a branch
/// (issue 25 item 20; BENCHMARKS.md has its cost). Elsewhere `flush`.
pub fn order<P: AsRef<Path>>(repo: &crate::Repo, files: impl IntoIterator<Item = P>) -> Result<()> {
    if policy(repo) != Flush::Off && targeted(repo) {
        return settle(repo, files);
    }
    flush(repo, files)
}

/// The flush at a landing's end, before its journal is deleted. Where one
/// journal commits every name change in order and flushes the device's
/// cache when it commits (`targeted`), the data of `files` is waited for
/// and nothing more: the renames and the journal's deletion that follow
/// are committed after them, with them or not at all, so a power cut
/// never keeps the deletion without everything before it, and the
/// landing's own journal was made durable by the barrier before the
/// branch moved (a cut before the file system commits leaves that journal,
/// which recovery finishes or undoes). A `barrier` here only made the
/// landing durable the moment the command returned, which git never does
/// for its refs, index or working tree (issue 25 item 20: it was one
/// journal commit, 10–30 ms, of a 3,000-file landing's 0.2 s). Elsewhere
/// the same `settle` flushes each of `files` on its own, with its
/// directory; only with `evolv.fsyncWorktree` is it a whole-file-system
/// `flush`, for the working-tree files written without one.
pub fn flush_ending<P: AsRef<Path>>(
    repo: &crate::Repo,
    files: impl IntoIterator<Item = P>,
) -> Result<()> {
    if policy(repo) != Flush::Off && (targeted(repo) || !flushes_worktree(repo)) {
        return settle(repo, files);
    }
    flush(repo, files)
}

/// Flushes every file system the repository lives on (its git dir and its
/// working tree): objects, refs, the index and working-tree files alike,
/// with one call each — the fallback where the targeted flush does not
/// hold (`targeted`). It waits for every other process's writes too.
pub fn flush_filesystems(repo: &crate::Repo) -> Result<()> {
    if policy(repo) == Flush::Off {
        return Ok(());
    }
    let git_dir = repo.raw().path();
    let mut dirs = vec![git_dir.to_path_buf()];
    // The working tree, and an object store git's environment moved
    // (`GIT_OBJECT_DIRECTORY`), when they are on other file systems.
    let others = repo
        .raw()
        .workdir()
        .map(Path::to_path_buf)
        .into_iter()
        .chain(std::env::var_os("GIT_OBJECT_DIRECTORY").map(std::path::PathBuf::from));
    for dir in others {
        let same = std::fs::metadata(&dir)
            .and_then(|w| std::fs::metadata(git_dir).map(|g| w.dev() == g.dev()))
            .unwrap_or(false);
        if !same {
            dirs.push(dir);
        }
    }
    for dir in dirs {
        let file = File::open(&dir).map_err(|e| Error::io("open", &dir, e))?;
        #[cfg(target_os = "linux")]
        crate::sys::calls::sync_filesystem(&file)
            .map_err(|e| Error::io("flush to disk", &dir, e))?;
        #[cfg(not(target_os = "linux"))]
        file.sync_all()
            .map_err(|e| Error::io("flush to disk", &dir, e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{DEFAULT_COMPONENTS, INDEX, PACK, PACK_METADATA, fsync_components, pack_flush_of};
    use crate::formats::pack::PackFlush;

    #[test]
    fn core_fsync_is_read_as_git_reads_it_for_packs() {
        let f = |v: Option<&str>| pack_flush_of(v, None, false);
        let both = PackFlush {
            pack: true,
            index: true,
            writeout_only: false,
            ordered: false,
        };
        let none = PackFlush {
            pack: false,
            index: false,
            writeout_only: false,
            ordered: false,
        };
        assert_eq!(f(None), both);
        assert_eq!(f(Some("none")), none);
        assert_eq!(f(Some("loose-object")), both, "added to the default");
        assert_eq!(f(Some("index, reference,none")), none);
        // `none` counts only as the last item; before, git warns and skips it.
        assert_eq!(f(Some("none,index")), both);
        // What is added stays, whatever comes after it. (pack, index):
        // `pack` starts `pack-metadata` too, `-pack` removes both, and
        // added wins over removed.
        for (value, pack, index) in [
            ("pack,none", true, true),
            ("pack-metadata,none", false, true),
            ("-pack", false, false),
            ("-pack-metadata", true, false),
            ("all,-objects", true, true),
            ("-objects", false, true),
            ("committed,none", true, false),
            ("derived-metadata,none", false, true),
        ] {
            let expected = PackFlush {
                pack,
                index,
                writeout_only: false,
                ordered: false,
            };
            assert_eq!(f(Some(value)), expected, "{value}");
        }
        assert_eq!(f(Some("-,pack")), both, "an empty item ends the list");
        assert_eq!(pack_flush_of(None, None, true), none, "GIT_TEST_FSYNC=0");
        assert!(pack_flush_of(None, Some("writeout-only"), false).writeout_only);
        assert!(!pack_flush_of(None, Some("batch"), false).writeout_only);
    }

    /// As git's `parse_fsync_components`: `none` empties the default only
    /// as the last item, an item names every component it starts, `-x`
    /// removes, what is added stays.
    #[test]
    fn core_fsync_lists_are_read_as_git_reads_them() {
        assert_eq!(fsync_components("none"), 0);
        assert_eq!(fsync_components("-all"), 0);
        assert_eq!(fsync_components("all,-all"), u8::MAX, "what is added stays");
        assert_ne!(
            fsync_components("committed,none"),
            0,
            "none empties the default only"
        );
        assert_eq!(fsync_components("none,index"), DEFAULT_COMPONENTS | INDEX);
        assert_ne!(fsync_components("committed"), 0);
        assert_ne!(fsync_components("all,-index"), 0);
        assert_eq!(
            fsync_components("pack") & PACK_METADATA,
            PACK_METADATA,
            "a prefix"
        );
        assert_eq!(fsync_components("-pack") & PACK, 0);
    }
}

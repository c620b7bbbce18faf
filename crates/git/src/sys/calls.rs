//! The system calls of the git adapter that std does not wrap, each behind
//! a small safe function named for what it does: starting and waiting for
//! a file's writeback (`sync_file_range`), flushing a whole file system
//! (`syncfs`), a file system's type (`statfs`), an index file, a pack and
//! its index mapped (`mmap`) and their read pages let go (`madvise`), and
//! the crash tests' SIGKILL of the process itself. `unsafe` is needed
//! because they are `libc` calls; none but the mappings hands out memory
//! (their own rules are at the functions), and the functions take owned
//! Rust handles (`&File`, `&Path`), never raw descriptors. This module and
//! `zlib` (the zlib FFI) are the only places of this crate allowed
//! `unsafe` (`tests/cli/unsafe_fence.rs` keeps it so).

#![allow(unsafe_code)]

#[cfg(target_os = "linux")]
use std::fs::File;
#[cfg(target_os = "linux")]
use std::os::fd::AsRawFd;

/// Starts writing `file`'s data back to disk without waiting
/// (`sync_file_range` with `SYNC_FILE_RANGE_WRITE`). A failure is
/// ignored: it only means a later flush does all the work.
#[cfg(target_os = "linux")]
pub fn start_writeback(file: &File) {
    // SAFETY: sync_file_range(2) takes a descriptor `file` owns and keeps
    // open for the call; it touches no memory of ours.
    unsafe {
        libc::sync_file_range(file.as_raw_fd(), 0, 0, libc::SYNC_FILE_RANGE_WRITE);
    }
}

/// Waits until the data written to `file` is on the device
/// (`sync_file_range` with both waits): no metadata, no device-cache flush.
#[cfg(target_os = "linux")]
pub fn wait_writeback(file: &File) -> std::io::Result<()> {
    let flags = libc::SYNC_FILE_RANGE_WAIT_BEFORE
        | libc::SYNC_FILE_RANGE_WRITE
        | libc::SYNC_FILE_RANGE_WAIT_AFTER;
    // SAFETY: as in `start_writeback`: a descriptor `file` keeps open, no
    // memory of ours.
    if unsafe { libc::sync_file_range(file.as_raw_fd(), 0, 0, flags) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Flushes the whole file system `file` lives on (`syncfs`).
#[cfg(target_os = "linux")]
pub fn sync_filesystem(file: &File) -> std::io::Result<()> {
    // SAFETY: syncfs(2) takes a descriptor `file` owns and keeps open for
    // the call; it touches no memory of ours.
    if unsafe { libc::syncfs(file.as_raw_fd()) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// The type (`f_type`, a magic number such as ext4's `0xEF53`) of the file
/// system holding `path`, `None` when `statfs` fails or the path holds a
/// NUL byte.
#[cfg(target_os = "linux")]
#[allow(clippy::unnecessary_cast)]
pub fn filesystem_type(path: &std::path::Path) -> Option<i64> {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).ok()?;
    // SAFETY: `libc::statfs` is a plain C struct of integers, for which
    // all zero bytes is a valid value.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: statfs(2) reads the NUL-terminated path `c`, alive for the
    // call, and fills `st`, a struct of the type it expects.
    if unsafe { libc::statfs(c.as_ptr(), &mut st) } != 0 {
        return None;
    }
    Some(st.f_type as i64)
}

/// SIGKILLs this process at once: no destructor or handler runs, exactly
/// like the OOM killer or `kill -9` (the crash tests' crash points).
#[cfg(debug_assertions)]
pub fn kill_self() {
    // SAFETY: getpid(2) and kill(2) take plain integers and touch no
    // memory of ours.
    unsafe {
        libc::kill(libc::getpid(), libc::SIGKILL);
    }
}

/// Sets libgit2's window size and mapped limit for packs, process-wide.
pub fn bound_libgit2_mapped_packs(window: usize, mapped_limit: usize) {
    // SAFETY: both are plain size_t settings libgit2 reads when it maps a
    // new window; they bound its cache of mappings and nothing else, so a
    // lookup that saw the old value in between is only less frugal.
    // Neither call can fail for these options.
    unsafe {
        let _ = git2::opts::set_mwindow_size(window);
        let _ = git2::opts::set_mwindow_mapped_limit(mapped_limit);
    }
}

/// A file that git only ever replaces by rename (the index), mapped
/// read-only with its pages faulted in at once: copied into memory
/// instead, 8.8 MB cost a page fault per 4 KiB.
pub fn map_replaced_by_rename(file: &std::fs::File) -> std::io::Result<memmap2::Mmap> {
    // SAFETY: the mapping stays valid while it lives only if nobody cuts
    // or rewrites the file in place; git writes `<file>.lock` and renames
    // it over the file, which leaves this inode and its bytes as they
    // were, and callers hold that lock besides.
    unsafe { memmap2::MmapOptions::new().populate().map(file) }
}

/// A file git writes whole under a temporary name and renames into
/// place, never changing or cutting it in place (a pack, a pack's index),
/// mapped read-only.
pub fn map_written_whole(file: &std::fs::File) -> std::io::Result<memmap2::Mmap> {
    // SAFETY: the mapping stays valid while it lives only if nobody cuts
    // or rewrites the file in place; git writes packs and their indexes
    // whole under a temporary name and renames them into place, and only
    // ever deletes them, which leaves this inode and its bytes as they
    // were.
    unsafe { memmap2::Mmap::map(file) }
}

/// Lets go of the pages of `map` this process has read, so they stop
/// counting in its RSS (`madvise(MADV_DONTNEED)`); a failure only keeps
/// them.
pub fn release_read_pages(map: &memmap2::Mmap) {
    // SAFETY: the mapping is shared and read-only, and nothing is ever
    // written through it: dropping its pages from this process only makes
    // the next read fault them in again from the page cache, with the same
    // bytes (a reader on another thread included).
    let _ = unsafe { map.unchecked_advise(memmap2::UncheckedAdvice::DontNeed) };
}

/// The `openat` family, for writing inside the working tree through
/// directories reached one component at a time (`checkout::in_place`): a
/// directory swapped for a symlink after the landing's checks then stops
/// the write instead of taking it elsewhere. Each takes the directory as a
/// borrowed descriptor and the name as a C string, for the call only.
pub mod at {
    use std::ffi::CStr;
    use std::fs::File;
    use std::io;
    use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd};

    fn check(ret: libc::c_int) -> io::Result<libc::c_int> {
        if ret < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(ret)
        }
    }

    /// Opens the directory `name` in `dir`; a symlink there is `ELOOP`,
    /// anything else that is not a directory `ENOTDIR`.
    pub fn open_dir(dir: BorrowedFd<'_>, name: &CStr) -> io::Result<OwnedFd> {
        let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC;
        // SAFETY: openat(2) reads the NUL-terminated `name` during the call
        // only, and `dir` stays open for it.
        let fd = check(unsafe { libc::openat(dir.as_raw_fd(), name.as_ptr(), flags) })?;
        // SAFETY: `fd` was just opened and nothing else owns it.
        Ok(unsafe { OwnedFd::from_raw_fd(fd) })
    }

    /// Creates the file `name` in `dir` with `mode` (the umask applies),
    /// failing if anything is there, a symlink included.
    pub fn create_new(dir: BorrowedFd<'_>, name: &CStr, mode: u32) -> io::Result<File> {
        let flags =
            libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_CLOEXEC;
        // SAFETY: as in `open_dir`; the mode is passed by value.
        let fd = check(unsafe {
            libc::openat(dir.as_raw_fd(), name.as_ptr(), flags, mode as libc::c_uint)
        })?;
        // SAFETY: `fd` was just opened and nothing else owns it.
        Ok(unsafe { File::from_raw_fd(fd) })
    }

    /// Creates the directory `name` in `dir` (mode 0777, the umask applies).
    pub fn make_dir(dir: BorrowedFd<'_>, name: &CStr) -> io::Result<()> {
        // SAFETY: mkdirat(2) reads `name` during the call only.
        check(unsafe { libc::mkdirat(dir.as_raw_fd(), name.as_ptr(), 0o777) }).map(drop)
    }

    /// Removes `name` from `dir`: a file or symlink, or with `directory`
    /// an empty directory.
    pub fn remove(dir: BorrowedFd<'_>, name: &CStr, directory: bool) -> io::Result<()> {
        let flags = if directory { libc::AT_REMOVEDIR } else { 0 };
        // SAFETY: unlinkat(2) reads `name` during the call only.
        check(unsafe { libc::unlinkat(dir.as_raw_fd(), name.as_ptr(), flags) }).map(drop)
    }

    /// Creates the symlink `name` in `dir`, pointing at `target`.
    pub fn symlink(target: &CStr, dir: BorrowedFd<'_>, name: &CStr) -> io::Result<()> {
        // SAFETY: symlinkat(2) reads both strings during the call only.
        check(unsafe { libc::symlinkat(target.as_ptr(), dir.as_raw_fd(), name.as_ptr()) }).map(drop)
    }
}

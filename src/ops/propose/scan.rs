//! propose's scan: read every file in scope, run the edit, and for each
//! file it changes, hash and compress the new blob and, when no attribute
//! can apply to that file, write its diff while both contents are in
//! memory. A file an attribute source may reach (a `.gitattributes` in one
//! of its directories, tracked or not, or any source outside the working
//! tree) gets a place in the diff instead, filled by libgit2's tree diff
//! afterwards (`Changed::diff_at`). One thread reads, a second does the
//! rest, so the scan uses two cores.

use std::sync::atomic::{AtomicUsize, Ordering};

use git2::{ObjectType, Repository};

use super::SkippedFile;
use super::diff_out::ProposedDiff;
use crate::edit::{FileEdit, Replacer};
use crate::error::Result;
use crate::git::{self, BlobEntry, FilePatcher, NewObject, PackedObject};
use crate::progress::{self, Task};

/// A file the edit changed and the landing can write.
#[derive(Debug)]
pub(super) struct Changed {
    pub entry: BlobEntry,
    /// Replacements made in it.
    pub count: usize,
    pub object: NewObject,
    /// `None`: its diff is in `Scan::diff`. `Some(at)`: an attribute may
    /// apply to it, so its diff (by the tree diff) goes at byte `at` of
    /// `Scan::diff`, or, without one, in path order with the rest.
    pub diff_at: Option<u64>,
}

/// What the scan found.
#[derive(Debug, Default)]
pub(super) struct Scan {
    pub changed: Vec<Changed>,
    /// Replacements in `changed`.
    pub replacements: usize,
    pub binary: usize,
    /// Matched files whose path cannot be landed here.
    pub skipped: Vec<SkippedFile>,
    /// The diff of the `changed` files with no `diff_at`, when a
    /// `FilePatcher` was given.
    pub diff: Option<ProposedDiff>,
}

/// Why a changed file's path cannot be landed on this platform, if it cannot.
fn path_refusal(entry: &BlobEntry, path: &git::RepoPath) -> Option<String> {
    if cfg!(not(unix)) && entry.raw.is_some() {
        return Some(
            "its name is not valid UTF-8, which this platform's paths cannot carry".to_string(),
        );
    }
    git::confine::refusal(path).map(|why| format!("{why}, so it cannot be written here"))
}

impl Scan {
    /// Takes in one file's edit (on the editing thread).
    fn take(
        &mut self,
        entry: &BlobEntry,
        old: &[u8],
        edit: FileEdit,
        patcher: Option<&mut Patcher<impl FnMut(&git::RepoPath) -> bool>>,
    ) -> Result<()> {
        let (content, replacements) = match edit {
            FileEdit::Binary => {
                self.binary += 1;
                return Ok(());
            }
            FileEdit::Unchanged { .. } => return Ok(()),
            FileEdit::Changed {
                content,
                replacements,
            } => (content, replacements),
        };
        let path = entry.repo_path();
        if let Some(reason) = path_refusal(entry, &path) {
            self.skipped.push(SkippedFile::new(&path, reason));
            return Ok(());
        }
        let packed = PackedObject::blob(&content)?;
        let mut diff_at = None;
        if let (Some(patcher), Some(diff)) = (patcher, self.diff.as_mut()) {
            if patcher.unattributed(&path) {
                diff.push(
                    &patcher
                        .files
                        .patch(path.as_bytes(), entry.mode, old, &content)?,
                )?;
            } else {
                diff_at = Some(diff.len());
            }
        }
        // Few objects are written loose, from their content.
        let raw = (self.changed.len() < git::PACK_THRESHOLD).then_some((ObjectType::Blob, content));
        self.replacements += replacements;
        self.changed.push(Changed {
            entry: entry.clone(),
            count: replacements,
            object: NewObject { packed, raw },
            diff_at,
        });
        Ok(())
    }
}

/// What writes the diffs during the scan: the per-file patcher and the
/// test of whether an attribute may apply to a path (asked once per
/// directory in a row of files).
pub(super) struct Patcher<F> {
    pub files: FilePatcher,
    pub unattributed: F,
    last_dir: Option<(Vec<u8>, bool)>,
}

impl<F: FnMut(&git::RepoPath) -> bool> Patcher<F> {
    pub fn new(files: FilePatcher, unattributed: F) -> Self {
        Patcher {
            files,
            unattributed,
            last_dir: None,
        }
    }

    fn unattributed(&mut self, path: &git::RepoPath) -> bool {
        let bytes = path.as_bytes();
        let dir = &bytes[..bytes.iter().rposition(|&b| b == b'/').unwrap_or(0)];
        match &self.last_dir {
            Some((last, answer)) if last == dir => *answer,
            _ => {
                let answer = (self.unattributed)(path);
                self.last_dir = Some((dir.to_vec(), answer));
                answer
            }
        }
    }
}

/// Bytes of pack files libgit2 keeps mapped at once, in windows of
/// [`PACK_WINDOW`]: a scan reads every blob of the tree, and with
/// libgit2's defaults (1 GiB windows, no practical limit) each page of
/// every pack it touched stayed mapped, resident and counted in the
/// process's RSS until the end (43 MiB of a real-code propose's 168). Read
/// pages stay in the page cache; a window mapped again costs page-table
/// work only.
const PACK_MAPPED_LIMIT: usize = 16 << 20;
const PACK_WINDOW: usize = 4 << 20;

/// Sets libgit2's window size and mapped limit for packs (once per
/// process, before propose reads its first object: a window mapped before
/// stays as large as it was; see [`PACK_MAPPED_LIMIT`]).
#[allow(unsafe_code)]
pub(super) fn bound_mapped_packs() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: both are plain size_t settings libgit2 reads when it
        // maps a new window; they bound its cache of mappings and nothing
        // else, so a lookup that saw the old value in between is only
        // less frugal. Neither call can fail for these options.
        unsafe {
            let _ = git2::opts::set_mwindow_size(PACK_WINDOW);
            let _ = git2::opts::set_mwindow_mapped_limit(PACK_MAPPED_LIMIT);
        }
    });
}

/// Files handed from the reading to the editing thread at once: one
/// hand-over per file woke the editor 30,000 times for 30,000 small files.
/// `None`: a binary file (the reader saw a NUL where git looks for one).
type Batch<'o> = Vec<(usize, Option<Read<'o>>)>;

/// A blob as libgit2 read it, handed to the editing thread as it is: a
/// copy of every blob cost the reading thread, the critical path of a
/// large scan, a `memcpy` and fresh zeroed pages per file (382 MB on the
/// real-code benchmark).
struct Read<'o>(git2::OdbObject<'o>);

// SAFETY: a `git_odb_object` is immutable once read; the editing thread
// only reads its bytes and drops it, and libgit2 (built thread-safe)
// counts its references atomically and frees it with the thread-safe
// allocator. Blobs are not kept in libgit2's object cache, so no other
// thread shares it; the odb it came from outlives the scope the editor
// runs in.
#[allow(unsafe_code)]
unsafe impl Send for Read<'_> {}
const BATCH_FILES: usize = 64;
const BATCH_BYTES: usize = 1 << 20;

/// Reads the files on this thread and edits them on another. libgit2
/// serialises pack reads on a process-wide mutex, so several reading
/// threads only contend (on 100k files one thread took 141 ms where two
/// took 250 ms, see BENCHMARKS.md); one reader feeding an editor keeps
/// libgit2 on one thread and runs the regex, the hashing, the compression
/// and the diff beside it, as `git grep` runs its matchers beside the
/// thread that reads the objects.
pub(super) fn scan_files(
    repo: &Repository,
    files: &[BlobEntry],
    replacer: &Replacer,
    patcher: Option<Patcher<impl FnMut(&git::RepoPath) -> bool + Send>>,
) -> Result<Scan> {
    let odb = repo.odb()?;
    // Progress is reported from this (the calling) thread: the sink is
    // thread-local; the editor counts matches into `matched`.
    let matched = AtomicUsize::new(0);
    let total = files.len() as u64;
    progress::start(Task::Scan, "files", Some(total));
    let result = std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Batch>(4);
        let matched = &matched;
        let editor = s.spawn(move || -> Result<Scan> {
            let mut patcher = patcher;
            let mut scan = Scan {
                diff: patcher.as_ref().map(|_| ProposedDiff::default()),
                ..Scan::default()
            };
            for batch in rx {
                for (i, data) in batch {
                    let Some(object) = data else {
                        scan.binary += 1;
                        continue;
                    };
                    let data = object.0.data();
                    let edit = replacer.edit(data);
                    if matches!(edit, FileEdit::Changed { .. }) {
                        matched.fetch_add(1, Ordering::Relaxed);
                    }
                    scan.take(&files[i], data, edit, patcher.as_mut())?;
                }
            }
            Ok(scan)
        });
        let mut read = Ok(());
        let mut batch = Batch::new();
        let mut batch_bytes = 0;
        for (i, file) in files.iter().enumerate() {
            // Every 256 files: cheap next to reading them, often enough to see.
            if i % 256 == 0 {
                let n = matched.load(Ordering::Relaxed);
                progress::update(
                    Task::Scan,
                    i as u64,
                    Some(total),
                    Some(format!("{n} matched")),
                );
            }
            match odb.read(file.oid) {
                Ok(object) => {
                    if crate::edit::is_binary(object.data()) {
                        batch.push((i, None));
                    } else {
                        batch_bytes += object.len();
                        batch.push((i, Some(Read(object))));
                    }
                    if batch.len() == BATCH_FILES || batch_bytes >= BATCH_BYTES {
                        batch_bytes = 0;
                        // The editor stopped on an error: it reports it below.
                        if tx.send(std::mem::take(&mut batch)).is_err() {
                            break;
                        }
                    }
                }
                Err(e) => {
                    read = Err(e.into());
                    break;
                }
            }
        }
        if read.is_ok() && !batch.is_empty() {
            let _ = tx.send(batch);
        }
        drop(tx);
        let scan = editor.join().expect("the editing thread panicked");
        if let (Ok(()), Ok(scan)) = (&read, &scan) {
            // The last count is the total, so a listener sees the scan end.
            let n = scan.changed.len();
            progress::update(Task::Scan, total, Some(total), Some(format!("{n} matched")));
        }
        read.and(scan)
    });
    progress::finish(Task::Scan);
    result
}

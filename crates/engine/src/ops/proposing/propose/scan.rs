//! propose's scan: read every file in scope, run the edit, and for each
//! file it changes, hash and compress the new blob and, when no attribute
//! can apply to that file, write its diff while both contents are in
//! memory. A file an attribute source may reach (a `.gitattributes` in one
//! of its directories, tracked or not, or any source outside the working
//! tree) gets a place in the diff instead, filled by libgit2's tree diff
//! afterwards (`Changed::diff_at`).
//!
//! The files are cut into chunks of neighbours; one worker per core takes
//! the next chunk, reads its blobs (`git::objects::read`, which reads packs
//! on several threads where libgit2 would take them one at a time) and
//! edits them; the calling thread puts the chunks back in path order as
//! they come, so the diff and the list of changes are what one thread
//! would have made.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

use crate::git::Repo;

use super::SkippedFile;
use super::diff_out::ProposedDiff;
use crate::edit::{FileEdit, Replacer};
use crate::error::Result;
use crate::git::objects::read::{ObjectStore, Peek, Reader};
use crate::git::{self, BlobEntry, FilePatcher, NewObject, PackedObject};
use crate::progress::{Progress, Task};

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
    git::worktree::confine::refusal(path).map(|why| format!("{why}, so it cannot be written here"))
}

impl Scan {
    /// Takes in one file's edit (on the worker that read it).
    fn take(
        &mut self,
        entry: &BlobEntry,
        old: &[u8],
        edit: FileEdit,
        patcher: Option<&mut Patcher<impl FnMut(&git::RepoPath) -> bool>>,
        changed_before: &AtomicUsize,
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
        // Few objects are written loose, from their content: the first
        // ones changed (in any chunk) keep it.
        let keep = changed_before.fetch_add(1, Ordering::Relaxed) < git::PACK_THRESHOLD;
        let kept = keep.then_some(content);
        self.replacements += replacements;
        self.changed.push(Changed {
            entry: entry.clone(),
            count: replacements,
            object: NewObject::blob(packed, kept),
            diff_at,
        });
        Ok(())
    }

    /// Appends `part`, the scan of the files that follow this one's.
    fn append(&mut self, part: Scan) -> Result<()> {
        let shift = self.diff.as_ref().map_or(0, ProposedDiff::len);
        self.changed.extend(part.changed.into_iter().map(|mut c| {
            c.diff_at = c.diff_at.map(|at| at + shift);
            c
        }));
        self.replacements += part.replacements;
        self.binary += part.binary;
        self.skipped.extend(part.skipped);
        if let (Some(diff), Some(more)) = (self.diff.as_mut(), part.diff.as_ref()) {
            diff.append(more)?;
        }
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

/// Files per chunk: neighbours in path order, so a chunk's blobs often
/// share delta bases in one worker's cache, and small enough that two
/// workers finish together.
const CHUNK_FILES: usize = 128;
/// Chunks a worker may run ahead of the oldest one not yet put back in
/// order, per worker: bounds what waits in memory behind a large file.
const AHEAD_PER_WORKER: usize = 4;
/// Bytes of delta bases the workers keep, shared (git keeps 96 MiB): a
/// cache this size saves most of the re-inflating of shared bases, and a
/// larger one gains little more time for memory too close to propose's
/// 100 MB budget (issue 14 item 2; the figures are in BENCHMARKS.md).
const BASE_CACHE_BYTES: usize = 8 << 20;
/// Workers at most: reading and editing scale with cores, memory with
/// workers (each has its buffers, its blob in hand and its chunks in
/// flight).
const MAX_WORKERS: usize = 8;

/// Where the workers are: the next chunk to take, the first chunk not yet
/// put back in order (workers wait while they are too far ahead of it),
/// and whether to stop.
struct Schedule {
    next: AtomicUsize,
    merged: Mutex<usize>,
    moved: Condvar,
    stop: AtomicBool,
    ahead: usize,
}

impl Schedule {
    /// The next chunk for a worker, once it is not too far ahead; `None`
    /// when there is none left or the scan stopped.
    fn take(&self, chunks: usize) -> Option<usize> {
        let c = self.next.fetch_add(1, Ordering::Relaxed);
        if c >= chunks {
            return None;
        }
        let mut merged = self.merged.lock().unwrap_or_else(|e| e.into_inner());
        while c >= *merged + self.ahead && !self.stop.load(Ordering::Relaxed) {
            merged = self.moved.wait(merged).unwrap_or_else(|e| e.into_inner());
        }
        (!self.stop.load(Ordering::Relaxed)).then_some(c)
    }

    fn merged(&self, upto: usize) {
        *self.merged.lock().unwrap_or_else(|e| e.into_inner()) = upto;
        self.moved.notify_all();
    }

    fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
        let _lock = self.merged.lock().unwrap_or_else(|e| e.into_inner());
        self.moved.notify_all();
    }
}

/// Stops the scan when the worker holding it panics: the others would
/// otherwise wait forever for the chunk it never sends back (the scope
/// then passes the panic on).
struct StopOnPanic<'a>(&'a Schedule);

impl Drop for StopOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.stop();
        }
    }
}

/// Reads and edits `files` on one worker per core (see the module's
/// comment). `patcher` makes each worker's diff writer; `None`: no diff
/// is written during the scan. The files scanned are reported to
/// `progress`.
pub(super) fn scan_files<F>(
    repo: &Repo,
    files: &[BlobEntry],
    (replacer, progress): (&Replacer, &Progress),
    mut patcher: impl FnMut() -> Option<Patcher<F>>,
) -> Result<Scan>
where
    F: FnMut(&git::RepoPath) -> bool + Send,
{
    let store = ObjectStore::open(repo.common_dir(), BASE_CACHE_BYTES);
    let chunks = files.len().div_ceil(CHUNK_FILES);
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, MAX_WORKERS)
        .min(chunks.max(1));
    let work = Work {
        files,
        replacer,
        store: &store,
        chunks,
        schedule: Schedule {
            next: AtomicUsize::new(0),
            merged: Mutex::new(0),
            moved: Condvar::new(),
            stop: AtomicBool::new(false),
            ahead: AHEAD_PER_WORKER * workers,
        },
        changed_before: AtomicUsize::new(0),
        progress,
    };
    let patchers: Vec<Option<Patcher<F>>> = (0..workers).map(|_| patcher()).collect();
    let writes_diff = patchers.first().is_some_and(Option::is_some);
    progress.start(Task::Scan, "files", Some(files.len() as u64));
    let result = std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::channel::<(usize, Result<Scan>)>();
        for patcher in patchers {
            let (tx, work) = (tx.clone(), &work);
            s.spawn(move || work.worker(patcher, &tx));
        }
        drop(tx);
        work.in_order(rx, writes_diff)
    });
    progress.finish(Task::Scan);
    result
}

/// What the workers of one scan share.
struct Work<'a> {
    files: &'a [BlobEntry],
    replacer: &'a Replacer,
    store: &'a ObjectStore,
    chunks: usize,
    schedule: Schedule,
    changed_before: AtomicUsize,
    progress: &'a Progress,
}

impl Work<'_> {
    /// One worker: takes the next chunk, scans it and sends it back, until
    /// none is left, a chunk fails, or the scan stops.
    fn worker<F: FnMut(&git::RepoPath) -> bool>(
        &self,
        mut patcher: Option<Patcher<F>>,
        tx: &std::sync::mpsc::Sender<(usize, Result<Scan>)>,
    ) {
        let _stop = StopOnPanic(&self.schedule);
        let mut reader = match self.store.reader() {
            Ok(reader) => reader,
            Err(e) => {
                let _ = tx.send((self.schedule.next.load(Ordering::Relaxed), Err(e)));
                return;
            }
        };
        while let Some(c) = self.schedule.take(self.chunks) {
            let range = c * CHUNK_FILES..((c + 1) * CHUNK_FILES).min(self.files.len());
            let part = scan_chunk(
                &mut reader,
                &self.files[range],
                self.replacer,
                patcher.as_mut(),
                &self.changed_before,
            );
            let failed = part.is_err();
            if tx.send((c, part)).is_err() || failed {
                break;
            }
        }
    }

    /// Puts the chunks back in order as they arrive, into one scan.
    fn in_order(
        &self,
        rx: std::sync::mpsc::Receiver<(usize, Result<Scan>)>,
        writes_diff: bool,
    ) -> Result<Scan> {
        let total = self.files.len() as u64;
        let mut scan = Scan {
            diff: writes_diff.then(ProposedDiff::default),
            ..Scan::default()
        };
        let mut waiting = BTreeMap::new();
        let mut next = 0;
        let mut outcome = Ok(());
        for (c, part) in rx {
            match part {
                Ok(part) => {
                    waiting.insert(c, part);
                }
                Err(e) => {
                    outcome = Err(e);
                    break;
                }
            }
            while let Some(part) = waiting.remove(&next) {
                if let Err(e) = scan.append(part) {
                    outcome = Err(e);
                    break;
                }
                next += 1;
            }
            if outcome.is_err() {
                break;
            }
            self.schedule.merged(next);
            let done = ((next * CHUNK_FILES) as u64).min(total);
            let n = scan.changed.len();
            let matched = Some(format!("{n} matched"));
            self.progress.update(Task::Scan, done, Some(total), matched);
        }
        self.schedule.stop();
        match outcome {
            // Every chunk came back (a worker that died without sending
            // one panicked, and the scope passes that on).
            Ok(()) if next == self.chunks => Ok(scan),
            Ok(()) => Err(crate::error::Error::Internal {
                at: "propose's scan",
                message: "the scan stopped before reading every file".into(),
            }),
            Err(e) => Err(e),
        }
    }
}

/// Reads and edits one chunk of files.
fn scan_chunk<F: FnMut(&git::RepoPath) -> bool>(
    reader: &mut Reader<'_>,
    files: &[BlobEntry],
    replacer: &Replacer,
    mut patcher: Option<&mut Patcher<F>>,
    changed_before: &AtomicUsize,
) -> Result<Scan> {
    let mut part = Scan {
        diff: patcher.is_some().then(ProposedDiff::default),
        ..Scan::default()
    };
    // git's test for binary content looks at the first 8,000 bytes only.
    let binary = Peek {
        len: crate::edit::BINARY_SNIFF_LEN,
        skip: &crate::edit::is_binary,
    };
    for file in files {
        let Some(data) = reader.blob_unless(file.oid, &binary)? else {
            part.binary += 1;
            continue;
        };
        let edit = replacer.edit(&data);
        part.take(file, &data, edit, patcher.as_deref_mut(), changed_before)?;
    }
    Ok(part)
}

//! propose's scan: read every file in scope, run the edit, and for each
//! file it changes, hash and compress the new blob and (when no attribute
//! can apply) write its diff while both contents are in memory. One
//! thread reads, a second does the rest, so the scan uses two cores.

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
    /// The diff of `changed`, when a `FilePatcher` was given.
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
        patcher: Option<&FilePatcher>,
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
        if let (Some(patcher), Some(diff)) = (patcher, self.diff.as_mut()) {
            diff.push(&patcher.patch(path.as_bytes(), entry.mode, old, &content)?)?;
        }
        // Few objects are written loose, from their content.
        let raw = (self.changed.len() < git::PACK_THRESHOLD).then_some((ObjectType::Blob, content));
        self.replacements += replacements;
        self.changed.push(Changed {
            entry: entry.clone(),
            count: replacements,
            object: NewObject { packed, raw },
        });
        Ok(())
    }
}

/// Files handed from the reading to the editing thread at once: one
/// hand-over per file woke the editor 30,000 times for 30,000 small files.
type Batch = Vec<(usize, Vec<u8>)>;
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
    patcher: Option<FilePatcher>,
) -> Result<Scan> {
    let odb = repo.odb()?;
    // Progress is reported from this (the calling) thread: the sink is
    // thread-local; the editor counts matches into `matched`.
    let matched = AtomicUsize::new(0);
    let total = files.len() as u64;
    progress::start(Task::Scan, "files", Some(total));
    let result = std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Batch>(8);
        let matched = &matched;
        let editor = s.spawn(move || -> Result<Scan> {
            let mut scan = Scan {
                diff: patcher.map(|_| ProposedDiff::default()),
                ..Scan::default()
            };
            for batch in rx {
                for (i, data) in batch {
                    let edit = replacer.edit(&data);
                    if matches!(edit, FileEdit::Changed { .. }) {
                        matched.fetch_add(1, Ordering::Relaxed);
                    }
                    scan.take(&files[i], &data, edit, patcher.as_ref())?;
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
                    batch_bytes += object.len();
                    batch.push((i, object.data().to_vec()));
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

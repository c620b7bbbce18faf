//! The landing journal, `<git-dir>/evolv/journal`: what a landing is about
//! to do (the branch, H and N, each changed path's pre- and post-image, the
//! bookkeeping refs and audit records), written by temp file + fsync +
//! rename before the branch moves (or, where the file system commits every
//! name change in order, its data waited for: `write_ordered`), deleted
//! when the landing is complete. A
//! journal that outlives its process is what `git evolv recover` finishes or
//! undoes. Reads and writes this one file; decides nothing.

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::git::{Oid, objects::view::Tree};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::git::{Repo, RepoPath, TreeLookup, repo::durable};
use crate::store::audit::AuditRecord;

/// The journal format; a reader refuses newer ones. Version 2 is version 1
/// plus paths that are not UTF-8, written `{"hex": "…"}` (see
/// `git::types::path::lossless`); a journal without such a path is still written
/// as version 1, so an older git-evolv can recover it.
const VERSION: u32 = 2;

/// What kind of move the journal covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A landing: the branch moves from `old` to `new` before any file does.
    Land,
    /// Undoing a failed landing: `old` is the landed commit, `new` restores
    /// the head before it; recovery completes it even if the branch has not
    /// moved yet, so an undo never stops half-way.
    Undo,
}

/// A blob (or symlink, or gitlink) at a path, with its mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Image {
    #[serde(with = "oid_hex")]
    pub id: Oid,
    pub mode: u32,
}

/// One changed path: its content at `old` and at `new` (`None`: absent).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Change {
    /// The path's bytes: a JSON string when UTF-8, `{"hex": "…"}` otherwise.
    #[serde(with = "crate::git::types::path::lossless")]
    pub path: RepoPath,
    pub before: Option<Image>,
    pub after: Option<Image>,
}

/// A bookkeeping ref to set (or delete, when `target` is `None`) once the
/// working tree is done.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefUpdate {
    pub name: String,
    pub target: Option<String>,
}

/// Everything recovery needs to finish or undo a landing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Journal {
    pub version: u32,
    pub kind: Kind,
    /// Written into `index.lock` when git-evolv creates it, so recovery
    /// knows the lock is its own.
    pub nonce: String,
    /// The ref that moves (`refs/heads/<b>`, or `HEAD` when detached).
    pub branch: String,
    #[serde(with = "oid_hex")]
    pub old: Oid,
    #[serde(with = "oid_hex")]
    pub new: Oid,
    pub reflog: String,
    pub changes: Vec<Change>,
    pub refs: Vec<RefUpdate>,
    pub audit: Vec<AuditRecord>,
    /// When the landing began (ns since the epoch): an empty ref lock newer
    /// than this may be one a killed libgit2 ref update left.
    #[serde(default)]
    pub started_ns: u64,
    /// The trailing checksum of the index bytes put into `index.lock`,
    /// recorded before they are, so that lock is recognised as ours too.
    pub index_checksum: Option<String>,
    /// The landing writes its files where they stand once the branch has
    /// moved (nothing staged ahead, `landing::stage`): a path found
    /// missing is one it had removed and not yet written again. Absent
    /// (false) in journals of earlier versions, which staged every file.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub in_place: bool,
}

impl Journal {
    /// A journal for moving `branch` from `old` to `new` over `paths`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        repo: &Repo,
        kind: Kind,
        branch: &str,
        old: Oid,
        new: Oid,
        old_tree: &Tree<'_>,
        new_tree: &Tree<'_>,
        paths: &[RepoPath],
        reflog: &str,
    ) -> Self {
        let image = |tree: &mut TreeLookup<'_>, path: &RepoPath| {
            // A directory is no image: its files are changes of their own.
            tree.get(path)
                .filter(|e| e.kind != crate::git::objects::view::Kind::Tree)
                .map(|e| Image {
                    id: e.id,
                    mode: e.mode,
                })
        };
        let (mut before, mut after) = (
            TreeLookup::new(repo, old_tree),
            TreeLookup::new(repo, new_tree),
        );
        let changes: Vec<Change> = paths
            .iter()
            .map(|p| Change {
                path: p.clone(),
                before: image(&mut before, p),
                after: image(&mut after, p),
            })
            .collect();
        let version = if changes.iter().all(|c| c.path.to_str().is_some()) {
            1
        } else {
            VERSION
        };
        Journal {
            version,
            kind,
            nonce: nonce(new),
            started_ns: now_ns(),
            branch: branch.to_string(),
            old,
            new,
            reflog: reflog.to_string(),
            changes,
            refs: Vec::new(),
            audit: Vec::new(),
            index_checksum: None,
            in_place: false,
        }
    }

    /// Writes the journal: temp file, fsync, rename, fsync of the directory.
    pub fn write(&self, repo: &Repo) -> Result<()> {
        self.write_with(repo, true)
    }

    /// `write` without flushing to disk: whole after a kill (the page cache
    /// survives it), possibly the previous journal after a power cut.
    pub fn write_unflushed(&self, repo: &Repo) -> Result<()> {
        self.write_with(repo, false)
    }

    /// `write` for a journal that must be durable no later than the
    /// branch's move: where the file system commits every name change in
    /// order (`durable::ordered`), its data is only waited for, and the
    /// move cannot be committed without it (`durable::order`), saving the
    /// flushes of the file system's journal git never makes before it moves
    /// a branch. Elsewhere it is `write`.
    pub fn write_ordered(&self, repo: &Repo) -> Result<()> {
        if !durable::ordered(repo) {
            return self.write(repo);
        }
        self.write_with(repo, false)?;
        durable::settle(repo, [path(repo)])
    }

    fn write_with(&self, repo: &Repo, flush: bool) -> Result<()> {
        // With flushing off (`core.fsync=none`) not even the journal is
        // flushed: a crash still loses nothing (the page cache survives).
        let flush = flush && durable::flushes(repo);
        let path = path(repo);
        let dir = path.parent().expect("the journal has a directory");
        fs::create_dir_all(dir).map_err(|e| Error::io("create", dir, e))?;
        let tmp = tmp_path(repo);
        // Compact: a 3,000-file landing's journal is written twice, and
        // laid out for reading it took a tenth of the landing's own time.
        let bytes = serde_json::to_vec(self).expect("journals serialise");
        let mut file = File::create(&tmp).map_err(|e| Error::io("create", &tmp, e))?;
        file.write_all(&bytes)
            .and_then(|()| if flush { file.sync_all() } else { Ok(()) })
            .map_err(|e| Error::io("write", &tmp, e))?;
        fs::rename(&tmp, &path).map_err(|e| Error::io("rename into place", &path, e))?;
        if flush {
            sync_dir(dir);
        }
        Ok(())
    }

    /// Deletes the journal: the landing is complete (or undone).
    pub fn delete(repo: &Repo) -> Result<()> {
        let path = path(repo);
        match fs::remove_file(&path) {
            Ok(()) => {
                // Where the file system keeps its name changes in order
                // (`durable::ordered`), a deletion lost to a power
                // cut brings back only a journal whose landing is complete
                // (anything later that survived implies the deletion did),
                // which recovery finishes again: no flush of its own.
                if !durable::ordered(repo) && durable::flushes(repo) {
                    sync_dir(path.parent().expect("the journal has a directory"));
                }
                Ok(())
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(Error::io("remove", &path, e)),
        }
    }

    /// The pending journal, if any. A half-written temp file is no journal
    /// (the rename never happened) and is removed.
    pub fn read(repo: &Repo) -> Result<Option<Journal>> {
        let _ = fs::remove_file(tmp_path(repo));
        let path = path(repo);
        let bytes = match fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io("read", &path, e)),
        };
        parse(&bytes)
            .map(Some)
            .map_err(|detail| Error::UnreadableJournal { path, detail })
    }

    /// Moves an unreadable journal out of the way, to
    /// `journal.unreadable.<ns>` beside it (kept for whoever wants to read
    /// it), and returns where.
    pub fn set_aside(repo: &Repo) -> Result<PathBuf> {
        let from = path(repo);
        let to = from.with_file_name(format!("journal.unreadable.{}", now_ns()));
        fs::rename(&from, &to).map_err(|e| Error::io("set aside", &from, e))?;
        sync_dir(from.parent().expect("the journal has a directory"));
        Ok(to)
    }

    /// Whether a journal is pending (one stat, for every command's start).
    pub fn exists(repo: &Repo) -> bool {
        path(repo).exists()
    }
}

/// Parses journal bytes. Pure: also the fuzzing entry point.
pub fn parse(bytes: &[u8]) -> std::result::Result<Journal, String> {
    let journal: Journal = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
    if journal.version > VERSION {
        return Err(format!(
            "format version {} is newer than this git-evolv understands ({VERSION})",
            journal.version
        ));
    }
    for change in &journal.changes {
        if let Some(why) = crate::git::worktree::confine::refusal(&change.path) {
            return Err(format!("path {}: {why}", change.path));
        }
    }
    Ok(journal)
}

/// `<git-dir>/evolv/journal`.
pub fn path(repo: &Repo) -> PathBuf {
    repo.git_dir().join("evolv").join("journal")
}

fn tmp_path(repo: &Repo) -> PathBuf {
    repo.git_dir().join("evolv").join("journal.tmp")
}

fn nonce(new: Oid) -> String {
    format!(
        "{}-{}-{}",
        std::process::id(),
        &new.to_string()[..12],
        crate::clock::unique()
    )
}

/// Nanoseconds since the epoch, real time: compared with lock files'
/// modification times during recovery, so never the test clock.
pub fn now_ns() -> u64 {
    crate::clock::real_now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

fn sync_dir(dir: &Path) {
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

mod oid_hex {
    use crate::git::Oid;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(oid: &Oid, s: S) -> Result<S::Ok, S::Error> {
        // Spelled out on the stack (room for SHA-256): thousands of ids a
        // journal.
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let bytes = oid.as_bytes();
        let mut text = [0u8; 64];
        for (pair, byte) in text.chunks_exact_mut(2).zip(bytes) {
            pair[0] = HEX[usize::from(byte >> 4)];
            pair[1] = HEX[usize::from(byte & 0xf)];
        }
        s.serialize_str(std::str::from_utf8(&text[..2 * bytes.len()]).unwrap_or_default())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Oid, D::Error> {
        let text = String::deserialize(d)?;
        Oid::parse(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Journal {
        let a = Oid::parse("1111111111111111111111111111111111111111").unwrap();
        let b = Oid::parse("2222222222222222222222222222222222222222").unwrap();
        Journal {
            version: VERSION,
            kind: Kind::Land,
            nonce: "n".into(),
            branch: "refs/heads/main".into(),
            old: a,
            new: b,
            reflog: "evolv: apply x".into(),
            changes: vec![Change {
                path: "src/a.rs".into(),
                before: Some(Image {
                    id: a,
                    mode: crate::git::types::mode::BLOB,
                }),
                after: None,
            }],
            refs: vec![RefUpdate {
                name: "refs/evolv/applied/x".into(),
                target: Some(b.to_string()),
            }],
            audit: Vec::new(),
            started_ns: 1,
            index_checksum: None,
            in_place: false,
        }
    }

    #[test]
    fn a_journal_round_trips() {
        let j = sample();
        let bytes = serde_json::to_vec(&j).unwrap();
        assert_eq!(parse(&bytes).unwrap(), j);
    }

    #[test]
    fn a_path_that_is_not_utf8_round_trips_losslessly() {
        // See: issue 16 item 7.
        let mut j = sample();
        j.changes[0].path = RepoPath::from_bytes(&b"d\xffir/caf\xe9.txt"[..]);
        let bytes = serde_json::to_vec(&j).unwrap();
        let text = String::from_utf8(bytes.clone()).unwrap();
        assert!(
            text.contains(r#"{"hex":"64ff69722f636166e92e747874"}"#),
            "{text}"
        );
        assert_eq!(parse(&bytes).unwrap(), j);
    }

    #[test]
    fn torn_or_hostile_journals_are_errors_not_panics() {
        let bytes = serde_json::to_vec(&sample()).unwrap();
        for cut in 0..bytes.len() {
            assert!(parse(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut evil = sample();
        evil.changes[0].path = "../../etc/passwd".into();
        assert!(parse(&serde_json::to_vec(&evil).unwrap()).is_err());
        evil.changes[0].path = RepoPath::from_bytes(&b"x/../../\xff"[..]);
        assert!(parse(&serde_json::to_vec(&evil).unwrap()).is_err());
        let mut newer = sample();
        newer.version = VERSION + 1;
        assert!(parse(&serde_json::to_vec(&newer).unwrap()).is_err());
    }
}

//! The per-clone mark: a keyed double hash `sha1(secret ‖ sha1(secret ‖
//! text))` with a secret that never leaves this clone
//! (`<common dir>/evolv/verdict-secret`, the name it had when verdicts were
//! its only users). Everything under `refs/evolv/` can arrive by fetch or
//! push; only a record carrying this clone's mark was written here, so
//! only such records are acted on (verdicts that skip validation, op-log
//! records that undo and redo act on). One secret and one function for
//! all of them: callers put a domain of their own into `text`.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use sha1::{Digest, Sha1};

use super::verdict_key::hex;
use crate::error::{Error, Result};
use crate::git::Repo;

/// This clone's secret, read once for many marks.
pub struct CloneKey {
    secret: Vec<u8>,
}

impl CloneKey {
    /// The secret, made on first use (a writer needs it).
    pub fn load(repo: &Repo) -> Result<CloneKey> {
        Ok(CloneKey {
            secret: secret(repo)?,
        })
    }

    /// A key with a secret of the caller's (a server checks CI's verdicts
    /// with the secret it shares with CI).
    pub fn with_secret(secret: &[u8]) -> CloneKey {
        CloneKey {
            secret: secret.to_vec(),
        }
    }

    /// The secret if this clone has one (a reader: with none, nothing
    /// was marked here, and reading makes no file).
    pub fn existing(repo: &Repo) -> Option<CloneKey> {
        let bytes = std::fs::read(secret_path(repo)).ok()?;
        (bytes.len() == 32).then_some(CloneKey { secret: bytes })
    }

    /// The mark of `text`: 40 hex digits.
    pub fn mark(&self, text: &str) -> String {
        let inner = Sha1::new()
            .chain_update(&self.secret)
            .chain_update(text.as_bytes())
            .finalize();
        hex(&Sha1::new()
            .chain_update(&self.secret)
            .chain_update(inner)
            .finalize())
    }

    /// Whether `given` is the mark of `text`, compared in constant time.
    pub fn verify(&self, text: &str, given: &str) -> bool {
        constant_time_eq(given.as_bytes(), self.mark(text).as_bytes())
    }
}

/// The mark of `text` under this clone's secret (made on first use).
pub fn mark(repo: &Repo, text: &str) -> Result<String> {
    Ok(CloneKey::load(repo)?.mark(text))
}

fn secret_path(repo: &Repo) -> PathBuf {
    repo.common_dir().join("evolv").join("verdict-secret")
}

/// This clone's secret: 32 random bytes, made on first use (every first
/// command of a clone appends a record, so this is on its path). Linked
/// into place so two first uses agree on one secret. Flushed only where
/// git flushes a ref (`core.fsync`), as the records it marks are: a power
/// cut may lose it only where it may lose them too, and a secret lost or
/// torn is made again, which leaves what it marked unmarked: refused,
/// never trusted.
pub fn secret(repo: &Repo) -> Result<Vec<u8>> {
    let path = secret_path(repo);
    let torn = match std::fs::read(&path) {
        Ok(bytes) if bytes.len() == 32 => return Ok(bytes),
        Ok(_) => true,
        Err(_) => false,
    };
    let flush = crate::git::repo::durable::flushes_refs(repo);
    let dir = path.parent().expect("secret has a folder");
    std::fs::create_dir_all(dir).map_err(|e| Error::io("create", dir, e))?;
    let mut fresh = [0u8; 32];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut fresh))
        .map_err(|e| Error::io("read", Path::new("/dev/urandom"), e))?;
    let tmp = dir.join(format!("verdict-secret.{}", crate::clock::unique()));
    std::fs::File::create(&tmp)
        .and_then(|mut f| {
            f.write_all(&fresh)
                .and_then(|()| if flush { f.sync_all() } else { Ok(()) })
        })
        .map_err(|e| Error::io("write", &tmp, e))?;
    if torn {
        // What a power cut left of one: replaced whole.
        std::fs::rename(&tmp, &path).map_err(|e| Error::io("rename", &tmp, e))?;
    } else {
        // A hard link fails when another process made the secret first;
        // its secret wins and ours is dropped.
        let _ = std::fs::hard_link(&tmp, &path);
        let _ = std::fs::remove_file(&tmp);
    }
    if flush {
        std::fs::File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| Error::io("flush", dir, e))?;
    }
    let bytes = std::fs::read(&path).map_err(|e| Error::io("read", &path, e))?;
    if bytes.len() != 32 {
        return Err(Error::io(
            "read",
            &path,
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "this clone's secret is not 32 bytes; remove the file and run the command again",
            ),
        ));
    }
    Ok(bytes)
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

//! An object id, the adapter's own: the layers above name objects by it
//! and never see libgit2's type. Converting to and from libgit2's id costs
//! nothing (the same 20 bytes); only this crate can do it.

use std::fmt;
use std::str::FromStr;

use evolv_core::error::{Error, GitCause, GitDoing, GitFailure, Result};

/// A git object id (SHA-1).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Oid(git2::Oid);

impl Oid {
    /// All zeros: git's "no object" (a ref created or deleted).
    pub fn zero() -> Oid {
        Oid(git2::Oid::zero())
    }

    pub fn is_zero(&self) -> bool {
        self.0.is_zero()
    }

    /// The raw bytes.
    pub fn as_bytes(&self) -> &[u8] {
        self.0.as_bytes()
    }

    /// The id of raw `bytes` (20 of them).
    pub fn from_bytes(bytes: &[u8]) -> Result<Oid> {
        git2::Oid::from_bytes(bytes)
            .map(Oid)
            .map_err(|e| crate::library_error("read an object id", e))
    }

    /// The id of a `blob` holding `content`, as `git hash-object` computes it.
    pub fn of_blob(content: &[u8]) -> Oid {
        Oid(git2::Oid::hash_object(git2::ObjectType::Blob, content)
            .expect("hashing bytes cannot fail"))
    }

    /// The id `text` spells out in hex (40 digits; fewer are padded with
    /// zeros, as libgit2 reads them).
    pub fn parse(text: &str) -> Result<Oid> {
        text.parse()
    }

    /// The first `n` hex digits.
    pub fn short(&self, n: usize) -> String {
        let mut s = self.to_string();
        s.truncate(n);
        s
    }

    /// The id of an object of `kind` holding `content`.
    pub(crate) fn hash_object(kind: git2::ObjectType, content: &[u8]) -> Result<Oid> {
        git2::Oid::hash_object(kind, content).map(Oid).map_err(|e| {
            crate::library_error(
                GitDoing::new("hash an object").said(format!("hash a {kind}")),
                e,
            )
        })
    }

    pub(crate) fn raw(self) -> git2::Oid {
        self.0
    }
}

impl From<git2::Oid> for Oid {
    fn from(id: git2::Oid) -> Oid {
        Oid(id)
    }
}

impl From<Oid> for git2::Oid {
    fn from(id: Oid) -> git2::Oid {
        id.0
    }
}

impl FromStr for Oid {
    type Err = Error;

    fn from_str(text: &str) -> Result<Oid> {
        git2::Oid::from_str(text)
            .map(Oid)
            .map_err(|e| Error::GitLibrary {
                doing: GitDoing::new("read an object id").said(format!("read object id '{text}'")),
                source: GitCause {
                    message: e.message().to_string(),
                    kind: GitFailure::Other,
                },
            })
    }
}

impl fmt::Display for Oid {
    /// Hex, padded as a `str` is (as libgit2's own Display does), written
    /// here without a call into libgit2: `list` prints 20,000 of them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut buf = [0u8; 64];
        let bytes = self.as_bytes();
        for (i, b) in bytes.iter().enumerate() {
            buf[2 * i] = HEX[usize::from(b >> 4)];
            buf[2 * i + 1] = HEX[usize::from(b & 15)];
        }
        let hex = std::str::from_utf8(&buf[..2 * bytes.len()]).map_err(|_| fmt::Error)?;
        // `pad` counts the characters even when there is nothing to pad:
        // a sixth of `list`'s own work at 10,000 proposals.
        if f.width().is_none() && f.precision().is_none() {
            f.write_str(hex)
        } else {
            f.pad(hex)
        }
    }
}

impl fmt::Debug for Oid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

#[cfg(test)]
mod tests {
    use super::Oid;

    /// Plain, it is the 40 hex digits; a width or precision pads or cuts
    /// them as it would a `str` (`{:.7}` is a short id).
    #[test]
    fn an_id_prints_as_hex_padded_as_a_str() {
        let hex = "3fa9c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8";
        let oid = Oid::parse(hex).unwrap();
        assert_eq!(oid.to_string(), hex);
        assert_eq!(format!("{oid:.7}"), &hex[..7]);
        assert_eq!(format!("{oid:>42}"), format!("  {hex}"));
        assert_eq!(format!("[{oid:<12.4}]"), "[3fa9        ]");
    }
}

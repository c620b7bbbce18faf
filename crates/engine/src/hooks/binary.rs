//! The hook binary, `git-evolv-hook` (src/bin/git-evolv-hook.rs): a small
//! executable that runs only the commit-msg and pre-push hooks, built from
//! the same library code as `git-evolv` (no command-line parser, no libgit2
//! repository), so a commit pays for little more than the exec of a no-op
//! (issue 14 item 5). `hooks install` copies it into the hooks folder as
//! a real file: whatever later writes that hook by opening the path (`cp
//! my-hook .git/hooks/commit-msg`, a hook manager) writes into the copy,
//! never into an installed binary.
//!
//! A copy is recognised by the identification string the binary embeds,
//! `<ID><version>\0`, and compared by content with the hook binary beside
//! the running `git-evolv`: a copy that differs (an upgrade since) is
//! stale, and `hooks install` refreshes it.

use std::fs;
use std::path::{Path, PathBuf};

use sha1::{Digest, Sha1};

use crate::error::{Error, Hinted, Result};

/// The hook binary's file name; `cargo install` puts it beside `git-evolv`.
pub const NAME: &str = "git-evolv-hook";

/// The version both binaries are built as.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The identification prefix, kept reversed so that only the hook binary
/// holds it as-is (embedded through [`EMBEDDED_ID`]): a search of
/// `git-evolv` itself, or of a script quoting this file, finds nothing.
const ID_REVERSED: &str = "=noisrev deddebme kooh-vlove-tig";

const EMBEDDED_LEN: usize = ID_REVERSED.len() + VERSION.len() + 1;

/// What the hook binary embeds (`#[used]`): the prefix, the version, `\0`.
/// A constant: evaluated into the hook binary, never into `git-evolv`.
pub const EMBEDDED_ID: [u8; EMBEDDED_LEN] = {
    let mut out = [0u8; EMBEDDED_LEN];
    let prefix = ID_REVERSED.as_bytes();
    let mut i = 0;
    while i < prefix.len() {
        out[i] = prefix[prefix.len() - 1 - i];
        i += 1;
    }
    let version = VERSION.as_bytes();
    let mut j = 0;
    while j < version.len() {
        out[prefix.len() + j] = version[j];
        j += 1;
    }
    out
};

fn id_prefix() -> Vec<u8> {
    ID_REVERSED.bytes().rev().collect()
}

/// The version a hook binary's bytes carry; `None` for any other file.
/// A script (`#!`) is never one, whatever it quotes.
pub fn version_of(bytes: &[u8]) -> Option<String> {
    if bytes.starts_with(b"#!") {
        return None;
    }
    let prefix = id_prefix();
    let at = bytes.windows(prefix.len()).position(|w| w == prefix)? + prefix.len();
    let rest = &bytes[at..];
    let end = rest.iter().take(64).position(|b| *b == 0)?;
    let version = std::str::from_utf8(&rest[..end]).ok()?;
    Some(version.to_string())
}

/// A short content digest, to tell two builds of one version apart.
pub fn digest(bytes: &[u8]) -> String {
    let sum = Sha1::digest(bytes);
    sum.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

/// The hook binary beside `git_evolv` (the running executable).
pub fn beside(git_evolv: &Path) -> PathBuf {
    git_evolv.with_file_name(NAME)
}

/// The hook binary the running `git-evolv` would install, if it is there.
pub fn current() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    Some(beside(&exe)).filter(|p| p.is_file())
}

/// The hook binary beside `git_evolv`, or the error that names the missing
/// file and how to get it.
pub fn require(git_evolv: &Path) -> Result<PathBuf> {
    let path = beside(git_evolv);
    match fs::metadata(&path) {
        Ok(m) if m.is_file() => Ok(path),
        other => {
            let source = match other {
                Err(e) => e,
                Ok(_) => std::io::Error::other("not a file"),
            };
            Err(Error::Hinted(Box::new(Hinted {
                error: Error::io("find the hook binary", &path, source),
                hint: format!(
                    "`git evolv hooks install` copies {NAME} into the hooks folder, and it must be \
                     beside {}: reinstall git-evolv with `cargo install --locked --path .` \
                     (it installs both binaries), or build both with `cargo build --bins`",
                    git_evolv.display()
                ),
            })))
        }
    }
}

/// Copies the hook binary to `dest`: a temp file in the same folder, mode
/// 0755, renamed over `dest`, so git never sees a half-written hook and
/// whatever `dest` was (our old link to `git-evolv` included) is replaced,
/// never written through.
pub fn copy_to(source: &Path, dest: &Path) -> Result<()> {
    let bytes = fs::read(source).map_err(|e| Error::io("read", source, e))?;
    if version_of(&bytes).is_none() {
        return Err(Error::invalid(
            format!("{} is not git-evolv's hook binary", source.display()),
            format!(
                "reinstall git-evolv with `cargo install --locked --path .`, which puts {NAME} beside it"
            ),
        ));
    }
    super::executable::replace_with_executable(dest, &bytes, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_id_reads_back_as_the_version() {
        let mut fake = b"\x7fELF....".to_vec();
        fake.extend_from_slice(&EMBEDDED_ID);
        fake.extend_from_slice(b"more");
        assert_eq!(version_of(&fake).as_deref(), Some(VERSION));
        assert!(EMBEDDED_ID.starts_with(b"git-evolv-hook embedded version="));
        // A script that quotes it is not a hook binary.
        let mut script = b"#!/bin/sh\n# ".to_vec();
        script.extend_from_slice(&EMBEDDED_ID);
        assert_eq!(version_of(&script), None);
        assert_eq!(version_of(b"\x7fELF no id"), None);
        assert_ne!(digest(b"a"), digest(b"b"));
    }
}

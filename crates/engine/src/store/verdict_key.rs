//! The key of a verdict: everything that can change a command's answer on
//! a tree. Two runs share a verdict only when every part is equal:
//!
//! - the tree id;
//! - the commands, in order, each as the argv its own `sh -c` is given
//!   (a set of validators is a list, never one joined shell string);
//! - the values of the environment variables named in `evolv.test.env`
//!   (an unset variable differs from an empty one);
//! - the toolchain fingerprint: the output and exit status of each command
//!   in `evolv.test.fingerprint`, run each time a key is made (a
//!   long-lived process, `git evolv mcp`, sees a toolchain change);
//! - the content of each path in `evolv.test.inputs` (relative to the top
//!   of the work tree; a missing file is a value of its own); a directory
//!   by every file under it (see [`dir_hash`]).
//!
//! The key is the SHA-1 of a canonical text of those parts, one per line,
//! each length-prefixed so no two different inputs give the same text.

use evolv_core::comma_list::split_comma_list;
use std::path::Path;

use sha1::{Digest, Sha1};

use crate::error::Result;
use crate::git::{Oid, Repo};

/// What a verdict's key is made of, kept to say why two keys differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyParts {
    pub tree: Oid,
    /// Each command of the set, in order.
    pub commands: Vec<String>,
    /// `(name, value)`, `None` when unset, in the order declared.
    pub env: Vec<(String, Option<String>)>,
    /// The hash of the fingerprint commands' outputs ("" when none).
    pub fingerprint: String,
    /// `(path, content hash or "missing")`, in the order declared.
    pub inputs: Vec<(String, String)>,
}

impl KeyParts {
    /// The parts for `command` on `tree`, read from the repository's
    /// config, the process environment and the work tree.
    pub fn gather(repo: &Repo, tree: Oid, commands: &[String]) -> Result<KeyParts> {
        let config = repo.config()?;
        let env = config
            .all("evolv.test.env")
            .into_iter()
            .flat_map(split_comma_list)
            .map(|name| {
                let value = std::env::var(&name).ok();
                (name, value)
            })
            .collect();
        let fingerprints: Vec<String> = config
            .all("evolv.test.fingerprint")
            .into_iter()
            .map(str::to_string)
            .collect();
        let root = repo.workdir().unwrap_or_else(|| repo.common_dir());
        let inputs = config
            .all("evolv.test.inputs")
            .into_iter()
            .flat_map(split_comma_list)
            .map(|path| {
                let hash = input_hash(&root.join(&path));
                (path, hash)
            })
            .collect();
        Ok(KeyParts {
            tree,
            commands: commands.to_vec(),
            env,
            fingerprint: fingerprint(&fingerprints, root),
            inputs,
        })
    }

    /// The key: 40 hex digits.
    pub fn key(&self) -> String {
        let mut h = Sha1::new();
        let mut field = |tag: &str, value: &str| {
            h.update(format!("{tag} {}\n", value.len()).as_bytes());
            h.update(value.as_bytes());
            h.update(b"\n");
        };
        field("tree", &self.tree.to_string());
        // The count first: no set of commands reads as another, and no
        // key of a joined `a && b` string (before each validator ran on
        // its own) is ever made again.
        field("commands", &self.commands.len().to_string());
        for command in &self.commands {
            field("command", command);
        }
        for (name, value) in &self.env {
            field("env-name", name);
            match value {
                Some(v) => field("env-value", v),
                None => field("env-unset", ""),
            }
        }
        field("fingerprint", &self.fingerprint);
        for (path, hash) in &self.inputs {
            field("input", path);
            field("input-hash", hash);
        }
        hex(&h.finalize())
    }
}

/// A file's blob id, a directory's [`dir_hash`], or "missing" when it
/// cannot be read.
fn input_hash(path: &Path) -> String {
    // Followed: a declared input that is a link to a directory is that
    // directory (links inside it are not followed).
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => dir_hash(path),
        _ => crate::git::hash_blob_file(path)
            .map_or_else(|_| "missing".to_string(), |o| o.to_string()),
    }
}

/// A directory by its content: every file under it, at any depth, by its
/// path (relative, as bytes) and its blob id, in byte order of the paths;
/// a symbolic link by its target (not followed); an unreadable entry by
/// its path and "unreadable". A `.git` inside is left out (another
/// repository's bookkeeping). Files git ignores are not left out: an
/// input directory is often ignored itself (`node_modules/`), and what
/// it holds is exactly what the key must see.
fn dir_hash(dir: &Path) -> String {
    let mut entries = Vec::new();
    collect(dir, Path::new(""), &mut entries);
    entries.sort();
    let mut h = Sha1::new();
    h.update(b"dir\n");
    for (path, value) in entries {
        h.update(format!("{} ", path.len()).as_bytes());
        h.update(&path);
        h.update(format!(" {value}\n").as_bytes());
    }
    format!("dir:{}", hex(&h.finalize()))
}

/// Every entry under `dir` (at `rel` from the input's top) but
/// directories: `(relative path bytes, what it is)`.
fn collect(dir: &Path, rel: &Path, out: &mut Vec<(Vec<u8>, String)>) {
    use std::os::unix::ffi::OsStrExt;
    let Ok(read) = std::fs::read_dir(dir) else {
        out.push((rel.as_os_str().as_bytes().to_vec(), "unreadable".into()));
        return;
    };
    for entry in read.flatten() {
        let name = entry.file_name();
        if name == ".git" {
            continue;
        }
        let (path, rel) = (entry.path(), rel.join(&name));
        let bytes = rel.as_os_str().as_bytes().to_vec();
        match entry.file_type() {
            Ok(t) if t.is_dir() => collect(&path, &rel, out),
            Ok(t) if t.is_symlink() => {
                let target = std::fs::read_link(&path)
                    .map(|t| hex(t.as_os_str().as_bytes()))
                    .unwrap_or_else(|_| "unreadable".into());
                out.push((bytes, format!("link {target}")));
            }
            _ => {
                use std::os::unix::fs::PermissionsExt;
                let exec = entry
                    .metadata()
                    .is_ok_and(|m| m.permissions().mode() & 0o111 != 0);
                let kind = if exec { "exec" } else { "file" };
                let value = crate::git::hash_blob_file(&path)
                    .map_or_else(|_| "unreadable".to_string(), |o| format!("{kind} {o}"));
                out.push((bytes, value));
            }
        }
    }
}

/// The hash of each fingerprint command's exit status and output (run
/// with `sh -c` in `dir`). Run each time: a long-lived `git evolv mcp`
/// outlives toolchain upgrades, and a verdict made with the old one must
/// not stand for the new.
fn fingerprint(commands: &[String], dir: &Path) -> String {
    if commands.is_empty() {
        return String::new();
    }
    let mut h = Sha1::new();
    for command in commands {
        h.update(format!("command {}\n{command}\n", command.len()).as_bytes());
        match std::process::Command::new("sh")
            .args(["-c", command])
            .current_dir(dir)
            .stdin(std::process::Stdio::null())
            .output()
        {
            Ok(out) => {
                h.update(format!("status {:?}\n", out.status.code()).as_bytes());
                h.update(format!("stdout {}\n", out.stdout.len()).as_bytes());
                h.update(&out.stdout);
                h.update(format!("stderr {}\n", out.stderr.len()).as_bytes());
                h.update(&out.stderr);
            }
            Err(e) => h.update(format!("unrunnable {e}\n").as_bytes()),
        }
    }
    hex(&h.finalize())
}

/// Lower-case hex of `bytes`.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts() -> KeyParts {
        KeyParts {
            tree: "4b825dc642cb6eb9a060e54bf8d69288fbee4904".parse().unwrap(),
            commands: vec!["make test".into()],
            env: vec![("CC".into(), Some("gcc".into()))],
            fingerprint: "f".into(),
            inputs: vec![("Cargo.lock".into(), "abc".into())],
        }
    }

    /// Each part alone changes the key; unset and empty differ; moving a
    /// byte between two fields does not collide.
    #[test]
    fn every_part_changes_the_key() {
        let base = parts().key();
        let mut changed = Vec::new();
        let mut p = parts();
        p.commands = vec!["make  test".into()];
        changed.push(p);
        let mut p = parts();
        p.env[0].1 = Some("clang".into());
        changed.push(p);
        let mut p = parts();
        p.env[0].1 = None;
        changed.push(p.clone());
        p.env[0].1 = Some(String::new());
        changed.push(p);
        let mut p = parts();
        p.fingerprint = "g".into();
        changed.push(p);
        let mut p = parts();
        p.inputs[0].1 = "abd".into();
        changed.push(p);
        let mut p = parts();
        p.commands = vec!["make tes".into()];
        p.env[0].0 = "tCC".into();
        changed.push(p);
        // Two commands are not their text joined, nor split differently.
        let mut p = parts();
        p.commands = vec!["make".into(), "test".into()];
        changed.push(p);
        let mut p = parts();
        p.commands = vec!["make && test".into()];
        changed.push(p);
        let keys: std::collections::HashSet<String> = changed.iter().map(KeyParts::key).collect();
        assert_eq!(keys.len(), changed.len());
        assert!(!keys.contains(&base));
        assert_eq!(parts().key(), base, "the key is deterministic");
    }
}

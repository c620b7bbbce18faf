//! The key of a verdict: everything that can change a command's answer on
//! a tree. Two runs share a verdict only when every part is equal:
//!
//! - the tree id;
//! - the command, as the argv `sh -c` is given;
//! - the values of the environment variables named in `evolv.test.env`
//!   (an unset variable differs from an empty one);
//! - the toolchain fingerprint: the output and exit status of each command
//!   in `evolv.test.fingerprint`, run once per process;
//! - the content of each path in `evolv.test.inputs` (relative to the top
//!   of the work tree; a missing file is a value of its own).
//!
//! The key is the SHA-1 of a canonical text of those parts, one per line,
//! each length-prefixed so no two different inputs give the same text.

use evolv_core::comma_list::split_comma_list;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

use sha1::{Digest, Sha1};

use crate::error::Result;
use crate::git::{Oid, Repo};

/// What a verdict's key is made of, kept to say why two keys differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyParts {
    pub tree: Oid,
    pub command: String,
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
    pub fn gather(repo: &Repo, tree: Oid, command: &str) -> Result<KeyParts> {
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
        let commands: Vec<String> = config
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
            command: command.to_string(),
            env,
            fingerprint: fingerprint(&commands, root),
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
        field("command", &self.command);
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

/// A file's blob id, or "missing" when it cannot be read.
fn input_hash(path: &Path) -> String {
    crate::git::hash_blob_file(path).map_or_else(|_| "missing".to_string(), |o| o.to_string())
}

/// The hash of each fingerprint command's exit status and output (run
/// with `sh -c` in `dir`), remembered for the life of the process: a
/// toolchain does not change under a running command, and `rustc -vV`
/// costs more than a cache hit may.
fn fingerprint(commands: &[String], dir: &Path) -> String {
    if commands.is_empty() {
        return String::new();
    }
    static SEEN: Mutex<Option<HashMap<Vec<String>, String>>> = Mutex::new(None);
    let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
    let seen = seen.get_or_insert_with(HashMap::new);
    if let Some(known) = seen.get(commands) {
        return known.clone();
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
    let value = hex(&h.finalize());
    seen.insert(commands.to_vec(), value.clone());
    value
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
            command: "make test".into(),
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
        p.command = "make  test".into();
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
        p.command = "make tes".into();
        p.env[0].0 = "tCC".into();
        changed.push(p);
        let keys: std::collections::HashSet<String> = changed.iter().map(KeyParts::key).collect();
        assert_eq!(keys.len(), changed.len());
        assert!(!keys.contains(&base));
        assert_eq!(parts().key(), base, "the key is deterministic");
    }
}

//! What git's porcelain does after it writes objects: `git maintenance run
//! --auto` (which runs `gc --auto`, detached as `gc.autoDetach` says), so
//! that proposals, landings and records do not pile up loose objects and
//! small packs. git runs it after every such command; the check that
//! anything is due is git's own `gc --auto` test, made here in process so
//! the common case (nothing due) costs one directory read, not a process.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::Repo;

/// The thresholds of `gc --auto`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AutoGc {
    /// `gc.auto`: about this many loose objects call for a gc (0: never).
    pub loose_objects: u64,
    /// `gc.autoPackLimit`: more packs than this call for one (0: never).
    pub packs: u64,
}

impl Default for AutoGc {
    /// git's defaults.
    fn default() -> Self {
        AutoGc {
            loose_objects: 6700,
            packs: 50,
        }
    }
}

impl AutoGc {
    /// Whether `gc --auto` would run in the repository whose object store
    /// is `objects`: git's estimate of the loose objects (those in
    /// `objects/17`, times 256) or its count of packs without a `.keep`.
    pub fn due(&self, objects: &Path) -> bool {
        if self.loose_objects == 0 {
            return false;
        }
        let per_dir = self.loose_objects.div_ceil(256);
        let loose = count(&objects.join("17"), |name| {
            name.len() == 38 && name.bytes().all(|b| b.is_ascii_hexdigit())
        });
        if loose > per_dir {
            return true;
        }
        let pack_dir = objects.join("pack");
        let packs = count(&pack_dir, |name| {
            name.strip_suffix(".pack")
                .is_some_and(|stem| !pack_dir.join(format!("{stem}.keep")).exists())
        });
        self.packs > 0 && packs > self.packs
    }
}

/// How many entries of `dir` have a name `keep` accepts.
fn count(dir: &Path, keep: impl Fn(&str) -> bool) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_str().is_some_and(&keep))
        .count() as u64
}

/// Runs `git maintenance run --auto --quiet` in `repo` when `gc` says it
/// is due, and waits for it as git's porcelain does (with `gc.autoDetach`,
/// git's default, the gc itself goes on in the background). Its failure is
/// not the command's: git only warns, and the objects are safe either way.
pub fn run_auto(repo: &Repo, thresholds: AutoGc) {
    if !thresholds.due(&repo.common_dir().join("objects")) {
        return;
    }
    let _ = Command::new("git")
        .args(["maintenance", "run", "--auto", "--quiet"])
        .current_dir(repo.common_dir())
        .env("GIT_DIR", repo.common_dir())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

#[cfg(test)]
mod tests {
    use super::AutoGc;

    #[test]
    fn due_follows_gits_estimate_and_pack_count() {
        let dir = tempfile::tempdir().unwrap();
        let objects = dir.path();
        std::fs::create_dir_all(objects.join("17")).unwrap();
        std::fs::create_dir_all(objects.join("pack")).unwrap();
        let limits = AutoGc {
            loose_objects: 256 * 2,
            packs: 2,
        };
        assert!(!limits.due(objects));
        for i in 0..3 {
            std::fs::write(objects.join("17").join(format!("{i:038}")), "").unwrap();
        }
        assert!(limits.due(objects), "3 in 17/ is over 2 per directory");
        let no_gc = AutoGc {
            loose_objects: 0,
            packs: 2,
        };
        assert!(!no_gc.due(objects), "gc.auto=0 turns it off");
        std::fs::remove_dir_all(objects.join("17")).unwrap();
        for name in ["a", "b", "c"] {
            std::fs::write(objects.join("pack").join(format!("pack-{name}.pack")), "").unwrap();
        }
        assert!(limits.due(objects), "3 packs over a limit of 2");
        std::fs::write(objects.join("pack").join("pack-a.keep"), "").unwrap();
        assert!(!limits.due(objects), "a kept pack does not count");
    }
}

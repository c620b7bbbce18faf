//! The throwaway repository `git evolv demo` walks through, built from the
//! fixtures embedded in the binary.

use std::path::Path;

use crate::error::{Error, Result};
use crate::git::Repo;

/// The demo's files: path, content, executable.
pub const DEMO_FILES: &[(&str, &str, bool)] = &[
    (
        "backend/user.go",
        include_str!("../../demo/backend/user.go"),
        false,
    ),
    (
        "backend/auth.go",
        include_str!("../../demo/backend/auth.go"),
        false,
    ),
    (
        "frontend/api.ts",
        include_str!("../../demo/frontend/api.ts"),
        false,
    ),
    ("check.sh", include_str!("../../demo/check.sh"), true),
];

/// The validation command the demo runs in the worktree.
pub const DEMO_VALIDATION: &str = "./check.sh";

/// Creates a repository in `dir` holding the demo files in one commit, with
/// a repository-local identity so the demo needs no global git config.
pub fn create_repo(dir: &Path) -> Result<Repo> {
    let repo = crate::git::init(dir, "main")?;
    repo.set_local_config("user.name", "git-evolv demo")?;
    repo.set_local_config("user.email", "demo@git-evolv.invalid")?;
    for (path, content, executable) in DEMO_FILES {
        let full = dir.join(path);
        let parent = full.parent().expect("fixture paths have parents");
        std::fs::create_dir_all(parent).map_err(|e| Error::io("create", parent, e))?;
        std::fs::write(&full, content).map_err(|e| Error::io("write", &full, e))?;
        if *executable {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&full, std::fs::Permissions::from_mode(0o755))
                .map_err(|e| Error::io("chmod", &full, e))?;
        }
    }
    let sig = crate::git::signature_now("git-evolv demo", "demo@git-evolv.invalid")?;
    repo.commit_all("Initial commit", &sig)?;
    Ok(repo)
}

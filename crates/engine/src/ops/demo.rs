//! The throwaway repository `git evolv demo` walks through, built from the
//! fixtures embedded in the binary.

use crate::git::Context;
use std::path::Path;

use git2::{Repository, RepositoryInitOptions};

use crate::error::{Error, Result};
use crate::git::Repo;

/// The demo's files: path, content, executable.
pub const DEMO_FILES: &[(&str, &str, bool)] = &[
    (
        "backend/user.go",
        include_str!("../../../../fixtures/demo/backend/user.go"),
        false,
    ),
    (
        "backend/auth.go",
        include_str!("../../../../fixtures/demo/backend/auth.go"),
        false,
    ),
    (
        "frontend/api.ts",
        include_str!("../../../../fixtures/demo/frontend/api.ts"),
        false,
    ),
    (
        "check.sh",
        include_str!("../../../../fixtures/demo/check.sh"),
        true,
    ),
];

/// The validation command the demo runs in the worktree.
pub const DEMO_VALIDATION: &str = "./check.sh";

/// Creates a repository in `dir` holding the demo files in one commit, with
/// a repository-local identity so the demo needs no global git config.
pub fn create_repo(dir: &Path) -> Result<Repo> {
    let mut opts = RepositoryInitOptions::new();
    opts.initial_head("main");
    let repo = Repository::init_opts(dir, &opts)
        .context(|| format!("create repository {}", dir.display()))?;
    {
        let mut config = repo.config().context(|| "read config")?;
        config
            .set_str("user.name", "git-evolv demo")
            .context(|| "set the demo's user.name")?;
        config
            .set_str("user.email", "demo@git-evolv.invalid")
            .context(|| "set the demo's user.email")?;
    }
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
    let mut index = repo.index().context(|| "read the index")?;
    index
        .add_all(["*"], git2::IndexAddOption::DEFAULT, None)
        .context(|| "add all")?;
    index.write().context(|| "write a tree")?;
    let tree = repo
        .find_tree(index.write_tree().context(|| "write tree")?)
        .context(|| "read tree")?;
    let sig = crate::git::signature_now("git-evolv demo", "demo@git-evolv.invalid")
        .context(|| "make a signature")?;
    repo.commit(Some("HEAD"), &sig, &sig, "Initial commit", &tree, &[])
        .context(|| "write a commit")?;
    drop(tree);
    Repo::new(repo)
}

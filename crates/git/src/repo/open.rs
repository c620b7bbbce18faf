//! Opening the repository (or making one from nothing, the demo's) and
//! reading HEAD.

use crate::on_path;
use std::path::Path;

use crate::Oid;
use git2::{ErrorCode, Repository};

use crate::Context;
use crate::Repo;
use crate::error::{Error, Result};

/// Opens the repository containing `dir` (git's own discovery rules,
/// `GIT_DIR` included) and refuses bare repositories.
pub fn open(dir: &Path) -> Result<Repo> {
    let repo = open_any(dir)?;
    repo.work_tree()?;
    Ok(repo)
}

/// Opens the repository containing `dir`, bare or not: for the read-only
/// views (`list`, `show`, `log`), which work where proposals were pushed
/// to a server (#16 item 20).
pub fn open_any(dir: &Path) -> Result<Repo> {
    // Like git, trust the object store on read (`git fsck` is what verifies
    // hashes); libgit2 re-hashing every blob slows propose on big trees.
    git2::opts::strict_hash_verification(false);
    let repo = if std::env::var_os("GIT_DIR").is_some() {
        Repository::open_from_env()
    } else {
        Repository::discover(dir)
    }
    .map_err(|e| match e.code() {
        ErrorCode::NotFound => Error::NotARepository {
            path: dir.to_path_buf(),
        },
        // libgit2 reads the config while opening; our reader names the
        // file and line of a bad one.
        _ if e.class() == git2::ErrorClass::Config => {
            config_error(dir).unwrap_or_else(|| crate::library_error(on_path("open", dir), e))
        }
        _ => unsupported(dir, &e).unwrap_or_else(|| crate::library_error(on_path("open", dir), e)),
    })?;
    Ok(Repo::new_any(repo))
}

/// A second handle on `repo` whose object writes stay in memory (an
/// in-memory backend ahead of the disk's): a dry run computes the trees
/// and commits it would write and leaves the object store as it was.
pub fn in_memory_writes(repo: &Repo) -> Result<Repo> {
    let git_dir = repo.raw().path().to_path_buf();
    let raw = Repository::open(&git_dir).context(|| on_path("open", &git_dir))?;
    raw.odb()
        .and_then(|odb| odb.add_new_mempack_backend(1000).map(drop))
        .context(|| on_path("add an in-memory object store to", &git_dir))?;
    Ok(Repo::new_any(raw))
}

/// Creates a repository in `dir` whose first branch is `branch`.
pub fn init(dir: &Path, branch: &str) -> Result<Repo> {
    let mut opts = git2::RepositoryInitOptions::new();
    opts.initial_head(branch);
    let repo =
        git2::Repository::init_opts(dir, &opts).context(|| on_path("create repository", dir))?;
    Repo::new(repo)
}

impl Repo {
    /// Sets `key` to `value` in the repository's own config file.
    pub fn set_local_config(&self, key: &str, value: &str) -> Result<()> {
        self.forget_config();
        self.raw()
            .config()
            .and_then(|mut c| c.set_str(key, value))
            .context(|| {
                let file = self.git_dir().join("config");
                on_path("set config", &file).said(format!("set {key} in {}", file.display()))
            })
    }
}

/// The working tree of `repo` (`Repo::work_tree`). `open` refuses bare
/// repositories once; a handle opened with `open_any` gets this error
/// instead of a panic.
pub fn workdir(repo: &Repo) -> Result<&Path> {
    repo.work_tree()
}

/// The config reader's own error for the repository at `dir`, if it has one.
fn config_error(dir: &Path) -> Option<Error> {
    let git_dir = crate::config::discover_git_dir(dir)?;
    crate::config::Config::for_git_dir(&git_dir).err()
}

/// A clear refusal for repository formats libgit2 cannot open, instead of
/// its bare "unsupported extension" message.
fn unsupported(dir: &Path, e: &git2::Error) -> Option<Error> {
    let message = e.message().to_ascii_lowercase();
    let (what, hint) = if message.contains("refstorage") {
        (
            "stores its refs in the reftable format (extensions.refStorage)",
            "convert it to the files format with `git refs migrate --ref-format=files` (git 2.46 or later), then run git-evolv again",
        )
    } else if message.contains("object format") || message.contains("objectformat") {
        (
            "uses SHA-256 object ids (extensions.objectFormat)",
            "propose and apply need a SHA-1 repository; `git evolv lint`, `hooks`, `check` and the hooks work in SHA-256 repositories",
        )
    } else {
        return None;
    };
    Some(Error::UnsupportedRepository {
        path: dir.to_path_buf(),
        what,
        hint,
    })
}

/// Where HEAD points: a branch (full ref name) or a detached commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head {
    /// `refs/heads/<name>`, or `None` when HEAD is detached.
    pub branch: Option<String>,
    pub commit: Oid,
}

impl Head {
    /// The ref a landing moves: the branch, or HEAD itself when detached.
    pub fn ref_name(&self) -> &str {
        self.branch.as_deref().unwrap_or("HEAD")
    }

    /// A short name for messages.
    pub fn display_name(&self) -> &str {
        match &self.branch {
            Some(b) => b.strip_prefix("refs/heads/").unwrap_or(b),
            None => "HEAD (detached)",
        }
    }
}

/// Reads HEAD; an unborn HEAD is `EmptyRepository`.
pub fn head(repo: &Repo) -> Result<Head> {
    let repo = repo.raw();
    let head = match repo.head() {
        Ok(h) => h,
        Err(e) if e.code() == ErrorCode::UnbornBranch || e.code() == ErrorCode::NotFound => {
            return Err(Error::EmptyRepository);
        }
        Err(e) => {
            return Err(crate::library_error("read HEAD", e));
        }
    };
    let commit = head
        .peel_to_commit()
        .context(|| "read the commit HEAD points to")?
        .id();
    let branch = if repo.head_detached().context(|| "read HEAD")? {
        None
    } else {
        head.name().map(str::to_string)
    };
    Ok(Head {
        branch,
        commit: commit.into(),
    })
}

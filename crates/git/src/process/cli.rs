//! The git command line, for what libgit2 cannot do here: SHA-256
//! repositories, which libgit2 cannot open (configuration, `git -c`
//! included, is read by `git::config`). `check`, the pre-push hook and `hooks` read their facts
//! here, so they work in every repository git itself works in. The
//! validation worktree is checked out with git too (`run`), so every filter
//! driver is honoured.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::config::Config;
use crate::error::{Error, Result};

/// git, run in a folder of a repository.
#[derive(Debug, Clone)]
pub struct Git {
    dir: PathBuf,
    git_dir: PathBuf,
    bare: bool,
}

impl Git {
    /// git in `dir`; fails with `NotARepository` outside a repository.
    pub fn open(dir: &Path) -> Result<Self> {
        let mut git = Git {
            dir: dir.to_path_buf(),
            git_dir: PathBuf::new(),
            bare: false,
        };
        let out = git.output(&["rev-parse", "--is-bare-repository", "--absolute-git-dir"])?;
        if !out.status.success() {
            return Err(Error::NotARepository {
                path: dir.to_path_buf(),
            });
        }
        let text = String::from_utf8_lossy(&out.stdout);
        let mut lines = text.lines();
        git.bare = lines.next().map(str::trim) == Some("true");
        git.git_dir = PathBuf::from(lines.next().unwrap_or_default());
        Ok(git)
    }

    /// The repository's configuration, every layer git reads (`git -c`
    /// included), through the one config adapter.
    pub fn config(&self) -> Result<Config> {
        Config::for_git_dir(&self.git_dir)
    }

    /// The absolute git dir (a linked worktree's own).
    pub fn git_dir(&self) -> &Path {
        &self.git_dir
    }

    fn output(&self, args: &[&str]) -> Result<Output> {
        Command::new("git")
            .args(args)
            .current_dir(&self.dir)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| Error::io("run", format!("git {}", args.join(" ")), e))
    }

    /// Runs git; a non-zero exit is an error carrying git's stderr.
    fn text(&self, args: &[&str]) -> Result<String> {
        let out = self.output(args)?;
        if !out.status.success() {
            return Err(Error::GitCommand {
                command: format!("git {}", args.join(" ")),
                message: format!(
                    "`git {}` failed: {}",
                    args.join(" "),
                    String::from_utf8_lossy(&out.stderr).trim()
                ),
            });
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// Runs git where exit 1 means "no" (and 0 "yes").
    fn yes_no(&self, args: &[&str]) -> Result<bool> {
        let out = self.output(args)?;
        match out.status.code() {
            Some(0) => Ok(true),
            Some(1) => Ok(false),
            _ => Err(Error::GitCommand {
                command: format!("git {}", args.join(" ")),
                message: format!(
                    "`git {}` failed: {}",
                    args.join(" "),
                    String::from_utf8_lossy(&out.stderr).trim()
                ),
            }),
        }
    }

    /// The files git tracks under `dir` (`git ls-files`), at most `limit`;
    /// empty outside the working tree. For `hooks install` (issue #17).
    pub fn tracked_under(&self, dir: &Path, limit: usize) -> Result<Vec<String>> {
        let Some(top) = self.toplevel() else {
            return Ok(Vec::new());
        };
        let (Ok(top), Ok(dir)) = (top.canonicalize(), dir.canonicalize()) else {
            return Ok(Vec::new());
        };
        let Ok(rel) = dir.strip_prefix(&top) else {
            return Ok(Vec::new());
        };
        let rel = if rel.as_os_str().is_empty() {
            ".".to_string()
        } else {
            rel.to_string_lossy().into_owned()
        };
        let out = Command::new("git")
            .args(["ls-files", "-z", "--", &rel])
            .current_dir(&top)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| Error::io("run", "git ls-files", e))?;
        Ok(out
            .stdout
            .split(|b| *b == 0)
            .filter(|p| !p.is_empty())
            .take(limit)
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .collect())
    }

    /// Whether the repository has no working tree.
    pub fn is_bare(&self) -> bool {
        self.bare
    }

    /// The absolute common git dir (a linked worktree's main `.git`).
    pub fn common_dir(&self) -> Result<PathBuf> {
        let text = self.text(&["rev-parse", "--path-format=absolute", "--git-common-dir"])?;
        Ok(PathBuf::from(text.trim_end_matches('\n')))
    }

    /// The top of the working tree; `None` in a bare repository.
    pub fn toplevel(&self) -> Option<PathBuf> {
        let text = self.text(&["rev-parse", "--show-toplevel"]).ok()?;
        let text = text.trim_end_matches('\n');
        (!text.is_empty()).then(|| PathBuf::from(text))
    }

    /// Paths with uncommitted changes (staged, unstaged, untracked,
    /// conflicted), as `git status` lists them; ignored files left out.
    pub fn uncommitted_files(&self) -> Result<Vec<String>> {
        // Read-only: no index refresh written behind the user's back.
        let text = self.text(&[
            "--no-optional-locks",
            "status",
            "--porcelain=v1",
            "-z",
            "--untracked-files=normal",
        ])?;
        let mut paths = Vec::new();
        let mut fields = text.split('\0').filter(|f| !f.is_empty());
        while let Some(entry) = fields.next() {
            if entry.len() < 4 {
                continue;
            }
            let (xy, path) = entry.split_at(3);
            paths.push(path.to_string());
            if xy.starts_with('R') || xy.starts_with('C') {
                // The source path of a rename or copy follows.
                fields.next();
            }
        }
        paths.sort();
        paths.dedup();
        Ok(paths)
    }

    /// Whether the object exists here.
    pub fn object_known(&self, oid: &str) -> Result<bool> {
        self.yes_no(&["cat-file", "-e", oid])
    }

    /// The commit `oid` names, annotated tags peeled; `None` when it is not
    /// here or not a commit-ish.
    pub fn peel_commit(&self, oid: &str) -> Result<Option<String>> {
        let spec = format!("{oid}^{{commit}}");
        let out = self.output(&["rev-parse", "--verify", "-q", &spec])?;
        Ok(out
            .status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string()))
    }

    /// Both objects peeled to commits (annotated tags peeled) in one call;
    /// `None` when either is missing here or is not a commit-ish.
    pub fn peel_commits(&self, a: &str, b: &str) -> Result<Option<(String, String)>> {
        let (a, b) = (format!("{a}^{{commit}}"), format!("{b}^{{commit}}"));
        // The ids were checked as hex by the caller, so neither is an option.
        let out = self.output(&["rev-parse", &a, &b])?;
        if !out.status.success() {
            return Ok(None);
        }
        let text = String::from_utf8_lossy(&out.stdout);
        let mut lines = text.lines().map(str::to_string);
        Ok(lines.next().zip(lines.next()))
    }

    /// `(ahead, behind)`: commits `local` has that `other` lacks, and the reverse.
    pub fn ahead_behind(&self, local: &str, other: &str) -> Result<(usize, usize)> {
        let range = format!("{local}...{other}");
        let text = self.text(&["rev-list", "--left-right", "--count", &range])?;
        let mut counts = text.split_whitespace().map(|n| n.parse::<usize>().ok());
        match (counts.next().flatten(), counts.next().flatten()) {
            (Some(a), Some(b)) => Ok((a, b)),
            _ => Err(Error::GitCommand {
                command: format!("git rev-list --left-right --count {range}"),
                message: format!("unexpected `git rev-list --count` output: {text}"),
            }),
        }
    }

    /// The branch HEAD is on (`refs/heads/x`), `None` when detached.
    pub fn current_branch(&self) -> Result<Option<String>> {
        let out = self.output(&["symbolic-ref", "-q", "HEAD"])?;
        Ok(out
            .status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string()))
    }

    /// The commit a ref or revision names; `None` when it does not resolve
    /// (an unborn branch).
    pub fn resolve(&self, rev: &str) -> Result<Option<String>> {
        self.peel_commit(rev)
    }

    /// The upstream of `branch` (short name, e.g. `origin/main`) when one
    /// is configured and exists.
    pub fn upstream(&self, branch: &str) -> Result<Option<String>> {
        let spec = format!("{branch}@{{upstream}}");
        let out = self.output(&["rev-parse", "--abbrev-ref", "--verify", "-q", &spec])?;
        Ok(out
            .status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
            .filter(|s| !s.is_empty()))
    }
}

/// Git's repository variables. Cleared for every command git-evolv starts
/// in a worktree, so it finds that worktree's repository by its directory,
/// not the caller's.
pub const REPO_VARS: &[&str] = &[
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_PREFIX",
    "GIT_CEILING_DIRECTORIES",
];

/// Runs `git <args>` in `dir` with hooks disabled; a failure carries git's
/// own message.
pub fn run(dir: &Path, args: &[&str]) -> Result<()> {
    let mut cmd = Command::new("git");
    cmd.arg("-c")
        .arg("core.hooksPath=/dev/null")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    for var in REPO_VARS {
        cmd.env_remove(var);
    }
    let out = cmd
        .output()
        .map_err(|e| Error::io("run `git` (is it on PATH?) in", dir, e))?;
    if out.status.success() {
        return Ok(());
    }
    Err(Error::GitCommand {
        command: format!("git {}", args.join(" ")),
        message: format!(
            "`git {}` in {} failed: {}",
            args.join(" "),
            dir.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ),
    })
}

/// The object id a git command printed (`hash-object`, `commit-tree`),
/// when it succeeded and printed one.
pub(crate) fn printed_id(out: &Output) -> Option<crate::Oid> {
    let text = String::from_utf8_lossy(&out.stdout);
    crate::Oid::parse(text.trim())
        .ok()
        .filter(|_| out.status.success())
}

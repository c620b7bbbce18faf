//! `git evolv glob PATTERN [--path DIR] [--tracked]`.

use std::path::Path;

use clap::Args;

use super::Output;
use crate::error::{Error, Result};
use crate::git::Repo;
use crate::ops::glob::{self, GlobRequest};

#[derive(Debug, Args)]
pub struct GlobArgs {
    /// `*` stays within a path component, `**` crosses directories.
    pub pattern: String,
    /// Match and print relative to DIR (relative to the current directory).
    #[arg(long, value_name = "DIR")]
    pub path: Option<String>,
    /// List files at HEAD instead of the working tree.
    #[arg(long)]
    pub tracked: bool,
}

/// `dir` (relative to the current directory) as a path from the top of
/// the repository.
fn from_top(repo: &Repo, cwd: &Path, dir: &str) -> Result<String> {
    let root = repo.workdir().ok_or_else(|| Error::BareRepository {
        path: repo.git_dir().to_path_buf(),
    })?;
    let abs = cwd.join(dir);
    let canon = abs.canonicalize().map_err(|e| Error::io("open", &abs, e))?;
    let root = root
        .canonicalize()
        .map_err(|e| Error::io("open", root, e))?;
    let rel = canon.strip_prefix(&root).map_err(|_| {
        Error::invalid(
            format!("--path {dir} is outside the repository"),
            "give a directory inside the working tree",
        )
    })?;
    Ok(rel.to_string_lossy().replace('\\', "/"))
}

pub fn run(repo: &Repo, cwd: &Path, args: &GlobArgs, out: &Output) -> Result<()> {
    let path = args
        .path
        .as_deref()
        .map(|d| from_top(repo, cwd, d))
        .transpose()?;
    let o = glob::glob(
        repo,
        &GlobRequest {
            pattern: args.pattern.clone(),
            path,
            tracked: args.tracked,
        },
    )?;
    if out.json {
        out.json_value(&o);
        return Ok(());
    }
    let mut text = String::new();
    for f in &o.files {
        text.push_str(&f.path);
        text.push('\n');
    }
    out.data(text.as_bytes());
    Ok(())
}

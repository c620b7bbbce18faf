//! `git evolv glob PATTERN [--path DIR] [--tracked]`.

use std::path::Path;

use clap::Args;

use super::Output;
use crate::error::Result;
use crate::ops::Session;
use crate::ops::reading::glob::{GlobPath, GlobRequest};

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

pub fn run(session: &Session, cwd: &Path, args: &GlobArgs, out: &Output) -> Result<()> {
    let path = args
        .path
        .as_deref()
        .map(|d| {
            session.run(&GlobPath {
                cwd: cwd.to_path_buf(),
                dir: d.to_string(),
            })
        })
        .transpose()?;
    let o = session.run(&GlobRequest {
        pattern: args.pattern.clone(),
        path,
        tracked: args.tracked,
    })?;
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

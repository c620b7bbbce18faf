//! `git evolv cat ID PATH [--lines A:B] [-n]`.

use clap::Args;

use super::Output;
use crate::error::{Error, Result};
use crate::ops::Session;
use crate::ops::reading::cat::{self, CatRequest};

#[derive(Debug, Args)]
pub struct CatArgs {
    /// A proposal id, or HEAD.
    pub patch_id: String,
    /// The file, relative to the top of the repository.
    pub path: String,
    /// Only lines A to B (1-based, inclusive).
    #[arg(long, value_name = "A:B")]
    pub lines: Option<String>,
    /// Number the lines, as `cat -n` does.
    #[arg(short = 'n', long = "number")]
    pub number: bool,
}

/// `--lines A:B` as two numbers; anything else is refused with `hint`
/// (`propose --lines` shares it, with its own hint).
pub(super) fn parse_lines(spec: &str, hint: &str) -> Result<(usize, usize)> {
    let bad = || bad_lines(spec, hint);
    let (a, b) = spec.split_once(':').ok_or_else(bad)?;
    Ok((
        a.trim().parse().map_err(|_| bad())?,
        b.trim().parse().map_err(|_| bad())?,
    ))
}

/// The refusal of a `--lines` value that is not `A:B`.
pub(super) fn bad_lines(spec: &str, hint: &str) -> Error {
    Error::invalid(format!("--lines '{spec}' is not A:B"), hint)
}

pub fn run(session: &Session, args: &CatArgs, out: &Output) -> Result<()> {
    let req = CatRequest {
        patch_id: args.patch_id.clone(),
        path: args.path.clone(),
        lines: args
            .lines
            .as_deref()
            .map(|spec| parse_lines(spec, "give e.g. --lines 10:20"))
            .transpose()?,
    };
    let o = session.run(&req)?;
    if out.json {
        out.json_value(&o);
    } else if args.number && !o.binary {
        out.data(&cat::numbered(&o));
    } else {
        out.data(&o.bytes);
    }
    Ok(())
}

//! `git evolv cat ID PATH [--lines A:B] [-n]`.

use clap::Args;

use super::Output;
use crate::error::{Error, Result};
use crate::ops::Session;
use crate::ops::cat::{self, CatRequest};

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

fn parse_lines(spec: &str) -> Result<(usize, usize)> {
    let bad = || {
        Error::invalid(
            format!("--lines '{spec}' is not A:B"),
            "give e.g. --lines 10:20",
        )
    };
    let (a, b) = spec.split_once(':').ok_or_else(bad)?;
    Ok((
        a.trim().parse().map_err(|_| bad())?,
        b.trim().parse().map_err(|_| bad())?,
    ))
}

pub fn run(session: &Session, args: &CatArgs, out: &Output) -> Result<()> {
    let req = CatRequest {
        patch_id: args.patch_id.clone(),
        path: args.path.clone(),
        lines: args.lines.as_deref().map(parse_lines).transpose()?,
    };
    let o = session.cat(&req)?;
    if out.json {
        out.json_value(&o);
    } else if args.number && !o.binary {
        out.data(&cat::numbered(&o));
    } else {
        out.data(&o.bytes);
    }
    Ok(())
}

//! `git evolv test [<rev|proposal>…] [--command CMD] [--jobs N] [--no-cache]`.

use clap::Args;

use super::Output;
use crate::error::Result;
use crate::ops::Session;
use crate::ops::test::{TargetVerdict, TestRequest};

#[derive(Debug, Args)]
pub struct TestArgs {
    /// Revisions or proposal ids (default: HEAD).
    pub targets: Vec<String>,
    /// The command to run with `sh -c` (default: every `evolv.validate`, joined by &&).
    #[arg(long, value_name = "CMD")]
    pub command: Option<String>,
    /// How many targets to run at once, each in its own warm worktree.
    #[arg(long, short = 'j', value_name = "N", default_value_t = 1)]
    pub jobs: usize,
    /// Run even where a trusted verdict for the same key is stored.
    #[arg(long)]
    pub no_cache: bool,
}

/// Exit 0 only when every target passed, 1 otherwise.
pub fn run(session: &Session, args: &TestArgs, out: &Output) -> Result<u8> {
    let req = TestRequest {
        targets: args.targets.clone(),
        command: args.command.clone(),
        jobs: Some(args.jobs),
        no_cache: args.no_cache,
    };
    let outcome = session.test(&req)?;
    let passed = outcome.all_passed();
    if out.json {
        out.json_value(&serde_json::json!({
            "success": passed,
            "verdicts": outcome.verdicts,
        }));
    } else {
        for v in &outcome.verdicts {
            out.line(&verdict_line(v));
            if v.status != crate::store::verdicts::Status::Pass && !v.output_tail.is_empty() {
                out.status(v.output_tail.trim_end());
            }
        }
    }
    Ok(if passed { 0 } else { 1 })
}

/// `pass  HEAD  (tree 1234567, exit 0, 120 ms)`, or `… cached, made … by …`.
fn verdict_line(v: &TargetVerdict) -> String {
    let tree = v.tree.get(..7).unwrap_or(&v.tree);
    let how = if v.cached {
        format!(
            "cached: made at {} by {} ({})",
            v.made_at, v.made_by, v.source
        )
    } else {
        format!("{} ms", v.duration_ms)
    };
    format!(
        "{:<5} {}  (tree {tree}, exit {}, {how})",
        v.status.as_str(),
        v.target,
        v.exit_code
    )
}

//! `git evolv check`: uncommitted files, upstream, ahead and behind.

use std::path::Path;

use super::Output;
use crate::error::Result;
use crate::ops::commits::check::CheckRequest;

pub fn run(dir: &Path, out: &Output) -> Result<()> {
    let outcome = super::session::<CheckRequest>(dir, out)?.run(&CheckRequest {})?;
    if out.json {
        out.success_json(&outcome);
        return Ok(());
    }
    let mut text = format!(
        "branch: {}\n",
        outcome.branch.as_deref().unwrap_or("(detached HEAD)")
    );
    match &outcome.upstream {
        Some(up) => text.push_str(&format!(
            "upstream: {} ({} ahead, {} behind)\n",
            up.name, up.ahead, up.behind
        )),
        None => text.push_str("upstream: none\n"),
    }
    text.push_str(&format!(
        "uncommitted: {} file(s)\n",
        outcome.uncommitted.len()
    ));
    for path in &outcome.uncommitted {
        text.push_str(&format!("  {path}\n"));
    }
    out.data(text.as_bytes());
    for advice in outcome.advice() {
        out.status(&format!("note: {advice}"));
    }
    Ok(())
}

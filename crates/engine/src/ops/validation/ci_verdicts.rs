//! A server that runs no pushed code (`evolv.receive.validation =
//! verdict`) lands a tree only on CI's word: a passing verdict for that
//! tree and command, pushed to `refs/evolv/verdicts/<key>` by CI and
//! marked with the secret the server shares with CI
//! (`<git dir>/evolv/ci-verdict-secret`; CI's clone keeps the same bytes
//! as its own `evolv/verdict-secret`, so its `git evolv test` and the
//! Action's `validate` mode mark with it). Anyone may push a verdict ref
//! (pre-receive lets new ones through in this mode); only a valid mark
//! makes it count, so a pusher cannot vouch for their own code.
//!
//! The verdict is looked up by tree and commands (`Verdict::covers`: the
//! same commands in the same order, each exiting 0), not by its key: the
//! key also holds CI's environment and toolchain, which the server does
//! not share.

use std::path::PathBuf;

use crate::error::{Error, Result};
use crate::git::{Oid, Repo};
use crate::store::verdicts::{self, Status, VERDICTS_PREFIX};

/// The shared secret's file.
pub fn secret_path(repo: &Repo) -> PathBuf {
    repo.common_dir().join("evolv").join("ci-verdict-secret")
}

/// `Ok` when a verdict marked by CI says `commands` (the server's
/// `evolv.validate`, in order) each passed on `tree`.
pub fn require_pass(repo: &Repo, tree: Oid, commands: &[String]) -> Result<()> {
    let path = secret_path(repo);
    let secret = match std::fs::read(&path) {
        Ok(bytes) if bytes.len() >= 16 => bytes,
        Ok(_) | Err(_) => {
            return Err(Error::invalid(
                format!(
                    "evolv.receive.validation is `verdict`, but {} does not hold a secret shared with CI (at least 16 bytes)",
                    path.display()
                ),
                format!(
                    "create it (`head -c 32 /dev/urandom > {}`) and give CI the same bytes as its clone's .git/evolv/verdict-secret (docs/server.md, \"Landing on CI's verdicts\")",
                    path.display()
                ),
            ));
        }
    };
    for (name, _) in repo.readable_refs_matching(&format!("{VERDICTS_PREFIX}*")) {
        // A ref that is not a verdict (or not a commit) vouches for nothing.
        let Ok(Some((verdict, true))) = verdicts::read_marked_by(repo, &name, &secret) else {
            continue;
        };
        if verdict.status == Status::Pass && verdict.covers(tree, commands) {
            return Ok(());
        }
    }
    Err(Error::NoTrustedVerdict {
        tree: tree.to_string(),
        command: commands.join(" && "),
    })
}

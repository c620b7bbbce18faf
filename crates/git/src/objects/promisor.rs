//! Partial clones (`git clone --filter=blob:none`): objects the promisor
//! remote holds are fetched when they are needed, as git does. git fetches
//! one missing object at a time when something reads it; a command that
//! knows it will read many (propose over a scope, a checkout) asks for
//! them all in one fetch first (`promisor_remote_get_direct`): that is
//! what `fetch_missing` does, with git's own `fetch`.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::{Oid, Repo};
use evolv_core::error::{Error, Result};

impl Repo {
    /// The promisor remote of a partial clone (`remote.<name>.promisor`,
    /// or the older `extensions.partialClone`), from the configuration the
    /// handle already read (`git -c` included); `None` in a full clone.
    pub fn promisor_remote(&self) -> Option<String> {
        let config = self.config().ok()?;
        if let Some(name) = config.string("extensions.partialClone") {
            return Some(name.to_string());
        }
        config
            .entries()
            .iter()
            .filter_map(|e| {
                let name = e.key.strip_prefix("remote.")?.strip_suffix(".promisor")?;
                (config.bool(&e.key).ok()??).then(|| name.to_string())
            })
            .next()
    }

    /// Fetches, in one request to the promisor remote, those of `ids` this
    /// partial clone does not have. Nothing to do in a full clone or when
    /// all are here. Fails with `partial_clone` when the remote cannot
    /// supply them.
    pub fn fetch_missing(&self, ids: impl IntoIterator<Item = Oid>) -> Result<()> {
        let Some(remote) = self.promisor_remote() else {
            return Ok(());
        };
        let Ok(odb) = self.raw().odb() else {
            return Ok(());
        };
        let missing: Vec<Oid> = ids.into_iter().filter(|id| !odb.exists(id.raw())).collect();
        if missing.is_empty() {
            return Ok(());
        }
        let failed = |detail: String| Error::PartialClone {
            missing: missing.len(),
            remote: remote.clone(),
            detail,
        };
        let mut child = Command::new("git")
            .args(["-c", "fetch.negotiationAlgorithm=noop", "fetch", &remote])
            .args([
                "--no-tags",
                "--no-write-fetch-head",
                "--recurse-submodules=no",
            ])
            .args(["--filter=blob:none", "--stdin"])
            .env("GIT_DIR", self.common_dir())
            .current_dir(self.common_dir())
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| failed(format!("cannot run git: {e}")))?;
        if let Some(mut stdin) = child.stdin.take() {
            let list: String = missing.iter().map(|id| format!("{id}\n")).collect();
            let _ = stdin.write_all(list.as_bytes());
        }
        let out = child
            .wait_with_output()
            .map_err(|e| failed(format!("git fetch did not finish: {e}")))?;
        if !out.status.success() {
            let said = String::from_utf8_lossy(&out.stderr);
            return Err(failed(
                said.trim()
                    .lines()
                    .last()
                    .unwrap_or("git fetch failed")
                    .to_string(),
            ));
        }
        // The new pack is found by the readers as git finds it: the
        // object reader rescans the pack directory on a miss.
        Ok(())
    }
}

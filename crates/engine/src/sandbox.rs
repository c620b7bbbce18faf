//! Where a server runs pushed code (issue 38 item 1): inside bubblewrap
//! (`bwrap`), the sandbox Flatpak and many CI runners use, so the code a
//! push carries cannot write the repository that guards it.
//!
//! The command sees the whole file system read-only (`--ro-bind / /`), a
//! fresh `/tmp`, `/dev` and `/proc`, and exactly one writable directory:
//! the throwaway worktree it validates, which is removed afterwards. The
//! bare repository stays readable (git works in the worktree) but its
//! objects, refs, hooks and config cannot be written, nor can the server
//! user's home (`~/.ssh/authorized_keys`). Every capability is dropped,
//! so even a server that runs as root cannot remount anything writable;
//! the command gets its own pid namespace, so nothing it starts outlives
//! it. The network is shared: validation may download dependencies.
//!
//! Where `bwrap` cannot run (not installed, or user namespaces are off),
//! nothing is run: the caller refuses the push and names what to install.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::error::{Error, Result};

/// The default program: `bwrap` on the hook's `PATH`.
pub const DEFAULT_PROGRAM: &str = "bwrap";

/// A sandbox for commands run in one directory.
#[derive(Debug, Clone)]
pub struct Sandbox {
    program: String,
    args: Vec<String>,
}

impl Sandbox {
    /// A sandbox whose only writable directory is `writable`, with
    /// `readable` (the repository's git dir) visible read-only even where
    /// it lies under `/tmp`. `program` is the bubblewrap to run. Runs the
    /// sandbox once with `true` first: a sandbox that cannot start is an
    /// error here, never a command run without it.
    pub fn start(program: &str, readable: &Path, writable: &Path) -> Result<Sandbox> {
        let readable = absolute(readable)?;
        let writable = absolute(writable)?;
        let mut args: Vec<String> = [
            "--ro-bind",
            "/",
            "/",
            "--dev",
            "/dev",
            "--proc",
            "/proc",
            "--tmpfs",
            "/tmp",
            "--tmpfs",
            "/var/tmp",
        ]
        .map(String::from)
        .into();
        // Later mounts go on top of earlier ones: the repository and the
        // worktree come back above the fresh /tmp when they live in it.
        for (how, path) in [("--ro-bind", &readable), ("--bind", &writable)] {
            let p = path.to_string_lossy().into_owned();
            args.extend([how.to_string(), p.clone(), p]);
        }
        args.extend(
            [
                "--cap-drop",
                "ALL",
                "--unshare-pid",
                "--unshare-ipc",
                "--unshare-uts",
                "--die-with-parent",
                "--new-session",
                "--setenv",
                "TMPDIR",
                "/tmp",
                "--chdir",
            ]
            .map(String::from),
        );
        args.push(writable.to_string_lossy().into_owned());
        let sandbox = Sandbox {
            program: program.to_string(),
            args,
        };
        sandbox.probe()?;
        Ok(sandbox)
    }

    /// `sh -c <script>` inside the sandbox, as a command to spawn.
    pub fn shell(&self, script: &str) -> Command {
        let mut cmd = Command::new(&self.program);
        cmd.args(&self.args).args(["--", "sh", "-c", script]);
        cmd
    }

    /// Runs `true` in the sandbox; an error names what failed and what to
    /// install.
    fn probe(&self) -> Result<()> {
        let mut cmd = Command::new(&self.program);
        cmd.args(&self.args)
            .args(["--", "true"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let out = match cmd.output() {
            Ok(out) => out,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(Error::IsolationUnavailable {
                    reason: format!("`{}` (bubblewrap) was not found", self.program),
                });
            }
            Err(e) => {
                return Err(Error::IsolationUnavailable {
                    reason: format!("`{}` could not be run: {e}", self.program),
                });
            }
        };
        if out.status.success() {
            return Ok(());
        }
        let said = String::from_utf8_lossy(&out.stderr);
        Err(Error::IsolationUnavailable {
            reason: format!(
                "`{}` could not start a sandbox ({}): {}",
                self.program,
                out.status,
                said.trim()
            ),
        })
    }
}

fn absolute(path: &Path) -> Result<PathBuf> {
    path.canonicalize()
        .map_err(|e| Error::io("resolve", path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_program_is_isolation_unavailable_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let err = Sandbox::start("/nonexistent/bwrap", dir.path(), dir.path()).unwrap_err();
        assert_eq!(err.code(), "isolation_unavailable");
        assert!(err.to_string().contains("/nonexistent/bwrap"), "{err}");
        assert!(err.hint().contains("bubblewrap"), "{}", err.hint());
    }

    #[test]
    fn only_the_writable_directory_can_be_written() {
        // bubblewrap is a requirement of the tests (.ci/run installs it).
        let repo = tempfile::tempdir().unwrap();
        let wt = repo.path().join("wt");
        std::fs::create_dir(&wt).unwrap();
        std::fs::write(repo.path().join("config"), "kept\n").unwrap();
        let sandbox = Sandbox::start(DEFAULT_PROGRAM, repo.path(), &wt).unwrap();
        let status = sandbox
            .shell(
                "echo built > out; echo planted >> ../config; \
                 mount -o remount,rw .. 2>/dev/null; echo again >> ../config; \
                 test -f out && ! grep -q planted ../config",
            )
            .status()
            .unwrap();
        assert!(status.success());
        assert_eq!(
            std::fs::read_to_string(repo.path().join("config")).unwrap(),
            "kept\n"
        );
        assert_eq!(std::fs::read_to_string(wt.join("out")).unwrap(), "built\n");
    }
}

//! A landing site for the end-to-end tests: a bare repository served over
//! one transport with git-evolv's server hooks installed, and clones of
//! it that stand in for machines.

use std::path::PathBuf;
use std::process::Command;

use crate::common::{BIN, Error, TestRepo};
use crate::remote_servers::{Server, Transport, git};

/// A served bare repository with one commit on `main` (`a.txt`, `b.txt`).
pub struct Site {
    pub server: Server,
    pub bare: PathBuf,
    pub name: String,
}

impl Site {
    /// A site over `transport`; `hooks`: with `git evolv hooks install
    /// --server` run in it (else a plain bare repository).
    pub fn start(transport: Transport, hooks: bool) -> Result<Site, Error> {
        let server = Server::start(transport)?;
        let name = "srv.git".to_string();
        let bare = server.bare(&name)?;
        let site = Site { server, bare, name };
        let seed = site.clone_repo()?;
        seed.try_write("a.txt", "one\ntwo\nthree\n")?;
        seed.try_write("b.txt", "alpha\n")?;
        seed.try_commit_all("initial")?;
        seed.try_git(&["push", "-q", "origin", "HEAD:refs/heads/main"])?;
        if hooks {
            site.evolv_on_server(&["hooks", "install", "--server"])?;
        }
        Ok(site)
    }

    /// A clone on `main`, tracking `origin/main`, set up for the transport.
    pub fn clone_repo(&self) -> Result<TestRepo, Error> {
        let repo = TestRepo::try_empty()?;
        repo.try_git(&["remote", "add", "origin", &self.server.url(&self.name)])?;
        for (key, value) in self.server.client_config() {
            repo.try_git(&["config", &key, &value])?;
        }
        if self.server_head().is_some() {
            repo.try_git(&["fetch", "-q", "origin"])?;
            repo.try_git(&["reset", "-q", "--hard", "origin/main"])?;
            repo.try_git(&["branch", "-q", "-u", "origin/main"])?;
        }
        Ok(repo)
    }

    /// `git-evolv args` in the bare repository (as its administrator).
    pub fn evolv_on_server(&self, args: &[&str]) -> Result<String, Error> {
        let out = Command::new(BIN)
            .args(args)
            .current_dir(&self.bare)
            .output()?;
        if !out.status.success() {
            return Err(format!(
                "git evolv {} on the server: {}{}",
                args.join(" "),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
            .into());
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// The server's `main`, if it has one.
    pub fn server_head(&self) -> Option<String> {
        git(
            &self.bare,
            &["rev-parse", "--verify", "-q", "refs/heads/main"],
        )
        .ok()
        .map(|s| s.trim().to_string())
    }

    /// git in the bare repository.
    pub fn server_git(&self, args: &[&str]) -> Result<String, Error> {
        git(&self.bare, args)
    }

    /// `git fsck --strict` of the server's repository is clean, and its
    /// `main` is a line (no merge commit).
    #[track_caller]
    pub fn assert_sound(&self) {
        let out = Command::new("git")
            .args(["fsck", "--strict", "--no-progress"])
            .current_dir(&self.bare)
            .output()
            .expect("git fsck runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "server fsck failed: {stderr}");
        assert!(!stderr.contains("error"), "server fsck: {stderr}");
        let merges =
            git(&self.bare, &["rev-list", "--merges", "--count", "main"]).expect("rev-list runs");
        assert_eq!(merges.trim(), "0", "the server's main has merge commits");
    }
}

#[test]
fn a_plain_push_and_fetch_work_over_the_daemon_across_a_restart() -> Result<(), Error> {
    plain_push_across_a_restart(Transport::Daemon)
}

#[test]
#[ignore = "needs nginx and fcgiwrap (Debian packages): .ci/run installs them and runs it with --ignored"]
fn a_plain_push_and_fetch_work_over_http_across_a_restart() -> Result<(), Error> {
    plain_push_across_a_restart(Transport::Http)
}

#[test]
#[ignore = "needs sshd (Debian's openssh-server): .ci/run installs it and runs it with --ignored"]
fn a_plain_push_and_fetch_work_over_ssh_across_a_restart() -> Result<(), Error> {
    plain_push_across_a_restart(Transport::Ssh)
}

/// The servers themselves, with no hook: a branch pushed, the server
/// restarted, pushed again and fetched by a second clone.
fn plain_push_across_a_restart(transport: Transport) -> Result<(), Error> {
    let mut site = Site::start(transport, false)?;
    let one = site.clone_repo()?;
    one.try_write("a.txt", "one\n2\nthree\n")?;
    let first = one.try_commit_all("second")?;
    one.try_git(&["push", "-q", "origin", "HEAD:main"])?;
    assert_eq!(site.server_head().as_deref(), Some(first.as_str()));
    site.server.restart()?;
    one.try_write("b.txt", "beta\n")?;
    let second = one.try_commit_all("third")?;
    one.try_git(&["push", "-q", "origin", "HEAD:main"])?;
    assert_eq!(site.server_head().as_deref(), Some(second.as_str()));
    let two = site.clone_repo()?;
    assert_eq!(two.head(), second);
    site.assert_sound();
    Ok(())
}

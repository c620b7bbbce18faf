//! A git server for the server tests (issue 28): a bare repository with
//! git-evolv's server hooks installed, clones that push to it over
//! `file://` or a `git daemon` started on 127.0.0.1, and the reads the
//! tests check it with (refs, outcome records, fsck).

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{BIN, Run, TestRepo, sealed};

/// A bare repository serving pushes, seeded from `seed`.
pub struct Server {
    pub seed: TestRepo,
    pub bare: PathBuf,
    daemon: Option<(Child, u16)>,
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some((child, _)) = &mut self.daemon {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Server {
    /// A server whose `main` holds `files`, hooks installed.
    pub fn new(files: &[(&str, &str)]) -> Server {
        let seed = TestRepo::with_files(files);
        let bare = seed.home().join("srv.git");
        seed.git(&["clone", "-q", "--bare", ".", bare.to_str().unwrap()]);
        let server = Server {
            seed,
            bare,
            daemon: None,
        };
        server.git(&["config", "user.name", "Server"]);
        server.git(&["config", "user.email", "server@example.com"]);
        let run = server.evolv(&["hooks", "install", "--server"], &[]);
        assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
        server
    }

    pub fn home(&self) -> &Path {
        self.seed.home()
    }

    /// `git args` in the bare repository; panics unless it succeeds.
    #[track_caller]
    pub fn git(&self, args: &[&str]) -> String {
        let run = self.git_in(&self.bare, args, &[]);
        assert_eq!(run.code, 0, "git {args:?}: {}", run.stderr);
        run.stdout
    }

    /// `git args` in `dir`, with extra environment.
    pub fn git_in(&self, dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut cmd = sealed("git", self.home());
        cmd.args(args).current_dir(dir);
        for (k, v) in env {
            cmd.env(k, v);
        }
        Run::of(cmd)
    }

    /// `git-evolv args` in the bare repository.
    pub fn evolv(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut cmd = sealed(BIN, self.home());
        cmd.args(args).current_dir(&self.bare);
        for (k, v) in env {
            cmd.env(k, v);
        }
        Run::of(cmd)
    }

    /// The `file://` URL of the bare repository.
    pub fn url(&self) -> String {
        format!("file://{}", self.bare.display())
    }

    /// A clone named `name` (in the home folder) with an identity.
    pub fn clone(&self, name: &str) -> PathBuf {
        let dir = self.home().join(name);
        let run = self.git_in(
            self.home(),
            &["clone", "-q", &self.url(), dir.to_str().unwrap()],
            &[],
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
        for (k, v) in [("user.name", name), ("user.email", "dev@example.com")] {
            self.git_in(&dir, &["config", k, v], &[]);
        }
        dir
    }

    /// Writes `file` in clone `dir` and commits it.
    pub fn commit(&self, dir: &Path, file: &str, content: &str, message: &str) -> String {
        std::fs::write(dir.join(file), content).unwrap();
        self.git_in(dir, &["add", file], &[]);
        let run = self.git_in(dir, &["commit", "-q", "-m", message], &[]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        self.git_in(dir, &["rev-parse", "HEAD"], &[])
            .stdout
            .trim()
            .to_string()
    }

    /// `git push <url> <args>` from clone `dir`.
    pub fn push(&self, dir: &Path, url: &str, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut full = vec!["push", url];
        full.extend_from_slice(args);
        self.git_in(dir, &full, env)
    }

    /// The commit a ref of the server points to, if any.
    pub fn ref_target(&self, name: &str) -> Option<String> {
        let run = self.git_in(&self.bare, &["rev-parse", "-q", "--verify", name], &[]);
        (run.code == 0).then(|| run.stdout.trim().to_string())
    }

    /// The server's refs under `prefix`.
    pub fn refs(&self, prefix: &str) -> Vec<String> {
        self.git(&["for-each-ref", "--format=%(refname)", prefix])
            .lines()
            .map(str::to_string)
            .collect()
    }

    /// The outcome records, parsed.
    pub fn outcomes(&self) -> Vec<Value> {
        self.refs("refs/evolv/outcomes/")
            .iter()
            .map(|r| serde_json::from_str(&self.git(&["cat-file", "blob", r])).unwrap())
            .collect()
    }

    /// The one outcome record there must be.
    #[track_caller]
    pub fn only_outcome(&self) -> Value {
        let all = self.outcomes();
        assert_eq!(all.len(), 1, "{all:?}");
        all.into_iter().next().unwrap()
    }

    /// Waits (up to a minute) until no outcome record is queued.
    pub fn wait_decided(&self) -> Vec<Value> {
        let start = Instant::now();
        loop {
            let all = self.outcomes();
            if all.iter().all(|o| o["state"] != "queued") || start.elapsed().as_secs() > 60 {
                return all;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// `git fsck --strict` of the server is clean.
    #[track_caller]
    pub fn assert_fsck(&self) {
        let run = self.git_in(&self.bare, &["fsck", "--strict", "--no-dangling"], &[]);
        assert_eq!(run.code, 0, "fsck: {}{}", run.stdout, run.stderr);
    }

    /// The `git://` URL of a `git daemon --enable=receive-pack` serving the
    /// bare repository on 127.0.0.1 (started on first use, on a free port).
    pub fn daemon_url(&mut self) -> String {
        if self.daemon.is_none() {
            let port = TcpListener::bind("127.0.0.1:0")
                .unwrap()
                .local_addr()
                .unwrap()
                .port();
            let base = self.home().to_path_buf();
            let child = sealed("git", self.home())
                .args([
                    "daemon",
                    "--enable=receive-pack",
                    "--export-all",
                    "--reuseaddr",
                    "--listen=127.0.0.1",
                    &format!("--port={port}"),
                    &format!("--base-path={}", base.display()),
                    base.to_str().unwrap(),
                ])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("git daemon starts");
            let start = Instant::now();
            while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
                assert!(start.elapsed().as_secs() < 20, "git daemon never listened");
                std::thread::sleep(Duration::from_millis(20));
            }
            self.daemon = Some((child, port));
        }
        let port = self.daemon.as_ref().unwrap().1;
        format!("git://127.0.0.1:{port}/srv.git")
    }
}

/// Whether `git` can take a push to a proc-receive hook (2.29 or later).
pub fn git_has_proc_receive() -> bool {
    let out = Command::new("git").arg("--version").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let mut nums = text
        .split_whitespace()
        .nth(2)
        .unwrap_or("0.0")
        .split('.')
        .map(|n| n.parse::<u32>().unwrap_or(0));
    (nums.next().unwrap_or(0), nums.next().unwrap_or(0)) >= (2, 29)
}

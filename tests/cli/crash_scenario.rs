//! The crash tests' scenario: a repository with a change set of every
//! kind (H, the base, and N, the proposal), the debug binary that stops at
//! a named crash point, and the checks that a recovery left H or N whole.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::common::{Run, TestRepo, sealed};

/// Every crash point a landing passes, in order.
pub const POINTS: [&str; 13] = [
    "before-objects",
    "after-objects",
    "after-journal",
    "after-early-index",
    "after-cas",
    "after-first-file",
    "after-middle-file",
    "after-last-file",
    "before-audit",
    "after-audit",
    "before-index-rename",
    "after-index-rename",
    "before-journal-delete",
];

/// Whether a kill at `point` comes after the compare-and-swap (so recovery
/// lands N rather than undoing the landing).
pub fn after_cas(point: &str) -> bool {
    let at = |p: &str| POINTS.iter().position(|q| *q == p).unwrap();
    at(point) >= at("after-cas")
}

/// The binary with crash points: the test build itself, since debug
/// builds compile them in (src/crash.rs), so no second build is needed.
pub fn crash_bin() -> &'static Path {
    Path::new(crate::common::BIN)
}

/// A file's state in the working tree: kind, mode bits and content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    Missing,
    File { exec: bool, bytes: Vec<u8> },
    Link(String),
    Dir,
}

pub fn node(root: &Path, rel: &str) -> Node {
    let p = root.join(rel);
    match std::fs::symlink_metadata(&p) {
        Err(_) => Node::Missing,
        Ok(m) if m.file_type().is_symlink() => {
            Node::Link(std::fs::read_link(&p).unwrap().to_string_lossy().into())
        }
        Ok(m) if m.is_dir() => Node::Dir,
        Ok(m) => Node::File {
            exec: m.permissions().mode() & 0o111 != 0,
            bytes: std::fs::read(&p).unwrap(),
        },
    }
}

pub fn file(s: &str) -> Node {
    Node::File {
        exec: false,
        bytes: s.as_bytes().to_vec(),
    }
}

pub fn exec(s: &str) -> Node {
    Node::File {
        exec: true,
        bytes: s.as_bytes().to_vec(),
    }
}

/// One change of the proposal: the path and its node at H and at N.
pub struct Spec {
    pub path: &'static str,
    pub h: Node,
    pub n: Node,
}

/// Every kind of change at once: add, modify, delete, rename, mode change,
/// symlink retarget and creation, directory → file and file → directory.
pub fn full_change_set() -> Vec<Spec> {
    let big: String = (0..200).map(|i| format!("line {i}\n")).collect();
    let big_n = big.replace("line 100\n", "line one hundred\n");
    vec![
        Spec {
            path: "new/added.txt",
            h: Node::Missing,
            n: file("added\n"),
        },
        Spec {
            path: "mod.txt",
            h: file(&big),
            n: file(&big_n),
        },
        Spec {
            path: "del.txt",
            h: file("to delete\n"),
            n: Node::Missing,
        },
        Spec {
            path: "old_name.txt",
            h: file("renamed content\n"),
            n: Node::Missing,
        },
        Spec {
            path: "new_name.txt",
            h: Node::Missing,
            n: file("renamed content\n"),
        },
        Spec {
            path: "script.sh",
            h: file("#!/bin/sh\necho hi\n"),
            n: exec("#!/bin/sh\necho hi\n"),
        },
        Spec {
            path: "link",
            h: Node::Link("del.txt".into()),
            n: Node::Link("mod.txt".into()),
        },
        Spec {
            path: "newlink",
            h: Node::Missing,
            n: Node::Link("new_name.txt".into()),
        },
        Spec {
            path: "d2f/inner.txt",
            h: file("inner\n"),
            n: Node::Missing,
        },
        Spec {
            path: "d2f",
            h: Node::Missing,
            n: file("now a file\n"),
        },
        Spec {
            path: "f2d",
            h: file("a file\n"),
            n: Node::Missing,
        },
        Spec {
            path: "f2d/inner.txt",
            h: Node::Missing,
            n: file("now in a dir\n"),
        },
    ]
}

/// A repository at H with the specs' H side, unrelated tracked files, and
/// (after the commit) dirty, staged, untracked and ignored files outside
/// the change set, plus proposal `id` whose commit holds the N side.
pub struct Scenario {
    pub repo: TestRepo,
    pub h: String,
    pub n_tree: String,
    pub id: String,
    pub specs: Vec<Spec>,
    pub untouched: BTreeMap<String, Node>,
    pub status: String,
    pub staged: String,
}

pub fn write_node(repo: &TestRepo, rel: &str, n: &Node) {
    let p = repo.file(rel);
    if !matches!(n, Node::Missing | Node::Dir) {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    }
    match n {
        Node::Missing | Node::Dir => {}
        Node::File { exec, bytes } => {
            std::fs::write(&p, bytes).unwrap();
            let mode = if *exec { 0o755 } else { 0o644 };
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
        }
        Node::Link(t) => std::os::unix::fs::symlink(t, &p).unwrap(),
    }
}

/// git with the sealed environment plus `env`; panics on failure.
pub fn git_env(repo: &TestRepo, args: &[&str], env: &[(&str, &str)], input: &[u8]) -> String {
    use std::io::Write;
    use std::process::Stdio;
    let mut cmd = sealed("git", repo.home());
    cmd.args(args)
        .current_dir(repo.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Stores a proposal whose commit has tree `tree` and parent `base`.
pub fn store_proposal(repo: &TestRepo, base: &str, tree: &str, id: &str) {
    let meta = serde_json::json!({
        "operation": "crash-test", "pattern": "", "replacement": "", "literal": true,
        "scope": [], "created_at": 1, "files_scanned": 0, "files_matched": 0,
        "total_changes": 0, "lines_added": 0, "lines_removed": 0, "affected_files": []
    });
    let msg = format!("crash test change {id}\n\nEvolv-Metadata: {meta}\n");
    let p = git_env(
        repo,
        &["commit-tree", tree, "-p", base, "-F", "-"],
        &[],
        msg.as_bytes(),
    );
    repo.git(&["update-ref", &format!("refs/evolv/proposals/{id}"), &p]);
}

/// The tree of `base` with `specs`' N side.
pub fn tree_with(repo: &TestRepo, base: &str, specs: &[Spec]) -> String {
    let index = repo.home().join(format!("crash-index-{}", rand_suffix()));
    let index_s = index.to_str().unwrap().to_string();
    let env = [("GIT_INDEX_FILE", index_s.as_str())];
    git_env(repo, &["read-tree", base], &env, b"");
    for s in specs {
        if matches!(s.h, Node::File { .. } | Node::Link(_)) {
            git_env(repo, &["update-index", "--force-remove", s.path], &env, b"");
        }
    }
    for s in specs {
        let (mode, bytes) = match &s.n {
            Node::File { exec, bytes } => (if *exec { "100755" } else { "100644" }, bytes.clone()),
            Node::Link(t) => ("120000", t.as_bytes().to_vec()),
            _ => continue,
        };
        let blob = git_env(repo, &["hash-object", "-w", "--stdin"], &[], &bytes);
        let info = format!("{mode},{blob},{}", s.path);
        git_env(
            repo,
            &["update-index", "--add", "--cacheinfo", &info],
            &env,
            b"",
        );
    }
    let tree = git_env(repo, &["write-tree"], &env, b"");
    let _ = std::fs::remove_file(index);
    tree
}

pub fn rand_suffix() -> String {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    format!(
        "{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

impl Scenario {
    /// After a crash at `point`: `git status` as before the run, and no
    /// lock file left in `.git`.
    #[track_caller]
    pub fn assert_status_and_no_lock(&self, point: &str) {
        assert_eq!(self.repo.status(), self.status, "{point}");
        assert!(
            locks_in(&self.repo.path().join(".git")).is_empty(),
            "{point}"
        );
    }

    /// Stores the proposal `id` on the scenario's base adding one file,
    /// `path` with `content`; returns that file's spec.
    pub fn store_adding(&self, path: &'static str, content: &str, id: &str) -> Spec {
        let specs = [Spec {
            path,
            h: Node::Missing,
            n: file(content),
        }];
        let tree = tree_with(&self.repo, &self.h, &specs);
        store_proposal(&self.repo, &self.h, &tree, id);
        let [spec] = specs;
        spec
    }

    /// The repository passes `git fsck` and takes a new commit.
    #[track_caller]
    pub fn assert_usable(&self) {
        self.repo.assert_fsck();
        self.repo
            .git(&["commit", "-q", "--allow-empty", "-m", "probe"]);
    }

    pub fn new(specs: Vec<Spec>) -> Self {
        let repo = TestRepo::empty();
        repo.write(".gitignore", "build/\n");
        repo.write("keep.txt", "unrelated\n");
        repo.write("dirty_outside.txt", "committed\n");
        repo.write("staged_outside.txt", "committed\n");
        repo.write("src/deep/unrelated.rs", "fn main() {}\n");
        for s in &specs {
            write_node(&repo, s.path, &s.h);
        }
        let h = repo.commit_all("H");
        // The user's own work outside the change set.
        repo.write("dirty_outside.txt", "edited, not staged\n");
        repo.write("staged_outside.txt", "edited and staged\n");
        repo.git(&["add", "staged_outside.txt"]);
        repo.write("staged_outside.txt", "edited, staged, then edited again\n");
        repo.write("untracked.txt", "mine\n");
        repo.write("new/untracked_sibling.txt", "mine too\n");
        repo.write("build/out.o", "ignored build output\n");
        let n_tree = tree_with(&repo, &h, &specs);
        let id = "patch_1_c0ffee00".to_string();
        store_proposal(&repo, &h, &n_tree, &id);
        let untouched = [
            ".gitignore",
            "keep.txt",
            "dirty_outside.txt",
            "staged_outside.txt",
            "src/deep/unrelated.rs",
            "untracked.txt",
            "new/untracked_sibling.txt",
            "build/out.o",
        ]
        .iter()
        .map(|p| (p.to_string(), node(repo.path(), p)))
        .collect();
        let status = repo.status();
        let staged = repo.git(&["diff", "--cached", "--", "staged_outside.txt"]);
        Scenario {
            repo,
            h,
            n_tree,
            id,
            specs,
            untouched,
            status,
            staged,
        }
    }

    /// Runs the binary with `args`, killed at `point` if set.
    pub fn run(&self, args: &[&str], point: Option<&str>) -> Run {
        match point {
            Some(p) => self.run_env(args, &[("GIT_EVOLV_CRASHPOINT", p)]),
            None => self.run_env(args, &[]),
        }
    }

    /// Runs the binary with `args` and extra environment.
    pub fn run_env(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut cmd = sealed(crash_bin().to_str().unwrap(), self.repo.home());
        cmd.args(args)
            .current_dir(self.repo.path())
            .envs(env.iter().copied());
        Run::of(cmd)
    }

    /// Where HEAD points (the branch, or the detached HEAD itself).
    pub fn branch(&self) -> String {
        self.repo.rev("HEAD").unwrap()
    }

    /// Every guarantee of issue 5 after a crash and its recovery; returns
    /// whether the landing ended up applied (branch at N).
    #[track_caller]
    pub fn assert_consistent(&self, label: &str) -> bool {
        let repo = &self.repo;
        let tip = self.branch();
        let landed = tip != self.h;
        if landed {
            let tree = repo.git(&["rev-parse", &format!("{tip}^{{tree}}")]);
            assert_eq!(
                tree.trim(),
                self.n_tree,
                "{label}: branch is neither H nor N"
            );
            assert_eq!(
                repo.rev(&format!("{tip}^")).as_deref(),
                Some(self.h.as_str()),
                "{label}: N's parent is H"
            );
        }
        for s in &self.specs {
            let now = node(repo.path(), s.path);
            let want = if landed { &s.n } else { &s.h };
            let want = if matches!(want, Node::Missing) && now == Node::Dir {
                &Node::Dir
            } else {
                want
            };
            assert_eq!(&now, want, "{label}: {} (landed: {landed})", s.path);
        }
        for (p, before) in &self.untouched {
            assert_eq!(&node(repo.path(), p), before, "{label}: unrelated {p}");
        }
        assert_eq!(repo.status(), self.status, "{label}: git status");
        assert_eq!(
            repo.git(&["diff", "--cached", "--", "staged_outside.txt"]),
            self.staged,
            "{label}: staged change"
        );
        let locks = locks_in(&repo.path().join(".git"));
        assert!(locks.is_empty(), "{label}: locks left: {locks:?}");
        assert!(
            !repo.path().join(".git/evolv/journal").exists(),
            "{label}: journal left"
        );
        let applied = repo.rev(&format!("refs/evolv/applied/{}", self.id));
        assert_eq!(applied.is_some(), landed, "{label}: applied ref");
        let log = self.run(&["log", "--json"], None);
        let records = log.json()["entries"].clone();
        let successes = records
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["action"] == "apply" && r["success"] == true)
            .count();
        assert_eq!(successes, usize::from(landed), "{label}: audit records");
        repo.assert_fsck();
        repo.git(&[
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "probe: git commit works",
        ]);
        landed
    }
}

/// `.lock` files under the git dir, but for git-evolv's own flock file
/// (which is never deleted: the kernel releases the lock, not the file).
pub fn locks_in(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let p = e.path();
        if e.file_type().unwrap().is_dir() {
            out.extend(locks_in(&p));
        } else if p.extension().is_some_and(|x| x == "lock")
            && p.file_name().unwrap() != "landing.lock"
        {
            out.push(p);
        }
    }
    out
}

//! The invariants of issue 16, under random sequences of propose, apply,
//! rollback, drop, `git reset`, `git commit`, local edits and branch
//! switches on a small repository. After every step:
//!
//! - no uncommitted user edit is ever lost (evolv refuses rather than
//!   overwrite; only the user's own git commands may take them away);
//! - `list` says `applied` exactly when the landed commit is reachable
//!   from HEAD;
//! - `git fsck` is clean;
//! - the branch and the working tree agree on every path not edited by
//!   the user (nothing half-landed, nothing staged behind the user's back);
//! - no command panics.
//!
//! One of the files is named `c\xe9.txt` (Latin-1): its name is not UTF-8,
//! and it is reached by the glob `c?.txt`, which matches it by its bytes
//! as git's does (#16 item 7).

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use proptest::prelude::*;

use crate::common::{Run, TestRepo};

/// Each file's name (bytes) and a glob / pathspec that names it.
const FILES: [(&[u8], &str); 3] = [
    (b"a.txt", "a.txt"),
    (b"b.txt", "b.txt"),
    (b"c\xe9.txt", "c?.txt"),
];
const WORDS: [&str; 4] = ["alpha", "beta", "gamma", "delta"];

#[derive(Debug, Clone)]
enum Op {
    Propose { file: usize, from: usize, to: usize },
    Apply(usize),
    ApplyValidated(usize),
    Rollback(usize),
    FileBackupRollback(usize),
    Drop(usize),
    UserEdit(usize),
    UserCommit,
    Reset,
    Switch,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0..3usize, 0..4usize, 0..4usize)
            .prop_map(|(file, from, to)| Op::Propose { file, from, to }),
        3 => (0..8usize).prop_map(Op::Apply),
        1 => (0..8usize).prop_map(Op::ApplyValidated),
        2 => (0..8usize).prop_map(Op::Rollback),
        1 => (0..8usize).prop_map(Op::FileBackupRollback),
        1 => (0..8usize).prop_map(Op::Drop),
        2 => (0..3usize).prop_map(Op::UserEdit),
        1 => Just(Op::UserCommit),
        1 => Just(Op::Reset),
        1 => Just(Op::Switch),
    ]
}

struct World {
    repo: TestRepo,
    ids: Vec<String>,
    /// Uncommitted user content per file (by index in FILES).
    edits: BTreeMap<usize, Vec<u8>>,
    plan: String,
    n: usize,
}

impl World {
    fn new() -> Self {
        let repo = TestRepo::with_files(&[("a.txt", "alpha\nbeta\n"), ("b.txt", "beta\ngamma\n")]);
        std::fs::write(
            repo.path().join(OsStr::from_bytes(FILES[2].0)),
            "gamma\nalpha\n",
        )
        .unwrap();
        repo.commit_all("a file whose name is not UTF-8");
        repo.git(&["branch", "side"]);
        let plan = repo.home().join("plan.json");
        std::fs::write(
            &plan,
            r#"{"dry_run": false, "rollback": {"strategy": "file_backup"}}"#,
        )
        .unwrap();
        World {
            repo,
            ids: Vec::new(),
            edits: BTreeMap::new(),
            plan: plan.to_str().unwrap().to_string(),
            n: 0,
        }
    }

    fn id(&self, k: usize) -> Option<String> {
        (!self.ids.is_empty()).then(|| self.ids[k % self.ids.len()].clone())
    }

    fn evolv(&self, args: &[&str]) -> Run {
        let run = self.repo.evolv(args);
        assert!(
            [0, 1, 2].contains(&run.code) && !run.stderr.contains("panicked"),
            "git evolv {args:?}: exit {}\n{}{}",
            run.code,
            run.stdout,
            run.stderr
        );
        run
    }

    fn step(&mut self, op: &Op) {
        self.n += 1;
        match op {
            Op::Propose { file, from, to } => {
                let run = self.evolv(&[
                    "propose",
                    "--json",
                    "-p",
                    WORDS[*from],
                    "-r",
                    WORDS[*to],
                    "--scope",
                    FILES[*file].1,
                ]);
                if run.code == 0 {
                    self.ids
                        .push(run.json()["patch_id"].as_str().unwrap().to_string());
                }
            }
            Op::Apply(k) => {
                if let Some(id) = self.id(*k) {
                    self.evolv(&["apply", &id, "--plan", &self.plan.clone()]);
                }
            }
            Op::ApplyValidated(k) => {
                if let Some(id) = self.id(*k) {
                    self.evolv(&["apply", &id, "--validate", "test -f a.txt"]);
                }
            }
            Op::Rollback(k) => {
                if let Some(id) = self.id(*k) {
                    self.evolv(&["rollback", &id, "--strategy", "git_revert"]);
                }
            }
            Op::FileBackupRollback(k) => {
                if let Some(id) = self.id(*k) {
                    self.evolv(&["rollback", &id, "--strategy", "file_backup"]);
                }
            }
            Op::Drop(k) => {
                if let Some(id) = self.id(*k) {
                    self.evolv(&["drop", &id]);
                }
            }
            Op::UserEdit(f) => {
                let path = self.file(*f);
                let mut content = std::fs::read(&path).unwrap_or_default();
                content.extend_from_slice(format!("user {}\n", self.n).as_bytes());
                std::fs::write(&path, &content).unwrap();
                self.edits.insert(*f, content);
            }
            Op::UserCommit => {
                self.repo.git(&["add", "-A"]);
                let run = self
                    .repo
                    .git_run(&["commit", "-q", "--allow-empty", "-m", "user"]);
                assert_eq!(run.code, 0, "{}", run.stderr);
                self.edits.clear();
            }
            Op::Reset => {
                // --keep: like a careful user, never throws local edits away.
                let _ = self.repo.git_run(&["reset", "-q", "--keep", "HEAD~1"]);
            }
            Op::Switch => {
                let current = self.repo.git(&["branch", "--show-current"]);
                let other = if current.trim() == "main" {
                    "side"
                } else {
                    "main"
                };
                // Without --force: git refuses when a local edit would be lost.
                let _ = self.repo.git_run(&["switch", "-q", other]);
            }
        }
    }

    fn file(&self, f: usize) -> PathBuf {
        self.repo.path().join(OsStr::from_bytes(FILES[f].0))
    }

    fn check(&self, op: &Op) {
        let repo = &self.repo;
        for (f, content) in &self.edits {
            let now = std::fs::read(self.file(*f)).unwrap_or_default();
            assert_eq!(
                &now, content,
                "after {op:?}: the user's edit of {} was lost",
                FILES[*f].1
            );
        }
        for (f, (_, spec)) in FILES.iter().enumerate() {
            if self.edits.contains_key(&f) {
                continue;
            }
            let file = &format!(":(glob){spec}");
            for args in [
                &["diff", "--quiet", "HEAD", "--", file][..],
                &["diff", "--cached", "--quiet", "--", file][..],
            ] {
                let run = repo.git_run(args);
                assert_eq!(
                    run.code,
                    0,
                    "after {op:?}: {file} differs from HEAD ({args:?}):\n{}",
                    repo.status()
                );
            }
        }
        let list = self.evolv(&["list", "--json"]);
        for p in list.json()["proposals"].as_array().unwrap() {
            let id = p["patch_id"].as_str().unwrap();
            let applied_ref = repo.rev(&format!("refs/evolv/applied/{id}"));
            let reachable = applied_ref.as_ref().is_some_and(|c| {
                repo.git_run(&["merge-base", "--is-ancestor", c, "HEAD"])
                    .code
                    == 0
            });
            assert_eq!(
                p["status"] == "applied",
                reachable,
                "after {op:?}: list says {} for {id}",
                p["status"]
            );
        }
        repo.assert_fsck();
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        // More with EVOLV_INVARIANT_CASES=500 for a long adversarial run.
        cases: std::env::var("EVOLV_INVARIANT_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(16),
        failure_persistence: None,
        max_shrink_iters: 64,
        ..ProptestConfig::default()
    })]
    // See: issue 16, "Requirements": the property test.
    #[test]
    fn random_sequences_keep_the_invariants(ops in prop::collection::vec(op(), 1..14)) {
        let mut world = World::new();
        for op in &ops {
            world.step(op);
            world.check(op);
        }
    }
}

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

use std::collections::BTreeMap;

use proptest::prelude::*;

use crate::common::{Run, TestRepo};

const FILES: [&str; 3] = ["a.txt", "b.txt", "c.txt"];
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
    /// Uncommitted user content per file.
    edits: BTreeMap<String, String>,
    plan: String,
    n: usize,
}

impl World {
    fn new() -> Self {
        let repo = TestRepo::with_files(&[
            ("a.txt", "alpha\nbeta\n"),
            ("b.txt", "beta\ngamma\n"),
            ("c.txt", "gamma\nalpha\n"),
        ]);
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
                    FILES[*file],
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
                let file = FILES[*f];
                let mut content = std::fs::read_to_string(self.repo.file(file)).unwrap_or_default();
                content.push_str(&format!("user {}\n", self.n));
                self.repo.write(file, &content);
                self.edits.insert(file.to_string(), content);
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

    fn check(&self, op: &Op) {
        let repo = &self.repo;
        for (file, content) in &self.edits {
            let now = std::fs::read_to_string(repo.file(file)).unwrap_or_default();
            assert_eq!(
                &now, content,
                "after {op:?}: the user's edit of {file} was lost"
            );
        }
        for file in FILES {
            if self.edits.contains_key(file) {
                continue;
            }
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

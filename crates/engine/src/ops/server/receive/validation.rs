//! How a server validates what it lands (issue 38 item 1), through the
//! validation pipeline apply and `test` use (`ops::validation`, issue 39
//! item 3). A push carries code, and `evolv.validate` runs it: `make
//! test` runs the pushed Makefile. So that code never runs where it could
//! write the repository it is judged for:
//!
//! - `isolated` (the default): each command runs in a sandbox
//!   (`crate::sandbox`, bubblewrap) whose only writable directory is a
//!   throwaway worktree of the commit, removed afterwards; where no
//!   sandbox can start, nothing runs and the push is refused, naming what
//!   to install;
//! - `verdict`: no pushed code runs at all; each command needs a passing
//!   verdict for the landing tree that CI made and pushed.
//!
//! A trusted pass stored for the same tree and commands (the server's own,
//! or one fetched from a remote `evolv.test.trust` names) stands for them:
//! nothing runs. A stored failure runs again and is replaced. The plan in
//! `evolv.plan` applies as it does to an apply: its limits on the files
//! and lines a commit changes, its timeout, its commands (in the sandbox).
//!
//! Either way, the branch, the hooks and the config are read before and
//! compared after: a difference refuses the landing, is undone, and says
//! what it was.

use crate::context::Context;
use crate::error::Result;
use crate::git::{self, ChangedPath, Oid, Repo, RepoPath};
use crate::ops::applying::plan;
use crate::ops::settings::Settings;
use crate::ops::validation::{self, Ask, Caller, Candidate, Validation};
use crate::store::audit::RefMove;

/// Validates `commit`, replayed onto `at` with `changed` to land on
/// `branch_ref`, as the server's configuration says; `Ok` when it may
/// land. The verdict ref it stores, whatever the answer, is added to
/// `facts` (the landing's record lists it).
pub fn validate(
    repo: &Repo,
    (settings, ctx): (&Settings, &Context),
    branch_ref: &str,
    (at, commit, changed): (Oid, Oid, &[ChangedPath]),
    facts: &mut Vec<RefMove>,
) -> Result<()> {
    let plan = plan::resolve(repo, settings, None)?;
    let caller = Caller::Server {
        branch_ref,
        protected: settings.push_policy(false)?.is_protected(branch_ref),
    };
    let v = Validation::resolve(settings, caller, &Ask::default(), plan.as_ref())?;
    if v.limits.is_some() {
        let paths: Vec<RepoPath> = changed.iter().map(|c| c.path.clone()).collect();
        let (from, to) = (repo.commit_tree(at)?, repo.commit_tree(commit)?);
        let (added, removed) = git::line_stats(repo, &from, &to, &paths)?;
        v.check_limits(changed.len(), added + removed)?;
    }
    let candidate = Candidate {
        head: at,
        commit,
        target: repo.find_commit(commit)?.tree_id().to_string(),
    };
    let (validated, outcome) = match validation::run(repo, &v, ctx, &candidate, v.budget()) {
        Ok(validated) => (validated, Ok(())),
        Err(failed) => (*failed.validated, Err(failed.error)),
    };
    facts.extend(validated.verdict.and_then(|j| j.moved));
    outcome
}

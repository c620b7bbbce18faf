//! `git evolv demo`: a guided run in a throwaway repository, driving the
//! same ops and renderers as the real commands.

use serde_json::json;

use super::Output;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::ops::Session;
use crate::ops::applying::{apply, rollback};
use crate::ops::demo::DEMO_VALIDATION;
use crate::ops::proposing::propose;
use crate::ops::reading::inspect;

/// What each step of the demo returned, for `--json`.
struct Steps {
    proposed: propose::ProposeOutcome,
    shown: inspect::ShowOutcome,
    applied: apply::ApplyOutcome,
    rolled_back: rollback::RollbackOutcome,
    log: inspect::LogOutcome,
}

pub fn run(out: &Output) -> Result<()> {
    let temp = tempfile::Builder::new()
        .prefix("git-evolv-demo-")
        .tempdir()
        .map_err(|e| Error::io("create", std::env::temp_dir(), e))?;
    let session = Session::create_demo(temp.path(), Context::new(super::CLI_ACTOR))?;
    if !out.json {
        out.line(&format!(
            "git-evolv demo: a throwaway repository in {} with backend/ and frontend/ code that calls getUserData.",
            temp.path().display()
        ));
    }
    let steps = walk(&session, out)?;
    if out.json {
        out.json_value(&steps.to_json());
    } else {
        super::inspect::render_log(&steps.log, out);
        out.line("\nDone; the throwaway repository has been removed. Try it on your own code:\n  git evolv propose --pattern 'old' --replacement 'new' --scope 'src/**'");
    }
    drop(session);
    temp.close()
        .map_err(|e| Error::io("remove", std::env::temp_dir(), e))?;
    Ok(())
}

/// A step's title and the command it stands for, for people.
fn step(out: &Output, title: &str, command: &str) {
    if !out.json {
        out.line(&format!("\n== {title}\n$ {command}"));
    }
}

/// `value`, rendered for people as its own command renders it (with
/// `--json`, everything is printed at the end, in one object).
fn shown<T>(out: &Output, value: T, render: impl Fn(&T, &Output)) -> T {
    if !out.json {
        render(&value, out);
    }
    value
}

/// Proposes, shows, applies and rolls back a rename, rendering each step
/// for people as its own command would; then reads the audit log.
fn walk(session: &Session, out: &Output) -> Result<Steps> {
    step(
        out,
        "1. Propose a rename in backend/ only: a commit is stored, no file is touched",
        "git evolv propose --pattern getUserData --replacement fetchUserData --scope 'backend/**'",
    );
    let proposed = session.run(&propose::ProposeRequest {
        pattern: "getUserData".into(),
        replacement: "fetchUserData".into(),
        scope: vec!["backend/**".into()].into(),
        ..Default::default()
    })?;
    let proposed = shown(out, proposed, super::propose::render);
    let id = proposed.patch_id.clone();

    step(out, "2. Review it", &format!("git evolv show {id}"));
    let show = session.run(&inspect::ShowRequest {
        patch_id: id.clone(),
    })?;
    let show = shown(out, show, super::inspect::render_show);

    step(
        out,
        "3. Apply it: replayed in an isolated worktree, validated there, then fast-forwarded",
        &format!("git evolv apply {id} --validate {DEMO_VALIDATION}"),
    );
    let mut report = session.run(&apply::ApplyRequest {
        patch_ids: vec![id.clone()],
        validate: Some(vec![DEMO_VALIDATION.into()]),
        ..Default::default()
    })?;
    let applied = shown(out, report.results.remove(0), super::apply::render);

    step(
        out,
        "4. Undo it: a revert commit, nothing rewritten",
        &format!("git evolv rollback {id}"),
    );
    let rolled_back = session.run(&rollback::RollbackRequest {
        patch_id: id,
        strategy: None,
        force: false,
    })?;
    let rolled_back = shown(out, rolled_back, super::rollback::render);

    step(out, "5. Everything is in the audit log", "git evolv log");
    let log = session.run(&inspect::LogRequest { limit: None })?;
    Ok(Steps {
        proposed,
        shown: show,
        applied,
        rolled_back,
        log,
    })
}

impl Steps {
    /// Every step as its own command prints it, envelope included.
    fn to_json(&self) -> serde_json::Value {
        let step = |v: serde_json::Value| -> serde_json::Value {
            let mut v = v;
            if let Some(map) = v.as_object_mut() {
                map.insert("success".into(), json!(true));
            }
            v
        };
        json!({
            "success": true,
            "propose": step(json!(self.proposed)),
            "show": self.shown,
            "apply": step(json!(self.applied)),
            "rollback": step(json!(self.rolled_back)),
            "log": self.log,
        })
    }
}

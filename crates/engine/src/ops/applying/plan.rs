//! Where an apply's ExecutionPlan comes from: `--plan FILE`, `--plan -`
//! (text read by the front end), or the file named by git config
//! `evolv.plan`, relative to the top of the working tree (in a server's
//! bare repository, to the repository).

use std::path::PathBuf;

use serde::Serialize;

use crate::error::{Error, Result};
use crate::git::Repo;
use crate::ops::session::Session;
use crate::ops::session::{Open, UseCase};
use crate::ops::settings::Settings;
use crate::plan::ExecutionPlan;

/// A plan to load.
#[derive(Debug, Clone, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PlanSource {
    /// A JSON file.
    File(PathBuf),
    /// JSON text already read (stdin, an MCP argument); `name` is shown in errors.
    Text { name: String, text: String },
    /// A plan built in code.
    Plan(ExecutionPlan),
}

/// `plan check`'s answer: the plan with every default filled in.
#[derive(Debug, Clone, Serialize)]
pub struct CheckOutcome {
    pub valid: bool,
    pub source: String,
    pub plan: ExecutionPlan,
}

/// Loads and checks a plan; every problem is reported in one `InvalidPlan`.
pub fn load(source: &PlanSource) -> Result<ExecutionPlan> {
    let (name, text) = match source {
        PlanSource::Plan(plan) => {
            plan.validate().map_err(|issues| Error::InvalidPlan {
                source_name: "plan".into(),
                issues,
            })?;
            return Ok(plan.clone());
        }
        PlanSource::Text { name, text } => (name.clone(), text.clone()),
        PlanSource::File(path) => {
            let text =
                std::fs::read_to_string(path).map_err(|e| Error::io("read plan file", path, e))?;
            (path.display().to_string(), text)
        }
    };
    ExecutionPlan::from_json(&text).map_err(|issues| Error::InvalidPlan {
        source_name: name,
        issues,
    })
}

/// `plan check`.
pub fn check(source: &PlanSource) -> Result<CheckOutcome> {
    let plan = load(source)?;
    let source = match source {
        PlanSource::File(p) => p.display().to_string(),
        PlanSource::Text { name, .. } => name.clone(),
        PlanSource::Plan(_) => "plan".into(),
    };
    Ok(CheckOutcome {
        valid: true,
        source,
        plan,
    })
}

/// The plan an apply (or a server's landing) runs under: the explicit
/// one, else `evolv.plan`, relative to the top of the work tree, or in a
/// bare repository (a server) to the repository's directory.
pub fn resolve(
    repo: &Repo,
    config: &Settings,
    explicit: Option<&PlanSource>,
) -> Result<Option<ExecutionPlan>> {
    if let Some(source) = explicit {
        return load(source).map(Some);
    }
    let Some(configured) = config.plan_path() else {
        return Ok(None);
    };
    let (top, what) = match repo.is_bare() {
        true => (repo.common_dir(), "the repository"),
        false => (crate::git::workdir(repo)?, "the top of the work tree"),
    };
    let path = if configured.is_absolute() {
        configured
    } else {
        top.join(configured)
    };
    if !path.is_file() {
        return Err(Error::InvalidConfig {
            key: "evolv.plan".into(),
            value: path.display().to_string(),
            expected: format!("the path of an existing plan file (relative to {what})"),
        });
    }
    load(&PlanSource::File(path)).map(Some)
}

impl UseCase for PlanSource {
    const OPEN: Open = Open::NoRepository;
    type Outcome = CheckOutcome;

    fn run(&self, _: &Session) -> Result<CheckOutcome> {
        check(self)
    }
}

/// An execution plan sent by a client (MCP): refused when it would run
/// commands the repository does not allow it to.
pub struct ClientPlan(pub Option<serde_json::Value>);

impl UseCase for ClientPlan {
    const OPEN: Open = Open::NoRepository;
    type Outcome = ();

    fn run(&self, session: &Session) -> Result<()> {
        crate::ops::permissions::check_client_plan(session.settings()?, self.0.as_ref())
    }
}

//! `git evolv plan schema` and `git evolv plan check`.

use std::io::Read;
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};

use super::Output;
use crate::error::{Error, Result};
use crate::ops::applying::plan::PlanSource;
use crate::plan::ExecutionPlan;

#[derive(Debug, Args)]
pub struct PlanArgs {
    #[command(subcommand)]
    pub command: PlanCommand,
}

#[derive(Debug, Subcommand)]
pub enum PlanCommand {
    /// Print the JSON Schema (draft 2020-12) of an execution plan.
    Schema,
    /// Check a plan and print it with every default filled in.
    Check {
        /// The plan file, or - for stdin.
        #[arg(value_name = "FILE")]
        file: PathBuf,
    },
}

/// `--plan FILE` or `--plan -` as a plan source; stdin is read here, at the edge.
pub fn source(path: &Path) -> Result<PlanSource> {
    if path == Path::new("-") {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| Error::io("read plan from", "stdin", e))?;
        return Ok(PlanSource::Text {
            name: "<stdin>".into(),
            text,
        });
    }
    Ok(PlanSource::File(path.to_path_buf()))
}

pub fn run(args: &PlanArgs, out: &Output) -> Result<()> {
    match &args.command {
        PlanCommand::Schema => {
            out.json_value(&ExecutionPlan::json_schema());
            Ok(())
        }
        PlanCommand::Check { file } => {
            // A plan check needs no repository: the session opens none.
            let session = super::session::<PlanSource>(Path::new("."), out)?;
            let outcome = session.run(&source(file)?)?;
            if out.json {
                out.json_value(&outcome);
            } else {
                out.status(&format!("{}: the plan is valid.", outcome.source));
                out.json_value(&outcome.plan);
            }
            Ok(())
        }
    }
}

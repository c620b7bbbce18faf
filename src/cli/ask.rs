//! `git evolv ask`: a single- or multi-select question on the terminal for
//! scripts and hooks; prints the chosen labels.

use clap::Args;

use super::Output;
use crate::error::{Error, Result};
use crate::prompt::{self, Answer, Choice, Question};

/// Exit code of a cancelled question (Esc, Ctrl-C), as a shell reports SIGINT.
pub const CANCELLED: u8 = 130;

#[derive(Debug, Args)]
pub struct AskArgs {
    /// The question to show.
    pub question: String,
    /// An option as `label: description`; repeat for each option.
    #[arg(long = "option", value_name = "LABEL: DESCRIPTION", required = true)]
    pub options: Vec<String>,
    /// Let the user pick several options (space toggles, enter confirms).
    #[arg(long)]
    pub multi: bool,
    /// The answer when there is no terminal; preselected on a terminal.
    /// Repeat with --multi.
    #[arg(long = "default", value_name = "LABEL")]
    pub defaults: Vec<String>,
}

pub fn run(args: &AskArgs, out: &Output) -> Result<u8> {
    let question = question(args)?;
    let answer = match prompt::open_terminal() {
        Some(term) => prompt::ask(&term, &question)?,
        None if !question.defaults.is_empty() => Answer::Selected(question.defaults.clone()),
        None => {
            return Err(Error::NoTerminal {
                what: "`git evolv ask`".into(),
                hint:
                    "run it from a terminal, or pass --default LABEL to answer when there is none"
                        .into(),
            });
        }
    };
    match answer {
        Answer::Cancelled => {
            if out.json {
                out.json_value(&serde_json::json!({ "cancelled": true }));
            } else {
                out.status("cancelled");
            }
            Ok(CANCELLED)
        }
        Answer::Selected(indexes) => {
            let labels: Vec<&str> = indexes
                .iter()
                .map(|&i| question.choices[i].label.as_str())
                .collect();
            if out.json {
                out.json_value(&serde_json::json!({ "cancelled": false, "selected": labels }));
            } else {
                for label in labels {
                    out.line(label);
                }
            }
            Ok(0)
        }
    }
}

/// Checks the arguments: labels unique, defaults among them, one default
/// without --multi.
fn question(args: &AskArgs) -> Result<Question> {
    let choices = args
        .options
        .iter()
        .map(|o| Choice::parse(o))
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|m| Error::invalid(m, "write each option as --option \"label: description\""))?;
    for (i, c) in choices.iter().enumerate() {
        if choices[..i].iter().any(|d| d.label == c.label) {
            return Err(Error::invalid(
                format!("option label `{}` is given twice", c.label),
                "give each option a distinct label",
            ));
        }
    }
    if !args.multi && args.defaults.len() > 1 {
        return Err(Error::invalid(
            "several --default labels without --multi",
            "pass one --default, or add --multi",
        ));
    }
    let defaults = args
        .defaults
        .iter()
        .map(|d| {
            choices.iter().position(|c| &c.label == d).ok_or_else(|| {
                Error::invalid(
                    format!("--default `{d}` is not one of the options' labels"),
                    format!(
                        "use one of: {}",
                        choices
                            .iter()
                            .map(|c| c.label.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Question {
        prompt: args.question.clone(),
        choices,
        multi: args.multi,
        defaults,
    })
}

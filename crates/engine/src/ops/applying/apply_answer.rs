//! The JSON an apply answers with, the same from every front end
//! (`git evolv apply --json`, the MCP `apply_edit` tool): one shape per
//! kind of apply, chosen here once.

use serde::Serialize;

use crate::error::ErrorBody;
use crate::ops::applying::apply::{ApplyOutcome, ApplyReport};
use crate::ops::applying::task::StartedTask;

/// What an apply answers.
// One answer per apply, made once and serialised: the size of its largest
// variant costs nothing worth a box (and a box in every match).
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Serialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum ApplyAnswer {
    /// One id, landed (or, in a dry run, checked): `success` and the
    /// proposal's outcome at the top level.
    Landed {
        success: bool,
        #[serde(flatten)]
        outcome: ApplyOutcome,
    },
    /// Several ids, or one that failed after others of its stack landed:
    /// `results` in order, and the error where one failed.
    Report {
        success: bool,
        #[serde(flatten)]
        report: ApplyReport,
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<ErrorBody>,
    },
    /// Started in the background: the task to follow.
    Started(StartedTask),
}

impl ApplyAnswer {
    /// The answer to an apply of `ids` proposal ids that reported `report`.
    pub fn of(mut report: ApplyReport, ids: usize) -> Self {
        if ids == 1
            && report.error.is_none()
            && report.results.len() == 1
            && let Some(outcome) = report.results.pop()
        {
            return ApplyAnswer::Landed {
                success: true,
                outcome,
            };
        }
        ApplyAnswer::Report {
            success: report.error.is_none(),
            error: report.error.as_ref().map(|e| e.to_body()),
            report,
        }
    }

    /// Whether the apply did all it was asked.
    pub fn success(&self) -> bool {
        match self {
            ApplyAnswer::Landed { success, .. } | ApplyAnswer::Report { success, .. } => *success,
            ApplyAnswer::Started(started) => started.success,
        }
    }
}

//! The command line's spelling of a request's fields in an error's hint:
//! ops name the field (`pattern`), people type the flag (`--pattern`).

use crate::error::Error;

/// Adds the command line's spelling of a request field to the hint of an
/// error that names it (ops say `pattern`, people type `--pattern`).
pub(super) fn with_flag_hint(e: Error) -> Error {
    let Error::InvalidRequest {
        field,
        message,
        hint,
    } = e
    else {
        return match variant_flags(&e) {
            Some(flags) => e.with_hint(&format!("(on the command line: {flags})")),
            None => e,
        };
    };
    let flag = match field {
        "pattern" => "--pattern",
        "replacement" => "--replacement",
        "scope" => "--scope",
        "literal" => "--literal",
        "timeout_secs" => "--timeout",
        "validate" => "--validate",
        "plan" => "--plan",
        "patch_ids" => "the PATCH_ID arguments",
        "all" => "--all",
        "older_than_days" => "--older-than DAYS and/or --worktrees",
        "worktrees" => "--worktrees",
        "range" => "--range",
        "message" => "MESSAGE, --file or --range",
        "all_above" => "--all-above",
        "path" => "--path",
        "lines" => "--lines",
        "edits" => "--edits FILE, --file …, --delete, --rename",
        "strategy" => "--strategy",
        "remote" => "--remote",
        "to" => "--to",
        _ => {
            return Error::InvalidRequest {
                field,
                message,
                hint,
            };
        }
    };
    Error::InvalidRequest {
        field,
        hint: format!("{hint} (on the command line: {flag})"),
        message,
    }
}

/// The flags for the request fields an error's own hint names.
fn variant_flags(e: &Error) -> Option<&'static str> {
    match e {
        Error::NoMatch { .. } => Some("--literal, --scope"),
        Error::Conflict {
            operation: "rollback",
            ..
        } => Some("--strategy file_backup"),
        Error::ConstraintViolation { .. } => Some("--scope"),
        Error::Timeout { .. } => Some("--timeout"),
        _ => None,
    }
}

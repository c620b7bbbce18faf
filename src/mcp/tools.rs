//! The tool table: name, title, description (saying exactly what the tool
//! touches), the four annotation hints, and the input and output schemas
//! generated from the argument and outcome types.

use std::sync::{Arc, OnceLock};

use rmcp::model::{JsonObject, Tool, ToolAnnotations};

use super::args::*;
use super::outputs::*;
use super::schema::{input, output};
use crate::edit::list::EditList;
use crate::ops::check::CheckOutcome;
use crate::ops::drop::DropOutcome;
use crate::ops::inspect::{ListOutcome, LogOutcome};
use crate::ops::lint::LintOutcome;
use crate::ops::rollback::RollbackOutcome;
use crate::ops::task::{TaskListOutcome, TaskOutcome};

/// What a tool may do, as its annotation hints say.
#[derive(Clone, Copy)]
enum Effect {
    /// Reads, or adds objects and refs in git-evolv's own namespace only.
    ReadOnly { idempotent: bool },
    /// Changes the branch, the working tree or git-evolv's refs.
    Writes { destructive: bool, idempotent: bool },
}

struct Def {
    name: &'static str,
    title: &'static str,
    description: &'static str,
    effect: Effect,
    input: fn() -> Arc<JsonObject>,
    output: fn() -> Arc<JsonObject>,
}

const NAMESPACE_NOTE: &str = "It only adds git objects and refs under refs/evolv/ (git-evolv's own namespace): it never touches the working tree, the index, HEAD or any branch.";

fn defs() -> Vec<Def> {
    vec![
        Def {
            name: "propose_edit",
            title: "Propose an edit",
            description: "Runs a regex (or literal) replacement over the files tracked at HEAD that match `scope`, stores the result as a proposal commit under refs/evolv/proposals/<patch_id>, and returns its unified diff (capped at max_diff_bytes, with full statistics). Files git does not treat as text (a filter driver such as LFS, `binary`, `-text`) are skipped and counted unless include_filtered. A pattern that matches nothing is the error `no_match`. Apply it with apply_edit.",
            effect: Effect::ReadOnly { idempotent: false },
            input: input::<ProposeEditArgs>,
            output: output::<ProposeEditOutput>,
        },
        Def {
            name: "edit",
            title: "Propose precise edits",
            description: "Runs an edit list (exact replace, regex, line/column or offset ranges, write, delete, rename, notebook cells) against HEAD or a pending proposal (`onto`), checks the changed files with the validators, stores the result as one proposal commit under refs/evolv/proposals/<patch_id>, and returns its diff and a structured result per file (diff capped at 64 KiB). A failing edit is reported with its index, path, code and hint; with keep_going the others are still stored.",
            effect: Effect::ReadOnly { idempotent: false },
            input: input::<EditList>,
            output: output::<EditToolOutput>,
        },
        Def {
            name: "notebook_edit",
            title: "Propose a notebook cell edit",
            description: "Replaces, inserts or deletes one cell of a Jupyter notebook (by index or cell id) and stores the result as a proposal commit under refs/evolv/proposals/<patch_id>, exactly as `edit` with one notebook edit does.",
            effect: Effect::ReadOnly { idempotent: false },
            input: input::<NotebookEditArgs>,
            output: output::<EditToolOutput>,
        },
        Def {
            name: "apply_edit",
            title: "Apply a proposal to the current branch",
            description: "Replays the proposal(s) onto the current branch, runs the repository's configured validation (git config evolv.validate) and the execution plan's commands in an isolated validation worktree, then fast-forwards the branch and updates only the changed files in the working tree and index. Refuses if those files have uncommitted changes. Nothing lands if validation fails or times out. On a protected branch the user is asked to confirm when the client supports it. With run_in_background it returns a task_id at once (poll with task_output). Undo with rollback.",
            effect: Effect::Writes {
                destructive: true,
                idempotent: false,
            },
            input: input::<ApplyEditArgs>,
            output: output::<ApplyEditOutput>,
        },
        Def {
            name: "list_proposals",
            title: "List proposals",
            description: "Lists every proposal with its id, summary, files and lines changed, and status (pending, applied, base-moved). Reads refs under refs/evolv/ only; changes nothing.",
            effect: Effect::ReadOnly { idempotent: true },
            input: input::<NoArgs>,
            output: output::<ListOutcome>,
        },
        Def {
            name: "show_proposal",
            title: "Show a proposal",
            description: "Returns one proposal's summary, status and stored unified diff (capped at max_diff_bytes, 64 KiB by default, with a truncation flag; `git show refs/evolv/proposals/<patch_id>` has all of it). Changes nothing.",
            effect: Effect::ReadOnly { idempotent: true },
            input: input::<ShowProposalArgs>,
            output: output::<ShowProposalOutput>,
        },
        Def {
            name: "read_file",
            title: "Read a file at HEAD or in a proposal",
            description: "Returns a file as it is at HEAD, or as a proposal (patch_id) would make it, with line numbers (cat -n layout) and its total line count, so locators for `edit` can be computed from what the edit will see. Optionally only lines start_line..end_line; capped at 256 KiB. Reads git objects only; changes nothing.",
            effect: Effect::ReadOnly { idempotent: true },
            input: input::<ReadFileArgs>,
            output: output::<ReadFileOutput>,
        },
        Def {
            name: "glob",
            title: "Find files by glob",
            description: "Lists the files of the working tree (honouring .gitignore; or, with tracked, the files at HEAD) whose repository-relative path matches the glob (`*` within a directory, `**` across), newest first, at most 1000. `path` narrows the search to a directory of the repository. Changes nothing.",
            effect: Effect::ReadOnly { idempotent: true },
            input: input::<crate::ops::glob::GlobRequest>,
            output: output::<GlobOutput>,
        },
        Def {
            name: "drop_proposal",
            title: "Drop proposals",
            description: "Deletes the named proposals' refs under refs/evolv/proposals/ (every id is checked before any is dropped; a proposal with others stacked on it needs all_above, which drops those too) and records the drop in the audit log. Never touches the working tree, the index or a branch; a landed proposal can still be rolled back.",
            effect: Effect::Writes {
                destructive: true,
                idempotent: true,
            },
            input: input::<DropProposalArgs>,
            output: output::<DropOutcome>,
        },
        Def {
            name: "rollback",
            title: "Roll back an applied proposal",
            description: "Undoes what apply_edit landed with a new commit on the current branch (git_revert: a revert commit; file_backup: the changed files restored from before the apply; manual: changes nothing and returns the plan's steps). A file_backup rollback over later commits that changed the same files is refused (`later_changes`) unless force, which undoes those commits' changes to them too. Updates only those files in the working tree and index, and refuses if they have uncommitted changes. On a protected branch the user is asked to confirm when the client supports it.",
            effect: Effect::Writes {
                destructive: true,
                idempotent: false,
            },
            input: input::<RollbackArgs>,
            output: output::<RollbackOutcome>,
        },
        Def {
            name: "lint_commit",
            title: "Lint a commit message",
            description: "Checks a commit message against the repository's Conventional Commits rules (git config evolv.commit.*) and returns the findings. Reads configuration only; changes nothing.",
            effect: Effect::ReadOnly { idempotent: true },
            input: input::<LintCommitArgs>,
            output: output::<LintOutcome>,
        },
        Def {
            name: "check_repo",
            title: "Check the repository",
            description: "Reports the current branch, its upstream with commits ahead and behind, and the files with uncommitted changes. Runs read-only git commands; changes nothing.",
            effect: Effect::ReadOnly { idempotent: true },
            input: input::<NoArgs>,
            output: output::<CheckOutcome>,
        },
        Def {
            name: "audit_log",
            title: "Read the audit log",
            description: "Returns the audit log (refs/evolv/audit), newest first: every propose, apply, rollback, drop and failure with its patch id, commit and outcome. Changes nothing.",
            effect: Effect::ReadOnly { idempotent: true },
            input: input::<AuditLogArgs>,
            output: output::<LogOutcome>,
        },
        Def {
            name: "task_output",
            title: "Read a background task",
            description: "Returns a background task's status (running, succeeded, failed, timed_out, cancelled), its output so far and, once finished, its result. With block (the default) it waits until the task finishes or timeout_seconds pass (then status is still running). Reads the task's files under the git dir; changes nothing.",
            effect: Effect::ReadOnly { idempotent: true },
            input: input::<TaskOutputArgs>,
            output: output::<TaskOutcome>,
        },
        Def {
            name: "task_list",
            title: "List background tasks",
            description: "Lists the repository's background tasks, newest first, with their status. Reads the task files under the git dir; changes nothing.",
            effect: Effect::ReadOnly { idempotent: true },
            input: input::<NoArgs>,
            output: output::<TaskListOutcome>,
        },
    ]
}

fn annotations(title: &str, effect: Effect) -> ToolAnnotations {
    let (read_only, destructive, idempotent) = match effect {
        Effect::ReadOnly { idempotent } => (true, false, idempotent),
        Effect::Writes {
            destructive,
            idempotent,
        } => (false, destructive, idempotent),
    };
    // All four hints explicitly: a missing destructiveHint counts as true.
    ToolAnnotations::with_title(title)
        .read_only(read_only)
        .destructive(destructive)
        .idempotent(idempotent)
        .open_world(false)
}

/// Every tool, as `tools/list` returns it (schemas generated once).
pub fn all() -> &'static [Tool] {
    static TOOLS: OnceLock<Vec<Tool>> = OnceLock::new();
    TOOLS.get_or_init(build)
}

/// The tool names, in table order.
pub fn names() -> Vec<&'static str> {
    defs().iter().map(|d| d.name).collect()
}

fn build() -> Vec<Tool> {
    defs()
        .into_iter()
        .map(|d| {
            let description = match d.effect {
                Effect::ReadOnly { idempotent: false } => {
                    format!("{} {NAMESPACE_NOTE}", d.description)
                }
                _ => d.description.to_string(),
            };
            Tool::new(d.name, description, (d.input)())
                .with_title(d.title)
                .with_raw_output_schema((d.output)())
                .with_annotations(annotations(d.title, d.effect))
        })
        .collect()
}

/// One tool by name.
pub fn find(name: &str) -> Option<Tool> {
    all().iter().find(|t| t.name == name).cloned()
}

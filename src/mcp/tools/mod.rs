//! The registry: every MCP tool, one line each, in the order `tools/list`
//! gives them. A tool is its file here (`tool::SessionTool` or
//! `tool::McpTool`: its `Meta`, argument and output types, handler); the
//! line below declares its module and lists it, so a new tool is its file
//! and its line.

use super::tool::{Entry, entry};

/// Declares each tool's module and lists its entry, in order.
macro_rules! registry {
    ($($module:ident :: $tool:ident),* $(,)?) => {
        $(mod $module;)*

        /// Every tool, as `tools/list` returns them and `tools/call` finds them.
        pub const REGISTRY: &[Entry] = &[$(entry::<$module::$tool>()),*];
    };
}

registry! {
    propose_edit::ProposeEdit,
    edit::Edit,
    notebook_edit::NotebookEdit,
    propose_patch::ProposePatch,
    propose_worktree::ProposeWorktree,
    apply_edit::ApplyEdit,
    list_proposals::ListProposals,
    show_proposal::ShowProposal,
    read_file::ReadFile,
    glob::Glob,
    drop_proposal::DropProposal,
    rollback::Rollback,
    lint_commit::LintCommit,
    check_repo::CheckRepo,
    audit_log::AuditLog,
    op_log::OpLog,
    list_checkpoints::ListCheckpoints,
    undo::Undo,
    test::Test,
    task_output::TaskOutput,
    task_cancel::CancelTask,
    task_list::ListTasks,
}

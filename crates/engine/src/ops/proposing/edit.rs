//! edit: run an edit list (exact replace, regex, ranges, write, delete,
//! rename, notebook cells) against HEAD or a pending proposal (`onto`),
//! check the changed files with the validators, and store the result as a
//! proposal commit like `propose` does. Reads only the paths the list names
//! and their ancestors; never the whole tree, the index or the working tree.

use crate::git::Oid;
use crate::git::objects::view::Tree;

use crate::context::Context;
use crate::diff::hunks::{DiffBody, LineKind};
use crate::edit::engine::{self, ChangeKind, FileChange};
use crate::edit::failure::{EditCode, EditFailure};
use crate::edit::list::{CheckMode, EditList};
use crate::edit::text::excerpt;
use crate::error::{Error, Result};
use crate::git;
use crate::git::Repo;
use crate::store::audit::AuditAction;
use crate::store::file_records::{FileRecord, Span};
use crate::store::proposals::{self, EditMeta, ProposalMeta};
use crate::validators::{self, ChangedFile, ValidatorReport};

use super::edit_hunks::EditHunks;
pub use super::edit_outcome::{EditOutcome, EditStatistics, FileResult, ResultLocator};
use crate::ops::session::Session;
use crate::ops::session::{Open, UseCase};
use crate::ops::settings::Settings;

/// The request of `edit` is the edit list itself: the same JSON for the
/// CLI (`propose --edits`), the library and the MCP server.
pub type EditRequest = EditList;

/// Runs the edit list and stores the proposal, with the session's
/// settings (the configured validators).
pub fn edit(repo: &Repo, config: &Settings, ctx: &Context, req: &EditList) -> Result<EditOutcome> {
    if req.edits.is_empty() {
        return Err(Error::invalid_field(
            "edits",
            "the edit list has no edits",
            "give at least one edit",
        ));
    }
    let head = git::head(repo)?;
    let (base_commit, onto) = base_of(repo, req, head.commit)?;
    let base_tree = base_commit.tree()?;
    let base = super::edit_base::read_base(repo, &base_tree, &req.edits)?;
    let mut new_id = cell_ids();
    let mut result = engine::run(req, &base, &mut new_id);
    super::edit_filtered::refuse_text_edits(repo, req, &mut result)?;
    let failures = usable_failures(repo, req, &mut result, onto.is_none())?;
    let parent = (base_commit, onto);
    store_changes(repo, (config, ctx), req, parent, result, failures)
}

/// Validates, stores and records the changed files `result` holds on top
/// of `base_commit` (stacked `onto` a pending proposal): what every way
/// of proposing files shares once it knows their new content. `req` gives
/// the summary, the check mode and the edit count.
pub(crate) fn store_changes(
    repo: &Repo,
    (settings, ctx): (&Settings, &Context),
    req: &EditRequest,
    base: (crate::git::objects::view::Commit<'_>, Option<String>),
    result: engine::EngineOutcome,
    failures: Vec<EditFailure>,
) -> Result<EditOutcome> {
    let head = git::head(repo)?;
    let (mut outcome, built) = build_changes(repo, settings, req, base, result, failures)?;
    let Some((meta, commit)) = built else {
        return Ok(outcome);
    };
    let (patch_id, logged) =
        crate::store::new_proposal::store(repo, ctx, AuditAction::Edit, &meta, commit, |r| {
            r.branch = Some(head.ref_name().to_string());
            r.files = outcome.affected_files.clone();
        })?;
    outcome.warnings.extend(
        logged
            .deferred()
            .map(|d| format!("{}: {}", d.message, d.hint)),
    );
    outcome.patch_id = Some(patch_id);
    outcome.commit = Some(commit.to_string());
    Ok(outcome)
}

/// `store_changes` up to the proposal's commit, which no ref names yet
/// (none in a dry run): a partial apply names it in its landing's own
/// transaction.
pub(crate) fn build_changes(
    repo: &Repo,
    settings: &Settings,
    req: &EditRequest,
    (base_commit, onto): (crate::git::objects::view::Commit<'_>, Option<String>),
    result: engine::EngineOutcome,
    failures: Vec<EditFailure>,
) -> Result<(EditOutcome, Option<(ProposalMeta, Oid)>)> {
    let base_tree = base_commit.tree()?;
    let check = req.check.unwrap_or_default();
    let reports = validate(settings, &result.files, check)?;
    let new_tree = super::edit_tree::build_tree(repo, &base_tree, &result.files)?;
    let mut outcome = describe(
        repo,
        req,
        (&base_tree, &new_tree),
        result,
        failures,
        reports,
    )?;
    outcome.base = base_commit.id().to_string();
    outcome.onto = onto;
    if outcome.dry_run {
        return Ok((outcome, None));
    }
    let built = write_commit(repo, &outcome, &new_tree, &base_commit)?;
    Ok((outcome, Some(built)))
}

/// The commit the edits apply to: HEAD's, or the pending proposal's the
/// list is stacked `onto` (an applied one is refused: HEAD has it).
fn base_of<'r>(
    repo: &'r Repo,
    req: &EditRequest,
    head: Oid,
) -> Result<(crate::git::objects::view::Commit<'r>, Option<String>)> {
    let Some(id) = &req.onto else {
        return Ok((repo.find_commit(head)?, None));
    };
    let p = proposals::load(repo, id)?;
    if let Some(applied) = proposals::applied_commit(repo, id) {
        return Err(Error::invalid(
            format!(
                "onto: proposal '{id}' is already applied (as {applied}); stack only on pending proposals"
            ),
            "leave out onto to base the edits on HEAD, which has it",
        ));
    }
    Ok((repo.find_commit(p.commit)?, Some(id.clone())))
}

/// The failed edits the proposal is stored with (`keep_going`); an error
/// when they stop it, or when the edits that worked change nothing.
fn usable_failures(
    repo: &Repo,
    req: &EditRequest,
    result: &mut engine::EngineOutcome,
    on_head: bool,
) -> Result<Vec<EditFailure>> {
    let mut failures = std::mem::take(&mut result.failures);
    if on_head {
        explain_working_tree(repo, &mut failures);
    }
    if !failures.is_empty() && (!req.keep_going || result.applied.is_empty()) {
        return Err(Error::EditsFailed { failures });
    }
    if result.files.is_empty() {
        return Err(Error::invalid(
            "the edits change nothing: the files end up as they are at the base",
            "check the edit list",
        ));
    }
    Ok(failures)
}

/// Runs the validators on the changed files; with `check strict`, a
/// failing one stops the edit.
fn validate(
    settings: &Settings,
    files: &[FileChange],
    check: CheckMode,
) -> Result<Vec<ValidatorReport>> {
    let changed: Vec<ChangedFile<'_>> = files
        .iter()
        .filter_map(|f| {
            f.new.as_deref().map(|c| ChangedFile {
                path: &f.path,
                content: c,
                base: f.old.as_deref(),
                renamed: f.from.is_some(),
            })
        })
        .collect();
    let reports = validators::run(&settings.validators()?, &changed)?;
    if check == CheckMode::Strict && reports.iter().any(|r| !r.passed) {
        return Err(Error::EditsFailed {
            failures: validation_failures(&reports),
        });
    }
    Ok(reports)
}

/// The outcome of the edits from the base tree to the new one, before it
/// is stored (no id, no commit; `base` and `onto` filled in by the caller).
fn describe(
    repo: &Repo,
    req: &EditRequest,
    (base_tree, new_tree): (&Tree<'_>, &Tree<'_>),
    result: engine::EngineOutcome,
    failures: Vec<EditFailure>,
    reports: Vec<ValidatorReport>,
) -> Result<EditOutcome> {
    // Renames name both paths, so `show` diffs both sides.
    let mut paths: Vec<String> = Vec::new();
    for f in &result.files {
        paths.extend(f.from.iter().cloned());
        paths.push(f.path.clone());
    }
    let patch = match patch_in_memory(repo, base_tree, &result.files)? {
        Some(patch) => patch,
        None => git::patch_text(repo, base_tree, new_tree, Some(&paths))?,
    };
    let (lines_added, lines_removed) = crate::diff::line_counts(&patch);
    let check = req.check.unwrap_or_default();
    let dry_run = check == CheckMode::Only;
    let mut hunks = EditHunks::read(&patch);
    let files: Vec<FileResult> = result
        .files
        .iter()
        .map(|f| file_result(f, &mut hunks, &reports, dry_run))
        .collect::<Result<_>>()?;
    let statistics = EditStatistics {
        edits: req.edits.len(),
        edits_applied: result.applied.len(),
        edits_failed: failures.len(),
        files_changed: files.len(),
        lines_added,
        lines_removed,
    };
    Ok(EditOutcome {
        success: !(dry_run && reports.iter().any(|r| !r.passed)),
        patch_id: None,
        summary: summary(req, &result.files),
        affected_files: paths,
        unified_diff: String::from_utf8_lossy(&patch).into_owned(),
        files,
        failures,
        warnings: result.warnings,
        validators: reports,
        check,
        statistics,
        commit: None,
        base: String::new(),
        onto: None,
        dry_run,
        diff_bytes: patch,
    })
}

/// The diff `patch_text` prints, written from the contents in hand when
/// every file is modified in place (same path, same mode) and no attribute
/// can reach it: libgit2's tree diff reads both blobs again and looks each
/// path's attributes up (two `realpath`s a file), a fifth of a 3,000-file
/// `propose --patch`. `None`: the tree diff must write it.
fn patch_in_memory(
    repo: &Repo,
    base_tree: &Tree<'_>,
    files: &[FileChange],
) -> Result<Option<Vec<u8>>> {
    let Some(patcher) = git::FilePatcher::new(repo) else {
        return Ok(None);
    };
    let mut in_order: Vec<&FileChange> = files.iter().collect();
    // git's tree order is the byte order of whole paths.
    in_order.sort_by(|a, b| a.path.as_bytes().cmp(b.path.as_bytes()));
    let mut patch = Vec::new();
    for f in in_order {
        let (ChangeKind::Modify, None, Some(old), Some(new)) = (f.kind, &f.from, &f.old, &f.new)
        else {
            return Ok(None);
        };
        let same_mode = base_tree
            .get_path(std::path::Path::new(&f.path))
            .is_some_and(|e| e.mode == f.mode);
        if !same_mode || !repo.surely_unattributed(&git::RepoPath::from(f.path.as_str())) {
            return Ok(None);
        }
        patch.extend(patcher.patch(f.path.as_bytes(), f.mode, old, new)?);
    }
    Ok(Some(patch))
}

/// The proposal's commit, not yet named by a ref: metadata as `propose`
/// writes it (operation "edits"), the parent the base (HEAD or the
/// proposal below in a stack).
pub(crate) fn write_commit(
    repo: &Repo,
    o: &EditOutcome,
    tree: &Tree<'_>,
    base: &crate::git::objects::view::Commit<'_>,
) -> Result<(ProposalMeta, Oid)> {
    let author = git::author(repo)?;
    let committer = git::committer(repo)?;
    let meta = ProposalMeta {
        edit: EditMeta::Edits {
            files: o.files.iter().map(file_record).collect(),
            validators: o.validators.clone(),
        },
        scope: Vec::new(),
        created_at: proposals::now_secs(),
        files_scanned: o.statistics.edits,
        files_matched: o.files.len(),
        total_changes: o.statistics.edits_applied,
        lines_added: o.statistics.lines_added,
        lines_removed: o.statistics.lines_removed,
        affected_files: o.affected_files.clone(),
        // Edit lists name their files as text (UTF-8 only).
        affected_files_bytes: None,
        onto: o.onto.clone(),
        assisted_by: None,
    };
    let commit =
        proposals::write_commit(repo, &o.summary, &meta, (&author, &committer), tree, base)?;
    Ok((meta, commit))
}

/// What is kept of a file's result with the proposal (the diff and the
/// excerpt are the commit's; #12 item 2).
fn file_record(f: &FileResult) -> FileRecord {
    FileRecord {
        path: f.path.clone(),
        operation_type: match f.operation_type {
            ChangeKind::Create => "create",
            ChangeKind::Modify => "modify",
            ChangeKind::Delete => "delete",
            ChangeKind::Rename => "rename",
        }
        .to_string(),
        from_path: f.from_path.clone(),
        locator: f.locator.as_ref().map(|l| Span {
            start_line: l.start_line,
            start_col: l.start_col,
            end_line: l.end_line,
            end_col: l.end_col,
        }),
        warnings: f.warnings.clone(),
    }
}

fn summary(req: &EditRequest, files: &[FileChange]) -> String {
    if let Some(m) = req
        .message
        .as_deref()
        .and_then(|m| m.lines().next())
        .map(str::trim)
        .filter(|m| !m.is_empty())
    {
        return m.to_string();
    }
    match files {
        [one] => {
            let verb = match one.kind {
                ChangeKind::Create => "create",
                ChangeKind::Modify => "edit",
                ChangeKind::Delete => "delete",
                ChangeKind::Rename => "rename",
            };
            match &one.from {
                // Conventional Commit headers, as every commit git-evolv
                // lands (#16 item 17).
                Some(from) => format!("refactor: {verb} {from} to {}", one.path),
                None => format!("refactor: {verb} {}", one.path),
            }
        }
        _ => format!(
            "refactor: {} edit(s) in {} file(s)",
            req.edits.len(),
            files.len()
        ),
    }
}

fn file_result(
    f: &FileChange,
    hunks: &mut EditHunks,
    reports: &[ValidatorReport],
    dry_run: bool,
) -> Result<FileResult> {
    let old = f.old.as_deref().unwrap_or_default();
    let new = f.new.as_deref();
    let binary = crate::edit::is_binary(old) || new.is_some_and(crate::edit::is_binary);
    let diff = DiffBody::unified(if binary { Vec::new() } else { hunks.take(f)? });
    let (locator, excerpt_text) = match new {
        Some(new) if !binary => locate(&diff, new),
        _ => (None, None),
    };
    Ok(FileResult {
        path: f.path.clone(),
        operation_type: f.kind,
        from_path: f.from.clone(),
        locator,
        diff,
        new_content_excerpt: excerpt_text,
        mode: format!("{:o}", f.mode),
        warnings: f.warnings.clone(),
        edits: f.edits.clone(),
        validators: reports
            .iter()
            .filter(|r| r.files.contains(&f.path))
            .cloned()
            .collect(),
        dry_run,
    })
}

/// The first to the last added line of the new content, and the new text
/// there (with a line of context), at most 20 lines.
fn locate(diff: &DiffBody, new: &[u8]) -> (Option<ResultLocator>, Option<String>) {
    let mut first = None;
    let mut last = None;
    for h in &diff.hunks {
        let mut line = h.new_start.max(1);
        for l in &h.lines {
            match l.kind {
                LineKind::Added => {
                    first.get_or_insert(line);
                    last = Some(line);
                    line += 1;
                }
                LineKind::Context => line += 1,
                LineKind::Removed => {
                    // A pure removal: the change sits before `line`.
                    first.get_or_insert(line);
                    last = last.max(Some(line.saturating_sub(1).max(1)));
                }
            }
        }
    }
    let text = String::from_utf8_lossy(new);
    let lines: Vec<&str> = text.lines().collect();
    let (Some(first), Some(last)) = (first, last) else {
        return (None, None);
    };
    let last = last.max(first).min(lines.len().max(1));
    let first = first.min(last);
    let end_col = lines
        .get(last - 1)
        .map(|l| l.trim_end_matches('\r').chars().count() + 1)
        .unwrap_or(1);
    let from = first.saturating_sub(2);
    let to = (last + 1).min(lines.len()).min(from + 20);
    let shown: Vec<&str> = lines.get(from..to).unwrap_or_default().to_vec();
    (
        Some(ResultLocator {
            start_line: first,
            start_col: 1,
            end_line: last,
            end_col,
        }),
        Some(excerpt(&shown.join("\n"), 4000)),
    )
}

/// Content failures on files with uncommitted changes get a hint that the
/// edit was computed against HEAD, not the working tree.
fn explain_working_tree(repo: &Repo, failures: &mut [EditFailure]) {
    for f in failures.iter_mut() {
        if matches!(f.code, EditCode::InvalidInput | EditCode::ValidationFailed) {
            continue;
        }
        if repo.has_uncommitted_changes(std::path::Path::new(&f.path)) {
            f.hint.push_str(&format!(
                "; note: the edit was computed against HEAD, not the working tree, and {} has uncommitted changes (commit them first if the edit is meant for them)",
                f.path
            ));
        }
    }
}

fn validation_failures(reports: &[ValidatorReport]) -> Vec<EditFailure> {
    reports
        .iter()
        .filter(|r| !r.passed)
        .map(|r| {
            let what = match &r.command {
                Some(c) => format!("validator '{}' (`{c}`)", r.name),
                None => format!("the built-in {} check", r.name),
            };
            EditFailure::new(
                None,
                &r.files.join(", "),
                EditCode::ValidationFailed,
                format!(
                    "{what} failed on {}:\n{}",
                    r.files.join(", "),
                    r.output.trim_end()
                ),
                "nothing was stored; fix the edit, or pass --check warn to store it anyway",
            )
        })
        .collect()
}

/// Fresh notebook cell ids: 8 hex digits, like nbformat's.
fn cell_ids() -> impl FnMut() -> String {
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
        ^ (u64::from(std::process::id()) << 32);
    let mut state = seed | 1;
    move || {
        // xorshift64*: ids need to be distinct, not secret.
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        format!(
            "{:08x}",
            (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 32) as u32
        )
    }
}

impl UseCase for EditList {
    const OPEN: Open = Open::Recovering;
    const WRITES_OBJECTS: bool = true;
    type Outcome = EditOutcome;

    fn run(&self, session: &Session) -> Result<EditOutcome> {
        let (repo, settings) = (session.repo()?, session.settings()?);
        edit(repo, settings, session.context(), self)
    }
}

//! propose: run an edit over HEAD's files, store the result as a proposal
//! commit under `refs/evolv/proposals/<id>`, return its diff. Never touches
//! the working tree, the index or HEAD.

mod diff_out;
mod scan;

use serde::Serialize;

pub use diff_out::{JSON_DIFF_MAX, ProposedDiff};
use scan::Scan;

use crate::context::Context;
use crate::edit::{Replacer, Scope};
use crate::error::{Error, Result};
use crate::git::{self, BlobEntry, FilePatcher, FileUpdate, NewObject, Repo};
use crate::progress::Progress;
use crate::store::audit::AuditAction;
use crate::store::pending::Deferred;
use crate::store::proposals::{self, EditMeta, ProposalMeta};
use evolv_core::globs::Globs;

use crate::ops::session::Session;
use crate::ops::session::{Open, UseCase};
use crate::ops::settings::Settings;

/// A regex (or literal) replacement over the files in scope.
#[derive(Debug, Clone, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProposeRequest {
    /// The regex to search for (Rust regex syntax), or the exact text when
    /// `literal` is set. Must not be empty.
    pub pattern: String,
    /// What each match becomes; `$1`, `${name}` refer to capture groups
    /// unless `literal` is set.
    #[serde(default)]
    pub replacement: String,
    /// Globs relative to the top of the repository (`src/**`): one as a string
    /// or several as an array; empty means every file.
    #[serde(default)]
    pub scope: Globs,
    /// Search for `pattern` as written, not as a regex.
    #[serde(default)]
    pub literal: bool,
    /// The proposal's one-line summary; default: a description of the edit.
    #[serde(default)]
    pub message: Option<String>,
    /// Edit files git does not treat as plain text too (a filter driver
    /// such as LFS, `binary`, `-text`); off by default (#16 item 3).
    #[serde(default)]
    pub include_filtered: bool,
}

/// Counts reported with every proposal.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct Statistics {
    /// Text and binary files in scope.
    pub files_scanned: usize,
    /// Files the edit changed.
    pub files_matched: usize,
    /// Replacements made.
    pub total_changes: usize,
    /// Binary files in scope that were skipped.
    pub binary_skipped: usize,
    /// Files the pattern matched that were left alone because git does not
    /// treat them as text: a `filter` driver (LFS), `binary` or `-text`.
    pub filtered_skipped: usize,
    /// Files the pattern matched whose path git-evolv cannot land on this
    /// platform (a backslash on Windows, where it separates directories).
    /// Names that are not UTF-8 land like any other (#16 item 7).
    pub path_skipped: usize,
    pub lines_added: usize,
    pub lines_removed: usize,
}

/// What propose stored.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ProposeOutcome {
    pub patch_id: String,
    pub summary: String,
    /// The changed paths as text (a name that is not UTF-8 lossily, with
    /// U+FFFD); see `affected_files_bytes`.
    pub affected_files: Vec<String>,
    /// Only when some changed name is not UTF-8: per entry of
    /// `affected_files`, its exact bytes in hex, or null when the text is
    /// exact (#16 item 7).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub affected_files_bytes: Option<Vec<Option<String>>>,
    /// The diff as text (invalid UTF-8 replaced), its first
    /// [`JSON_DIFF_MAX`] bytes (1 MiB) cut at a line end; `diff` is exact
    /// and whole.
    pub unified_diff: String,
    /// `unified_diff` is only the start of the diff; `git evolv show` and
    /// `git show refs/evolv/proposals/<id>` have all of it. The
    /// statistics are always those of the whole diff.
    pub diff_truncated: bool,
    /// The size of the whole diff in bytes.
    pub diff_total_bytes: u64,
    pub statistics: Statistics,
    /// Every matched file that was left out, and why.
    pub skipped: Vec<SkippedFile>,
    /// The proposal commit P and its parent, the base B.
    pub commit: String,
    pub base: String,
    /// Bookkeeping that had to wait (a foreign `refs/evolv/audit.lock`):
    /// journalled, completed by the next command; the proposal is stored.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Deferred>,
    /// The whole diff, for front ends to stream or cap.
    #[serde(skip)]
    #[schemars(skip)]
    pub diff: ProposedDiff,
}

/// A file the pattern matched that the proposal leaves alone.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct SkippedFile {
    /// The path as text (lossy when it is not UTF-8).
    pub path: String,
    /// The path's exact bytes in hex, only when it is not UTF-8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path_bytes: Option<String>,
    pub reason: String,
}

impl SkippedFile {
    fn new(path: &git::RepoPath, reason: String) -> Self {
        SkippedFile {
            path: path.lossy().into_owned(),
            path_bytes: path.hex_if_not_utf8(),
            reason,
        }
    }

    /// The path quoted as git quotes it, for people.
    pub fn shown(&self) -> String {
        git::types::path::shown(
            std::slice::from_ref(&self.path),
            Some(std::slice::from_ref(&self.path_bytes)),
        )
        .remove(0)
    }
}

/// Runs the edit and stores the proposal, with the session's settings
/// (the summary template); the files scanned are reported to `ctx`'s
/// progress.
pub fn propose(
    repo: &Repo,
    settings: &Settings,
    ctx: &Context,
    req: &ProposeRequest,
) -> Result<ProposeOutcome> {
    git::bound_mapped_packs();
    let replacer = Replacer::new(&req.pattern, &req.replacement, req.literal)?;
    let scope = Scope::new(&req.scope)?;
    let head = git::head(repo)?;
    let author = git::author(repo)?;
    let committer = git::committer(repo)?;
    let base = repo.find_commit(head.commit)?;
    let base_tree = base.tree()?;
    let (mut scan, files_scanned, filtered_skipped) =
        scan_scope(repo, req, (&replacer, &scope, ctx.progress()), &base_tree)?;

    let new_tree = write_tree(repo, &base_tree, &scan)?;
    let paths: Vec<git::RepoPath> = scan.changed.iter().map(|c| c.entry.repo_path()).collect();
    let diff = assemble_diff(repo, &base_tree, &new_tree, &mut scan, &paths)?;
    let (lines_added, lines_removed) = diff.line_counts();
    let statistics = Statistics {
        files_scanned,
        files_matched: paths.len(),
        total_changes: scan.replacements,
        binary_skipped: scan.binary,
        filtered_skipped,
        path_skipped: scan.skipped.len() - filtered_skipped,
        lines_added,
        lines_removed,
    };
    let summary = summary(settings, req);
    let meta = meta(req, &statistics, &paths);
    let commit = proposals::write_commit(
        repo,
        &summary,
        &meta,
        (&author, &committer),
        &new_tree,
        &base,
    )?;
    // The proposal is stored: its record can wait (journalled, with a
    // warning), the command cannot fail.
    let (patch_id, logged) =
        crate::store::new_proposal::store(repo, ctx, AuditAction::Propose, &meta, commit, |r| {
            r.branch = Some(head.ref_name().to_string());
            r.set_files(&paths);
        })?;
    let warnings = logged.deferred().cloned().into_iter().collect();
    let (head_bytes, diff_truncated) = diff.head(JSON_DIFF_MAX)?;
    Ok(ProposeOutcome {
        patch_id,
        summary,
        affected_files: meta.affected_files,
        affected_files_bytes: meta.affected_files_bytes,
        unified_diff: String::from_utf8_lossy(&head_bytes).into_owned(),
        diff_truncated,
        diff_total_bytes: diff.len(),
        statistics,
        skipped: scan.skipped,
        commit: commit.to_string(),
        base: head.commit.to_string(),
        warnings,
        diff,
    })
}

/// Scans HEAD's files in scope with the replacer: the scan (files not
/// text left out unless asked for), the number of files scanned and of
/// files skipped as not text. No match at all is `no_match`.
fn scan_scope(
    repo: &Repo,
    req: &ProposeRequest,
    (replacer, scope, progress): (&Replacer, &Scope, &Progress),
    base_tree: &crate::git::objects::view::Tree<'_>,
) -> Result<(Scan, usize, usize)> {
    let files: Vec<BlobEntry> = blobs_in_scope(repo, base_tree, &req.scope, scope)?
        .into_iter()
        .filter(|f| scope.matches_bytes(f.raw.as_deref().unwrap_or(f.path.as_bytes())))
        .collect();
    // In a partial clone, the scope's blobs that are not here yet come in
    // one fetch, as git's own bulk readers get them.
    repo.fetch_missing(files.iter().map(|f| f.oid))?;
    // Each file's diff is written during the scan, but for the files an
    // attribute may reach (and for all when libgit2 would refuse the
    // configured `core.abbrev`): the tree diff writes those.
    let files_patcher = FilePatcher::new(repo);
    let patcher = || files_patcher.map(|p| scan::Patcher::new(p, repo.unattributed_test()));
    let mut scan = scan::scan_files(repo, &files, (replacer, progress), patcher)?;
    let filtered_skipped = if req.include_filtered {
        0
    } else {
        skip_not_text(repo, &mut scan)?
    };
    scan.skipped.sort_by(|a, b| a.path.cmp(&b.path));
    if scan.changed.is_empty() {
        return Err(no_match(req, &scan, files.len()));
    }
    Ok((scan, files.len(), filtered_skipped))
}

/// The first line of the request's message, else the default summary.
fn summary(settings: &Settings, req: &ProposeRequest) -> String {
    req.message
        .as_deref()
        .map(|m| m.lines().next().unwrap_or_default().trim().to_string())
        .filter(|m| !m.is_empty())
        .unwrap_or_else(|| default_summary(settings, req))
}

/// What the proposal commit records about the replacement.
fn meta(req: &ProposeRequest, statistics: &Statistics, paths: &[git::RepoPath]) -> ProposalMeta {
    ProposalMeta {
        edit: EditMeta::Replace {
            pattern: req.pattern.clone(),
            replacement: req.replacement.clone(),
            literal: req.literal,
        },
        scope: req.scope.to_vec(),
        created_at: proposals::now_secs(),
        files_scanned: statistics.files_scanned,
        files_matched: statistics.files_matched,
        total_changes: statistics.total_changes,
        lines_added: statistics.lines_added,
        lines_removed: statistics.lines_removed,
        affected_files: git::types::path::lossy_list(paths),
        affected_files_bytes: git::types::path::bytes_column(paths),
        onto: None,
        assisted_by: None,
    }
}

/// The `no_match` error, naming what was skipped.
fn no_match(req: &ProposeRequest, scan: &Scan, files_scanned: usize) -> Error {
    let mut detail = String::new();
    if scan.binary > 0 {
        detail.push_str(&format!(" ({} binary file(s) skipped)", scan.binary));
    }
    for s in &scan.skipped {
        detail.push_str(&format!(
            "; {} matched but was skipped: {}",
            s.shown(),
            s.reason
        ));
    }
    Error::NoMatch {
        pattern: req.pattern.clone(),
        scope: scope_label(&req.scope),
        files_scanned,
        detail,
    }
}

/// Writes the changed files' blobs and the trees above them (one pack
/// when there are many) and returns the new root tree.
fn write_tree<'r>(
    repo: &'r Repo,
    base_tree: &crate::git::objects::view::Tree<'_>,
    scan: &Scan,
) -> Result<crate::git::objects::view::Tree<'r>> {
    let updates: Vec<FileUpdate<'_>> = scan
        .changed
        .iter()
        .map(|c| FileUpdate {
            path: c.entry.raw.as_deref().unwrap_or(c.entry.path.as_bytes()),
            oid: c.object.packed.oid,
            mode: git::normalized_mode(c.entry.mode),
        })
        .collect();
    let (root, trees) = git::updated_trees(repo, base_tree, &updates)?;
    let objects: Vec<&NewObject> = scan
        .changed
        .iter()
        .map(|c| &c.object)
        .chain(trees.iter())
        .collect();
    git::write_objects(repo, &objects)?;
    repo.find_tree(root)
}

/// The whole diff in git's path order: the scan's, with the diffs of the
/// files an attribute may reach put in their places, from libgit2's tree
/// diff of just those files (which reads the attributes: `diff=`, `-diff`,
/// `binary`, `text`…). Without a scan diff, the tree diff of all of them.
fn assemble_diff(
    repo: &Repo,
    old: &crate::git::objects::view::Tree<'_>,
    new: &crate::git::objects::view::Tree<'_>,
    scan: &mut Scan,
    paths: &[git::RepoPath],
) -> Result<ProposedDiff> {
    let Some(fast) = scan.diff.take() else {
        return spool_tree_diff(repo, old, new, paths, &mut |_| ());
    };
    let (places, held): (Vec<u64>, Vec<git::RepoPath>) = scan
        .changed
        .iter()
        .zip(paths)
        .filter_map(|(c, p)| c.diff_at.map(|at| (at, p.clone())))
        .unzip();
    if held.is_empty() {
        return Ok(fast);
    }
    // Where each held file's diff starts in the tree diff.
    let mut starts = Vec::with_capacity(held.len());
    let theirs = spool_tree_diff(repo, old, new, &held, &mut |at| starts.push(at))?;
    if starts.len() != held.len() {
        // Not one diff per file, as it always is: let the tree diff say all.
        return spool_tree_diff(repo, old, new, paths, &mut |_| ());
    }
    let mut out = ProposedDiff::default();
    let mut from = 0;
    for (k, &at) in places.iter().enumerate() {
        fast.copy_range(from, at, &mut out)?;
        from = at;
        let end = starts.get(k + 1).copied().unwrap_or(theirs.len());
        theirs.copy_range(starts[k], end, &mut out)?;
    }
    fast.copy_range(from, fast.len(), &mut out)?;
    Ok(out)
}

/// The diff of `paths` between two trees by libgit2 (which reads
/// attributes), spooled as it is printed; `file_at` learns the offset at
/// which each file's diff starts.
fn spool_tree_diff(
    repo: &Repo,
    old: &crate::git::objects::view::Tree<'_>,
    new: &crate::git::objects::view::Tree<'_>,
    paths: &[git::RepoPath],
    file_at: &mut dyn FnMut(u64),
) -> Result<ProposedDiff> {
    let mut diff = ProposedDiff::default();
    let mut failed = None;
    git::write_patch(repo, old, new, Some(paths), &mut |line| {
        // A file's header line; no other line starts so (content
        // lines carry their `+`, `-` or space).
        if line.starts_with(b"diff --git ") {
            file_at(diff.len());
        }
        match diff.push(line) {
            Ok(()) => true,
            Err(e) => {
                failed = Some(e);
                false
            }
        }
    })
    .map_err(|e| failed.take().unwrap_or(e))?;
    match failed {
        Some(e) => Err(e),
        None => Ok(diff),
    }
}

/// The default summary, which the landed commit's message starts with: a
/// Conventional Commit header (`refactor: replace 'a' with 'b' in src/**`)
/// so git-evolv's own commits pass its own lint (#16 item 17). Git config
/// `evolv.summaryTemplate` changes it: `{pattern}`, `{replacement}` and
/// `{scope}` (` in a, b`, or nothing) are filled in.
fn default_summary(settings: &Settings, req: &ProposeRequest) -> String {
    let short = |s: &str| {
        let s = s.replace('\n', "\\n");
        if s.chars().count() > 40 {
            format!("{}…", s.chars().take(40).collect::<String>())
        } else {
            s
        }
    };
    let template = settings
        .summary_template()
        .unwrap_or(DEFAULT_SUMMARY_TEMPLATE);
    let scope = if req.scope.is_empty() {
        String::new()
    } else {
        format!(" in {}", req.scope.join(", "))
    };
    let summary = template
        .replace("{pattern}", &short(&req.pattern))
        .replace("{replacement}", &short(&req.replacement))
        .replace("{scope}", &scope);
    let summary = summary.lines().next().unwrap_or_default().trim_end();
    // commitlint's header-max-length is 100.
    if summary.chars().count() > 100 {
        format!("{}…", summary.chars().take(99).collect::<String>())
    } else {
        summary.to_string()
    }
}

/// What `evolv.summaryTemplate` defaults to.
pub const DEFAULT_SUMMARY_TEMPLATE: &str =
    "refactor: replace '{pattern}' with '{replacement}'{scope}";

/// Takes out of `scan` every changed file whose attributes make git not
/// treat it as text: a filter driver (LFS pointers), `binary` or `-text`;
/// git does not treat it as text, so neither does the edit (#16 item 3).
/// Only files an attribute may reach are asked about (`diff_at`, or all
/// without a scan diff), with one `git check-attr`. Returns how many. (A
/// path `confine` refuses, or a name that is not UTF-8, was left out by
/// the scan.)
fn skip_not_text(repo: &Repo, scan: &mut Scan) -> Result<usize> {
    let all = scan.diff.is_none();
    let paths: Vec<git::RepoPath> = scan.changed.iter().map(|c| c.entry.repo_path()).collect();
    let asked: Vec<&git::RepoPath> = scan
        .changed
        .iter()
        .zip(&paths)
        .filter(|(c, _)| all || c.diff_at.is_some())
        .map(|(_, p)| p)
        .collect();
    if asked.is_empty() {
        return Ok(0);
    }
    let not_text = git::worktree::filters::not_text(repo, &asked)?;
    if not_text.is_empty() {
        return Ok(0);
    }
    let mut skipped = 0;
    let mut kept = Vec::with_capacity(scan.changed.len());
    for (c, path) in std::mem::take(&mut scan.changed).into_iter().zip(paths) {
        match not_text.get(&path) {
            Some(why) => {
                scan.replacements -= c.count;
                skipped += 1;
                scan.skipped.push(SkippedFile::new(
                    &path,
                    format!("{why}; pass --include-filtered to edit it anyway"),
                ));
            }
            None => kept.push(c),
        }
    }
    scan.changed = kept;
    Ok(skipped)
}

fn scope_label(scope: &[String]) -> String {
    if scope.is_empty() {
        "(all tracked files)".into()
    } else {
        format!("'{}'", scope.join("', '"))
    }
}

/// The files of `tree` that the scope globs could match: when every glob
/// starts with a literal directory (`src/d000/**`), only those subtrees
/// are walked, and below them no directory the globs cannot reach
/// (`src/d00[0-2]/**` leaves out `src/d005`), as `git grep` prunes its
/// walk by pathspec; the globs themselves still decide (the caller
/// filters).
fn blobs_in_scope(
    repo: &Repo,
    tree: &crate::git::objects::view::Tree<'_>,
    globs: &[String],
    scope: &Scope,
) -> Result<Vec<BlobEntry>> {
    let keep_dir = |dir: &[u8]| scope.may_hold_dir(dir);
    let mut prefixes: Vec<String> = Vec::new();
    for glob in globs {
        let g = glob.trim().trim_start_matches("./").trim_start_matches('/');
        let literal = &g[..g.find(['*', '?', '[', '{', '\\']).unwrap_or(g.len())];
        match literal.rfind('/') {
            Some(end) if end > 0 => prefixes.push(literal[..end].to_string()),
            _ => return git::list_files(repo, tree.id(), "", &keep_dir),
        }
    }
    if prefixes.is_empty() {
        return git::list_files(repo, tree.id(), "", &keep_dir);
    }
    prefixes.sort();
    prefixes.dedup();
    // A prefix inside another is walked with it.
    let mut outer: Vec<String> = Vec::new();
    for p in prefixes {
        if !outer.iter().any(|o| p.starts_with(&format!("{o}/"))) {
            outer.push(p);
        }
    }
    let mut files = Vec::new();
    for prefix in outer {
        let Some(entry) = tree.get_path(std::path::Path::new(&prefix)) else {
            continue;
        };
        if entry.kind != crate::git::objects::view::Kind::Tree {
            continue;
        }
        files.extend(git::list_files(
            repo,
            entry.id,
            &format!("{prefix}/"),
            &keep_dir,
        )?);
    }
    Ok(files)
}

impl UseCase for ProposeRequest {
    const OPEN: Open = Open::Recovering;
    const WRITES_OBJECTS: bool = true;
    type Outcome = ProposeOutcome;

    fn run(&self, session: &Session) -> Result<ProposeOutcome> {
        propose(
            session.repo()?,
            session.settings()?,
            session.context(),
            self,
        )
    }
}

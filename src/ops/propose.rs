//! propose: run an edit over HEAD's files, store the result as a proposal
//! commit under `refs/evolv/proposals/<id>`, return its diff. Never touches
//! the working tree, the index or HEAD.

use git2::{Oid, build::TreeUpdateBuilder};
use serde::Serialize;

use crate::diff;
use crate::edit::{FileEdit, Replacer, Scope};
use crate::error::{Error, Result};
use crate::git::Repo;
use crate::git::{self, BlobEntry};
use crate::progress::{self, Task};
use crate::store::audit::{self, AuditAction, AuditRecord};
use crate::store::pending::Deferred;
use crate::store::proposals::{self, EditMeta, ProposalMeta};

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
    /// Globs relative to the top of the repository (`src/**`); empty means
    /// every file.
    #[serde(default)]
    pub scope: Vec<String>,
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
    /// The diff as text (invalid UTF-8 replaced); `diff_bytes` is exact.
    pub unified_diff: String,
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
    #[serde(skip)]
    pub diff_bytes: Vec<u8>,
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
        git::path::shown(
            std::slice::from_ref(&self.path),
            Some(std::slice::from_ref(&self.path_bytes)),
        )
        .remove(0)
    }
}

struct Scan {
    changed: Vec<(BlobEntry, Vec<u8>)>,
    replacements: usize,
    /// Replacements per entry of `changed`.
    counts: Vec<usize>,
    binary: usize,
}

/// Runs the edit and stores the proposal.
pub fn propose(repo: &Repo, req: &ProposeRequest) -> Result<ProposeOutcome> {
    let replacer = Replacer::new(&req.pattern, &req.replacement, req.literal)?;
    let scope = Scope::new(&req.scope)?;
    let head = git::head(repo)?;
    let author = git::author(repo)?;
    let committer = git::committer(repo)?;
    let base = repo.find_commit(head.commit)?;
    let base_tree = base.tree()?;

    let files: Vec<BlobEntry> = blobs_in_scope(repo, &base_tree, &req.scope)?
        .into_iter()
        .filter(|f| scope.matches_bytes(f.raw.as_deref().unwrap_or(f.path.as_bytes())))
        .collect();
    let mut scan = scan_files(repo, &files, &replacer)?;
    let skipped = skip_unlandable(repo, &mut scan, req.include_filtered)?;
    let filtered_skipped = skipped.iter().filter(|s| s.0).count();
    let skipped: Vec<SkippedFile> = skipped.into_iter().map(|s| s.1).collect();
    if scan.changed.is_empty() {
        let mut detail = String::new();
        if scan.binary > 0 {
            detail.push_str(&format!(" ({} binary file(s) skipped)", scan.binary));
        }
        for s in &skipped {
            detail.push_str(&format!(
                "; {} matched but was skipped: {}",
                s.shown(),
                s.reason
            ));
        }
        return Err(Error::NoMatch {
            pattern: req.pattern.clone(),
            scope: scope_label(&req.scope),
            files_scanned: files.len(),
            detail,
        });
    }

    let contents: Vec<&[u8]> = scan.changed.iter().map(|(_, c)| c.as_slice()).collect();
    let oids = git::write_blobs(repo, &contents)?;
    let mut update = TreeUpdateBuilder::new();
    let paths: Vec<git::RepoPath> = scan.changed.iter().map(|(e, _)| e.repo_path()).collect();
    for (path, (oid, (entry, _))) in paths.iter().zip(oids.iter().zip(&scan.changed)) {
        update.upsert(path.as_bytes(), *oid, git::file_mode(entry.mode));
    }
    let new_tree = repo.find_tree(update.create_updated(repo, &base_tree)?)?;
    let affected_files = git::path::lossy_list(&paths);
    let affected_files_bytes = git::path::bytes_column(&paths);
    let patch = git::patch_text(repo, &base_tree, &new_tree, Some(&paths))?;
    let (lines_added, lines_removed) = diff::line_counts(&patch);

    let statistics = Statistics {
        files_scanned: files.len(),
        files_matched: affected_files.len(),
        total_changes: scan.replacements,
        binary_skipped: scan.binary,
        filtered_skipped,
        path_skipped: skipped.len() - filtered_skipped,
        lines_added,
        lines_removed,
    };
    let created_at = proposals::now_secs();
    let summary = req
        .message
        .as_deref()
        .map(|m| m.lines().next().unwrap_or_default().trim().to_string())
        .filter(|m| !m.is_empty())
        .unwrap_or_else(|| default_summary(repo, req));
    let meta = ProposalMeta {
        edit: EditMeta::Replace {
            pattern: req.pattern.clone(),
            replacement: req.replacement.clone(),
            literal: req.literal,
        },
        scope: req.scope.clone(),
        created_at,
        files_scanned: statistics.files_scanned,
        files_matched: statistics.files_matched,
        total_changes: statistics.total_changes,
        lines_added,
        lines_removed,
        affected_files: affected_files.clone(),
        affected_files_bytes: affected_files_bytes.clone(),
        onto: None,
    };

    let (patch_id, commit) = store_proposal(
        repo,
        &summary,
        &meta,
        (&author, &committer),
        &new_tree,
        &base,
    )?;

    let mut record = AuditRecord::new(AuditAction::Propose, &patch_id, true);
    record.commit = Some(commit.to_string());
    record.branch = Some(head.ref_name().to_string());
    record.set_files(&paths);
    // The proposal is stored: its record can wait, the command cannot fail.
    let warnings = audit::log(repo, &record)?
        .deferred()
        .cloned()
        .into_iter()
        .collect();

    Ok(ProposeOutcome {
        patch_id,
        summary,
        affected_files,
        affected_files_bytes,
        unified_diff: String::from_utf8_lossy(&patch).into_owned(),
        statistics,
        skipped,
        commit: commit.to_string(),
        base: head.commit.to_string(),
        warnings,
        diff_bytes: patch,
    })
}

/// Writes P and points a fresh `refs/evolv/proposals/<id>` at it; two
/// proposals in the same second get different ids because the id comes
/// from P's hash and P's message carries a per-call nonce.
pub(crate) fn store_proposal(
    repo: &Repo,
    summary: &str,
    meta: &ProposalMeta,
    (author, committer): (&git2::Signature<'_>, &git2::Signature<'_>),
    tree: &git2::Tree<'_>,
    base: &git2::Commit<'_>,
) -> Result<(String, Oid)> {
    let nonce = nonce();
    let message = proposals::message(summary, meta, &nonce);
    // Signed when commit.gpgSign asks, as git signs every commit it makes.
    let commit = git::commit::create(repo, author, committer, &message, tree, &[base])?;
    for extra in (0..=32).step_by(4) {
        let id = proposals::make_id(meta.created_at, commit, extra);
        let reflog = format!("evolv: propose {id}");
        match git::compare_and_swap(repo, &proposals::proposal_ref(&id), commit, None, &reflog) {
            Ok(()) => return Ok((id, commit)),
            Err(Error::ConcurrentUpdate { .. }) => continue,
            Err(e) => return Err(e),
        }
    }
    Err(Error::ConcurrentUpdate {
        what: "refs/evolv/proposals".into(),
        expected: "a free proposal id".into(),
    })
}

fn nonce() -> String {
    crate::clock::unique()
}

/// The default summary, which the landed commit's message starts with: a
/// Conventional Commit header (`refactor: replace 'a' with 'b' in src/**`)
/// so git-evolv's own commits pass its own lint (#16 item 17). Git config
/// `evolv.summaryTemplate` changes it: `{pattern}`, `{replacement}` and
/// `{scope}` (` in a, b`, or nothing) are filled in.
fn default_summary(repo: &Repo, req: &ProposeRequest) -> String {
    let short = |s: &str| {
        let s = s.replace('\n', "\\n");
        if s.chars().count() > 40 {
            format!("{}…", s.chars().take(40).collect::<String>())
        } else {
            s
        }
    };
    // The config adapter sees `git -c` too, as git would.
    let template = crate::git::config::Config::for_git_dir(repo.path())
        .ok()
        .and_then(|c| c.string("evolv.summaryTemplate").map(str::to_string))
        .filter(|t| !t.trim().is_empty())
        .unwrap_or_else(|| DEFAULT_SUMMARY_TEMPLATE.to_string());
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

/// Takes out of `scan` every changed file the landing cannot or must not
/// write: a path `confine` refuses on this platform (a backslash on
/// Windows; and there a name that is not UTF-8, which its paths cannot
/// carry), and, unless `include_filtered`, a file whose attributes give it
/// a filter driver (LFS pointers), `binary` or `-text`: git does not treat
/// it as text, so neither does the edit. Returns them, `true` for the
/// filtered ones.
fn skip_unlandable(
    repo: &Repo,
    scan: &mut Scan,
    include_filtered: bool,
) -> Result<Vec<(bool, SkippedFile)>> {
    let mut skipped = Vec::new();
    let mut kept = Vec::with_capacity(scan.changed.len());
    let paths: Vec<git::RepoPath> = scan.changed.iter().map(|(e, _)| e.repo_path()).collect();
    let not_text = if include_filtered {
        Default::default()
    } else {
        git::filters::not_text(repo, &paths.iter().collect::<Vec<_>>())?
    };
    let counts = std::mem::take(&mut scan.counts);
    let changed = std::mem::take(&mut scan.changed);
    for (((entry, content), count), path) in changed.into_iter().zip(counts).zip(paths) {
        let reason = if cfg!(not(unix)) && entry.raw.is_some() {
            Some((
                false,
                "its name is not valid UTF-8, which this platform's paths cannot carry".to_string(),
            ))
        } else if let Some(why) = crate::git::confine::refusal(&path) {
            Some((false, format!("{why}, so it cannot be written here")))
        } else {
            not_text.get(&path).map(|why| {
                (
                    true,
                    format!("{why}; pass --include-filtered to edit it anyway"),
                )
            })
        };
        match reason {
            Some((filtered, reason)) => {
                scan.replacements -= count;
                skipped.push((filtered, SkippedFile::new(&path, reason)));
            }
            None => {
                scan.counts.push(count);
                kept.push((entry, content));
            }
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
/// are walked, as `git grep` prunes its walk by pathspec; the globs
/// themselves still decide (the caller filters).
fn blobs_in_scope(repo: &Repo, tree: &git2::Tree<'_>, globs: &[String]) -> Result<Vec<BlobEntry>> {
    let mut prefixes: Vec<String> = Vec::new();
    for glob in globs {
        let g = glob.trim().trim_start_matches("./").trim_start_matches('/');
        let literal = &g[..g.find(['*', '?', '[', '{', '\\']).unwrap_or(g.len())];
        match literal.rfind('/') {
            Some(end) if end > 0 => prefixes.push(literal[..end].to_string()),
            _ => return git::list_blobs(repo, tree),
        }
    }
    if prefixes.is_empty() {
        return git::list_blobs(repo, tree);
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
        let Ok(entry) = tree.get_path(std::path::Path::new(&prefix)) else {
            continue;
        };
        if entry.kind() != Some(git2::ObjectType::Tree) {
            continue;
        }
        let sub = repo.find_tree(entry.id())?;
        files.extend(
            git::list_blobs(repo, &sub)?
                .into_iter()
                .map(|f| f.prefixed(&prefix)),
        );
    }
    Ok(files)
}

/// Reads the files on this thread and edits them on another, so the scan
/// uses two cores. libgit2 serialises pack reads on a process-wide mutex,
/// so several reading threads only contend (on 100k files one thread took
/// 141 ms where two took 250 ms, see BENCHMARKS.md); one reader feeding an
/// editor keeps libgit2 on one thread and runs the regex beside it, as
/// `git grep` runs its matchers beside the thread that reads the objects.
fn scan_files(repo: &Repo, files: &[BlobEntry], replacer: &Replacer) -> Result<Scan> {
    let odb = repo.odb()?;
    // Progress is reported from this (the calling) thread: the sink is
    // thread-local; the editor counts matches into `matched`.
    let matched = std::sync::atomic::AtomicUsize::new(0);
    let total = files.len() as u64;
    progress::start(Task::Scan, "files", Some(total));
    let result = std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<(usize, Vec<u8>)>(256);
        let matched = &matched;
        let editor = s.spawn(move || {
            let mut scan = Scan {
                changed: Vec::new(),
                replacements: 0,
                counts: Vec::new(),
                binary: 0,
            };
            for (i, data) in rx {
                match replacer.edit(&data) {
                    FileEdit::Binary => scan.binary += 1,
                    FileEdit::Unchanged { .. } => {}
                    FileEdit::Changed {
                        content,
                        replacements,
                    } => {
                        scan.replacements += replacements;
                        scan.counts.push(replacements);
                        scan.changed.push((files[i].clone(), content));
                        matched.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    }
                }
            }
            scan
        });
        let mut read = Ok(());
        for (i, file) in files.iter().enumerate() {
            // Every 256 files: cheap next to reading them, often enough to see.
            if i % 256 == 0 {
                let n = matched.load(std::sync::atomic::Ordering::Relaxed);
                progress::update(
                    Task::Scan,
                    i as u64,
                    Some(total),
                    Some(format!("{n} matched")),
                );
            }
            match odb.read(file.oid) {
                Ok(object) => {
                    if tx.send((i, object.data().to_vec())).is_err() {
                        break;
                    }
                }
                Err(e) => {
                    read = Err(e.into());
                    break;
                }
            }
        }
        drop(tx);
        let scan = editor.join().expect("the editing thread panicked");
        if read.is_ok() {
            // The last count is the total, so a listener sees the scan end.
            let n = scan.changed.len();
            progress::update(Task::Scan, total, Some(total), Some(format!("{n} matched")));
        }
        read.map(|()| scan)
    });
    progress::finish(Task::Scan);
    result
}

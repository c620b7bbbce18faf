//! propose: run an edit over HEAD's files, store the result as a proposal
//! commit under `refs/evolv/proposals/<id>`, return its diff. Never touches
//! the working tree, the index or HEAD.

use git2::{Oid, Repository, build::TreeUpdateBuilder};
use serde::Serialize;

use crate::diff;
use crate::edit::{FileEdit, Replacer, Scope};
use crate::error::{Error, Result};
use crate::git::{self, BlobEntry};
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
    pub lines_added: usize,
    pub lines_removed: usize,
}

/// What propose stored.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ProposeOutcome {
    pub patch_id: String,
    pub summary: String,
    pub affected_files: Vec<String>,
    /// The diff as text (invalid UTF-8 replaced); `diff_bytes` is exact.
    pub unified_diff: String,
    pub statistics: Statistics,
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

struct Scan {
    changed: Vec<(BlobEntry, Vec<u8>)>,
    replacements: usize,
    binary: usize,
}

/// Runs the edit and stores the proposal.
pub fn propose(repo: &Repository, req: &ProposeRequest) -> Result<ProposeOutcome> {
    let replacer = Replacer::new(&req.pattern, &req.replacement, req.literal)?;
    let scope = Scope::new(&req.scope)?;
    let head = git::head(repo)?;
    let author = git::author(repo)?;
    let committer = git::committer(repo)?;
    let base = repo.find_commit(head.commit)?;
    let base_tree = base.tree()?;

    let files: Vec<BlobEntry> = blobs_in_scope(repo, &base_tree, &req.scope)?
        .into_iter()
        .filter(|f| scope.matches(&f.path))
        .collect();
    let scan = scan_files(repo, &files, &replacer)?;
    if scan.changed.is_empty() {
        return Err(Error::NoMatch {
            pattern: req.pattern.clone(),
            scope: scope_label(&req.scope),
            files_scanned: files.len(),
            detail: if scan.binary > 0 {
                format!(" ({} binary file(s) skipped)", scan.binary)
            } else {
                String::new()
            },
        });
    }

    let contents: Vec<&[u8]> = scan.changed.iter().map(|(_, c)| c.as_slice()).collect();
    let oids = git::write_blobs(repo, &contents)?;
    let mut update = TreeUpdateBuilder::new();
    for ((entry, _), oid) in scan.changed.iter().zip(&oids) {
        update.upsert(&entry.path, *oid, git::file_mode(entry.mode));
    }
    let new_tree = repo.find_tree(update.create_updated(repo, &base_tree)?)?;
    let affected_files: Vec<String> = scan.changed.iter().map(|(e, _)| e.path.clone()).collect();
    let patch = git::patch_text(repo, &base_tree, &new_tree, Some(&affected_files))?;
    let (lines_added, lines_removed) = diff::line_counts(&patch);

    let statistics = Statistics {
        files_scanned: files.len(),
        files_matched: affected_files.len(),
        total_changes: scan.replacements,
        binary_skipped: scan.binary,
        lines_added,
        lines_removed,
    };
    let created_at = proposals::now_secs();
    let summary = req
        .message
        .as_deref()
        .map(|m| m.lines().next().unwrap_or_default().trim().to_string())
        .filter(|m| !m.is_empty())
        .unwrap_or_else(|| default_summary(req));
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
    record.files = affected_files.clone();
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
        unified_diff: String::from_utf8_lossy(&patch).into_owned(),
        statistics,
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
    repo: &Repository,
    summary: &str,
    meta: &ProposalMeta,
    (author, committer): (&git2::Signature<'_>, &git2::Signature<'_>),
    tree: &git2::Tree<'_>,
    base: &git2::Commit<'_>,
) -> Result<(String, Oid)> {
    let nonce = nonce();
    let message = proposals::message(summary, meta, &nonce);
    let commit = repo.commit(None, author, committer, &message, tree, &[base])?;
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

fn default_summary(req: &ProposeRequest) -> String {
    let short = |s: &str| {
        let s = s.replace('\n', "\\n");
        if s.chars().count() > 40 {
            format!("{}…", s.chars().take(40).collect::<String>())
        } else {
            s
        }
    };
    let mut summary = format!(
        "evolv: replace '{}' with '{}'",
        short(&req.pattern),
        short(&req.replacement)
    );
    if !req.scope.is_empty() {
        summary.push_str(&format!(" in {}", req.scope.join(", ")));
    }
    summary
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
fn blobs_in_scope(
    repo: &Repository,
    tree: &git2::Tree<'_>,
    globs: &[String],
) -> Result<Vec<BlobEntry>> {
    let mut prefixes: Vec<String> = Vec::new();
    for glob in globs {
        let g = glob.trim().trim_start_matches("./").trim_start_matches('/');
        let literal = &g[..g.find(['*', '?', '[', '{', '\\']).unwrap_or(g.len())];
        match literal.rfind('/') {
            Some(end) if end > 0 => prefixes.push(literal[..end].to_string()),
            _ => return git::list_blobs(tree),
        }
    }
    if prefixes.is_empty() {
        return git::list_blobs(tree);
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
        files.extend(git::list_blobs(&sub)?.into_iter().map(|mut f| {
            f.path = format!("{prefix}/{}", f.path);
            f
        }));
    }
    Ok(files)
}

/// Reads the files on this thread and edits them on another, so the scan
/// uses two cores. libgit2 serialises pack reads on a process-wide mutex,
/// so several reading threads only contend (on 100k files one thread took
/// 141 ms where two took 250 ms, see BENCHMARKS.md); one reader feeding an
/// editor keeps libgit2 on one thread and runs the regex beside it, as
/// `git grep` runs its matchers beside the thread that reads the objects.
fn scan_files(repo: &Repository, files: &[BlobEntry], replacer: &Replacer) -> Result<Scan> {
    let odb = repo.odb()?;
    std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<(usize, Vec<u8>)>(256);
        let editor = s.spawn(move || {
            let mut scan = Scan {
                changed: Vec::new(),
                replacements: 0,
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
                        scan.changed.push((files[i].clone(), content));
                    }
                }
            }
            scan
        });
        let mut read = Ok(());
        for (i, file) in files.iter().enumerate() {
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
        read.map(|()| scan)
    })
}

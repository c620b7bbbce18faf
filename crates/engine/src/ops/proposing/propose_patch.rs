//! `propose --patch`: a unified diff (git's or `diff -u`'s, binary patches
//! included), a `git format-patch` mailbox (each message a proposal,
//! stacked on the one before) or an apply_patch envelope, applied to the
//! base as git apply applies it and stored like any edit list's result.

use crate::context::Context;
use crate::edit::engine::{ChangeKind, EngineOutcome, FileChange};
use crate::edit::failure::{EditCode, EditFailure};
use crate::edit::list::{CheckMode, EditList};
use crate::error::{Error, Result};
use crate::git::Repo;
use crate::git::objects::view::{Kind, Tree};
use crate::patch::{self, FilePatch, Format, PatchError};

use super::edit::{EditOutcome, store_changes};
use super::patch_sequence::{apply_part, base_file, check_paths};
use crate::ops::session::Session;
use crate::ops::session::{Open, UseCase};
use crate::ops::settings::Settings;

/// What to propose from a patch.
#[derive(Debug, Clone, Default)]
pub struct PatchRequest {
    /// The patch's bytes.
    pub text: Vec<u8>,
    /// Where it came from (a file name, or `-`), for messages.
    pub source: String,
    /// Leading components to strip (git apply's `-p`); detected if unset.
    pub strip: Option<usize>,
    /// The summary (default: a mailbox message's subject, or a
    /// description of the files).
    pub message: Option<String>,
    /// Stack on this pending proposal instead of HEAD.
    pub onto: Option<String>,
    pub check: Option<CheckMode>,
}

/// What proposing a patch answers, from every front end: one proposal's
/// outcome at the top level, or `proposals` for a mailbox series (a stack,
/// bottom first).
#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum PatchAnswer<T> {
    One(T),
    Series { proposals: Vec<T> },
}

impl<T> PatchAnswer<T> {
    pub fn of(mut outcomes: Vec<T>) -> Self {
        match outcomes.len() {
            1 => PatchAnswer::One(outcomes.remove(0)),
            _ => PatchAnswer::Series {
                proposals: outcomes,
            },
        }
    }

    /// Each outcome, bottom of the stack first.
    pub fn outcomes(&self) -> &[T] {
        match self {
            PatchAnswer::One(one) => std::slice::from_ref(one),
            PatchAnswer::Series { proposals } => proposals,
        }
    }
}

/// Proposes `req`'s patch: one proposal, or one per mailbox message, each
/// stacked on the one before.
pub fn propose_patch(
    repo: &Repo,
    settings: &Settings,
    ctx: &Context,
    req: &PatchRequest,
) -> Result<Vec<EditOutcome>> {
    let parts: Vec<(Option<String>, Vec<u8>, usize)> = match patch::detect(&req.text) {
        Format::Mailbox => patch::mbox::split(&req.text)
            .into_iter()
            .map(|m| {
                let message = if m.body.is_empty() {
                    m.subject
                } else {
                    format!("{}\n\n{}", m.subject, m.body)
                };
                (Some(message), m.diff, m.line)
            })
            .collect(),
        _ => vec![(None, req.text.clone(), 1)],
    };
    let mut outcomes: Vec<EditOutcome> = Vec::new();
    for (message, text, line) in parts {
        let onto = match outcomes.last() {
            Some(below) if !below.dry_run => below.patch_id.clone(),
            _ => req.onto.clone(),
        };
        let list = EditList {
            message: req.message.clone().or(message),
            onto,
            keep_going: false,
            check: req.check,
            edits: Vec::new(),
        };
        let outcome = propose_one(repo, (settings, ctx), req, &list, &text)
            .map_err(|e| in_message(e, line, outcomes.len()))?;
        outcomes.push(outcome);
    }
    Ok(outcomes)
}

/// A failure in the `n`th message of a mailbox says which.
fn in_message(error: Error, line: usize, n: usize) -> Error {
    if n == 0 && line == 1 {
        return error;
    }
    Error::invalid(
        format!("message {} of the mailbox (line {line}): {error}", n + 1),
        "the proposals of the messages before it are stored; fix this message's patch and propose it with --onto the last of them",
    )
}

fn propose_one(
    repo: &Repo,
    (settings, ctx): (&Settings, &Context),
    req: &PatchRequest,
    list: &EditList,
    text: &[u8],
) -> Result<EditOutcome> {
    let head = crate::git::head(repo)?;
    let base_commit = match &list.onto {
        Some(id) => repo.find_commit(crate::store::proposals::load(repo, id)?.commit)?,
        None => repo.find_commit(head.commit)?,
    };
    let tree = base_commit.tree()?;
    let refused = |e: PatchError| patch_error(&req.source, e);
    let envelope = patch::detect(text) == Format::Envelope;
    let (mut files, strip) = if envelope {
        (patch::envelope::parse(text).map_err(refused)?, Some(0))
    } else {
        (patch::unified::parse(text).map_err(refused)?, req.strip)
    };
    let exists = |path: &str| tree.get_path(std::path::Path::new(path)).is_some();
    patch::strip(&mut files, strip, &exists).map_err(refused)?;
    let mut result = EngineOutcome::default();
    if envelope && super::patch_sequence::touches_a_path_twice(&files) {
        result.files = super::patch_sequence::fold(repo, &tree, &files).map_err(refused)?;
    } else {
        for file in &files {
            result
                .files
                .push(change_of(repo, &tree, file).map_err(refused)?);
        }
    }
    merge_type_changes(&mut result.files);
    for file in result.files.iter().filter(|f| f.new.is_some()) {
        let path = crate::git::RepoPath::from(file.path.as_str());
        if let Some((shown, was, is)) = super::capture::kind_change(&tree, &path)
            && !cleared(repo, &tree, &result.files, &shown)?
        {
            return Err(Error::invalid(
                format!(
                    "{}: '{shown}' is {was} at the base and the patch makes it {is}: a proposal from a patch changes files, not a file into a directory or back",
                    req.source
                ),
                "make that change with git (`git apply`, then `git commit`), or take it out of the patch",
            ));
        }
    }
    if result.files.is_empty() {
        return Err(Error::invalid(
            format!("{}: the patch changes nothing", req.source),
            "check the patch",
        ));
    }
    store_changes(
        repo,
        (settings, ctx),
        list,
        (base_commit, list.onto.clone()),
        result,
        Vec::new(),
    )
}

/// Whether the patch takes away everything at `path` in the base: the file
/// there, or every file below the directory there (deleted or renamed
/// away), so another file or directory may take its place, as git apply
/// deletes before it creates (f → f/g, d/e → d).
fn cleared(
    repo: &Repo,
    tree: &Tree<'_>,
    files: &[FileChange],
    path: &crate::git::RepoPath,
) -> Result<bool> {
    let gone = |p: &str| {
        files
            .iter()
            .any(|f| f.from.as_deref() == Some(p) || (f.new.is_none() && f.path == p))
    };
    let Some(shown) = path.to_str() else {
        return Ok(false);
    };
    let Some(entry) = tree.get_path(std::path::Path::new(shown)) else {
        return Ok(true);
    };
    if entry.kind != Kind::Tree {
        return Ok(gone(shown));
    }
    let below = repo.find_tree(entry.id)?.blobs()?;
    Ok(below.iter().all(|(p, _)| gone(&format!("{shown}/{p}"))))
}

/// git writes a file that became a symlink (or back) as its deletion and
/// then its creation: one change of the path's content and mode, as git
/// apply takes it (two edits of one path would be refused).
fn merge_type_changes(files: &mut Vec<FileChange>) {
    let mut i = 0;
    while i < files.len() {
        let created = files[i].kind == ChangeKind::Create && files[i].from.is_none();
        let deleted = files[..i]
            .iter()
            .position(|f| f.kind == ChangeKind::Delete && f.path == files[i].path);
        if let (true, Some(d)) = (created, deleted) {
            let create = files.remove(i);
            let change = &mut files[d];
            change.kind = ChangeKind::Modify;
            change.new = create.new;
            change.mode = create.mode;
            continue;
        }
        i += 1;
    }
}

/// The file `file` changes, with its base and new content.
pub(crate) fn change_of(
    repo: &Repo,
    tree: &Tree<'_>,
    file: &FilePatch,
) -> std::result::Result<FileChange, PatchError> {
    check_paths(file)?;
    let base = match &file.old_path {
        Some(old) => Some(base_file(repo, tree, old, file.line)?),
        None => None,
    };
    let (path, new, mode) = apply_part(file, base.as_ref())?;
    if !matches!(mode, 0o100644 | 0o100755 | 0o120000) {
        return Err(PatchError::in_file(
            &path,
            Some(file.line),
            format!("mode {mode:o} is not a file, an executable or a symlink"),
        ));
    }
    let renamed =
        file.old_path.is_some() && file.new_path.is_some() && file.old_path != file.new_path;
    let kind = match (&file.old_path, &new) {
        (None, _) => ChangeKind::Create,
        (_, None) => ChangeKind::Delete,
        _ if file.copy => ChangeKind::Create,
        _ if renamed => ChangeKind::Rename,
        _ => ChangeKind::Modify,
    };
    Ok(FileChange {
        from: (renamed && !file.copy)
            .then(|| file.old_path.clone())
            .flatten(),
        path,
        kind,
        old: if file.copy {
            None
        } else {
            base.map(|(c, _)| c)
        },
        new,
        mode: mode as i32,
        warnings: Vec::new(),
        edits: Vec::new(),
    })
}

/// A patch that cannot be read or applied: `invalid_input` naming the
/// patch, the file and the hunk.
fn patch_error(source: &str, e: PatchError) -> Error {
    if e.no_match {
        let path = e.path.clone().unwrap_or_default();
        return Error::EditsFailed {
            failures: vec![EditFailure::new(
                None,
                &path,
                EditCode::NoMatch,
                format!("{source}: {e}"),
                "nothing was stored; make the patch again against the base (`git diff --binary`), or fix the hunk's context lines to match the file (`git evolv cat` prints it)",
            )],
        };
    }
    Error::invalid(
        format!("{source}: {e}"),
        "nothing was stored; fix the patch (or make it again against the base: `git diff --binary`), or give -p N for the leading directories to strip",
    )
}

impl UseCase for PatchRequest {
    const OPEN: Open = Open::Recovering;
    const WRITES_OBJECTS: bool = true;
    type Outcome = Vec<EditOutcome>;

    fn run(&self, session: &Session) -> Result<Vec<EditOutcome>> {
        propose_patch(
            session.repo()?,
            session.settings()?,
            session.context(),
            self,
        )
    }
}

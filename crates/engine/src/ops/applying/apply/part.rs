//! Applying part of a proposal (`apply <id> --paths <glob>…`, `apply -i`):
//! the chosen changes become a proposal of their own, based where the
//! proposal is, and land as any proposal does (validated on the tree that
//! lands); the proposal's id then holds the rest, stacked on the part. A
//! failed landing puts the proposal back as it was.

use globset::{Glob, GlobSetBuilder};

use crate::edit::engine::{ChangeKind, EngineOutcome, FileChange};
use crate::edit::list::{CheckMode, EditList};
use crate::error::{Error, Result};
use crate::git::{self, Oid, Repo};
use crate::patch::{Body, FilePatch};
use crate::store::proposals::{self, Proposal, ProposalMeta, proposal_ref};

use super::{ApplyReport, ApplyRequest};
use crate::context::Context;
use crate::ops::proposing::edit::build_changes;
use crate::ops::session::Session;
use crate::ops::session::{Open, UseCase};
use crate::ops::settings::Settings;

/// Which changes of the proposal land.
pub enum Selection<'a> {
    /// Every change to a path one of the globs matches (old or new path).
    Paths(&'a [String]),
    /// Only these hunks (a file whose part has no hunks lands whole).
    Hunks(&'a [FilePatch]),
}

/// The proposal's changes as hunks, paths without their `a/` `b/`
/// prefixes: what `apply -i` asks about.
pub fn hunks(repo: &Repo, id: &str) -> Result<Vec<FilePatch>> {
    let p = proposals::load(repo, id)?;
    let base = repo.find_commit(p.base)?.tree()?;
    let new = repo.find_commit(p.commit)?.tree()?;
    let text = git::patch_text(repo, &base, &new, None::<&[&[u8]]>)?;
    let mut files = crate::patch::unified::parse(&text).map_err(|e| {
        Error::invalid(
            format!("the diff of '{id}' cannot be read: {e}"),
            "apply it whole",
        )
    })?;
    crate::patch::strip(&mut files, Some(1), &|_| true)
        .map_err(|e| Error::invalid(e.to_string(), "apply it whole"))?;
    Ok(files)
}

/// Lands the `selection` of the one proposal `req` names; the rest stays
/// pending under its id, stacked on what landed. One operation, inside
/// the landing's journal: the part's commit and the rest's are written
/// first, named by no ref; the landing's transaction then creates the
/// part's ref, marks it applied and moves the proposal's id to the rest,
/// all after the branch moved (recovery finishes them), or none of it.
pub fn apply_part(
    repo: &Repo,
    settings: &Settings,
    ctx: &Context,
    req: &ApplyRequest,
    selection: Selection<'_>,
) -> Result<(ApplyReport, Option<String>)> {
    let [id] = req.patch_ids.as_slice() else {
        return Err(Error::invalid(
            "--paths and -i take one proposal id",
            "apply the others on their own",
        ));
    };
    let p = proposals::load(repo, id)?;
    let base_commit = repo.find_commit(p.base)?;
    let base = base_commit.tree()?;
    let files = part_files(repo, &p, &base, selection)?;
    let whole = repo.find_commit(p.commit)?.tree()?;
    if files.is_empty() {
        return Err(Error::invalid(
            format!("no change of '{id}' was chosen"),
            "choose paths that the proposal changes (`git evolv show <id>` lists them)",
        ));
    }
    let (part, built) = build_changes(
        repo,
        settings,
        &list(format!("{} (part)", p.summary), p.meta.onto.clone()),
        (base_commit, p.meta.onto.clone()),
        EngineOutcome {
            files,
            ..EngineOutcome::default()
        },
        Vec::new(),
    )?;
    let Some((part_meta, part_commit)) = built else {
        return Err(Error::invalid(
            "a part of a proposal cannot be previewed as an edit list",
            "use `apply --dry-run` with --paths",
        ));
    };
    if part.affected_files.is_empty() || repo.commit_tree(part_commit)?.id() == whole.id() {
        // Everything was chosen: the proposal lands whole.
        return Ok((
            super::apply(repo, settings, ctx, &whole_request(req))?,
            None,
        ));
    }
    let part_id = free_id(repo, &part_meta, part_commit)?;
    let rest = rest_commit(repo, settings, &p, &part_id, part_commit, &whole)?;
    let mut landing = whole_request(req);
    landing.patch_ids = vec![part_id.clone()];
    let also = vec![
        (proposal_ref(&part_id), None, Some(part_commit)),
        (proposal_ref(id), Some(p.commit), Some(rest)),
    ];
    let part = proposals::unstored(repo, &part_id, part_commit)?;
    let report = super::apply_loaded(repo, settings, ctx, &landing, (vec![part], also))?;
    let landed = report.error.is_none() && !report.dry_run;
    Ok((report, landed.then(|| id.clone())))
}

/// An edit list of no edits: what a part and a rest are stored as.
fn list(message: String, onto: Option<String>) -> EditList {
    EditList {
        message: Some(message),
        onto,
        keep_going: false,
        check: Some(CheckMode::Warn),
        edits: Vec::new(),
    }
}

/// The first id of `commit` no proposal has.
fn free_id(repo: &Repo, meta: &ProposalMeta, commit: Oid) -> Result<String> {
    proposals::candidate_ids(meta, commit)
        .find(|id| !proposals::exists(repo, id))
        .ok_or_else(|| Error::ConcurrentUpdate {
            what: "refs/evolv/proposals".into(),
            expected: "a free proposal id".into(),
        })
}

/// `req` without the selection (the part lands as a whole proposal).
fn whole_request(req: &ApplyRequest) -> ApplyRequest {
    ApplyRequest {
        paths: None,
        hunks: None,
        ..req.clone()
    }
}

/// The rest's commit: the proposal's whole tree, stacked on the part (the
/// part's id as its `onto`), named by no ref yet.
fn rest_commit(
    repo: &Repo,
    settings: &Settings,
    p: &Proposal,
    part_id: &str,
    part_commit: Oid,
    whole: &crate::git::objects::view::Tree<'_>,
) -> Result<Oid> {
    let part_commit = repo.find_commit(part_commit)?;
    let part_tree = part_commit.tree()?;
    let mut files = Vec::new();
    for changed in git::changed_paths(repo, &part_tree, whole)? {
        files.push(whole_file(repo, &part_tree, whole, &changed.path.lossy())?);
    }
    let (_, built) = build_changes(
        repo,
        settings,
        &list(p.summary.clone(), Some(part_id.to_string())),
        (part_commit, Some(part_id.to_string())),
        EngineOutcome {
            files,
            ..EngineOutcome::default()
        },
        Vec::new(),
    )?;
    built.map(|(_, commit)| commit).ok_or_else(|| {
        Error::invalid(
            "the rest of the proposal could not be built",
            "apply it whole",
        )
    })
}

/// The chosen changes, as files from the base to their part's content.
fn part_files(
    repo: &Repo,
    p: &Proposal,
    base: &crate::git::objects::view::Tree<'_>,
    selection: Selection<'_>,
) -> Result<Vec<FileChange>> {
    let whole = repo.find_commit(p.commit)?.tree()?;
    match selection {
        Selection::Paths(globs) => {
            let mut set = GlobSetBuilder::new();
            for glob in globs {
                set.add(Glob::new(glob).map_err(|e| {
                    Error::invalid(
                        format!("--paths '{glob}': {e}"),
                        "give globs such as 'src/**/*.rs'",
                    )
                })?);
            }
            let set = set
                .build()
                .map_err(|e| Error::invalid(e.to_string(), "check the globs"))?;
            let mut files = Vec::new();
            for changed in git::changed_paths(repo, base, &whole)? {
                let path = changed.path.lossy().into_owned();
                if set.is_match(&path) {
                    files.push(whole_file(repo, base, &whole, &path)?);
                }
            }
            Ok(files)
        }
        Selection::Hunks(chosen) => chosen
            .iter()
            .map(|file| match &file.body {
                Body::Hunks(_) => crate::ops::proposing::propose_patch::change_of(repo, base, file)
                    .map_err(|e| Error::invalid(e.to_string(), "choose whole files instead")),
                _ => {
                    let path = file
                        .new_path
                        .as_deref()
                        .or(file.old_path.as_deref())
                        .unwrap_or_default();
                    whole_file(repo, base, &whole, path)
                }
            })
            .collect(),
    }
}

/// `path` as it is in `new`, against `old`.
fn whole_file(
    repo: &Repo,
    old: &crate::git::objects::view::Tree<'_>,
    new: &crate::git::objects::view::Tree<'_>,
    path: &str,
) -> Result<FileChange> {
    let read = |tree: &crate::git::objects::view::Tree<'_>| -> Result<Option<(Vec<u8>, i32)>> {
        match tree.get_path(std::path::Path::new(path)) {
            Some(entry) => Ok(Some((repo.blob(entry.id)?, entry.mode))),
            None => Ok(None),
        }
    };
    let (before, after) = (read(old)?, read(new)?);
    let kind = match (&before, &after) {
        (None, _) => ChangeKind::Create,
        (_, None) => ChangeKind::Delete,
        _ => ChangeKind::Modify,
    };
    let mode = after
        .as_ref()
        .or(before.as_ref())
        .map_or(0o100644, |(_, m)| *m);
    Ok(FileChange {
        path: path.to_string(),
        from: None,
        kind,
        old: before.map(|(c, _)| c),
        new: after.map(|(c, _)| c),
        mode,
        warnings: Vec::new(),
        edits: Vec::new(),
    })
}

/// The proposal's changes as hunks (what `apply -i` asks about).
pub struct PartHunks {
    pub patch_id: String,
}

impl UseCase for PartHunks {
    const OPEN: Open = Open::Recovering;
    type Outcome = Vec<FilePatch>;

    fn run(&self, session: &Session) -> Result<Vec<FilePatch>> {
        hunks(session.repo()?, &self.patch_id)
    }
}

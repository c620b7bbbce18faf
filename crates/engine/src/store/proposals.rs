//! Proposal commits: their ids, metadata and status.

use crate::git::{Oid, Repo, objects::view::Commit};
use serde::{Deserialize, Serialize};

use super::{APPLIED_PREFIX, BACKUP_PREFIX, PROPOSALS_PREFIX};
use crate::error::{Error, Result};

use super::file_records::FileRecord;
use super::trailers::{self, METADATA as META_TRAILER};
use crate::validators::ValidatorReport;

/// What kind of edit a proposal holds, stored flat in its metadata JSON
/// under `"operation"` (so proposals written before this enum existed,
/// `{"operation":"replace","pattern":…}`, read unchanged). A new edit kind
/// is a new variant; old proposals keep reading as `Replace`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(tag = "operation", rename_all = "snake_case")]
pub enum EditMeta {
    /// A regex (or, with `literal`, exact) replace across the scope.
    Replace {
        pattern: String,
        replacement: String,
        literal: bool,
    },
    /// An edit list (`propose --edits`, #13). New fields go here with
    /// `#[serde(default)]`, so lists stored before them keep reading.
    Edits {
        /// What the list did to each changed file (#12 item 2).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        files: Vec<FileRecord>,
        /// The validators that ran on the changed files at propose time.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        validators: Vec<ValidatorReport>,
    },
    /// An operation this version does not know (written by a newer
    /// git-evolv, or by hand): the proposal still lists, shows and
    /// applies, since its commit is the patch.
    #[serde(other)]
    Other,
}

impl EditMeta {
    /// The operation's name, as stored (`replace`).
    pub fn operation(&self) -> &'static str {
        match self {
            EditMeta::Replace { .. } => "replace",
            EditMeta::Edits { .. } => "edits",
            EditMeta::Other => "other",
        }
    }

    /// The search pattern of a replace; `None` for other edit kinds.
    pub fn pattern(&self) -> Option<&str> {
        match self {
            EditMeta::Replace { pattern, .. } => Some(pattern),
            EditMeta::Edits { .. } | EditMeta::Other => None,
        }
    }

    /// The replacement of a replace; `None` for other edit kinds.
    pub fn replacement(&self) -> Option<&str> {
        match self {
            EditMeta::Replace { replacement, .. } => Some(replacement),
            EditMeta::Edits { .. } | EditMeta::Other => None,
        }
    }
}

/// Machine-readable facts about a proposal, stored in its commit message.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct ProposalMeta {
    /// The edit, tagged by `operation`.
    #[serde(flatten)]
    pub edit: EditMeta,
    pub scope: Vec<String>,
    pub created_at: i64,
    pub files_scanned: usize,
    pub files_matched: usize,
    pub total_changes: usize,
    pub lines_added: usize,
    pub lines_removed: usize,
    /// The changed paths as text (lossy for a name that is not UTF-8).
    pub affected_files: Vec<String>,
    /// Only when some changed name is not UTF-8: per entry of
    /// `affected_files`, its exact bytes in hex, or null (#16 item 7).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub affected_files_bytes: Option<Vec<Option<String>>>,
    /// The proposal this one is stacked on (#13 `onto`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub onto: Option<String>,
    /// The agent (and model) whose work it is, `<agent>[:<model>]`: its
    /// landed commit carries `Assisted-by:` (issue 40 item 4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assisted_by: Option<String>,
}

impl ProposalMeta {
    /// The changed paths exactly (bytes where a name is not UTF-8).
    pub fn affected_paths(&self) -> Vec<crate::git::RepoPath> {
        crate::git::types::path::from_columns(
            &self.affected_files,
            self.affected_files_bytes.as_deref(),
        )
    }
}

/// A proposal's id, `patch_<unix-seconds>_<hex>`: checked once (see
/// [`is_valid_id`]) so it is always safe inside a ref name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, schemars::JsonSchema)]
#[serde(transparent)]
pub struct PatchId(String);

impl PatchId {
    /// `id` as a patch id; anything that cannot name a proposal is
    /// `PatchNotFound`, as for an id that names none.
    pub fn parse(id: &str) -> Result<PatchId> {
        if is_valid_id(id) {
            Ok(PatchId(id.to_string()))
        } else {
            Err(Error::PatchNotFound(id.to_string()))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The id a ref under `refs/evolv/proposals/` names, taken as it is
    /// (a listing shows every ref there, as `parse` below reads it).
    pub fn of_ref(id: String) -> PatchId {
        PatchId(id)
    }
}

impl<'de> Deserialize<'de> for PatchId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        PatchId::parse(&s).map_err(|_| {
            serde::de::Error::custom(format!(
                "'{s}' is not a patch id (letters, digits, `_` and `-`, e.g. patch_1700000000_ab12cd34)"
            ))
        })
    }
}

impl std::ops::Deref for PatchId {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for PatchId {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl std::borrow::Borrow<str> for PatchId {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for PatchId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(&self.0)
    }
}

impl From<PatchId> for String {
    fn from(id: PatchId) -> String {
        id.0
    }
}

impl PartialEq<str> for PatchId {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<String> for PatchId {
    fn eq(&self, other: &String) -> bool {
        &self.0 == other
    }
}

impl PartialEq<&str> for PatchId {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

/// A stored proposal.
#[derive(Debug, Clone)]
pub struct Proposal {
    pub id: PatchId,
    /// The proposal commit P.
    pub commit: Oid,
    /// P's parent: the HEAD it was proposed against.
    pub base: Oid,
    pub summary: String,
    pub meta: ProposalMeta,
}

/// The ref holding proposal `id`.
pub fn proposal_ref(id: &str) -> String {
    format!("{PROPOSALS_PREFIX}{id}")
}

/// The ref recording where proposal `id` landed.
pub fn applied_ref(id: &str) -> String {
    format!("{APPLIED_PREFIX}{id}")
}

/// The ref holding the pre-apply commit of proposal `id` (`file_backup`).
pub fn backup_ref(id: &str) -> String {
    format!("{BACKUP_PREFIX}{id}")
}

/// Whether `id` can name a proposal at all. Anything else (a leading `-`,
/// `/`, `..`, spaces) is never turned into a ref name.
pub fn is_valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 128
        && id.as_bytes()[0].is_ascii_alphanumeric()
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// A new id: `patch_<unix-seconds>_<hex>`, the hex taken from the proposal
/// commit's id; `extra` lengthens it when a shorter one is taken.
pub fn make_id(created_at: i64, commit: Oid, extra: usize) -> String {
    let hex = commit.to_string();
    format!("patch_{created_at}_{}", &hex[..(8 + extra).min(hex.len())])
}

/// Seconds since the epoch, now.
pub fn now_secs() -> i64 {
    crate::clock::now_secs()
}

/// The commit message of a proposal: summary, blank line, metadata.
pub fn message(summary: &str, meta: &ProposalMeta, nonce: &str) -> String {
    let json = serde_json::to_string(meta).expect("metadata serialises");
    trailers::proposal_message(summary, &json, nonce)
}

fn parse(id: &str, commit: &Commit<'_>) -> Result<Proposal> {
    let msg = String::from_utf8_lossy(commit.message_bytes());
    let meta_line = trailers::find(&msg, META_TRAILER).ok_or_else(|| Error::Corrupt {
        what: proposal_ref(id),
        message: format!("{} has no {META_TRAILER}line", proposal_ref(id)),
    })?;
    let meta: ProposalMeta = serde_json::from_str(meta_line).map_err(|e| Error::Corrupt {
        what: proposal_ref(id),
        message: format!("{}: unreadable metadata: {e}", proposal_ref(id)),
    })?;
    Ok(Proposal {
        id: PatchId::of_ref(id.to_string()),
        commit: commit.id(),
        base: commit.parent_id(0)?,
        summary: msg.lines().next().unwrap_or_default().to_string(),
        meta,
    })
}

/// Loads proposal `id`; unknown or malformed ids are `PatchNotFound`.
pub fn load(repo: &Repo, id: &str) -> Result<Proposal> {
    if !is_valid_id(id) {
        return Err(Error::PatchNotFound(id.to_string()));
    }
    let oid = repo
        .ref_target(&proposal_ref(id))
        .ok_or_else(|| Error::PatchNotFound(id.to_string()))?;
    let commit = repo.find_commit(oid)?;
    parse(id, &commit)
}

/// Proposal `id` whose commit is `commit`, not (yet) named by its ref: a
/// partial apply lands one in the transaction that creates the ref.
pub fn unstored(repo: &Repo, id: &str, commit: Oid) -> Result<Proposal> {
    parse(id, &repo.find_commit(commit)?)
}

/// A ref under `refs/evolv/proposals/` that this version cannot read: its
/// metadata is another version's, or it is not a proposal commit at all
/// (such a ref can come by fetch from a clone on another version).
#[derive(Debug)]
pub struct Unreadable {
    pub id: String,
    /// When its commit was made, where it could be read (else 0).
    pub time: i64,
    pub error: Error,
}

/// Every proposal ref: the readable ones, oldest first, and the others.
#[derive(Debug, Default)]
pub struct Listing {
    pub proposals: Vec<Proposal>,
    pub unreadable: Vec<Unreadable>,
}

/// Every proposal ref, read; one that cannot be read is listed apart
/// instead of failing the whole listing.
pub fn listing(repo: &Repo) -> Result<Listing> {
    let mut out = Listing::default();
    for (name, target) in repo.refs_under(PROPOSALS_PREFIX)? {
        let id = name
            .strip_prefix(PROPOSALS_PREFIX)
            .unwrap_or(&name)
            .to_string();
        match read_ref(repo, &id, target) {
            Ok(p) => out.proposals.push(p),
            Err(unreadable) => out.unreadable.push(*unreadable),
        }
    }
    out.proposals
        .sort_by(|a, b| (a.meta.created_at, &a.id).cmp(&(b.meta.created_at, &b.id)));
    Ok(out)
}

/// The proposal ref `id`, pointing at `target`, read; or why it cannot be.
pub fn read_ref(
    repo: &Repo,
    id: &str,
    target: Oid,
) -> std::result::Result<Proposal, Box<Unreadable>> {
    let commit = repo.find_commit(target);
    let time = commit.as_ref().map_or(0, |c| c.committer().time);
    commit.and_then(|c| parse(id, &c)).map_err(|error| {
        Box::new(Unreadable {
            id: id.to_string(),
            time,
            error,
        })
    })
}

/// Every readable proposal, oldest first.
pub fn list(repo: &Repo) -> Result<Vec<Proposal>> {
    Ok(listing(repo)?.proposals)
}

/// Whether `id` names a proposal ref, readable or not.
pub fn exists(repo: &Repo, id: &str) -> bool {
    is_valid_id(id) && repo.ref_target(&proposal_ref(id)).is_some()
}

/// Where proposal `id` landed, if it is applied.
pub fn applied_commit(repo: &Repo, id: &str) -> Option<Oid> {
    repo.ref_target(&applied_ref(id))
}

/// P's commit (a proposal: propose, edit lists and notebook edits all
/// store theirs here), not yet named by any ref: its message carries a
/// per-call nonce, so two proposals in the same second differ.
pub fn write_commit(
    repo: &Repo,
    summary: &str,
    meta: &ProposalMeta,
    (author, committer): (
        &crate::git::objects::view::Signature,
        &crate::git::objects::view::Signature,
    ),
    tree: &crate::git::objects::view::Tree<'_>,
    base: &crate::git::objects::view::Commit<'_>,
) -> Result<Oid> {
    let nonce = crate::clock::unique();
    let message = message(summary, meta, &nonce);
    // Signed when commit.gpgSign asks, as git signs every commit it makes.
    crate::git::objects::commit::create(repo, author, committer, &message, tree.id(), &[base.id()])
}

/// The proposal ids of `commit`, shortest first: from its creation time
/// and its hash, 4 hex digits longer for each id already taken.
pub fn candidate_ids(meta: &ProposalMeta, commit: Oid) -> impl Iterator<Item = String> + '_ {
    (0..=32)
        .step_by(4)
        .map(move |extra| make_id(meta.created_at, commit, extra))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_that_could_become_options_or_paths_are_invalid() {
        assert!(is_valid_id("patch_1763793123_3fa9c1"));
        for bad in ["", "-x", "../x", "a/b", "a b", "a..b", "_x", "a\0"] {
            assert!(!is_valid_id(bad), "{bad:?}");
        }
    }

    #[test]
    fn ids_have_the_documented_shape() {
        let oid = Oid::parse("3fa9c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8").unwrap();
        assert_eq!(make_id(1763793123, oid, 0), "patch_1763793123_3fa9c1d2");
        assert_eq!(make_id(1, oid, 2), "patch_1_3fa9c1d2e3");
    }

    /// Proposals written before the metadata was a tagged enum (#10 item 9)
    /// must keep reading: this is their exact stored form.
    #[test]
    fn an_old_format_proposal_still_reads() {
        let old = r#"{"operation":"replace","pattern":"getUserData","replacement":"fetchUserData","literal":false,"scope":["backend/**"],"created_at":1763793123,"files_scanned":2,"files_matched":2,"total_changes":3,"lines_added":2,"lines_removed":2,"affected_files":["backend/auth.go","backend/user.go"]}"#;
        let meta: ProposalMeta = serde_json::from_str(old).unwrap();
        assert_eq!(
            meta.edit,
            EditMeta::Replace {
                pattern: "getUserData".into(),
                replacement: "fetchUserData".into(),
                literal: false,
            }
        );
        assert_eq!(meta.edit.operation(), "replace");
        assert_eq!(meta.affected_files.len(), 2);
        // And it is written back the same way.
        let again: serde_json::Value = serde_json::to_value(&meta).unwrap();
        let orig: serde_json::Value = serde_json::from_str(old).unwrap();
        assert_eq!(again, orig);
    }

    #[test]
    fn an_unknown_operation_still_reads_as_other() {
        let future = r#"{"operation":"teleport","pattern":"x","scope":[],"created_at":1,"files_scanned":0,"files_matched":0,"total_changes":0,"lines_added":0,"lines_removed":0,"affected_files":["a"]}"#;
        let meta: ProposalMeta = serde_json::from_str(future).unwrap();
        assert_eq!(meta.edit, EditMeta::Other);
        assert_eq!(meta.affected_files, ["a"]);
    }

    #[test]
    fn patch_ids_are_checked_once_and_read_as_text() {
        let id = PatchId::parse("patch_1_ab").unwrap();
        assert_eq!(id, "patch_1_ab");
        assert_eq!(proposal_ref(&id), "refs/evolv/proposals/patch_1_ab");
        assert_eq!(serde_json::to_string(&id).unwrap(), "\"patch_1_ab\"");
        assert_eq!(
            PatchId::parse("../x").unwrap_err().code(),
            "patch_not_found"
        );
        assert!(serde_json::from_str::<PatchId>("\"-rf\"").is_err());
    }
}

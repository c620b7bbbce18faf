//! Which files a landing must have on disk at each of its two flushes
//! (RELIABILITY.md, "Power loss"): the objects its journal names, before
//! the journal; the refs, audit records and index files of its ending,
//! before the index rename and the journal's deletion. Only these are
//! waited for (`durable::settle`), so a landing never waits for another
//! process's writes, as a whole-file-system flush would.

use std::collections::HashSet;
use std::path::PathBuf;

use crate::git::Oid;
use crate::git::objects::view::{Kind, Tree};

use super::journal::Journal;
use crate::error::Result;
use crate::git::{self, Repo};

/// How far back from N the walk looks for H before it gives up (a batch
/// apply makes one commit per proposal).
const MAX_COMMITS: usize = 10_000;

/// The loose files of the objects N adds to H: the commits from N back to
/// H, and for each, its tree on the way to every path it changes and those
/// paths' blobs (a batch apply makes one commit per proposal, and each
/// one's tree must be whole too). Objects in packs are skipped: git and
/// git-evolv flush a pack when they write it. `None` when N does not lead
/// back to H, so the caller flushes everything.
pub fn new_objects(
    repo: &Repo,
    journal: &Journal,
    new_tree: &Tree<'_>,
) -> Result<Option<Vec<PathBuf>>> {
    // Objects written elsewhere (git's environment moved the object store):
    // the whole file systems are flushed.
    if std::env::var_os("GIT_OBJECT_DIRECTORY").is_some() {
        return Ok(None);
    }
    // A move back (the undo of a landing): N is in H's history, so it adds
    // no object that was not on disk before the branch ever left it. The
    // walk below would never meet H, and the caller would flush whole file
    // systems.
    if repo.is_descendant_of(journal.old, journal.new)? {
        return Ok(Some(Vec::new()));
    }
    let mut commits = Vec::new();
    let mut commit = repo.find_commit(journal.new)?;
    while commit.id() != journal.old {
        if commits.len() >= MAX_COMMITS || commit.parent_count() == 0 {
            return Ok(None);
        }
        let parent = commit.parent(0)?;
        commits.push(commit);
        commit = parent;
    }
    let mut ids = Vec::new();
    if let [only] = &commits[..] {
        // One commit: its changes are the journal's.
        let changes = journal
            .changes
            .iter()
            .map(|c| (c.path.as_bytes(), c.after.map(|im| (im.id, im.mode))));
        ids.push(only.id());
        step_objects(repo, new_tree, changes, &mut ids)?;
    } else {
        for step in &commits {
            let tree = step.tree()?;
            let before = step.parent(0)?.tree()?;
            let changed = git::changed_paths(repo, &before, &tree)?;
            let mut lookup = git::TreeLookup::new(repo, &tree);
            let changes: Vec<_> = changed
                .iter()
                .map(|c| {
                    (
                        c.path.as_bytes(),
                        lookup.get(&c.path).map(|e| (e.id, e.mode)),
                    )
                })
                .collect();
            ids.push(step.id());
            step_objects(repo, &tree, changes.into_iter(), &mut ids)?;
        }
    }
    let objects = repo.common_dir().join("objects");
    Ok(Some(loose_files(&objects, &ids)))
}

/// A changed path and its new blob and mode (none: removed).
pub(crate) type PathChange<'a> = (&'a [u8], Option<(Oid, u32)>);

/// The files a new proposal needs on disk before the work tree it was
/// captured from is put back (`propose --from-worktree`): its commit, the
/// trees on the way to each changed path, the changed blobs (the loose
/// ones: a pack is flushed when written) and its ref. `None` where they
/// cannot be named (git's environment moved the object store, refs in a
/// reftable): the caller flushes the whole file systems.
pub(crate) fn proposal_files(
    repo: &Repo,
    (commit, ref_name): (Oid, &str),
    changes: &[PathChange<'_>],
) -> Result<Option<Vec<PathBuf>>> {
    let common = repo.common_dir();
    if std::env::var_os("GIT_OBJECT_DIRECTORY").is_some() || common.join("reftable").exists() {
        return Ok(None);
    }
    let tree = repo.find_commit(commit)?.tree()?;
    let mut ids = vec![commit];
    step_objects(repo, &tree, changes.iter().copied(), &mut ids)?;
    let mut files = loose_files(&common.join("objects"), &ids);
    files.push(common.join(ref_name));
    Ok(Some(files))
}

/// The loose files of `ids` that are there: each object directory is
/// listed once, where opening each id's file would fail for every object
/// a pack holds (a blob changed back, a tree shared with H): 3,000 failed
/// opens in a codemod of 3,000 files. A directory that cannot be listed
/// keeps all its ids (`settle` then opens each).
fn loose_files(objects: &std::path::Path, ids: &[Oid]) -> Vec<PathBuf> {
    let mut by_dir: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for id in ids {
        let hex = id.to_string();
        by_dir
            .entry(hex[..2].to_string())
            .or_default()
            .push(hex[2..].to_string());
    }
    // The fan-out directories there, from one listing: after a `gc` most
    // are absent, and opening each would fail in turn.
    let present: Option<HashSet<std::ffi::OsString>> = std::fs::read_dir(objects)
        .and_then(|entries| entries.map(|e| e.map(|e| e.file_name())).collect())
        .ok();
    let mut files = Vec::with_capacity(ids.len());
    for (dir, mut names) in by_dir {
        if present
            .as_ref()
            .is_some_and(|p| !p.contains(std::ffi::OsStr::new(&dir)))
        {
            continue;
        }
        // A tree two commits of a batch share is named once.
        names.sort_unstable();
        names.dedup();
        let dir = objects.join(dir);
        let listed: Option<HashSet<std::ffi::OsString>> = match std::fs::read_dir(&dir) {
            Ok(entries) => entries
                .map(|e| e.map(|e| e.file_name()))
                .collect::<std::io::Result<_>>()
                .ok(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some(HashSet::new()),
            Err(_) => None,
        };
        for name in names {
            if listed
                .as_ref()
                .is_none_or(|l| l.contains(std::ffi::OsStr::new(&name)))
            {
                files.push(dir.join(name));
            }
        }
    }
    files
}

/// The new blobs of one commit's `changes` (path, new id and mode; none
/// for a removal), and its `tree`'s subtrees on the way to them.
fn step_objects<'a>(
    repo: &Repo,
    tree: &Tree<'_>,
    changes: impl Iterator<Item = (&'a [u8], Option<(Oid, u32)>)>,
    ids: &mut Vec<Oid>,
) -> Result<()> {
    let mut dirs: HashSet<&[u8]> = HashSet::new();
    for (path, after) in changes {
        if let Some((id, mode)) = after
            && mode != git::types::mode::GITLINK
        {
            ids.push(id);
        }
        // A removal changes the trees on its way too.
        let mut path = path;
        while let Some(slash) = path.iter().rposition(|b| *b == b'/') {
            path = &path[..slash];
            if !dirs.insert(path) {
                break;
            }
        }
    }
    trees_toward(repo, tree, &mut Vec::new(), &dirs, ids)
}

/// The ids of `tree` and of its subtrees whose path is in `dirs`.
fn trees_toward(
    repo: &Repo,
    tree: &Tree<'_>,
    prefix: &mut Vec<u8>,
    dirs: &HashSet<&[u8]>,
    ids: &mut Vec<Oid>,
) -> Result<()> {
    ids.push(tree.id());
    for entry in tree.entries() {
        if entry.kind != Kind::Tree {
            continue;
        }
        let len = prefix.len();
        if len > 0 {
            prefix.push(b'/');
        }
        prefix.extend_from_slice(&entry.name);
        if dirs.contains(prefix.as_slice()) {
            let sub = repo.find_tree(entry.id)?;
            trees_toward(repo, &sub, prefix, dirs, ids)?;
        }
        prefix.truncate(len);
    }
    Ok(())
}

/// `objects/ab/cdef…`.
fn loose_path(objects: &std::path::Path, id: Oid) -> PathBuf {
    let hex = id.to_string();
    objects.join(&hex[..2]).join(&hex[2..])
}

/// The files of a landing's ending: the index files (the early index in
/// place, the new one about to be renamed over it), the moved branch, the
/// bookkeeping refs, `packed-refs` (rewritten when a packed ref is
/// deleted) and the audit records appended.
pub fn ending(
    repo: &Repo,
    journal: &Journal,
    new_index: &std::path::Path,
    audit: &[Option<Oid>],
) -> Vec<PathBuf> {
    let git_dir = repo.git_dir();
    let common = repo.common_dir();
    let ref_file = |name: &str| {
        if name.starts_with("refs/") {
            common.join(name)
        } else {
            git_dir.join(name)
        }
    };
    let mut files = vec![new_index.to_path_buf(), git_dir.join("index")];
    files.push(ref_file(&journal.branch));
    files.extend(journal.refs.iter().map(|r| ref_file(&r.name)));
    if !journal.audit.is_empty() {
        files.push(ref_file(crate::store::AUDIT_REF));
    }
    files.push(common.join("packed-refs"));
    let objects = common.join("objects");
    files.extend(audit.iter().flatten().map(|id| loose_path(&objects, *id)));
    files
}

#[cfg(test)]
mod tests {
    use crate::git::test_git::git;

    use super::{ending, new_objects};
    use crate::git::{Repo, RepoPath};
    use crate::landing::journal::{Journal, Kind};

    /// A repository at `d` whose one commit, `base`, holds `files` (path,
    /// content) in a pack; returns its id.
    fn packed_base(d: &std::path::Path, files: &[(&str, &str)]) -> String {
        git(d, &["init", "-q", "-b", "main"]);
        for (path, content) in files {
            let path = d.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, content).unwrap();
        }
        git(d, &["add", "-A"]);
        git(d, &["commit", "-q", "-m", "base"]);
        git(d, &["gc", "-q"]);
        git(d, &["rev-parse", "HEAD"])
    }

    /// The repository at `d` and the journal of a landing over `paths`
    /// from commit `old` to commit `new` (as git prints their ids).
    fn landing(d: &std::path::Path, old: &str, new: &str, paths: &[RepoPath]) -> (Repo, Journal) {
        let repo = crate::git::open(d).unwrap();
        let (old, new) = (
            crate::git::Oid::parse(old).unwrap(),
            crate::git::Oid::parse(new).unwrap(),
        );
        let old_tree = repo.find_commit(old).unwrap().tree().unwrap();
        let new_tree = repo.find_commit(new).unwrap().tree().unwrap();
        let journal = Journal::new(
            &repo,
            Kind::Land,
            "refs/heads/main",
            old,
            new,
            &old_tree,
            &new_tree,
            paths,
            "r",
        );
        drop((old_tree, new_tree));
        (repo, journal)
    }

    /// A batch landing (one commit per proposal): every commit's own new
    /// blobs and trees are waited for, also those of a file a later commit
    /// changes back, which the diff from H to N does not show.
    #[test]
    fn a_batch_landings_new_objects_include_every_commits_own() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let old = packed_base(d, &[("a/f.txt", "one\n")]);
        std::fs::write(d.join("a/f.txt"), "passing\n").unwrap();
        git(d, &["commit", "-q", "-am", "first"]);
        let passing = git(d, &["rev-parse", "HEAD:a/f.txt"]);
        let first_tree = git(d, &["rev-parse", "HEAD:a"]);
        std::fs::write(d.join("a/f.txt"), "one\n").unwrap();
        std::fs::create_dir_all(d.join("b")).unwrap();
        std::fs::write(d.join("b/g.txt"), "new\n").unwrap();
        git(d, &["add", "-A"]);
        git(d, &["commit", "-q", "-m", "second"]);
        let new = git(d, &["rev-parse", "HEAD"]);

        let (repo, journal) = landing(d, &old, &new, &[RepoPath::from("b/g.txt")]);
        let new_tree = repo.find_commit(journal.new).unwrap().tree().unwrap();
        let files = new_objects(&repo, &journal, &new_tree).unwrap().unwrap();
        let loose = |id: &str| d.join(".git/objects").join(&id[..2]).join(&id[2..]);
        for id in [
            passing.as_str(),
            first_tree.as_str(),
            &git(d, &["rev-parse", "HEAD~1"]),
            &git(d, &["rev-parse", "HEAD:b/g.txt"]),
            &git(d, &["rev-parse", "HEAD:b"]),
        ] {
            assert!(loose(id).is_file(), "{id} is loose");
            assert!(files.contains(&loose(id)), "{id} is waited for: {files:?}");
        }
    }

    /// A new blob a pack already holds (a file given content H has
    /// elsewhere) has no loose file: it is not waited for, and no file is
    /// opened for it.
    #[test]
    fn a_new_blob_already_packed_is_not_waited_for() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let old = packed_base(d, &[("a/f.txt", "one\n"), ("c/g.txt", "two\n")]);
        std::fs::write(d.join("c/g.txt"), "one\n").unwrap();
        git(d, &["commit", "-q", "-am", "same as a/f.txt"]);
        let new = git(d, &["rev-parse", "HEAD"]);

        let (repo, journal) = landing(d, &old, &new, &[RepoPath::from("c/g.txt")]);
        let new_tree = repo.find_commit(journal.new).unwrap().tree().unwrap();
        let files = new_objects(&repo, &journal, &new_tree).unwrap().unwrap();
        let blob = git(d, &["rev-parse", "HEAD:c/g.txt"]);
        let loose = d.join(".git/objects").join(&blob[..2]).join(&blob[2..]);
        assert!(!loose.exists(), "the blob is packed");
        assert!(!files.contains(&loose), "{files:?}");
        for file in &files {
            assert!(file.is_file(), "{} is loose", file.display());
        }
        assert_eq!(files.len(), 3, "commit, root tree, c's tree: {files:?}");
    }

    /// The objects a landing adds are found as loose files, the ones it
    /// shares with H (packed or not) are not waited for: every commit from
    /// N back to H, each one's trees on the way to a path it changes and
    /// each new blob, and nothing else.
    #[test]
    fn a_landings_new_objects_are_its_commits_the_trees_toward_its_paths_and_its_blobs() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let old = packed_base(d, &[("a/b/f.txt", "one\n"), ("c/g.txt", "same\n")]);
        std::fs::write(d.join("a/b/f.txt"), "two\n").unwrap();
        git(d, &["commit", "-q", "-am", "first"]);
        std::fs::write(d.join("a/b/f.txt"), "three\n").unwrap();
        git(d, &["commit", "-q", "-am", "second"]);
        let new = git(d, &["rev-parse", "HEAD"]);

        let paths = [RepoPath::from("a/b/f.txt")];
        let (repo, journal) = landing(d, &old, &new, &paths);
        let new_tree = repo.find_commit(journal.new).unwrap().tree().unwrap();
        let files = new_objects(&repo, &journal, &new_tree).unwrap().unwrap();

        let loose = |spec: &str| {
            let id = git(d, &["rev-parse", spec]);
            d.join(".git/objects").join(&id[..2]).join(&id[2..])
        };
        let expected = [
            loose("HEAD"),
            loose("HEAD~1"),
            loose("HEAD:a/b/f.txt"),
            loose("HEAD^{tree}"),
            loose("HEAD:a"),
            loose("HEAD:a/b"),
            // The first commit's own tree toward its change, and its blob.
            loose("HEAD~1:a/b/f.txt"),
            loose("HEAD~1^{tree}"),
            loose("HEAD~1:a"),
            loose("HEAD~1:a/b"),
        ];
        for file in &expected {
            assert!(file.is_file(), "{} is loose", file.display());
            assert!(
                files.contains(file),
                "{} is waited for: {files:?}",
                file.display()
            );
        }
        assert_eq!(files.len(), expected.len(), "nothing else: {files:?}");
        // The unchanged directory's tree and blob are H's (packed by gc).
        assert!(!files.contains(&loose("HEAD:c")));

        // A move back (an undo): N is in H's history, nothing new.
        let (_, back) = landing(d, &new, &old, &paths);
        let old_tree = repo.find_commit(back.new).unwrap().tree().unwrap();
        assert_eq!(new_objects(&repo, &back, &old_tree).unwrap(), Some(vec![]));
        // N does not lead back to H: the caller flushes everything.
        let orphan = git(d, &["commit-tree", "HEAD^{tree}", "-m", "orphan"]);
        let (_, unrelated) = landing(d, &new, &orphan, &paths);
        assert!(new_objects(&repo, &unrelated, &new_tree).unwrap().is_none());

        // The ending waits for the index files, the branch, packed-refs
        // and the audit record, by their paths in the git dir.
        let audit = crate::git::Oid::parse(&git(d, &["rev-parse", "HEAD~1"])).unwrap();
        let end = ending(
            &repo,
            &journal,
            &d.join(".git/evolv/index-new.1"),
            &[Some(audit), None],
        );
        for want in [".git/index", ".git/refs/heads/main", ".git/packed-refs"] {
            assert!(end.iter().any(|p| p.ends_with(want)), "{want} in {end:?}");
        }
        let record = loose("HEAD~1");
        let record = record.strip_prefix(d).unwrap();
        assert!(
            end.iter().any(|p| p.ends_with(record)),
            "{record:?} in {end:?}"
        );
    }
}

//! Many files at once (issue 14 items 1–2): a propose of hundreds of files
//! writes its new blobs as one pack without deltas, which git reads and
//! verifies, and the apply lands them all as git would.

use crate::common::TestRepo;

#[test]
fn a_propose_of_many_files_writes_one_undeltified_pack_that_git_verifies() {
    let files: Vec<(String, String)> = (0..300)
        .map(|i| {
            (
                format!("d{}/f{i}.txt", i % 7),
                format!("line one of {i}\ncall old_name() here\nline three\n"),
            )
        })
        .collect();
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_str()))
        .collect();
    let repo = TestRepo::with_files(&refs);
    repo.git(&["gc", "-q"]);
    let packs_before = pack_indexes(&repo);
    let id = repo.propose("old_name", "new_name", &[]);
    let new_packs: Vec<_> = pack_indexes(&repo)
        .into_iter()
        .filter(|p| !packs_before.contains(p))
        .collect();
    assert_eq!(new_packs.len(), 1, "{new_packs:?}");
    let verify = repo.git(&["verify-pack", "-v", &new_packs[0]]);
    assert!(verify.contains("non delta: 300 objects"), "{verify}");
    repo.assert_fsck();
    // `git show` reads the proposal through the new pack.
    let shown = repo.git(&["show", "--stat", &format!("refs/evolv/proposals/{id}")]);
    assert!(
        shown.contains("300 files changed, 300 insertions(+), 300 deletions(-)"),
        "{shown}"
    );
    repo.evolv(&["apply", &id]).ok();
    assert_eq!(repo.status(), "");
    for (path, content) in &files {
        assert_eq!(repo.read(path), content.replace("old_name", "new_name"));
    }
    repo.assert_fsck();
}

fn pack_indexes(repo: &TestRepo) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(repo.path().join(".git/objects/pack"))
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "idx"))
                .map(|p| p.display().to_string())
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

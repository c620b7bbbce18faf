//! The op log's mark (issue 38 item 2): what this clone appends is marked;
//! a change of any byte, a copy to another place of the chain, or another
//! clone's secret is not.

use super::*;
use crate::store::test_repo as repo;

fn apply(before: &str) -> AuditRecord {
    let mut r = AuditRecord::new(AuditAction::Apply, "patch_1_ab", true);
    r.moved(RefMove {
        name: "refs/heads/main".into(),
        old: Some(before.into()),
        new: Some("1".repeat(40)),
    });
    r
}

fn tip_message(repo: &Repo) -> (Oid, Option<Oid>, String) {
    let tip = repo.ref_target(AUDIT_REF).unwrap();
    let commit = repo.find_commit(tip).unwrap();
    let text = String::from_utf8(commit.message_bytes().to_vec()).unwrap();
    (tip, commit.parent_id(0).ok(), text)
}

#[test]
fn what_this_clone_appends_is_marked_and_reads_back_whole() {
    let (_d, repo) = repo();
    append(&repo, &apply(&"0".repeat(40))).unwrap();
    append(&repo, &apply(&"2".repeat(40))).unwrap();
    let read = read(&repo, None).unwrap();
    assert_eq!(read.len(), 2);
    assert!(read.iter().all(|e| !e.foreign));
    assert_eq!(read[0].record, apply(&"2".repeat(40)));
    let (_, _, text) = tip_message(&repo);
    assert!(text.contains(",\"clone_mark\":\""), "{text}");
}

#[test]
fn a_changed_or_moved_or_foreign_record_is_not_marked() {
    let (_d, repo) = repo();
    append(&repo, &apply(&"0".repeat(40))).unwrap();
    let (tip, parent, text) = tip_message(&repo);
    let key = CloneKey::load(&repo).unwrap();
    assert!(is_marked(Some(&key), parent, text.as_bytes()));
    // One byte of the record changed.
    let changed = text.replace(&"0".repeat(40), &"3".repeat(40));
    assert!(!is_marked(Some(&key), parent, changed.as_bytes()));
    // The same bytes after another commit of the chain.
    assert!(!is_marked(Some(&key), Some(tip), text.as_bytes()));
    // Another clone's secret; no secret at all.
    let (_d2, other) = super::super::test_repo();
    let theirs = CloneKey::load(&other).unwrap();
    assert!(!is_marked(Some(&theirs), parent, text.as_bytes()));
    assert!(!is_marked(None, parent, text.as_bytes()));
    // Without the mark field at all (an earlier version's record).
    let json = serde_json::to_string(&apply(&"0".repeat(40))).unwrap();
    assert!(!is_marked(Some(&key), parent, json.as_bytes()));
}

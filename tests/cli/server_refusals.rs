//! Issue 38 items 4 and 18: what a server says when it refuses a push, and
//! what a refused push leaves behind.

use crate::common::{assert_has, assert_lacks};
use crate::server_fixture::{Server, git_has_proc_receive};

fn server() -> Option<Server> {
    git_has_proc_receive().then(|| Server::new(&[("a.txt", "one\n")]))
}

#[test]
fn a_root_commit_is_refused_as_a_root_commit_not_a_merge() {
    let Some(s) = server() else { return };
    let c = s.clone("c1");
    let main = s.ref_target("main").unwrap();
    s.git_in(&c, &["checkout", "-q", "--orphan", "fresh"], &[]);
    s.commit(&c, "z.txt", "z\n", "feat: unrelated history");
    let run = s.push(&c, "origin", &["HEAD:refs/for/main"], &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_has(&run.stderr, "is a root commit");
    assert_lacks(&run.stderr, "merge commit");
    assert_eq!(s.ref_target("main").unwrap(), main);
    s.assert_fsck();
}

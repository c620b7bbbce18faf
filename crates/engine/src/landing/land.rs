//! The landing protocol shared by apply and rollback (issue 5; see
//! RELIABILITY.md):
//!
//! 1. the caller has written N's objects (flushed before the journal);
//! 2. under git-evolv's `flock` (released by the kernel on SIGKILL), check
//!    that every changed path is one git-evolv may write;
//! 3. write the journal (H, N, the branch, each path's pre- and post-image,
//!    the bookkeeping refs and audit records) by temp file + fsync + rename;
//! 4. create git's `index.lock` (exclusively; a lock git-evolv did not
//!    create is never touched), check the paths for uncommitted work again,
//!    prepare N's files (`stage`: their directories, or with
//!    `evolv.fsyncWorktree` flushed temp files), put an index naming N's
//!    blobs in place (still holding the lock), and move the branch H → N
//!    by compare-and-swap (`swap_branch`);
//! 5. write the files in place (or rename the staged ones into place,
//!    writing the few that could not be staged) and build the new index;
//! 6. set the bookkeeping refs, append the audit records, flush the file
//!    systems, put the new index into `index.lock` and rename that over
//!    `index`, delete the journal.
//!
//! Steps 5 and 6 are `roll_forward`, which `git evolv recover` also runs on
//! a journal a killed process left: it is idempotent, and skips (and
//! reports) any file that holds neither the pre- nor the post-image.
//!
//! The steps live by concept: the turn and the retry policy in `turn`, the
//! checks before anything is touched in `checks`, steps 3 and 4 (journal,
//! early index, compare-and-swap) and the `Landing` in `protocol`, step 5
//! (placing the files) in `place`, step 6 (index, refs, audit, flush) in
//! `finish`. This module is their public face for the use cases.

pub use super::checks::{check_clean, ensure_on_branch, prepare_index, release_index};
pub use super::finish::Finished;
pub use super::protocol::{
    BranchMove, Epilogue, FAILPOINT_AFTER_BRANCH_MOVE, Landing, failpoint, land_in_turn,
    move_branch_in_turn,
};
pub use super::turn::{Turn, retrying, take_turn};

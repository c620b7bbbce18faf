//! What installing over a hook's files would do with the hook git-evolv
//! chained before, decided before anything is touched: a refused install
//! changes nothing, and `status` only advises an install that works.

use super::files::Files;
use super::{CHAINED_SUFFIX, Kind, LEGACY_SUFFIX};
use crate::error::Error;

/// What becomes of `<hook>.evolv-chained` when a foreign hook is chained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ChainedFate {
    /// Nothing is chained yet.
    Absent,
    /// A manager wrote its hook over ours: the chained copy is its older
    /// stub (or the same text), dropped.
    Drop,
    /// A manager (lefthook) moved our shim, with the hook it chained, to
    /// `.old`: that hook takes the shim's place there, where the manager
    /// keeps the hook it found, as `uninstall` would put it.
    BackToOld,
    /// Two different hooks, neither ours to drop: merged by hand.
    Conflict,
}

/// The fate of the chained hook when the foreign hook at `f.main` (of
/// `kind`) is chained.
pub(super) fn chained_fate(f: &Files, kind: Kind) -> ChainedFate {
    let Some((ckind, ctext)) = &f.chained else {
        return ChainedFate::Absent;
    };
    let same =
        f.main.as_ref().is_some_and(|(_, t)| t == ctext) || (*ckind == kind && kind.is_manager());
    if same {
        ChainedFate::Drop
    } else if Files::kind(&f.old) == Some(Kind::Ours) {
        ChainedFate::BackToOld
    } else {
        ChainedFate::Conflict
    }
}

/// The `hook_conflict` installing over `f` would end in, if any.
pub(super) fn conflict(f: &Files) -> Option<Error> {
    let main = match f.main_kind() {
        None | Some(Kind::Ours) => return None,
        Some(Kind::PreCommit) => {
            // Our shim becomes pre-commit's legacy hook; a foreign legacy
            // hook must move to the chained slot, which must be free (a
            // chained pre-commit hook is the loop older installs made).
            let foreign_legacy = Files::kind(&f.legacy).is_some_and(|k| k != Kind::Ours);
            let taken = Files::kind(&f.chained).is_some_and(|k| k != Kind::PreCommit);
            if !(foreign_legacy && taken) {
                return None;
            }
            f.path(LEGACY_SUFFIX)
        }
        Some(kind) => {
            if chained_fate(f, kind) != ChainedFate::Conflict {
                return None;
            }
            f.path("")
        }
    };
    Some(Error::HookConflict {
        path: main,
        chained: f.path(CHAINED_SUFFIX),
    })
}

/// Whether installing over `f` copies the hook binary (nothing to chain).
pub(super) fn needs_binary(f: &Files) -> bool {
    match f.main_kind() {
        None => true,
        Some(Kind::Ours) => f.chained.is_none(),
        Some(_) => false,
    }
}

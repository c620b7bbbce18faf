//! What the adapter learns about a repository once and keeps with its
//! handle: settings read from git's config (the flush policy, checkout's
//! workers, the ref lock timeout) and facts about where the repository
//! lives (whether its file system orders its writes, its temp-file tag).
//! A command would otherwise read them per file (issue 14 item 1). They
//! live and die with the handle: one value of each kind per handle,
//! shared with the handles reopened from it for other threads
//! (`Reopener`), forgotten when the handle writes a setting. Nothing here
//! is process-wide (issue 39 item 4): a long-running front end serving
//! several repositories, or one whose config changed, reads them again.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// A kind of value a handle learns once: each is a type of its own, so
/// two kinds never share a slot (a plain `bool` is not one).
pub(crate) trait Learnt: Copy + Send + Sync + 'static {}

type Slots = HashMap<TypeId, Box<dyn Any + Send + Sync>>;

/// The values a handle learnt, by kind.
#[derive(Default, Clone)]
pub(crate) struct Memo(Arc<Mutex<Slots>>);

impl Memo {
    /// The value of kind `T`, computed by `init` the first time. `init`
    /// runs without the lock held, so it may ask for another kind; of two
    /// threads computing one kind at once, the first to finish is kept.
    pub(crate) fn get<T: Learnt>(&self, init: impl FnOnce() -> T) -> T {
        if let Some(value) = self.known::<T>() {
            return value;
        }
        let value = init();
        let mut slots = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let kept = slots
            .entry(TypeId::of::<T>())
            .or_insert_with(|| Box::new(value));
        kept.downcast_ref::<T>().copied().unwrap_or(value)
    }

    fn known<T: Learnt>(&self) -> Option<T> {
        let slots = self.0.lock().unwrap_or_else(|e| e.into_inner());
        slots.get(&TypeId::of::<T>())?.downcast_ref::<T>().copied()
    }

    /// Forgets every value learnt (the handle wrote a setting).
    pub(crate) fn forget(&self) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }
}

impl std::fmt::Debug for Memo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let slots = self.0.lock().map_or(0, |s| s.len());
        f.debug_struct("Memo").field("learnt", &slots).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::{Learnt, Memo};

    #[derive(Debug, Clone, Copy, PartialEq)]
    struct Depth(u32);
    impl Learnt for Depth {}

    #[derive(Debug, Clone, Copy, PartialEq)]
    struct Width(u32);
    impl Learnt for Width {}

    #[test]
    fn each_kind_is_learnt_once_shared_by_clones_and_forgotten_together() {
        let memo = Memo::default();
        assert_eq!(memo.get(|| Depth(1)), Depth(1));
        assert_eq!(memo.get(|| Depth(2)), Depth(1), "learnt once");
        assert_eq!(memo.get(|| Width(3)), Width(3), "a kind of its own");
        let reopened = memo.clone();
        assert_eq!(reopened.get(|| Depth(4)), Depth(1), "shared");
        // One kind learnt while another is computed: no deadlock.
        let fresh = Memo::default();
        let nested = fresh.get(|| Depth(fresh.get(|| Width(5)).0 + 1));
        assert_eq!(nested, Depth(6));
        memo.forget();
        assert_eq!(reopened.get(|| Depth(7)), Depth(7), "forgotten together");
        assert_eq!(Memo::default().get(|| Depth(8)), Depth(8), "per handle");
    }
}

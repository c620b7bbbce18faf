//! How much of the pack files libgit2 keeps mapped: bounded, for commands
//! that read every tree of a large scope.

/// Bytes of pack files libgit2 keeps mapped at once, in windows of
/// [`PACK_WINDOW`]: propose reads every tree of the scope through libgit2,
/// and with libgit2's defaults (1 GiB windows, no practical limit) each
/// page of every pack it touched stayed mapped, resident and counted in
/// the process's RSS until the end (a large share of a propose's peak,
/// when libgit2 read the blobs too). Read pages stay in the page cache; a
/// window mapped again costs page-table work only.
const PACK_MAPPED_LIMIT: usize = 4 << 20;
const PACK_WINDOW: usize = 1 << 20;

/// Sets libgit2's window size and mapped limit for packs (once per
/// process, before propose reads its first object: a window mapped before
/// stays as large as it was; see [`PACK_MAPPED_LIMIT`]).
pub fn bound_mapped_packs() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        crate::sys::calls::bound_libgit2_mapped_packs(PACK_WINDOW, PACK_MAPPED_LIMIT)
    });
}

//! A repository path's bytes as a path of this platform: a conversion,
//! not a file-system access.

use std::path::Path;

/// `bytes` as a path on this platform's file system.
#[cfg(unix)]
pub fn fs_path(bytes: &[u8]) -> &Path {
    use std::os::unix::ffi::OsStrExt;
    Path::new(std::ffi::OsStr::from_bytes(bytes))
}

/// `bytes` as a path on this platform's file system (lossily where the
/// platform's paths are not bytes).
#[cfg(not(unix))]
pub fn fs_path(bytes: &[u8]) -> &Path {
    // Only reached for UTF-8 paths: propose skips the others there.
    Path::new(std::str::from_utf8(bytes).unwrap_or_default())
}

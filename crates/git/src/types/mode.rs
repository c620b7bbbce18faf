//! Git's file modes, in one place (tree entries, index entries, journals).

/// A regular file.
pub const BLOB: u32 = 0o100644;
/// An executable file.
pub const EXECUTABLE: u32 = 0o100755;
/// A symbolic link (the blob is the target).
pub const SYMLINK: u32 = 0o120000;
/// A submodule commit.
pub const GITLINK: u32 = 0o160000;
/// A folder.
pub const TREE: u32 = 0o040000;

/// Whether `mode` is a file git-evolv edits (regular or executable).
pub fn is_file(mode: u32) -> bool {
    mode == BLOB || mode == EXECUTABLE
}

//! Writing a file's data back to disk, the first half of git's batch
//! flush, where the system has a call for it (Linux `sync_file_range`);
//! elsewhere the wait is an `fdatasync`. For the flushes of `durable` and
//! the pack writer alike.

use std::fs::File;

/// Starts writing `file`'s data back to disk without waiting
/// (`durable::settle` waits for it, `durable::barrier` completes it).
pub fn start(file: &File) {
    // A failure only means the final flush does all the work.
    #[cfg(target_os = "linux")]
    crate::sys::calls::start_writeback(file);
    #[cfg(not(target_os = "linux"))]
    let _ = file;
}

/// Waits until the data written to `file` is on the device — git's
/// writeout-only flush (`sync_file_range` with both waits): no metadata and
/// no device-cache flush, which the next `durable::barrier` does for every file
/// waited for before it.
pub fn wait(file: &File) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        crate::sys::calls::wait_writeback(file)
    }
    #[cfg(not(target_os = "linux"))]
    file.sync_data()
}

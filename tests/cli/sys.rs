//! The tests' system calls that std does not wrap, behind safe functions:
//! starting a command in a new session, with no controlling terminal
//! (`setsid` before exec). `unsafe` is needed because `pre_exec` runs code
//! between fork and exec, where only async-signal-safe calls are sound.
//! This is the only module of the tests allowed `unsafe`
//! (`unsafe_fence.rs` keeps it so).

#![allow(unsafe_code)]

use std::os::unix::process::CommandExt;
use std::process::Command;

/// Makes the child the leader of a new session with no controlling
/// terminal (portable, unlike the util-linux `setsid` command).
pub fn detach(cmd: &mut Command) -> &mut Command {
    // SAFETY: setsid(2) is async-signal-safe; nothing else runs between
    // fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            if libc::setsid() == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd
}

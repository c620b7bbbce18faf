//! The front ends' system calls that std does not wrap, each behind a
//! small safe function named for what it does: pointing a standard stream
//! at another file (`dup2`, for the pager and the MCP server's stdio),
//! waiting for a terminal to be readable (`poll`), ignoring SIGINT while a
//! prompt holds the terminal (`signal`), and the terminal's raw mode
//! (`tcgetattr`, `cfmakeraw`, `tcsetattr`). `unsafe` is needed because
//! they are `libc` calls; they take borrowed descriptors (`AsFd`) and
//! structs they fill or read during the call only. This module and the
//! hook binary's C `main` are the only places of this crate allowed
//! `unsafe` (`tests/cli/unsafe_fence.rs` keeps it so).

#![allow(unsafe_code)]

use std::io;
use std::os::fd::{AsFd, AsRawFd};

/// A standard stream: fd 0, 1 or 2.
#[derive(Debug, Clone, Copy)]
pub enum StdStream {
    Input,
    Output,
    Error,
}

/// Points standard stream `stream` at the file `at` is open on (`dup2`):
/// what was written to (or read from) the stream now goes to that file.
pub fn point_std_stream(stream: StdStream, at: impl AsFd) -> io::Result<()> {
    let target = match stream {
        StdStream::Input => libc::STDIN_FILENO,
        StdStream::Output => libc::STDOUT_FILENO,
        StdStream::Error => libc::STDERR_FILENO,
    };
    // SAFETY: dup2(2) from a descriptor `at` keeps open for the call onto
    // one of the process's standard streams; no Rust object owns 0, 1 or 2
    // in a way that dup2 invalidates (std's handles use the number,
    // whatever file it names). It touches no memory of ours.
    if unsafe { libc::dup2(at.as_fd().as_raw_fd(), target) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Waits up to `ms` milliseconds for `fd` to be readable (`poll` for
/// POLLIN): whether it is (or has hung up), `false` when the time ran out.
pub fn poll_readable(fd: impl AsFd, ms: i32) -> io::Result<bool> {
    let mut fds = libc::pollfd {
        fd: fd.as_fd().as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd for a descriptor `fd` keeps open for the
    // whole call.
    let ready = unsafe { libc::poll(&mut fds, 1, ms) };
    if ready < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(ready != 0)
}

/// Ignores SIGINT while alive, then puts back the disposition it replaced:
/// while a prompt holds the terminal in raw mode the terminal library
/// re-raises Ctrl-C as SIGINT, which would kill us before we can restore
/// the cursor and report "cancelled" (exit 130).
pub struct SigintIgnored {
    previous: libc::sighandler_t,
}

impl SigintIgnored {
    pub fn new() -> Self {
        // SAFETY: installs the SIG_IGN disposition; no handler code runs.
        let previous = unsafe { libc::signal(libc::SIGINT, libc::SIG_IGN) };
        SigintIgnored { previous }
    }
}

impl Drop for SigintIgnored {
    fn drop(&mut self) {
        if self.previous != libc::SIG_ERR {
            // SAFETY: restores the disposition signal(2) returned in `new`,
            // a valid one for SIGINT.
            unsafe {
                libc::signal(libc::SIGINT, self.previous);
            }
        }
    }
}

/// The terminal settings of `fd` (`tcgetattr`).
pub fn terminal_settings(fd: impl AsFd) -> io::Result<libc::termios> {
    let mut termios = std::mem::MaybeUninit::<libc::termios>::uninit();
    // SAFETY: `fd` is open for the call; tcgetattr fills `termios` when it
    // returns 0, and only then is it read.
    unsafe {
        if libc::tcgetattr(fd.as_fd().as_raw_fd(), termios.as_mut_ptr()) != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(termios.assume_init())
    }
}

/// Turns `termios` into raw mode settings (`cfmakeraw`).
pub fn make_raw(termios: &mut libc::termios) {
    // SAFETY: cfmakeraw only edits the struct it is given.
    unsafe { libc::cfmakeraw(termios) };
}

/// Sets the terminal settings of `fd` once output written so far has been
/// sent (`tcsetattr` with TCSADRAIN).
pub fn set_terminal_settings(fd: impl AsFd, termios: &libc::termios) -> io::Result<()> {
    // SAFETY: `fd` is open for the call and `termios` is a valid termios,
    // only read.
    if unsafe { libc::tcsetattr(fd.as_fd().as_raw_fd(), libc::TCSADRAIN, termios) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

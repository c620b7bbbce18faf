//! `git-evolv-hook`: git's commit-msg and pre-push hooks, and nothing
//! else. `git evolv hooks install` copies this binary into the hooks
//! folder (`.git/hooks/commit-msg`, `.git/hooks/pre-push`); git runs it by
//! the hook's name. It runs the library's hook code (`git_evolv::cli`,
//! `git_evolv::lint`, `git_evolv::ops::commits::pre_push`) without the
//! command-line parser or a libgit2 repository, so it stays small and starts
//! fast (issue 14 item 5). The lint rules live in the library only.
//!
//! It is run on every commit, so it also skips std's start-up (`no_main`):
//! that reads `/proc/self/maps` to find the main thread's stack guard and
//! sets up a signal stack, a good part of a hook run's instructions.
//! What the start-up does that matters here is done below: SIGPIPE is
//! ignored (a closed stderr is not a refused commit), a panic exits 101
//! with its message. (Every write to stdout goes through `cli::Output`,
//! which flushes it.)
//!
//! `unsafe` is allowed here because the C entry point is: exporting the
//! `main` symbol (`no_mangle`), reading libc's `argv`, and ignoring
//! SIGPIPE before anything else runs, as std's start-up would. This file
//! and the library's `sys` module are the only places of this package
//! allowed `unsafe` (`tests/cli/unsafe_fence.rs` keeps it so).

#![no_main]
#![allow(unsafe_code)]

use std::ffi::{CStr, OsString, c_char, c_int};
use std::os::unix::ffi::OsStringExt;

use git_evolv::hooks::binary::EMBEDDED_ID;

/// The identification `git evolv hooks status` finds in a copy of this
/// binary: the version it was built as (`git_evolv::hooks::binary`).
static ID: [u8; EMBEDDED_ID.len()] = EMBEDDED_ID;

/// The C entry point, called by libc's start-up code with the command line.
// SAFETY: with `no_main` this is the program's only `main` symbol.
#[unsafe(no_mangle)]
extern "C" fn main(argc: c_int, argv: *const *const c_char) -> c_int {
    // Referenced, so the linker keeps it (`#[used]` alone does not survive
    // `--gc-sections`).
    std::hint::black_box(&ID);
    let args: Vec<OsString> = (0..usize::try_from(argc).unwrap_or(0))
        .map(|i| {
            // SAFETY: libc passes `argc` valid, NUL-terminated strings in
            // `argv`, alive for the whole run.
            let arg = unsafe { CStr::from_ptr(*argv.add(i)) };
            OsString::from_vec(arg.to_bytes().to_vec())
        })
        .collect();
    // SAFETY: setting a signal's disposition to SIG_IGN, before any other
    // thread exists; as std's start-up does.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    let code = std::panic::catch_unwind(|| git_evolv::cli::run_hook_binary(&args)).unwrap_or(101);
    c_int::from(code)
}

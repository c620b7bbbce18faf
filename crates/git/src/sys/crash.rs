//! Named crash points for the crash tests. In debug builds (what
//! `cargo test` builds and runs), `crashpoint!("name")` SIGKILLs the
//! process when `GIT_EVOLV_CRASHPOINT` equals the name, and first runs the
//! shell command of `GIT_EVOLV_CRASHPOINT_RUN=name=command` there (to race
//! a landing deterministically). In release builds it compiles to nothing,
//! so an installed binary has no kill switch. Being in the ordinary debug
//! build means the tests need no second build of the crate and its
//! dependencies (issue 10, item 8); unset, each point costs one
//! environment lookup, only in debug builds.

/// Kills the process here when the crash tests ask for it (see the module).
#[macro_export]
macro_rules! crashpoint {
    ($name:literal) => {
        $crate::sys::crash::point($name)
    };
}

/// The crash point `name`; use the `crashpoint!` macro.
#[cfg(debug_assertions)]
pub fn point(name: &str) {
    if let Ok(spec) = std::env::var("GIT_EVOLV_CRASHPOINT_RUN")
        && let Some((at, command)) = spec.split_once('=')
        && at == name
    {
        let _ = std::process::Command::new("sh")
            .args(["-c", command])
            .status();
    }
    if std::env::var("GIT_EVOLV_CRASHPOINT").as_deref() == Ok(name) {
        // SIGKILL, not abort: no destructor or handler runs, exactly like
        // the OOM killer or `kill -9`.
        crate::sys::calls::kill_self();
    }
}

/// The crash point `name`; a no-op in release builds.
#[cfg(not(debug_assertions))]
#[inline(always)]
pub fn point(_name: &str) {}

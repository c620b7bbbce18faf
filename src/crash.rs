//! Named crash points for the crash tests. Under the cargo feature
//! `crashpoints` (off by default), `crashpoint!("name")` SIGKILLs the process
//! when `GIT_EVOLV_CRASHPOINT` equals the name, and first runs the shell
//! command of `GIT_EVOLV_CRASHPOINT_RUN=name=command` there (to race a
//! landing deterministically); otherwise it compiles to nothing, so a
//! release binary has no kill switch.

/// Kills the process here when the crash tests ask for it (see the module).
#[macro_export]
macro_rules! crashpoint {
    ($name:literal) => {
        $crate::crash::point($name)
    };
}

/// The crash point `name`; use the `crashpoint!` macro.
#[cfg(feature = "crashpoints")]
#[allow(unsafe_code)]
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
        // SAFETY: getpid(2) and kill(2) take plain integers and touch no
        // memory of ours. SIGKILL, not abort: no destructor or handler runs,
        // exactly like the OOM killer or `kill -9`.
        unsafe {
            libc::kill(libc::getpid(), libc::SIGKILL);
        }
    }
}

/// The crash point `name`; a no-op without the `crashpoints` feature.
#[cfg(not(feature = "crashpoints"))]
#[inline(always)]
pub fn point(_name: &str) {}

//! Build script: only the hook binary's link options. `git evolv hooks
//! install` copies `git-evolv-hook` into every repository's hooks folder
//! (commit-msg and pre-push), and git starts it on every commit, so:
//! - it is linked without debug information: the release profile's line
//!   tables (and all of the dev profile's) would make each copy 70-140 MB
//!   instead of 4-11 MB. Symbols stay, for profilers and backtraces.
//! - it is not position-independent: a PIE of this size has ~12,000
//!   relative relocations, which the dynamic loader applies on every start
//!   (a large share of a hook run's instructions and page faults; see
//!   BENCHMARKS.md, "commit-msg hook"). A short-lived
//!   hook loses little by a fixed load address; `git-evolv` itself (the MCP
//!   and web servers) stays PIE.
//! - on GNU/Linux, where the C compiler has `libgcc_eh.a`, the unwinder is
//!   linked in statically rather than loading `libgcc_s.so` (whose start-up
//!   probes the CPU on every run): `-lgcc_s`,
//!   which Rust's standard library asks for, finds a `libgcc_s.a` (a copy
//!   of `libgcc_eh.a`) in a folder of this build first. Without it the
//!   binary loads `libgcc_s.so` as before.
//!
//! `git-evolv` itself is linked as before.

use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = "git-evolv-hook";

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=RUSTC_LINKER");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if matches!(os.as_str(), "macos" | "ios" | "windows") {
        // macOS keeps debug information outside the executable and has no
        // non-PIE executables; Windows has no hooks as files.
        return;
    }
    // GNU ld, gold, lld and mold take both.
    println!("cargo::rustc-link-arg-bin={BIN}=-Wl,--strip-debug");
    println!("cargo::rustc-link-arg-bin={BIN}=-no-pie");
    let gnu = std::env::var("CARGO_CFG_TARGET_ENV").is_ok_and(|e| e == "gnu");
    if os == "linux"
        && gnu
        && let Some(dir) = static_unwinder()
    {
        println!("cargo::rustc-link-arg-bin={BIN}=-L{}", dir.display());
    }
}

/// A folder holding `libgcc_s.a`, a copy of the C compiler's `libgcc_eh.a`,
/// when there is one and the build is native (a cross build keeps the
/// default).
fn static_unwinder() -> Option<PathBuf> {
    let native = std::env::var("TARGET").ok()? == std::env::var("HOST").ok()?;
    let linker = std::env::var("RUSTC_LINKER").unwrap_or_else(|_| "cc".into());
    if !native {
        return None;
    }
    let out = Command::new(&linker)
        .arg("-print-file-name=libgcc_eh.a")
        .output()
        .ok()?;
    let found = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
    if !out.status.success() || !found.is_absolute() || !found.is_file() {
        return None;
    }
    let dir = Path::new(&std::env::var("OUT_DIR").ok()?).join("static-unwinder");
    std::fs::create_dir_all(&dir).ok()?;
    std::fs::copy(&found, dir.join("libgcc_s.a")).ok()?;
    Some(dir)
}

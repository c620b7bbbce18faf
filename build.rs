//! Build script: only the hook binary's link options. `git evolv hooks
//! install` copies `git-evolv-hook` into every repository's hooks folder
//! (commit-msg and pre-push), and git starts it on every commit, so:
//! - it is linked without debug information: the release profile's line
//!   tables (and all of the dev profile's) would make each copy 70-140 MB
//!   instead of 4-11 MB. Symbols stay, for profilers and backtraces.
//! - it is not position-independent: a PIE of this size has ~12,000
//!   relative relocations, which the dynamic loader applies on every start
//!   (0.16 M instructions and ~60 copy-on-write page faults of 0.53 M and
//!   144 per hook run; see BENCHMARKS.md, "commit-msg hook"). A short-lived
//!   hook loses little by a fixed load address; `git-evolv` itself (the MCP
//!   and web servers) stays PIE.
//!
//! `git-evolv` itself is linked as before.

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    // GNU ld, gold, lld and mold take both; macOS keeps debug information
    // outside the executable and has no non-PIE executables.
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if !matches!(os.as_str(), "macos" | "ios" | "windows") {
        println!("cargo::rustc-link-arg-bin=git-evolv-hook=-Wl,--strip-debug");
        println!("cargo::rustc-link-arg-bin=git-evolv-hook=-no-pie");
    }
}

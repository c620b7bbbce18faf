//! Build script: only the hook binary's link options. `git evolv hooks
//! install` copies `git-evolv-hook` into every repository's hooks folder
//! (twice: commit-msg and pre-push), so it is linked without debug
//! information (the release profile's line tables, and all of the dev
//! profile's, would make each copy 70-140 MB instead of 3-7 MB). Symbols
//! stay, for profilers and backtraces. `git-evolv` itself is unchanged.

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    // GNU ld, gold, lld and mold take `--strip-debug`; macOS keeps debug
    // information outside the executable anyway.
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if !matches!(os.as_str(), "macos" | "ios" | "windows") {
        println!("cargo::rustc-link-arg-bin=git-evolv-hook=-Wl,--strip-debug");
    }
}

//! The `git-evolv` binary; `git evolv …` finds it on PATH.

fn main() -> std::process::ExitCode {
    git_evolv::cli::run()
}

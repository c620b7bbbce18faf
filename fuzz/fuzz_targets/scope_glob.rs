//! Scope globs never panic on any glob or path; a glob that compiles
//! answers for every path.
#![no_main]

use git_evolv::edit::Scope;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut parts = text.splitn(2, '\n');
    let glob = parts.next().unwrap_or_default().to_string();
    let path = parts.next().unwrap_or_default();
    if let Ok(scope) = Scope::new(&[glob]) {
        let _ = scope.matches(path);
    }
});

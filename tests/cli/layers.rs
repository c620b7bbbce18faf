//! The modules of every layer import each other without a cycle, and each
//! crate's top-level modules import only those below them (issue 24 item
//! 6). Cargo keeps the crates apart (a crate cannot name one above it);
//! this keeps the modules inside each crate apart.
//!
//! Every reference counts: `use crate::a::b`, `super::x`, `self::x`,
//! brace groups (`crate::{a, b::{c, d}}`) and names a module re-exports
//! (`pub use tree::entry_path`), resolved to the module defining them.
//! Test code (after the first `#[cfg(test)]` of a file, and files named
//! `*tests.rs`) is left out: tests may use anything.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::common::TestResult;
use crate::rust_source::{
    assert_clean, assert_reports, code_only, is_test_file, relative, rust_files, scratch_tree,
    workspace,
};

/// Each crate's source folder and its top-level modules from the top
/// layer down: a module may import only those after it.
const CRATES: &[(&str, &[&str])] = &[
    ("src", &["cli", "mcp", "prompt", "web", "sys"]),
    (
        "crates/engine/src",
        &[
            "ops",
            "hooks",
            "landing",
            "worktree",
            "store",
            "validate",
            "validators",
            "sandbox",
            "process_group",
            "context",
            "progress",
            "signals",
            "sys",
        ],
    ),
    (
        "crates/git/src",
        &[
            "worktree", "diff", "trees", "objects", "refs", "repo", "process", "config", "formats",
            "test_git", "types", "sys",
        ],
    ),
    (
        "crates/core/src",
        &[
            "agents",
            "receive",
            "patch",
            "lint",
            "policy",
            "diff",
            "edit",
            "error",
            "plan",
            "edit_failure",
            "validation_report",
            "fs_path",
            "git_names",
            "globs",
            "clock",
            "c_quote",
            "comma_list",
            "push_report",
        ],
    ),
];

type ModPath = Vec<String>;

/// One crate's modules: path → the code of its own file (test code cut).
struct Crate {
    modules: BTreeMap<ModPath, String>,
}

impl Crate {
    fn read(src: &Path) -> Crate {
        Crate {
            modules: read_modules(src),
        }
    }

    /// The module a path names from `from`, following re-exports.
    fn resolve(&self, from: &ModPath, path: &[String], depth: usize) -> Option<ModPath> {
        let (mut at, rest) = match path.first().map(String::as_str) {
            Some("crate") => (Vec::new(), &path[1..]),
            Some("self") => (from.clone(), &path[1..]),
            Some("super") => {
                let mut at = from.clone();
                let mut rest = path;
                while rest.first().is_some_and(|s| s == "super") {
                    at.pop();
                    rest = &rest[1..];
                }
                (at, rest)
            }
            // A child module named relatively (`pub use tree::x` in a mod.rs).
            Some(first) if self.modules.contains_key(&child(from, first)) => (from.clone(), path),
            _ => return None,
        };
        for segment in rest {
            let next = child(&at, segment);
            if self.modules.contains_key(&next) {
                at = next;
                continue;
            }
            // Not a module: an item here, or one this module re-exports.
            if depth < 8
                && let Some(target) = self.reexport(&at, segment, depth)
            {
                return Some(target);
            }
            break;
        }
        Some(at)
    }

    /// Where `module` re-exports `name` from, if it does.
    fn reexport(&self, module: &ModPath, name: &str, depth: usize) -> Option<ModPath> {
        let code = self.modules.get(module)?;
        for (i, _) in code.match_indices("pub use ") {
            let tree = &code[i + "pub use ".len()..];
            let tree = &tree[..tree.find(';').unwrap_or(tree.len())];
            for path in expand(tree) {
                let last = path.last().map(String::as_str);
                let renamed = tree.contains(&format!(" as {name}"));
                if last == Some(name) || renamed {
                    let target = self.resolve(module, &path, depth + 1)?;
                    if &target != module {
                        return Some(target);
                    }
                }
            }
        }
        None
    }

    /// Every (from, to) module pair a reference joins.
    fn references(&self) -> BTreeSet<(ModPath, ModPath)> {
        let mut out = BTreeSet::new();
        for (module, code) in &self.modules {
            for path in paths_in(code) {
                if let Some(target) = self.resolve(module, &path, 0) {
                    out.insert((module.clone(), target));
                }
            }
        }
        out
    }
}

fn child(parent: &ModPath, name: &str) -> ModPath {
    let mut p = parent.clone();
    p.push(name.to_string());
    p
}

/// Each module of the crate at `src` and its code (see [`code_of`]); the
/// binaries (`bin/`, `main.rs`), the assets and test files left out.
fn read_modules(src: &Path) -> BTreeMap<ModPath, String> {
    let mut out: BTreeMap<ModPath, String> = BTreeMap::new();
    for path in rust_files(src) {
        let rel = relative(src, &path);
        let mut module: ModPath = rel.split('/').map(str::to_string).collect();
        let file = module.pop().unwrap();
        let stem = file.trim_end_matches(".rs");
        let binary = module.first().is_some_and(|d| d == "bin") || rel == "main.rs";
        if binary || module.iter().any(|d| d == "assets") || is_test_file(&file) {
            continue;
        }
        if stem != "lib" && stem != "mod" {
            module.push(stem.to_string());
        }
        let text = std::fs::read_to_string(&path).unwrap();
        out.entry(module).or_default().push_str(&code_of(&text));
    }
    out
}

/// A file's code: comments and literals blanked, test code (from the
/// first `#[cfg(test)]` on) left out.
fn code_of(text: &str) -> String {
    let code = code_only(text);
    let end = code.find("#[cfg(test)]").unwrap_or(code.len());
    code[..end].to_string()
}

/// The paths a text names from `crate::`, `super::` or `self::`.
fn paths_in(code: &str) -> Vec<Vec<String>> {
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    for start in ["crate::", "super::", "self::"] {
        for (i, _) in code.match_indices(start) {
            let word_start = i == 0
                || !(bytes[i - 1].is_ascii_alphanumeric()
                    || bytes[i - 1] == b'_'
                    || bytes[i - 1] == b':');
            if !word_start {
                continue;
            }
            out.extend(expand(&code[i..]));
        }
    }
    out
}

/// The paths of a use tree at the start of `text`: `a::b::{c, d::e}`.
fn expand(text: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    parse_tree(text.trim_start(), Vec::new(), &mut out);
    out
}

/// Parses one use tree under `prefix`; returns the text after it.
fn parse_tree<'t>(
    mut text: &'t str,
    mut prefix: Vec<String>,
    out: &mut Vec<Vec<String>>,
) -> &'t str {
    loop {
        text = text.trim_start();
        if let Some(inner) = text.strip_prefix('{') {
            let mut rest = inner;
            loop {
                rest = parse_tree(rest, prefix.clone(), out).trim_start();
                match rest.strip_prefix(',') {
                    Some(r) => rest = r,
                    None => break,
                }
                if let Some(r) = rest.trim_start().strip_prefix('}') {
                    return r;
                }
            }
            return rest.strip_prefix('}').unwrap_or(rest);
        }
        let len = text
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(text.len());
        if len == 0 {
            if !prefix.is_empty() {
                out.push(prefix);
            }
            return text;
        }
        prefix.push(text[..len].to_string());
        text = &text[len..];
        match text.strip_prefix("::") {
            Some(rest) => text = rest,
            None => {
                out.push(prefix);
                return text;
            }
        }
    }
}

/// The sibling edges at each level: `a → b` where a module under `a`
/// names one under its sibling `b`.
fn sibling_edges(
    refs: &BTreeSet<(ModPath, ModPath)>,
) -> BTreeMap<ModPath, BTreeSet<(String, String)>> {
    let mut out: BTreeMap<ModPath, BTreeSet<(String, String)>> = BTreeMap::new();
    for (from, to) in refs {
        let common = from.iter().zip(to).take_while(|(a, b)| a == b).count();
        if common < from.len() && common < to.len() {
            out.entry(from[..common].to_vec())
                .or_default()
                .insert((from[common].clone(), to[common].clone()));
        }
    }
    out
}

/// A cycle among `edges`, as `a → b → a`, if there is one.
fn find_cycle(edges: &BTreeSet<(String, String)>) -> Option<Vec<String>> {
    let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (a, b) in edges {
        next.entry(a).or_default().push(b);
    }
    fn visit<'a>(
        node: &'a str,
        next: &BTreeMap<&'a str, Vec<&'a str>>,
        stack: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
    ) -> Option<Vec<String>> {
        if let Some(at) = stack.iter().position(|n| *n == node) {
            let mut cycle: Vec<String> = stack[at..].iter().map(|s| s.to_string()).collect();
            cycle.push(node.to_string());
            return Some(cycle);
        }
        if !done.insert(node) {
            return None;
        }
        stack.push(node);
        for n in next.get(node).into_iter().flatten() {
            if let Some(c) = visit(n, next, stack, done) {
                return Some(c);
            }
        }
        stack.pop();
        None
    }
    let mut done = BTreeSet::new();
    for start in next.keys() {
        if let Some(c) = visit(start, &next, &mut Vec::new(), &mut done) {
            return Some(c);
        }
    }
    None
}

/// Every problem of the crate at `src`: cycles, and top-level imports
/// that point up the `order`.
fn problems(src: &Path, order: &[&str]) -> Vec<String> {
    let krate = Crate::read(src);
    let edges = sibling_edges(&krate.references());
    let mut out = Vec::new();
    for (parent, pairs) in &edges {
        if let Some(cycle) = find_cycle(pairs) {
            let at = match parent.is_empty() {
                true => String::new(),
                false => format!("{}/", parent.join("/")),
            };
            let named: Vec<String> = cycle.iter().map(|m| format!("{at}{m}")).collect();
            out.push(format!(
                "{}: import cycle {}",
                src.display(),
                named.join(" → ")
            ));
        }
    }
    let rank = |m: &str| order.iter().position(|o| *o == m);
    for (a, b) in edges.get(&Vec::new()).into_iter().flatten() {
        match (rank(a), rank(b)) {
            (Some(x), Some(y)) if x > y => out.push(format!(
                "{}: {a} imports {b}, a layer above it (the order is {order:?})",
                src.display()
            )),
            (None, _) => out.push(format!(
                "{}: module {a} is not in the layer order",
                src.display()
            )),
            (_, None) => out.push(format!(
                "{}: module {b} is not in the layer order",
                src.display()
            )),
            _ => {}
        }
    }
    out
}

#[test]
fn no_module_imports_one_above_it_or_in_a_cycle() {
    let all: Vec<String> = CRATES
        .iter()
        .flat_map(|(src, order)| problems(&workspace().join(src), order))
        .collect();
    assert_clean(&all);
}

/// The check itself fails when a cycle, or an import up the layers, is
/// put back: a crate with `a ↔ b` inside `store/`, and `low` naming `high`.
#[test]
fn a_cycle_or_an_upward_import_is_found() -> TestResult {
    let tree = scratch_tree(&[
        ("lib.rs", "pub mod high;\npub mod low;\npub mod store;\n"),
        ("high.rs", "use crate::low::f;\n"),
        ("low.rs", "pub fn f() { crate::high::g() }\n"),
        (
            "store/mod.rs",
            "mod audit;\nmod pending;\npub use pending::Pending;\n",
        ),
        ("store/audit.rs", "use super::Pending;\n"),
        (
            "store/pending.rs",
            "use super::{audit::{self, Record}, x};\n#[cfg(test)]\nuse crate::high;\n",
        ),
        // Neither a comment nor a message is an import.
        (
            "store/note.rs",
            "// crate::high\nconst S: &str = \"crate::high\";\n",
        ),
    ])?;
    let found = problems(tree.path(), &["high", "low", "store"]);
    assert_reports(
        &found,
        &[
            "import cycle store/audit → store/pending → store/audit",
            "import cycle high → low → high",
            "low imports high, a layer above it",
        ],
    );
    Ok(())
}

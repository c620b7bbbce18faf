//! No import cycle among the modules of `src/git` (issue 10 item 3): every
//! reference from one to another counts (`use super::x`, `super::{x, y}`,
//! `super::x::f`, `crate::git::x`, and items re-exported by `git/mod.rs`,
//! resolved to the module defining them). Test code is left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Module name → its source (a folder module's files together).
fn modules(root: &Path) -> BTreeMap<String, String> {
    // Tests may use anything; only the code itself counts.
    let code = |path: &Path| {
        let text = std::fs::read_to_string(path).unwrap();
        text.split("#[cfg(test)]")
            .next()
            .unwrap_or_default()
            .to_string()
    };
    let mut out: BTreeMap<String, String> = BTreeMap::new();
    for entry in std::fs::read_dir(root).unwrap().flatten() {
        let path = entry.path();
        let (name, text) = if path.is_dir() {
            let mut text = String::new();
            for f in std::fs::read_dir(&path).unwrap().flatten() {
                text += &code(&f.path());
            }
            (entry.file_name().to_string_lossy().to_string(), text)
        } else {
            let stem = path.file_stem().unwrap().to_string_lossy().to_string();
            (stem, code(&path))
        };
        if name != "mod" && name != "import_cycles_test" {
            out.entry(name).or_default().push_str(&text);
        }
    }
    out
}

/// The names a text refers to after `super::` or `crate::git::`.
fn referenced(text: &str) -> BTreeSet<String> {
    let code: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut names = BTreeSet::new();
    for prefix in ["super::", "crate::git::"] {
        for (i, _) in code.match_indices(prefix) {
            let rest = &code[i + prefix.len()..];
            let group = match rest.strip_prefix('{') {
                Some(inner) => &inner[..inner.find('}').unwrap_or(inner.len())],
                None => rest,
            };
            for part in group.split(',') {
                let name: String = part
                    .trim()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                names.insert(name);
                if !rest.starts_with('{') {
                    break;
                }
            }
        }
    }
    names
}

#[test]
fn the_git_modules_import_each_other_without_a_cycle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/git");
    let mods = modules(&root);
    // `pub use x::{a, b}` in mod.rs: a and b live in x.
    let mod_rs = std::fs::read_to_string(root.join("mod.rs")).unwrap();
    let mut home: BTreeMap<String, String> = BTreeMap::new();
    for line in mod_rs.lines().filter(|l| l.starts_with("pub use ")) {
        let rest = line.trim_start_matches("pub use ").trim_end_matches(';');
        if let Some((module, items)) = rest.split_once("::") {
            for item in items.trim_matches(|c| c == '{' || c == '}').split(',') {
                home.insert(item.trim().to_string(), module.to_string());
            }
        }
    }
    let graph: BTreeMap<&str, BTreeSet<&str>> = mods
        .iter()
        .map(|(name, text)| {
            let edges = referenced(text)
                .into_iter()
                .filter_map(|n| home.get(&n).cloned().or(Some(n)))
                .filter_map(|n| mods.get_key_value(&n).map(|(k, _)| k.as_str()))
                .filter(|n| n != name)
                .collect();
            (name.as_str(), edges)
        })
        .collect();
    assert!(graph["index_write"].contains("handle"), "{graph:?}");
    // Depth-first search for a back edge.
    fn visit<'a>(
        node: &'a str,
        graph: &BTreeMap<&'a str, BTreeSet<&'a str>>,
        stack: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
    ) {
        if done.contains(node) {
            return;
        }
        if let Some(at) = stack.iter().position(|n| *n == node) {
            panic!("import cycle in src/git: {:?} -> {node}", &stack[at..]);
        }
        stack.push(node);
        for next in &graph[node] {
            visit(next, graph, stack, done);
        }
        stack.pop();
        done.insert(node);
    }
    let mut done = BTreeSet::new();
    for node in graph.keys() {
        visit(node, &graph, &mut Vec::new(), &mut done);
    }
}

#!/usr/bin/env python3
"""Import cycles among the modules of src/git (issue #10 item 3).

Every reference from one module of src/git to another counts: `use
super::x`, `use super::{x, y::z}`, `super::x::f`, `crate::git::x`. Items
re-exported by src/git/mod.rs (`crate::git::head`, `super::workdir`) are
resolved to the module that defines them. Prints each cycle; exits 1 if
there is one.
"""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent / "src" / "git"
modules = {}
for p in root.rglob("*.rs"):
    rel = p.relative_to(root)
    if rel.name == "mod.rs":
        name = str(rel.parent) if str(rel.parent) != "." else "mod"
    else:
        name = str(rel.with_suffix(""))
    top = name.split("/")[0]
    if top == "mod":
        continue
    modules.setdefault(top, "")
    modules[top] += p.read_text()

mod_rs = (root / "mod.rs").read_text()
# `pub use x::{a, b}` / `pub use x::a` in mod.rs: item -> module
reexport = {}
for m, items in re.findall(r"pub use (\w+)::\{([^}]*)\}", mod_rs):
    for item in re.split(r"[,\s]+", items):
        if item:
            reexport[item] = m
for m, item in re.findall(r"pub use (\w+)::(\w+);", mod_rs):
    reexport[item] = m


def strip_comments(text):
    return "\n".join(
        line for line in text.splitlines() if not line.lstrip().startswith("//")
    )


def targets(name, text):
    text = strip_comments(text)
    # In a submodule's own folder (config/), `super::` is its parent module.
    found = set()
    for path in re.findall(r"(?:crate::git::|super::)\{([^}]*)\}", text):
        for part in re.split(r",\s*", path):
            found.add(part.strip().split("::")[0])
    for first in re.findall(r"(?:crate::git::|\buse super::|[^:\w]super::)(\w+)", text):
        found.add(first)
    out = set()
    for f in found:
        f = f.strip()
        if f in modules and f != name:
            out.add(f)
        elif f in reexport and reexport[f] != name:
            out.add(reexport[f])
    return out


graph = {m: targets(m, t) for m, t in modules.items()}
# config/*.rs refer to each other with super::; only edges between top-level
# modules matter here, and config's own `super::` means config.
cycles = []
def visit(node, stack, seen):
    for nxt in sorted(graph[node]):
        if nxt in stack:
            cyc = stack[stack.index(nxt):] + [nxt]
            key = tuple(sorted(set(cyc)))
            if key not in seen:
                seen.add(key)
                cycles.append(cyc)
        else:
            visit(nxt, stack + [nxt], seen)
seen = set()
for m in sorted(graph):
    visit(m, [m], seen)
if "-v" in sys.argv:
    for m in sorted(graph):
        print(f"{m} -> {', '.join(sorted(graph[m]))}")
for c in cycles:
    print("cycle: " + " -> ".join(c))
sys.exit(1 if cycles else 0)

//! Precise-edit speed (#13): word segments of 5,000 changed lines (the
//! review page's budget: 100 ms), a cell edit in a 500-cell notebook
//! (milliseconds), an exact replace in a 20,000-line file.

use std::collections::BTreeMap;
use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use git_evolv::diff::word;
use git_evolv::edit::engine::{self, BaseEntry};
use git_evolv::edit::list::EditList;

fn notebook(cells: usize) -> String {
    let mut items = Vec::new();
    for i in 0..cells {
        items.push(format!(
            "  {{\n   \"cell_type\": \"code\",\n   \"execution_count\": {i},\n   \"id\": \"c{i:07}\",\n   \"metadata\": {{}},\n   \"outputs\": [\n    {{\n     \"name\": \"stdout\",\n     \"output_type\": \"stream\",\n     \"text\": [\n      \"{i}\\n\"\n     ]\n    }}\n   ],\n   \"source\": [\n    \"x = {i}\\n\",\n    \"print(x)\"\n   ]\n  }}"
        ));
    }
    format!(
        "{{\n \"cells\": [\n{}\n ],\n \"metadata\": {{}},\n \"nbformat\": 4,\n \"nbformat_minor\": 5\n}}\n",
        items.join(",\n")
    )
}

fn base(path: &str, content: Vec<u8>) -> BTreeMap<String, BaseEntry> {
    [(
        path.to_string(),
        BaseEntry::File {
            content,
            mode: 0o100644,
            blob: "0".into(),
        },
    )]
    .into()
}

fn edit_benches(c: &mut Criterion) {
    let pairs: Vec<(String, String)> = (0..5000)
        .map(|i| {
            (
                format!("    let value_{i} = compute(alpha, beta, {i}); // old comment here"),
                format!("    let value_{i} = compute(alpha, gamma, {i}); // new comment here"),
            )
        })
        .collect();
    c.bench_function("word_segments_5000_lines", |b| {
        b.iter(|| {
            for (o, n) in &pairs {
                black_box(word::segments(o, n));
            }
        })
    });

    let nb = base("n.ipynb", notebook(500).into_bytes());
    let list = EditList::from_json(
        r#"{"edits": [{"op": "notebook", "path": "n.ipynb", "mode": "replace", "cell": 250, "source": "y = 1"}]}"#,
    )
    .expect("parses");
    c.bench_function("notebook_replace_cell_of_500", |b| {
        b.iter(|| engine::run(black_box(&list), &nb, &mut || "id".to_string()))
    });

    let text: String = (0..20_000)
        .map(|i| format!("line {i} of the file\n"))
        .collect();
    let big = base("big.txt", text.into_bytes());
    let list = EditList::from_json(
        r#"{"edits": [{"op": "replace", "path": "big.txt", "old": "line 12345 of", "new": "LINE"}]}"#,
    )
    .expect("parses");
    c.bench_function("exact_replace_20000_lines", |b| {
        b.iter(|| engine::run(black_box(&list), &big, &mut || "id".to_string()))
    });
}

criterion_group!(benches, edit_benches);
criterion_main!(benches);

//! Precise-edit speed (#13): word segments of 5,000 changed lines (the
//! review page's budget: 100 ms), a cell edit in a 500-cell notebook
//! (milliseconds), an exact replace in a 20,000-line file, and (#13 item 9)
//! proposing a single-file exact replace through `ops::proposing::edit` in a
//! 1,000-file and a 100,000-file repository: the same work, so at most
//! 1.3x apart, and under 50 ms.

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
    [(path.to_string(), BaseEntry::regular(&content, "0"))].into()
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

/// A repository of `n` small files in the layout of scripts/gen_repo.py
/// (`src/dNNN/eNN/fNNNNNN.go`), written by `git fast-import`.
fn repo_of(n: usize) -> (tempfile::TempDir, git_evolv::git::Repo) {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let dir = tempfile::tempdir().expect("temp dir");
    let git = |args: &[&str]| {
        let ok = Command::new("git")
            .args(args)
            .current_dir(dir.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .status()
            .expect("git runs")
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q", "-b", "main"]);
    let mut stream = Vec::new();
    for i in 0..n {
        let body = format!(
            "// module {i}\npackage m{}\n\nfunc f{i}() int {{ return {i} }}\n",
            i / 1000
        );
        write!(
            stream,
            "blob\nmark :{}\ndata {}\n{body}\n",
            i + 1,
            body.len()
        )
        .unwrap();
    }
    stream.extend_from_slice(
        b"commit refs/heads/main\ncommitter Bench <b@e> 1700000000 +0000\ndata 9\ngenerated\n",
    );
    for i in 0..n {
        writeln!(
            stream,
            "M 100644 :{} src/d{:03}/e{:02}/f{i:06}.go",
            i + 1,
            i / 1000,
            (i / 100) % 10
        )
        .unwrap();
    }
    let mut import = Command::new("git")
        .args(["fast-import", "--quiet"])
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .spawn()
        .expect("git fast-import runs");
    import.stdin.take().unwrap().write_all(&stream).unwrap();
    assert!(import.wait().unwrap().success(), "fast-import");
    git(&["checkout", "-q", "-f", "main"]);
    git(&["gc", "-q"]);
    git(&["config", "user.name", "Bench"]);
    git(&["config", "user.email", "bench@example.com"]);
    let repo = git_evolv::git::open(dir.path()).expect("opens");
    (dir, repo)
}

fn repository_size_benches(c: &mut Criterion) {
    let list = EditList::from_json(
        r#"{"edits": [{"op": "replace", "path": "src/d000/e00/f000000.go", "old": "return 0 }", "new": "return 1 }"}]}"#,
    )
    .expect("parses");
    let mut group = c.benchmark_group("propose_single_file_exact_replace");
    group.sample_size(30);
    for n in [1_000, 100_000] {
        let (_dir, repo) = repo_of(n);
        let settings = git_evolv::ops::Settings::new(repo.config().expect("reads config"));
        let ctx = git_evolv::context::Context::new("cli");
        group.bench_function(format!("{n}_files"), |b| {
            b.iter(|| {
                git_evolv::ops::proposing::edit::edit(&repo, &settings, &ctx, black_box(&list))
                    .expect("proposes")
            })
        });
    }
    group.finish();
}

criterion_group!(benches, edit_benches, repository_size_benches);
criterion_main!(benches);

//! The review page's word-level segments, computed in Rust: 5,000 changed
//! line pairs numbered and word-diffed as `GET /api/proposals/{id}/file`
//! does (issue 12: within 100 ms), and a pathological pair (one huge
//! minified line) that the caps keep cheap.

use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use git_evolv::git::file_hunks;
use git_evolv::ops::reading::review::number;

fn text(lines: usize, word: &str) -> String {
    (0..lines)
        .map(|i| format!("    let value_{i} = compute({word}, {i}); // line {i}\n"))
        .collect()
}

fn benches(c: &mut Criterion) {
    let (old, new) = (text(5_000, "alpha"), text(5_000, "beta"));
    let structured = file_hunks(old.as_bytes(), new.as_bytes()).unwrap();
    let mut g = c.benchmark_group("web");
    g.sample_size(10);
    // The clone of the input (10,000 lines) is set-up, not measured.
    g.bench_function("word_segments_5000_line_pairs", |b| {
        b.iter_batched(
            || structured.clone(),
            |s| number(black_box(s)),
            BatchSize::LargeInput,
        )
    });
    let huge_old = format!("{}\n", "{\"k\":1,".repeat(50_000));
    let huge_new = format!("{}\n", "{\"k\":2,".repeat(50_000));
    let huge = file_hunks(huge_old.as_bytes(), huge_new.as_bytes()).unwrap();
    g.bench_function("word_segments_one_350kb_line", |b| {
        b.iter_batched(
            || huge.clone(),
            |s| number(black_box(s)),
            BatchSize::LargeInput,
        )
    });
    g.finish();
}

criterion_group!(web, benches);
criterion_main!(web);

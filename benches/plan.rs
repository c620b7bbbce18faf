//! ExecutionPlan speed: checking a plan (from a struct, and parsed from
//! JSON) and serialising one. Targets: under 10 µs and 5 µs.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use git_evolv::plan::{ExecutionPlan, RollbackStrategy};

const PLAN_JSON: &str = r#"{
  "dry_run": false,
  "validation": {"pre_conditions": ["cargo check"], "expected_outcomes": ["cargo test", "cargo clippy"]},
  "rollback": {"strategy": "git_revert", "commands": []},
  "limits": {"max_files": 20, "max_changes": 200, "timeout_seconds": 120},
  "batch": true
}"#;

fn plan_benches(c: &mut Criterion) {
    let plan = ExecutionPlan::from_json(PLAN_JSON).expect("the sample plan is valid");
    c.bench_function("plan_validate", |b| b.iter(|| black_box(&plan).validate()));
    c.bench_function("plan_parse_and_validate_json", |b| {
        b.iter(|| ExecutionPlan::from_json(black_box(PLAN_JSON)))
    });
    c.bench_function("plan_serialize_json", |b| {
        b.iter(|| serde_json::to_string(black_box(&plan)).expect("serialises"))
    });
    c.bench_function("plan_builder_build", |b| {
        b.iter(|| {
            ExecutionPlan::builder()
                .dry_run(black_box(false))
                .timeout_seconds(60)
                .rollback(RollbackStrategy::GitRevert)
                .build()
        })
    });
}

criterion_group!(benches, plan_benches);
criterion_main!(benches);

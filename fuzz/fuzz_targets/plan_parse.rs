//! The plan parser never panics, and whatever it accepts is a plan that
//! passes its own checks and survives a JSON round trip unchanged.
#![no_main]

use git_evolv::plan::ExecutionPlan;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match ExecutionPlan::from_json(text) {
        Ok(plan) => {
            assert!(plan.validate().is_ok(), "accepted but invalid: {text}");
            let json = serde_json::to_string(&plan).expect("plans serialise");
            let again = ExecutionPlan::from_json(&json).expect("a normalised plan parses");
            assert_eq!(plan, again);
        }
        Err(issues) => assert!(!issues.is_empty(), "rejected without a reason: {text}"),
    }
});

//! `tools/list` pinned whole: every tool's name, title, description,
//! annotation hints and input and output schemas, as a client sees them.
//! A change to any of them shows here as a snapshot diff to review.

use serde_json::json;

use super::common::TestRepo;
use super::mcp_client::Mcp;

#[test]
fn tools_list_is_pinned() {
    let repo = TestRepo::scenario();
    let mut mcp = Mcp::start(&repo);
    let list = mcp.request("tools/list", json!({}));
    let text = serde_json::to_string_pretty(&list["result"]).expect("JSON prints");
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("snapshots");
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| insta::assert_snapshot!("mcp_tools_list", text));
    mcp.finish();
}

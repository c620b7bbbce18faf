//! The replacement engine never panics on any pattern or content, and a
//! literal replacement of a string by itself changes nothing.
#![no_main]

use git_evolv::edit::{FileEdit, Replacer};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some(split) = data.iter().position(|&b| b == 0xff) else {
        return;
    };
    let (head, content) = (&data[..split], &data[split + 1..]);
    let pattern = String::from_utf8_lossy(head);
    if let Ok(replacer) = Replacer::new(&pattern, "x$1", false) {
        let _ = replacer.edit(content);
    }
    if !pattern.is_empty() {
        if let Ok(same) = Replacer::new(&pattern, &pattern, true) {
            if let FileEdit::Changed { content: out, .. } = same.edit(content) {
                assert_eq!(
                    out, content,
                    "replacing a literal by itself changed the file"
                );
            }
        }
    }
});

//! `git format-patch` mailboxes: messages that start with a
//! `From <commit id> <date>` line, each a commit's subject and message
//! followed by its diff.

/// One message: the commit message and its diff's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// The subject, without `[PATCH n/m]`, unfolded.
    pub subject: String,
    /// The body up to the `---` line before the diffstat.
    pub body: String,
    /// The diff: everything after the message.
    pub diff: Vec<u8>,
    /// The mailbox line the message starts on.
    pub line: usize,
}

/// `From <40 or 64 hex digits> ` — git's mbox separator.
pub fn is_separator(line: &[u8]) -> bool {
    let Some(rest) = line.strip_prefix(b"From ") else {
        return false;
    };
    let id = rest.iter().take_while(|b| b.is_ascii_hexdigit()).count();
    (id == 40 || id == 64) && rest.get(id) == Some(&b' ')
}

/// The messages of a mailbox, in order.
pub fn split(text: &[u8]) -> Vec<Message> {
    let lines: Vec<&[u8]> = text.split_inclusive(|&b| b == b'\n').collect();
    let starts: Vec<usize> = (0..lines.len())
        .filter(|&i| is_separator(lines[i]))
        .collect();
    starts
        .iter()
        .enumerate()
        .map(|(n, &start)| {
            let end = starts.get(n + 1).copied().unwrap_or(lines.len());
            message(&lines[start + 1..end], start + 1)
        })
        .collect()
}

fn message(lines: &[&[u8]], line: usize) -> Message {
    let text = |l: &[u8]| {
        String::from_utf8_lossy(l)
            .trim_end_matches(['\n', '\r'])
            .to_string()
    };
    let mut subject = String::new();
    let mut at = 0;
    // Headers, to the first empty line; `Subject:` may be folded.
    let mut in_subject = false;
    while at < lines.len() {
        let l = text(lines[at]);
        at += 1;
        if l.is_empty() {
            break;
        }
        if let Some(s) = l.strip_prefix("Subject: ") {
            subject = s.to_string();
            in_subject = true;
        } else if in_subject && l.starts_with([' ', '\t']) {
            subject.push(' ');
            subject.push_str(l.trim());
        } else {
            in_subject = false;
        }
    }
    let subject = without_patch_tag(&subject);
    let mut body = Vec::new();
    let mut diff_from = lines.len();
    for (i, l) in lines.iter().enumerate().skip(at) {
        let l = text(l);
        if l == "---" || l.starts_with("diff --git ") {
            diff_from = i;
            break;
        }
        body.push(l);
    }
    while body.last().is_some_and(String::is_empty) {
        body.pop();
    }
    Message {
        subject,
        body: body.join("\n"),
        diff: lines[diff_from..].concat(),
        line,
    }
}

/// `[PATCH 2/3] fix: x` → `fix: x` (and `[PATCH v2]`, `[RFC PATCH]`).
fn without_patch_tag(subject: &str) -> String {
    let s = subject.trim();
    match s.strip_prefix('[').and_then(|r| r.split_once(']')) {
        Some((tag, rest)) if tag.contains("PATCH") => rest.trim().to_string(),
        _ => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_series_splits_into_messages_with_their_subjects() {
        let mbox = b"From 1234567890123456789012345678901234567890 Mon Sep 17 00:00:00 2001\nFrom: A <a@x>\nSubject: [PATCH 1/2] feat: one\n that folds\n\nBody line.\n---\n f | 1 +\n\ndiff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+x\n-- \n2.47.3\n\nFrom 1234567890123456789012345678901234567891 Mon Sep 17 00:00:00 2001\nSubject: [PATCH 2/2] fix: two\n\n---\ndiff --git a/g b/g\n";
        let messages = split(mbox);
        assert_eq!(messages.len(), 2);
        assert_eq!(messages[0].subject, "feat: one that folds");
        assert_eq!(messages[0].body, "Body line.");
        assert!(messages[0].diff.starts_with(b"---\n f | 1 +"));
        assert_eq!(messages[1].subject, "fix: two");
    }
}

//! What `git push --porcelain` says about each ref, read back: the client
//! of a `refs/for/<branch>` landing queue learns the server's verdict from
//! git's own report (the proc-receive hook's `ok`/`ng` and its `option
//! refname`/`old-oid`/`new-oid`), so it needs no protocol of its own.
//!
//! The porcelain format (git's transport.c, `print_ref_status`): a line
//! `To <url>`, then one line per ref, `<flag>\t<from>:<to>\t<summary>`,
//! where the summary of a rejected ref ends in ` (<reason>)`, then `Done`.
//! Lines from the server's hooks go to stderr, prefixed `remote: `.

/// One ref of the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefLine {
    /// git's flag: ` ` fast-forward, `+` forced, `-` deleted, `*` new ref,
    /// `=` up to date, `!` rejected or failed.
    pub flag: char,
    /// The source as given (a commit id here).
    pub from: String,
    /// The ref the server reports: the pushed `refs/for/<b>`, or the ref
    /// the hook named (`refs/heads/<b>` when it landed, a proposal ref
    /// when it queued).
    pub to: String,
    /// `old..new` for a fast-forward, `[new reference]`, `[up to date]`,
    /// `[remote rejected]`, `[rejected]`.
    pub summary: String,
    /// The parenthesised reason of a rejected ref (`ng <ref> <reason>`).
    pub reason: Option<String>,
}

impl RefLine {
    /// Whether git counted this ref as refused.
    pub fn refused(&self) -> bool {
        self.flag == '!'
    }

    /// `(old, new)` of an `old..new` or `old...new` summary.
    pub fn old_new(&self) -> Option<(&str, &str)> {
        let (old, new) = self
            .summary
            .split_once("...")
            .or_else(|| self.summary.split_once(".."))?;
        let hex = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_hexdigit());
        (hex(old) && hex(new)).then_some((old, new))
    }
}

/// The ref lines of `git push --porcelain`'s stdout; other lines (`To …`,
/// `Done`, anything unexpected) are skipped.
pub fn parse(stdout: &str) -> Vec<RefLine> {
    stdout.lines().filter_map(parse_line).collect()
}

fn parse_line(line: &str) -> Option<RefLine> {
    let mut fields = line.splitn(3, '\t');
    let flag_field = fields.next()?;
    let refs = fields.next()?;
    let summary = fields.next()?;
    let mut flag_chars = flag_field.chars();
    let flag = flag_chars.next()?;
    if flag_chars.next().is_some() || !" +-*=!".contains(flag) {
        return None;
    }
    let (from, to) = refs.split_once(':')?;
    let (summary, reason) = match summary.split_once(" (") {
        Some((s, rest)) if rest.ends_with(')') => (s, Some(rest[..rest.len() - 1].to_string())),
        _ => (summary, None),
    };
    Some(RefLine {
        flag,
        from: from.to_string(),
        to: to.to_string(),
        summary: summary.to_string(),
        reason,
    })
}

/// The server's own lines in git's stderr (`remote: …`), without the
/// prefix and the padding git adds to clear a progress line.
pub fn remote_lines(stderr: &str) -> Vec<String> {
    stderr
        .lines()
        .filter_map(|l| l.strip_prefix("remote:"))
        .map(|l| l.strip_prefix(' ').unwrap_or(l).trim_end().to_string())
        .collect()
}

/// git's own complaint in its stderr (`fatal: …`, `error: …`), the last
/// such line: why a push or fetch failed before any ref was reported.
pub fn git_complaint(stderr: &str) -> Option<String> {
    stderr
        .lines()
        .rfind(|l| l.starts_with("fatal: ") || l.starts_with("error: "))
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_landing_reports_the_branch_and_its_old_and_new_ids() {
        let out = "To ../srv.git\n \tabc123:refs/heads/main\t7bca04..72a6f9\nDone\n";
        let lines = parse(out);
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].to, "refs/heads/main");
        assert_eq!(lines[0].old_new(), Some(("7bca04", "72a6f9")));
        assert!(!lines[0].refused());
    }

    #[test]
    fn a_refusal_carries_the_reason_the_hook_gave() {
        let out = "To x\n!\tHEAD:refs/for/main\t[remote rejected] (conflict in a.txt (b))\nDone\n";
        let line = &parse(out)[0];
        assert!(line.refused());
        assert_eq!(line.summary, "[remote rejected]");
        assert_eq!(line.reason.as_deref(), Some("conflict in a.txt (b)"));
        assert_eq!(line.old_new(), None);
    }

    #[test]
    fn a_queued_push_names_the_proposal_ref() {
        let out = "*\tHEAD:refs/evolv/proposals/p_1\t[new reference]\n";
        let line = &parse(out)[0];
        assert_eq!(
            (line.flag, line.to.as_str()),
            ('*', "refs/evolv/proposals/p_1")
        );
    }

    #[test]
    fn other_lines_and_malformed_ones_are_skipped() {
        for junk in ["To x", "Done", "", "xx\ta:b\tc", "!\tnocolon\tz", "\t\t"] {
            assert!(parse(junk).is_empty(), "{junk:?}");
        }
    }

    #[test]
    fn remote_lines_lose_the_prefix_and_the_padding() {
        let err = "remote: conflict: a.txt        \nremote:\nTo x\nerror: failed to push\n";
        assert_eq!(remote_lines(err), vec!["conflict: a.txt", ""]);
        assert_eq!(git_complaint(err).as_deref(), Some("error: failed to push"));
    }
}

//! The one URI scheme of git-evolv's resources, `evolv://`, parsed and
//! written in one place (listing, reading, subscriptions and completion
//! all go through [`Uri`]).

/// The scheme's prefix.
pub const SCHEME: &str = "evolv://";

/// What a resource URI names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Uri {
    /// `evolv://proposals`: every proposal with its status.
    Proposals,
    /// `evolv://proposals/{patch_id}`: one proposal's summary.
    Proposal(String),
    /// `evolv://proposals/{patch_id}/diff{?page}`: its diff, one page.
    Diff(String, usize),
    /// `evolv://proposals/{patch_id}/stack`.
    Stack(String),
    /// `evolv://proposals/{patch_id}/verdicts`.
    Verdicts(String),
    /// `evolv://proposals/{patch_id}/comments`.
    Comments(String),
    /// `evolv://ops`: the op log, newest first.
    Ops,
    /// `evolv://ops/{op}`: one operation (its id or a unique prefix).
    Op(String),
    /// `evolv://verdicts`: the cached verdict of every proposal.
    AllVerdicts,
}

/// The templates `resources/templates/list` gives, with the argument each
/// completes: (template, name, title, description, MIME type).
pub const TEMPLATES: &[(&str, &str, &str, &str, &str)] = &[
    (
        "evolv://proposals/{patch_id}",
        "proposal",
        "A proposal",
        "One proposal's summary and status (no diff), as `git evolv show --json` without `unified_diff`.",
        "application/json",
    ),
    (
        "evolv://proposals/{patch_id}/diff{?page}",
        "proposal-diff",
        "A proposal's diff",
        "The proposal's unified diff in pages of at most 64 KiB cut at line ends; `_meta` names the page, the page count and the next page's URI.",
        "text/x-diff",
    ),
    (
        "evolv://proposals/{patch_id}/stack",
        "proposal-stack",
        "A proposal's stack",
        "The pending stack the proposal tops (bottom first) and the proposals stacked on it.",
        "application/json",
    ),
    (
        "evolv://proposals/{patch_id}/verdicts",
        "proposal-verdicts",
        "A proposal's verdicts",
        "The cached verdict of evolv.validate on the proposal's tree and the validators that ran when it was proposed.",
        "application/json",
    ),
    (
        "evolv://proposals/{patch_id}/comments",
        "proposal-comments",
        "A proposal's comments",
        "The review comments on the proposal, oldest first.",
        "application/json",
    ),
    (
        "evolv://ops/{op}",
        "operation",
        "An operation",
        "One operation of the op log, by its id or a unique prefix, as `git evolv op show --json`.",
        "application/json",
    ),
];

impl Uri {
    /// Parses a URI of the scheme; `None` when it names nothing we serve.
    pub fn parse(text: &str) -> Option<Uri> {
        let rest = text.strip_prefix(SCHEME)?;
        let (path, query) = match rest.split_once('?') {
            Some((p, q)) => (p, Some(q)),
            None => (rest, None),
        };
        let parts: Vec<&str> = path.split('/').collect();
        // Ids and op prefixes are plain names: no `-` or `.` first, nothing
        // a ref name or a path could read differently.
        let id = |s: &str| {
            let plain = !s.is_empty()
                && !s.starts_with(['-', '.'])
                && s.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.');
            plain.then(|| s.to_string())
        };
        let uri = match parts.as_slice() {
            ["proposals"] => Uri::Proposals,
            ["ops"] => Uri::Ops,
            ["verdicts"] => Uri::AllVerdicts,
            ["ops", op] if !op.is_empty() => Uri::Op(id(op)?),
            ["proposals", p] if !p.is_empty() => Uri::Proposal(id(p)?),
            ["proposals", p, "diff"] => Uri::Diff(id(p)?, page(query)?),
            ["proposals", p, "stack"] => Uri::Stack(id(p)?),
            ["proposals", p, "verdicts"] => Uri::Verdicts(id(p)?),
            ["proposals", p, "comments"] => Uri::Comments(id(p)?),
            _ => return None,
        };
        // Only the diff takes a query.
        if query.is_some() && !matches!(uri, Uri::Diff(..)) {
            return None;
        }
        Some(uri)
    }

    /// The URI as text (the first page of a diff has no query).
    pub fn text(&self) -> String {
        match self {
            Uri::Proposals => format!("{SCHEME}proposals"),
            Uri::Proposal(p) => format!("{SCHEME}proposals/{p}"),
            Uri::Diff(p, 1) => format!("{SCHEME}proposals/{p}/diff"),
            Uri::Diff(p, n) => format!("{SCHEME}proposals/{p}/diff?page={n}"),
            Uri::Stack(p) => format!("{SCHEME}proposals/{p}/stack"),
            Uri::Verdicts(p) => format!("{SCHEME}proposals/{p}/verdicts"),
            Uri::Comments(p) => format!("{SCHEME}proposals/{p}/comments"),
            Uri::Ops => format!("{SCHEME}ops"),
            Uri::Op(o) => format!("{SCHEME}ops/{o}"),
            Uri::AllVerdicts => format!("{SCHEME}verdicts"),
        }
    }

    /// The proposal the URI is about, if any.
    pub fn patch_id(&self) -> Option<&str> {
        match self {
            Uri::Proposal(p)
            | Uri::Diff(p, _)
            | Uri::Stack(p)
            | Uri::Verdicts(p)
            | Uri::Comments(p) => Some(p),
            _ => None,
        }
    }
}

/// `page=N` (N ≥ 1), or page 1 without a query.
fn page(query: Option<&str>) -> Option<usize> {
    let Some(query) = query else { return Some(1) };
    let n: usize = query.strip_prefix("page=")?.parse().ok()?;
    (n >= 1).then_some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_round_trip_and_strangers_are_refused() {
        for text in [
            "evolv://proposals",
            "evolv://proposals/patch_1_a",
            "evolv://proposals/patch_1_a/diff",
            "evolv://proposals/patch_1_a/diff?page=3",
            "evolv://proposals/patch_1_a/stack",
            "evolv://proposals/patch_1_a/verdicts",
            "evolv://proposals/patch_1_a/comments",
            "evolv://ops",
            "evolv://ops/3fa9c1",
            "evolv://verdicts",
        ] {
            assert_eq!(Uri::parse(text).unwrap().text(), text);
        }
        assert_eq!(
            Uri::parse("evolv://proposals/p/diff?page=1")
                .unwrap()
                .text(),
            "evolv://proposals/p/diff"
        );
        for bad in [
            "file:///etc/passwd",
            "evolv://proposals/-x",
            "evolv://proposals/../x",
            "evolv://proposals/p/diff?page=0",
            "evolv://proposals/p?page=2",
            "evolv://proposals/p/other",
            "evolv://ops/",
        ] {
            assert_eq!(Uri::parse(bad), None, "{bad}");
        }
    }
}

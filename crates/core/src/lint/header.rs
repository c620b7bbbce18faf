//! The header line `type(scope)!: description`, read exactly as commitlint's
//! config-conventional reads it (`^(\w*)(?:\((.*)\))?!?: (.*)$`, the `!:`
//! form first), so the verdicts agree. `git-conventional` is not used for
//! the header: it accepts `feat:add x` and `PROJ-123: x`.

/// The parts of a header that matched the pattern. Offsets are byte
/// offsets into the header line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header<'a> {
    /// May be empty (`: x` matches with an empty type).
    pub ty: &'a str,
    pub scope: Option<&'a str>,
    pub breaking: bool,
    /// May be empty (`feat: `).
    pub subject: &'a str,
    pub scope_at: usize,
    pub subject_at: usize,
}

/// Parses a header; `None` when it is not `type(scope)!: description` at all.
pub fn parse(line: &str) -> Option<Header<'_>> {
    let ty_end = line
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(line.len());
    let ty = &line[..ty_end];
    let rest = &line[ty_end..];
    // commitlint tries the breaking pattern (`!:` required) first; within a
    // pattern the scope group is greedy, so the last `)` that works wins.
    for require_bang in [true, false] {
        if let Some(inner) = rest.strip_prefix('(') {
            for (close, _) in inner.rmatch_indices(')') {
                if let Some((breaking, subject)) = tail(&inner[close + 1..], require_bang) {
                    return Some(Header {
                        ty,
                        scope: Some(&inner[..close]),
                        breaking,
                        subject,
                        scope_at: ty_end + 1,
                        subject_at: line.len() - subject.len(),
                    });
                }
            }
        }
        if let Some((breaking, subject)) = tail(rest, require_bang) {
            return Some(Header {
                ty,
                scope: None,
                breaking,
                subject,
                scope_at: ty_end,
                subject_at: line.len() - subject.len(),
            });
        }
    }
    None
}

fn tail(s: &str, require_bang: bool) -> Option<(bool, &str)> {
    if let Some(subject) = s.strip_prefix("!: ") {
        return Some((true, subject));
    }
    if require_bang {
        return None;
    }
    s.strip_prefix(": ").map(|subject| (false, subject))
}

/// Length as commitlint (JavaScript) counts it: UTF-16 code units.
pub fn js_len(s: &str) -> usize {
    s.encode_utf16().count()
}

/// 1-based column (in characters) of byte offset `at` in `line`.
pub fn column(line: &str, at: usize) -> usize {
    line[..at.min(line.len())].chars().count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(line: &str) -> Option<(&str, Option<&str>, bool, &str)> {
        parse(line).map(|h| (h.ty, h.scope, h.breaking, h.subject))
    }

    #[test]
    fn reads_type_scope_bang_and_subject() {
        assert_eq!(parts("feat: add x"), Some(("feat", None, false, "add x")));
        assert_eq!(
            parts("fix(api)!: drop v1"),
            Some(("fix", Some("api"), true, "drop v1"))
        );
        assert_eq!(parts("feat!: y"), Some(("feat", None, true, "y")));
        assert_eq!(parts("feat(): y"), Some(("feat", Some(""), false, "y")));
        assert_eq!(parts(": y"), Some(("", None, false, "y")));
        assert_eq!(parts("feat: "), Some(("feat", None, false, "")));
    }

    #[test]
    fn the_scope_is_greedy_like_the_regex() {
        assert_eq!(
            parts("feat(a): b (c): d"),
            Some(("feat", Some("a): b (c"), false, "d"))
        );
        assert_eq!(
            parts("feat(a)(b): x"),
            Some(("feat", Some("a)(b"), false, "x"))
        );
    }

    #[test]
    fn rejects_what_commitlint_rejects() {
        for bad in [
            "feat:add x",
            "PROJ-123: x",
            "add login",
            "feat (api): x",
            "feat : x",
            " feat: x",
            "net/http: fix",
            "feat(api) x",
            "feat:",
        ] {
            assert_eq!(parts(bad), None, "{bad}");
        }
    }

    #[test]
    fn lengths_count_utf16_units_like_javascript() {
        assert_eq!(js_len("abc"), 3);
        assert_eq!(js_len("é"), 1);
        assert_eq!(js_len("😀"), 2);
        assert_eq!(column("aé b", 4), 4);
    }
}

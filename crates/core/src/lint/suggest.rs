//! Deriving fixes: the type the author probably meant, a header rebuilt in
//! `type(scope): description` form, a subject in lower case.

/// Common words for a type that are not one (`feature` → `feat`).
const ALIASES: [(&str, &str); 15] = [
    ("feature", "feat"),
    ("features", "feat"),
    ("bugfix", "fix"),
    ("hotfix", "fix"),
    ("bug", "fix"),
    ("fixes", "fix"),
    ("fixed", "fix"),
    ("doc", "docs"),
    ("documentation", "docs"),
    ("tests", "test"),
    ("testing", "test"),
    ("refactoring", "refactor"),
    ("performance", "perf"),
    ("chores", "chore"),
    ("deps", "build"),
];

/// The allowed type closest to `word`: same letters in another case, a
/// known alias, or at most two edits away.
pub fn nearest_type(word: &str, types: &[String]) -> Option<String> {
    let lower = word.to_lowercase();
    if lower.is_empty() {
        return None;
    }
    if let Some(t) = types.iter().find(|t| **t == lower) {
        return Some(t.clone());
    }
    if let Some((_, t)) = ALIASES.iter().find(|(a, _)| *a == lower)
        && types.iter().any(|x| x == t)
    {
        return Some(t.to_string());
    }
    types
        .iter()
        .map(|t| (edit_distance(&lower, t), t))
        // One edit (a swap counts as one): `feet`, `fxi`, `refactr`. Two
        // edits turn ordinary words into types (`still` → `style`).
        .filter(|(d, _)| *d <= 1)
        .min_by_key(|(d, _)| *d)
        .map(|(_, t)| t.clone())
}

/// The subject with its first letter lowered, unless the first word is an
/// acronym (`README`, `CI`) that must stay as it is.
pub fn lower_first(subject: &str) -> Option<String> {
    let mut chars = subject.chars();
    let first = chars.next()?;
    if !first.is_uppercase() {
        return None;
    }
    let word: String = subject
        .chars()
        .take_while(|c| c.is_alphanumeric())
        .collect();
    if word.chars().count() > 1 && word.chars().all(|c| !c.is_lowercase()) {
        return None;
    }
    Some(first.to_lowercase().chain(chars).collect())
}

/// A header that does not parse, rebuilt in conventional form: a leading
/// type with the wrong punctuation (`fix:x`, `feat - x`, `Fix(api) x`) is
/// kept; otherwise `<type>` is a placeholder (`add login` →
/// `<type>: add login`, `PROJ-12: x` → `<type>(PROJ-12): x`).
pub fn rebuild_header(header: &str, types: &[String]) -> String {
    let header = header.trim();
    let word_end = header
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(header.len());
    let (word, mut rest) = header.split_at(word_end);
    if let Some(ty) = nearest_type(word, types) {
        let mut scope = "";
        if let Some(inner) = rest.strip_prefix('(')
            && let Some(close) = inner.find(')')
        {
            scope = &inner[..close];
            rest = &inner[close + 1..];
        }
        let bang = rest.starts_with('!');
        let rest = rest.trim_start_matches('!');
        let trimmed = rest.trim_start();
        let had_space = trimmed.len() < rest.len();
        let separated = trimmed
            .strip_prefix(':')
            .or_else(|| trimmed.strip_prefix('-'))
            .or_else(|| had_space.then_some(trimmed));
        // Without punctuation, a first word that is a type (or an alias)
        // is an ordinary sentence (`build fails on arm`): only a near-miss
        // spelling (`fxi login`) is taken for a type. See: issue #17, item 9.
        let punctuated =
            !scope.is_empty() || bang || trimmed.starts_with(':') || trimmed.starts_with('-');
        let ordinary_word = {
            let lower = word.to_lowercase();
            types.contains(&lower) || ALIASES.iter().any(|(a, _)| *a == lower)
        };
        if let Some(subject) = separated
            .filter(|_| punctuated || !ordinary_word)
            .map(str::trim_start)
        {
            let subject = if subject.is_empty() {
                "<description>".to_string()
            } else {
                lower_first(subject).unwrap_or_else(|| subject.to_string())
            };
            let scope = if scope.is_empty() {
                String::new()
            } else {
                format!("({scope})")
            };
            let bang = if bang { "!" } else { "" };
            return format!("{ty}{scope}{bang}: {subject}");
        }
    }
    if let Some((prefix, subject)) = header.split_once(':')
        && !prefix.is_empty()
        && !prefix.contains(char::is_whitespace)
        && !subject.trim().is_empty()
    {
        let subject = subject.trim_start();
        let subject = lower_first(subject).unwrap_or_else(|| subject.to_string());
        return format!("<type>({prefix}): {subject}");
    }
    let subject = lower_first(header).unwrap_or_else(|| header.to_string());
    format!("<type>: {subject}")
}

/// Edit distance over characters where swapping two neighbours counts
/// as one edit (`fxi` is one edit from `fix`).
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::config::DEFAULT_TYPES;

    fn types() -> Vec<String> {
        DEFAULT_TYPES.iter().map(|t| t.to_string()).collect()
    }

    #[test]
    fn nearest_type_handles_case_typos_and_aliases() {
        let t = types();
        assert_eq!(nearest_type("Feat", &t).as_deref(), Some("feat"));
        assert_eq!(nearest_type("feet", &t).as_deref(), Some("feat"));
        assert_eq!(nearest_type("fxi", &t).as_deref(), Some("fix"));
        assert_eq!(nearest_type("feature", &t).as_deref(), Some("feat"));
        assert_eq!(nearest_type("bugfix", &t).as_deref(), Some("fix"));
        assert_eq!(nearest_type("wip", &t), None);
        assert_eq!(nearest_type("update", &t), None);
        // See: issue #17, item 9.
        assert_eq!(nearest_type("still", &t), None);
    }

    /// Each header, rebuilt with the default types, reads as expected.
    fn assert_rebuilt(cases: &[(&str, &str)]) {
        let t = types();
        for (header, rebuilt) in cases {
            assert_eq!(rebuild_header(header, &t), *rebuilt, "{header}");
        }
    }

    #[test]
    fn ordinary_sentences_are_not_given_a_type() {
        // See: issue #17, item 9.
        assert_rebuilt(&[
            ("still broken on mac", "<type>: still broken on mac"),
            ("build fails on arm", "<type>: build fails on arm"),
            ("fxi login crash", "fix: login crash"),
            ("feet add login", "feat: add login"),
            ("build: bump x", "build: bump x"),
        ]);
    }

    #[test]
    fn rebuilds_headers() {
        assert_rebuilt(&[
            ("fix:x", "fix: x"),
            ("feat : add y", "feat: add y"),
            ("Fix(api) - Handle nil", "fix(api): handle nil"),
            ("feat(ui)!:drop ie", "feat(ui)!: drop ie"),
            ("add login", "<type>: add login"),
            ("Add login", "<type>: add login"),
            ("PROJ-123: Do x", "<type>(PROJ-123): do x"),
            ("net/http: fix", "<type>(net/http): fix"),
            ("feat:", "feat: <description>"),
            ("fix(api):", "fix(api): <description>"),
        ]);
    }

    #[test]
    fn acronyms_keep_their_case() {
        assert_eq!(lower_first("Add x").as_deref(), Some("add x"));
        assert_eq!(lower_first("README update"), None);
        assert_eq!(lower_first("add x"), None);
        assert_eq!(lower_first("A thing").as_deref(), Some("a thing"));
    }
}

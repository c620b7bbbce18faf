//! Push protection, pure: git's pre-push lines plus facts about the objects
//! (known locally? a fast-forward?) plus the configuration go in, one verdict
//! per pushed ref comes out. No I/O here: `ops::commits::pre_push` gathers the
//! facts.

use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::Serialize;

/// The branches protected when `evolv.protectedBranches` is unset.
pub const DEFAULT_PROTECTED: [&str; 2] = ["main", "master"];

/// One line git writes on a pre-push hook's stdin:
/// `<local ref> <local oid> <remote ref> <remote oid>`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PushLine {
    pub local_ref: String,
    pub local_oid: String,
    pub remote_ref: String,
    pub remote_oid: String,
}

impl PushLine {
    /// The push deletes the remote ref (`git push origin :main`, `--delete`).
    pub fn is_deletion(&self) -> bool {
        is_zero_oid(&self.local_oid)
    }

    /// The remote ref does not exist yet.
    pub fn creates(&self) -> bool {
        is_zero_oid(&self.remote_oid)
    }
}

/// An all-zero object id, SHA-1 (40 hex) or SHA-256 (64 hex).
pub fn is_zero_oid(oid: &str) -> bool {
    !oid.is_empty() && oid.bytes().all(|b| b == b'0')
}

fn is_hex_oid(oid: &str) -> bool {
    matches!(oid.len(), 40 | 64) && oid.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Parses git's pre-push stdin; blank lines are skipped. The error names
/// the line (1-based) that does not have the expected form.
pub fn parse_push_lines(text: &str) -> Result<Vec<PushLine>, String> {
    let mut lines = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [local_ref, local_oid, remote_ref, remote_oid] = fields[..] else {
            return Err(format!(
                "line {}: expected `<local ref> <local oid> <remote ref> <remote oid>`, got `{line}`",
                n + 1
            ));
        };
        if !is_hex_oid(local_oid) || !is_hex_oid(remote_oid) {
            return Err(format!(
                "line {}: `{line}` does not carry two 40- or 64-hex object ids",
                n + 1
            ));
        }
        lines.push(PushLine {
            local_ref: local_ref.to_string(),
            local_oid: local_oid.to_string(),
            remote_ref: remote_ref.to_string(),
            remote_oid: remote_oid.to_string(),
        });
    }
    Ok(lines)
}

/// What the repository knows about one push line; gathered by the caller.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct RefFacts {
    /// The remote's current object exists locally (zero ids count as known).
    pub remote_known: bool,
    /// The remote's commit is an ancestor of (or equal to) the pushed one,
    /// both peeled to commits. Meaningless when `remote_known` is false.
    pub fast_forward: bool,
    /// Commits the pushed object has that the remote ref lacks.
    pub ahead: Option<usize>,
    /// Commits the remote ref has that the pushed object lacks.
    pub behind: Option<usize>,
}

/// `evolv.pushToProtected`: what a plain push to a protected branch does
/// when nobody can be asked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PushToProtected {
    /// Refuse (the default).
    #[default]
    Deny,
    /// Let it through with a warning, without asking.
    Allow,
    /// Always ask; without a terminal that means refuse.
    Confirm,
}

impl PushToProtected {
    /// Parses a config value; `None` for anything but deny, allow, confirm.
    pub fn parse(value: &str) -> Option<Self> {
        match value.trim().to_ascii_lowercase().as_str() {
            "deny" => Some(Self::Deny),
            "allow" => Some(Self::Allow),
            "confirm" => Some(Self::Confirm),
            _ => None,
        }
    }
}

/// The configuration the policy reads.
#[derive(Debug, Clone)]
pub struct PushPolicy {
    protected: GlobSet,
    pub patterns: Vec<String>,
    pub push_to_protected: PushToProtected,
    /// `GIT_EVOLV_ALLOW_PUSH=1`: a one-off allow.
    pub allow_env: bool,
}

impl PushPolicy {
    /// Builds the policy from `evolv.protectedBranches` values (each may hold
    /// several globs separated by spaces, or commas outside braces); empty →
    /// the defaults.
    pub fn new(
        values: &[String],
        push_to_protected: PushToProtected,
        allow_env: bool,
    ) -> Result<Self, String> {
        let mut patterns: Vec<String> = values.iter().flat_map(|v| split_globs(v)).collect();
        if patterns.is_empty() {
            patterns = DEFAULT_PROTECTED.iter().map(|s| s.to_string()).collect();
        }
        let mut builder = GlobSetBuilder::new();
        for p in &patterns {
            let glob = Glob::new(p)
                .map_err(|e| format!("evolv.protectedBranches: invalid glob `{p}`: {e}"))?;
            builder.add(glob);
        }
        let protected = builder
            .build()
            .map_err(|e| format!("evolv.protectedBranches: {e}"))?;
        Ok(PushPolicy {
            protected,
            patterns,
            push_to_protected,
            allow_env,
        })
    }

    /// Whether a remote ref is protected: the globs are matched against the
    /// full ref and, for branches, the short name (`main`, `release/1.x`).
    ///
    /// The setting protects branches: a tag or any other ref is protected
    /// only by a glob that spells its full name (`refs/tags/v*`), so `*`
    /// does not block tag pushes (#16 item 18).
    pub fn is_protected(&self, remote_ref: &str) -> bool {
        match remote_ref.strip_prefix("refs/heads/") {
            Some(short) => self.protected.is_match(remote_ref) || self.protected.is_match(short),
            None => self.patterns.iter().any(|p| {
                p.starts_with("refs/")
                    && Glob::new(p).is_ok_and(|g| g.compile_matcher().is_match(remote_ref))
            }),
        }
    }
}

/// Splits one `evolv.protectedBranches` value into globs: at whitespace,
/// and at commas outside `{…}` (so `{main,prod}` stays one glob, as the
/// glob syntax means it). See: issue #17, item 8.
fn split_globs(value: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut depth = 0usize;
    for c in value.chars() {
        match c {
            '{' => {
                depth += 1;
                cur.push(c);
            }
            '}' => {
                depth = depth.saturating_sub(1);
                cur.push(c);
            }
            ',' if depth == 0 => out.push(std::mem::take(&mut cur)),
            c if c.is_whitespace() => out.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    out.push(cur);
    out.retain(|p| !p.is_empty());
    out
}

/// The decision for one pushed ref.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Verdict {
    /// Not protected, or let through by policy.
    Allowed,
    /// A protected branch: ask on the terminal (default No).
    Confirm,
    /// Blocked, with the reason and what to do instead.
    Refused { reason: String, suggestion: String },
}

/// A pushed ref with its verdict and notes.
#[derive(Debug, Clone, Serialize)]
pub struct RefVerdict {
    pub line: PushLine,
    pub protected: bool,
    #[serde(flatten)]
    pub verdict: Verdict,
    pub ahead: Option<usize>,
    pub behind: Option<usize>,
    /// Notes that do not block: "pull first", "allowed by policy".
    pub notes: Vec<String>,
}

/// Short name of a ref for messages.
pub fn short_ref(r: &str) -> &str {
    r.strip_prefix("refs/heads/")
        .or_else(|| r.strip_prefix("refs/tags/"))
        .unwrap_or(r)
}

/// Decides every line. `terminal` says whether someone can be asked.
pub fn evaluate(
    lines: &[PushLine],
    facts: &[RefFacts],
    policy: &PushPolicy,
    terminal: bool,
) -> Vec<RefVerdict> {
    lines
        .iter()
        .zip(facts)
        .map(|(line, facts)| decide(line, facts, policy, terminal))
        .collect()
}

fn decide(line: &PushLine, facts: &RefFacts, policy: &PushPolicy, terminal: bool) -> RefVerdict {
    let protected = policy.is_protected(&line.remote_ref);
    let name = short_ref(&line.remote_ref);
    let kind = if line.remote_ref.starts_with("refs/heads/") {
        "branch"
    } else {
        "ref"
    };
    let mut notes = behind_notes(line, facts, name);
    let verdict = if !protected || line.local_oid == line.remote_oid {
        // Unprotected, or a no-op: the remote ref does not change.
        Verdict::Allowed
    } else if let Some(refused) = loses_history(line, facts, kind, name) {
        refused
    } else {
        permission(policy, terminal, kind, name, &mut notes)
    };
    RefVerdict {
        line: line.clone(),
        protected,
        verdict,
        ahead: facts.ahead,
        behind: facts.behind,
        notes,
    }
}

/// A note when the remote ref has work this push does not build on.
fn behind_notes(line: &PushLine, facts: &RefFacts, name: &str) -> Vec<String> {
    let mut notes = Vec::new();
    if !line.is_deletion() && !line.creates() {
        if !facts.remote_known {
            notes.push(format!(
                "the remote's {name} contains work that you do not have locally (fetch first): `git pull --rebase`"
            ));
        } else if let Some(behind) = facts.behind.filter(|b| *b > 0) {
            notes.push(format!(
                "{behind} commit(s) behind the remote's {name}: pull first (`git pull --rebase`)"
            ));
        }
    }
    notes
}

/// The refusal of a push to a protected ref that would lose what the
/// remote has: deleting it, overwriting unseen work, or rewriting history.
fn loses_history(line: &PushLine, facts: &RefFacts, kind: &str, name: &str) -> Option<Verdict> {
    if line.is_deletion() {
        return Some(Verdict::Refused {
            reason: format!("deleting the protected {kind} {name}"),
            suggestion: "protected branches are not deleted from a workstation; ask a maintainer, or change evolv.protectedBranches".into(),
        });
    }
    if line.creates() {
        return None;
    }
    if !facts.remote_known {
        // git's words for it: the plain push is "rejected (fetch first)";
        // only a forced one would go through, and overwrite that work.
        // See: issue #17, item 7.
        return Some(Verdict::Refused {
            reason: format!(
                "the protected {kind} {name} on the remote ({}) contains work that you do not have locally (fetch first); git rejects a plain push, and a forced one would overwrite that work",
                abbrev(&line.remote_oid)
            ),
            suggestion: format!(
                "fetch and integrate first (`git pull --rebase`), then push again; or push to a feature branch and open a pull request into {name}"
            ),
        });
    }
    (!facts.fast_forward).then(|| Verdict::Refused {
        reason: format!(
            "force push to the protected {kind} {name}: it is not a fast-forward of the remote's {} and would rewrite its history",
            abbrev(&line.remote_oid)
        ),
        suggestion: format!(
            "open a pull request into {name}, or `git pull --rebase` and push again; on a feature branch use `git push --force-with-lease`"
        ),
    })
}

/// Whether a push that keeps the protected ref's history may go: allowed
/// by the environment or config, confirmed on a terminal, else refused.
fn permission(
    policy: &PushPolicy,
    terminal: bool,
    kind: &str,
    name: &str,
    notes: &mut Vec<String>,
) -> Verdict {
    if policy.allow_env {
        notes.push("allowed by GIT_EVOLV_ALLOW_PUSH=1".into());
        return Verdict::Allowed;
    }
    if policy.push_to_protected == PushToProtected::Allow {
        notes.push("allowed by evolv.pushToProtected=allow".into());
        return Verdict::Allowed;
    }
    if terminal {
        return Verdict::Confirm;
    }
    let why = match policy.push_to_protected {
        PushToProtected::Confirm => {
            "evolv.pushToProtected=confirm needs a terminal to ask on, and there is none"
        }
        _ => "there is no terminal to confirm on, and evolv.pushToProtected is deny (the default)",
    };
    Verdict::Refused {
        reason: format!("push to the protected {kind} {name}: {why}"),
        suggestion: "to allow this push, run `git -c evolv.pushToProtected=allow push …` or set GIT_EVOLV_ALLOW_PUSH=1; better, push a feature branch and open a pull request".into(),
    }
}

fn abbrev(oid: &str) -> &str {
    &oid[..oid.len().min(12)]
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "1111111111111111111111111111111111111111";
    const B: &str = "2222222222222222222222222222222222222222";
    const Z: &str = "0000000000000000000000000000000000000000";
    const Z256: &str = "0000000000000000000000000000000000000000000000000000000000000000";

    fn line(local: &str, remote_ref: &str, remote: &str) -> PushLine {
        PushLine {
            local_ref: "refs/heads/x".into(),
            local_oid: local.into(),
            remote_ref: remote_ref.into(),
            remote_oid: remote.into(),
        }
    }

    fn policy() -> PushPolicy {
        PushPolicy::new(&[], PushToProtected::Deny, false).unwrap()
    }

    fn ff() -> RefFacts {
        RefFacts {
            remote_known: true,
            fast_forward: true,
            ahead: Some(1),
            behind: Some(0),
        }
    }

    fn one(l: PushLine, f: RefFacts, p: &PushPolicy, terminal: bool) -> RefVerdict {
        evaluate(&[l], &[f], p, terminal).remove(0)
    }

    #[test]
    fn parses_sha1_and_sha256_lines_and_skips_blank_ones() {
        let text = format!(
            "refs/heads/a {A} refs/heads/a {Z}\n\nrefs/heads/b {Z256} refs/heads/b {Z256}\n"
        );
        let lines = parse_push_lines(&text).unwrap();
        assert_eq!(lines.len(), 2);
        assert!(lines[0].creates() && !lines[0].is_deletion());
        assert!(lines[1].is_deletion());
        assert!(parse_push_lines("").unwrap().is_empty());
        assert!(
            parse_push_lines("refs/heads/a abc")
                .unwrap_err()
                .contains("line 1")
        );
    }

    #[test]
    fn protected_matches_short_name_and_full_ref() {
        let p = PushPolicy::new(
            &["release/*, refs/heads/prod".into(), "trunk".into()],
            PushToProtected::Deny,
            false,
        )
        .unwrap();
        assert!(p.is_protected("refs/heads/release/1.0"));
        assert!(p.is_protected("refs/heads/prod"));
        assert!(p.is_protected("refs/heads/trunk"));
        assert!(!p.is_protected("refs/heads/main"));
        assert!(policy().is_protected("refs/heads/main"));
        assert!(policy().is_protected("refs/heads/master"));
        assert!(!policy().is_protected("refs/tags/main"));
        // See: issue 16 item 18: `*` protects branches, not tags.
        let all = PushPolicy::new(&["*".into()], PushToProtected::Deny, false).unwrap();
        assert!(all.is_protected("refs/heads/any/thing"));
        assert!(!all.is_protected("refs/tags/v1.0"));
        let tags = PushPolicy::new(&["refs/tags/v*".into()], PushToProtected::Deny, false).unwrap();
        assert!(tags.is_protected("refs/tags/v1.0"));
        assert!(PushPolicy::new(&["[".into()], PushToProtected::Deny, false).is_err());
        // Braces keep their commas (issue #17, item 8).
        let p = PushPolicy::new(&["{main,prod}".into()], PushToProtected::Deny, false).unwrap();
        assert!(p.is_protected("refs/heads/prod") && p.is_protected("refs/heads/main"));
        assert!(!p.is_protected("refs/heads/topic"));
        assert_eq!(p.patterns, ["{main,prod}"]);
    }

    #[test]
    fn deletion_of_a_protected_branch_is_refused_sha256_too() {
        for zero in [Z, Z256] {
            let v = one(line(zero, "refs/heads/main", A), ff(), &policy(), true);
            assert!(
                matches!(v.verdict, Verdict::Refused { ref reason, .. } if reason.contains("deleting"))
            );
        }
        let v = one(line(Z, "refs/heads/topic", A), ff(), &policy(), false);
        assert_eq!(v.verdict, Verdict::Allowed);
    }

    #[test]
    fn non_fast_forward_or_unknown_remote_is_a_refused_force_push() {
        let nff = RefFacts {
            fast_forward: false,
            behind: Some(2),
            ..ff()
        };
        let v = one(line(A, "refs/heads/main", B), nff, &policy(), true);
        let Verdict::Refused { reason, suggestion } = &v.verdict else {
            panic!("{v:?}")
        };
        assert!(reason.contains("force push"));
        assert!(suggestion.contains("--force-with-lease") && suggestion.contains("pull request"));
        assert!(v.notes.iter().any(|n| n.contains("pull first")));

        let unknown = RefFacts {
            remote_known: false,
            fast_forward: false,
            ahead: None,
            behind: None,
        };
        let v = one(line(A, "refs/heads/main", B), unknown, &policy(), true);
        // git's wording, not "force push" (issue #17, item 7).
        assert!(
            matches!(v.verdict, Verdict::Refused { ref reason, .. } if reason.contains("fetch first") && !reason.starts_with("force push"))
        );
        // Force pushes to feature branches are fine.
        let v = one(line(A, "refs/heads/topic", B), nff, &policy(), false);
        assert_eq!(v.verdict, Verdict::Allowed);
    }

    #[test]
    fn plain_push_asks_on_a_terminal_and_follows_the_policy_without_one() {
        let l = line(A, "refs/heads/main", B);
        assert_eq!(
            one(l.clone(), ff(), &policy(), true).verdict,
            Verdict::Confirm
        );
        let denied = one(l.clone(), ff(), &policy(), false);
        let Verdict::Refused { suggestion, .. } = &denied.verdict else {
            panic!()
        };
        assert!(suggestion.contains("evolv.pushToProtected=allow"));
        assert!(suggestion.contains("GIT_EVOLV_ALLOW_PUSH=1"));
        let allow = PushPolicy::new(&[], PushToProtected::Allow, false).unwrap();
        assert_eq!(
            one(l.clone(), ff(), &allow, false).verdict,
            Verdict::Allowed
        );
        assert_eq!(one(l.clone(), ff(), &allow, true).verdict, Verdict::Allowed);
        let env = PushPolicy::new(&[], PushToProtected::Deny, true).unwrap();
        assert_eq!(one(l.clone(), ff(), &env, false).verdict, Verdict::Allowed);
        let confirm = PushPolicy::new(&[], PushToProtected::Confirm, false).unwrap();
        assert!(matches!(
            one(l.clone(), ff(), &confirm, false).verdict,
            Verdict::Refused { .. }
        ));
        // A no-op push changes nothing.
        let same = line(A, "refs/heads/main", A);
        assert_eq!(one(same, ff(), &policy(), false).verdict, Verdict::Allowed);
        // Creating main counts as a plain push.
        assert_eq!(
            one(
                line(A, "refs/heads/main", Z),
                RefFacts::default(),
                &policy(),
                true
            )
            .verdict,
            Verdict::Confirm
        );
    }

    #[test]
    fn policy_values_parse() {
        assert_eq!(
            PushToProtected::parse("Allow"),
            Some(PushToProtected::Allow)
        );
        assert_eq!(PushToProtected::parse("deny"), Some(PushToProtected::Deny));
        assert_eq!(
            PushToProtected::parse("confirm"),
            Some(PushToProtected::Confirm)
        );
        assert_eq!(PushToProtected::parse("yes"), None);
    }
}

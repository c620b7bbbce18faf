//! The examples each manual page shows: written here, one list per
//! subcommand, read by `man` when it builds a page.

/// The manual's own examples: (subcommand, its examples as (command,
/// what it does)); `None` is the page of git evolv itself.
const WRITTEN_EXAMPLES: Examples = &[
    (
        None,
        &[
            (
                "git evolv propose --pattern 'getUserData' --replacement 'fetchUserData' --scope 'backend/**'\ngit evolv list\ngit evolv show patch_1763793123_3fa9c1\ngit evolv apply patch_1763793123_3fa9c1 --validate 'cargo test'\ngit evolv rollback patch_1763793123_3fa9c1\ngit evolv log",
                "A session: propose a rename, review it, land it after the tests pass, undo it, read the audit log.",
            ),
            ("git evolv demo", "A guided run in a throwaway repository."),
        ],
    ),
    (
        Some("propose"),
        &[
            (
                "git evolv propose -p 'getUserData' -r 'fetchUserData' -s 'backend/**'",
                "Propose a rename in every file under backend/.",
            ),
            (
                "git evolv propose --literal -p 'a.b(' -r 'a.c(' -m 'Call c instead of b'",
                "Replace text as written, with a summary.",
            ),
            (
                "git evolv propose -p '(?m)^use (\\w+);' -r 'use crate::$1;' -s '**/*.rs'",
                "Capture groups expand in the replacement.",
            ),
            (
                "cargo fmt && git evolv propose --from-worktree -- src/",
                "Propose what a formatter changed under src/, and put src/ back to HEAD.",
            ),
            (
                "git diff --binary main topic | git evolv propose --patch -",
                "Propose a patch (a git or diff -u diff, a format-patch series, an apply_patch envelope).",
            ),
        ],
    ),
    (
        Some("list"),
        &[
            ("git evolv list", "Every proposal with its status."),
            (
                "git evolv list --json | jq '.proposals[].patch_id'",
                "The ids, for scripts.",
            ),
        ],
    ),
    (
        Some("show"),
        &[(
            "git evolv show patch_1763793123_3fa9c1",
            "The proposal's summary and diff, paged and coloured like git show.",
        )],
    ),
    (
        Some("drop"),
        &[
            (
                "git evolv drop patch_1763793123_3fa9c1",
                "Remove one proposal.",
            ),
            ("git evolv drop --all", "Remove every proposal."),
        ],
    ),
    (
        Some("apply"),
        &[
            (
                "git evolv apply patch_1763793123_3fa9c1 --validate 'cargo test'",
                "Validate in the warm worktree, then land.",
            ),
            (
                "git evolv apply patch_1 patch_2 --batch --validate 'make check'",
                "Stack two proposals, validate once, land both or neither.",
            ),
            (
                "git evolv apply patch_1763793123_3fa9c1 --plan plan.json --dry-run",
                "Everything but moving the branch, under an execution plan.",
            ),
            (
                "git evolv apply patch_1763793123_3fa9c1 --paths 'src/**'",
                "Land the changes under src/ only; the rest stays pending.",
            ),
            (
                "git evolv apply patch_1763793123_3fa9c1 -i",
                "Choose hunk by hunk, with git add -p's keys.",
            ),
        ],
    ),
    (
        Some("rollback"),
        &[
            (
                "git evolv rollback patch_1763793123_3fa9c1",
                "A revert commit of what apply landed.",
            ),
            (
                "git evolv rollback patch_1763793123_3fa9c1 --strategy file_backup",
                "Put the files back as they were before the apply.",
            ),
        ],
    ),
    (
        Some("op"),
        &[(
            "git evolv op log -n 20\ngit evolv op show 3fa9c1d2 --json",
            "The last 20 operations (id, time, kind, actor, proposal); one, with every ref it moved and the paths it wrote.",
        )],
    ),
    (
        Some("undo"),
        &[
            (
                "git evolv undo --dry-run",
                "Every ref and path your newest operation's undo would change; nothing changes.",
            ),
            (
                "git evolv undo",
                "Undo your newest operation: a proposal goes, a drop comes back, an apply that nothing was built on and nobody pushed moves the branch back (else a revert commit, and why). Undo again to redo.",
            ),
            (
                "git evolv undo 3fa9c1d2\ngit evolv undo --to 3fa9c1d2",
                "Undo one named operation (someone else's too); undo every operation after one, newest first.",
            ),
        ],
    ),
    (
        Some("redo"),
        &[("git evolv redo", "Redo what the last undo undid.")],
    ),
    (
        Some("recover"),
        &[(
            "git evolv recover",
            "Finish or undo a landing that was killed.",
        )],
    ),
    (
        Some("log"),
        &[("git evolv log -n 5", "The five newest audit records.")],
    ),
    (
        Some("gc"),
        &[
            (
                "git evolv gc --older-than 30",
                "Drop proposals older than 30 days.",
            ),
            (
                "git evolv gc --worktrees",
                "Remove the warm validation worktrees.",
            ),
        ],
    ),
    (
        Some("plan"),
        &[
            (
                "git evolv plan schema > plan.schema.json",
                "The JSON Schema of an execution plan.",
            ),
            (
                "git evolv plan check plan.json",
                "Check a plan and print it with its defaults.",
            ),
        ],
    ),
    (
        Some("demo"),
        &[(
            "git evolv demo",
            "propose, show, apply, rollback in a throwaway repository.",
        )],
    ),
    (
        Some("lint"),
        &[
            (
                "git evolv lint 'feat(api): add the user endpoint'",
                "Lint one message.",
            ),
            (
                "git evolv lint --range origin/main..HEAD --format github",
                "Lint a pull request's commits as GitHub annotations.",
            ),
        ],
    ),
    (
        Some("hooks"),
        &[
            (
                "git evolv hooks install",
                "Install the commit-msg and pre-push hooks.",
            ),
            ("git evolv hooks status", "Which hooks are installed."),
            (
                "git evolv hooks install --server",
                "In a bare repository: land pushes to refs/for/<branch> (docs/server.md).",
            ),
        ],
    ),
    (
        Some("hook"),
        &[(
            "git evolv hook commit-msg .git/COMMIT_EDITMSG",
            "What the installed commit-msg hook runs.",
        )],
    ),
    (
        Some("check"),
        &[(
            "git evolv check --json",
            "Uncommitted files and the upstream, for scripts.",
        )],
    ),
    (
        Some("ask"),
        &[(
            "git evolv ask 'Deploy where?' --option 'staging: test cluster' --option 'prod: customers'",
            "Ask on the terminal; prints the chosen label.",
        )],
    ),
    (
        Some("completions"),
        &[
            (
                "git evolv completions bash > ~/.local/share/bash-completion/completions/git-evolv",
                "Completion for bash (git evolv <TAB> under git's completion, and git-evolv).",
            ),
            (
                "git evolv completions zsh > ~/.zfunc/_git-evolv",
                "Completion for zsh (with fpath+=~/.zfunc).",
            ),
        ],
    ),
    (
        Some("install-man"),
        &[
            (
                "git evolv install-man",
                "Install the pages next to the binary (~/.cargo/share/man/man1).",
            ),
            (
                "git evolv install-man --prefix ~/.local",
                "Install them under ~/.local/share/man/man1.",
            ),
        ],
    ),
    (
        Some("help"),
        &[("git evolv help apply", "The manual of git evolv apply.")],
    ),
    (
        Some("cat"),
        &[(
            "git evolv cat patch_1763793123_3fa9c1 src/main.rs --lines 10:20",
            "Lines 10 to 20 of a file as the proposal would leave it.",
        )],
    ),
    (
        Some("glob"),
        &[(
            "git evolv glob '**/*.rs'",
            "Rust files of the working tree, newest first.",
        )],
    ),
    (
        Some("push"),
        &[
            (
                "git evolv push",
                "Push every pending proposal to the upstream remote's refs/for/<branch>; prints each landing or refusal.",
            ),
            (
                "git evolv push patch_1763793123_3fa9c1 --remote origin --to main --no-wait",
                "Queue one proposal on the server and return at once.",
            ),
        ],
    ),
    (
        Some("fetch"),
        &[(
            "git evolv fetch origin",
            "The server's refs/evolv/* under refs/evolv/remotes/origin/ (outcomes, verdicts, proposals).",
        )],
    ),
    (
        Some("status"),
        &[(
            "git evolv status --remote origin patch_1763793123_3fa9c1",
            "Fetch origin's refs/evolv/*, then print whether the proposal landed there, and as what.",
        )],
    ),
];

type Examples = &'static [(
    Option<&'static str>,
    &'static [(&'static str, &'static str)],
)];

/// The examples written for a page, if any.
pub fn written_examples(sub: Option<&str>) -> &'static [(&'static str, &'static str)] {
    WRITTEN_EXAMPLES
        .iter()
        .find(|(s, _)| *s == sub)
        .map_or(&[], |(_, examples)| examples)
}

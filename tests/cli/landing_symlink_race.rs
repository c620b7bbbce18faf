//! A directory swapped for a symlink after a landing's checks, while its
//! files are written (issue 25 item 20 writes them in place after the
//! branch moves): no write goes through the symlink, with one file or
//! many, written in place or staged (`evolv.fsyncWorktree`), and nothing
//! outside the repository changes. Found by the adversarial pass: the
//! first in-place writer trusted the check made before the move.

use crate::common::TestRepo;

#[test]
fn a_directory_swapped_for_a_symlink_after_the_checks_takes_no_write_outside() {
    for (files, staged) in [(1, false), (150, false), (1, true), (150, true)] {
        let case = format!("{files} file(s), staged: {staged}");
        let repo = TestRepo::with_many(files, |i| (format!("d/f{i}.txt"), format!("OLD {i}\n")));
        if staged {
            repo.git(&["config", "evolv.fsyncWorktree", "true"]);
        }
        let outside = repo.home().join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("f0.txt"), "PRECIOUS\n").unwrap();
        let id = repo.propose("OLD", "NEW", &[]);
        let dir = repo.file("d");
        let race = format!(
            "after-cas=mv '{}' '{}' && ln -s '{}' '{}'",
            dir.display(),
            repo.home().join("moved").display(),
            outside.display(),
            dir.display()
        );
        let run = repo.evolv_env(
            &["apply", "--json", &id],
            &[("GIT_EVOLV_CRASHPOINT_RUN", race.as_str())],
        );
        assert_ne!(run.code, 0, "{case}: {}", run.stdout);
        let mut names: Vec<String> = std::fs::read_dir(&outside)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["f0.txt"], "{case}: written outside");
        let kept = std::fs::read_to_string(outside.join("f0.txt")).unwrap();
        assert_eq!(kept, "PRECIOUS\n", "{case}");
        if !staged {
            assert!(
                run.stdout.contains("is a symlink"),
                "{case}: {}",
                run.stdout
            );
        }
        repo.assert_fsck();
    }
}

//! The reader against git: every blob of real repositories, packed every
//! way git packs (deep offset-delta chains, ref-deltas, version 1
//! indexes), loose, and behind alternates, reads back as `git cat-file`
//! prints it.

use std::path::Path;

use crate::Oid;

use super::ObjectStore;
use crate::test_git::git;

/// A repository with many versions of a few files, so packs hold chains
/// of deltas, plus a binary file and an empty one.
fn history(dir: &Path) {
    git(dir, &["init", "-q", "-b", "main"]);
    let mut text: Vec<String> = (0..400)
        .map(|i| format!("line {i} of the file\n"))
        .collect();
    for round in 0..40 {
        text[(round * 37) % 400] = format!("changed in round {round}\n");
        text.insert((round * 11) % 400, format!("added in round {round}\n"));
        for f in 0..5 {
            let body: String = text.iter().skip(f * 7).cloned().collect();
            std::fs::write(dir.join(format!("f{f}.txt")), body).unwrap();
        }
        let binary: Vec<u8> = (0..5000u32).map(|i| (i * 7 + round as u32) as u8).collect();
        std::fs::write(dir.join("bin.dat"), binary).unwrap();
        std::fs::write(dir.join("empty"), "").unwrap();
        git(dir, &["add", "-A"]);
        git(dir, &["commit", "-q", "-m", &format!("round {round}")]);
    }
}

fn every_blob(dir: &Path) -> Vec<Oid> {
    git(dir, &["rev-list", "--objects", "--all"])
        .lines()
        .filter_map(|l| l.split(' ').next())
        .filter(|id| git(dir, &["cat-file", "-t", id]) == "blob")
        .map(|id| Oid::parse(id).unwrap())
        .collect()
}

/// Reads every blob through one reader and checks it against git.
fn reads_as_git(dir: &Path, common: &Path, cache: usize) {
    let store = ObjectStore::open(common, cache);
    let mut reader = store.reader().unwrap();
    let blobs = every_blob(dir);
    assert!(blobs.len() > 100, "{} blobs", blobs.len());
    for id in blobs {
        let want = std::process::Command::new("git")
            .args(["cat-file", "blob", &id.to_string()])
            .current_dir(dir)
            .output()
            .unwrap()
            .stdout;
        assert_eq!(reader.blob(id).unwrap(), want, "blob {id}");
    }
}

/// The one pack index of the repository whose git dir is `common`.
fn pack_index(common: &Path) -> std::path::PathBuf {
    let mut all: Vec<_> = std::fs::read_dir(common.join("objects/pack"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "idx"))
        .collect();
    assert_eq!(all.len(), 1, "{all:?}");
    all.pop().unwrap()
}

/// A new temporary folder with [`history`] in it.
fn temp_history() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    history(tmp.path());
    tmp
}

/// A new folder `dir` with [`history`] in it, packed by `git gc`.
fn packed_history(dir: &Path) -> std::path::PathBuf {
    std::fs::create_dir(dir).unwrap();
    history(dir);
    git(dir, &["gc", "-q"]);
    dir.to_path_buf()
}

#[test]
fn every_blob_reads_as_git_prints_it_packed_every_way_and_loose() {
    let tmp = temp_history();
    let dir = tmp.path();
    let common = dir.join(".git");
    // Loose, as committed.
    reads_as_git(dir, &common, 1 << 20);
    // Deep offset-delta chains (git's most aggressive packing), with a
    // cache too small for most bases and with a roomy one.
    git(
        dir,
        &[
            "repack",
            "-a",
            "-d",
            "-q",
            "--depth=250",
            "--window=50",
            "-f",
        ],
    );
    git(dir, &["prune-packed"]);
    let stats = git(dir, &["count-objects", "-v"]);
    assert!(stats.contains("count: 0"), "{stats}");
    let verify = git(
        dir,
        &["verify-pack", "-v", &pack_index(&common).to_string_lossy()],
    );
    assert!(
        verify.contains("chain length = 20"),
        "deep chains: {verify}"
    );
    reads_as_git(dir, &common, 0);
    reads_as_git(dir, &common, 64 << 20);
    // Ref-deltas and a version 1 index.
    git(
        dir,
        &[
            "-c",
            "repack.useDeltaBaseOffset=false",
            "-c",
            "pack.indexVersion=1",
            "repack",
            "-a",
            "-d",
            "-q",
            "-f",
        ],
    );
    let idx = pack_index(&common);
    let verify = git(dir, &["verify-pack", "-v", &idx.to_string_lossy()]);
    assert!(verify.contains("chain length = 1"), "{verify}");
    assert_ne!(
        &std::fs::read(&idx).unwrap()[..4],
        b"\xfftOc",
        "a version 1 index"
    );
    reads_as_git(dir, &common, 1 << 20);
}

#[test]
fn objects_behind_alternates_and_packs_made_after_opening_are_found() {
    let tmp = tempfile::tempdir().unwrap();
    let origin = packed_history(&tmp.path().join("origin"));
    let clone = tmp.path().join("clone");
    git(
        tmp.path(),
        &["clone", "-q", "--shared", origin.to_str().unwrap(), "clone"],
    );
    std::fs::write(clone.join("own.txt"), "only in the clone\n").unwrap();
    git(&clone, &["add", "own.txt"]);
    git(&clone, &["commit", "-q", "-m", "own"]);
    reads_as_git(&clone, &clone.join(".git"), 1 << 20);

    // A store opened before a repack finds the objects in the new pack.
    let store = ObjectStore::open(&clone.join(".git"), 1 << 20);
    let mut reader = store.reader().unwrap();
    let own = Oid::parse(&git(&clone, &["rev-parse", "HEAD:own.txt"])).unwrap();
    git(&clone, &["repack", "-a", "-d", "-q"]);
    git(&clone, &["prune-packed"]);
    assert!(
        !clone
            .join(".git/objects")
            .join(&own.to_string()[..2])
            .join(&own.to_string()[2..])
            .exists()
    );
    assert_eq!(reader.blob(own).unwrap(), b"only in the clone\n");

    // Not there at all: a clear error, not a panic.
    let none = Oid::parse("0123456789012345678901234567890123456789").unwrap();
    let e = reader.blob(none).unwrap_err().to_string();
    assert!(
        e.contains("0123456789012345678901234567890123456789") && e.contains("missing"),
        "{e}"
    );
    // Not a blob: refused by name.
    let tree = Oid::parse(&git(&clone, &["rev-parse", "HEAD^{tree}"])).unwrap();
    assert!(
        reader
            .blob(tree)
            .unwrap_err()
            .to_string()
            .contains("not a blob")
    );
}

#[test]
fn a_damaged_pack_is_an_error_naming_it_never_a_panic_or_wrong_content() {
    let tmp = temp_history();
    let dir = tmp.path();
    git(dir, &["repack", "-a", "-d", "-q", "--depth=50", "-f"]);
    git(dir, &["prune-packed"]);
    let blobs = every_blob(dir);
    let pack = std::fs::read_dir(dir.join(".git/objects/pack"))
        .unwrap()
        .filter_map(|e| e.ok())
        .find(|e| e.path().extension().is_some_and(|x| x == "pack"))
        .unwrap()
        .path();
    let good = std::fs::read(&pack).unwrap();
    // Flip bytes all over the pack's body, one spot at a time: every read
    // either fails naming the pack, or (the spot was in another object)
    // returns the blob git has.
    let mut perms = std::fs::metadata(&pack).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    perms.set_readonly(false);
    std::fs::set_permissions(&pack, perms).unwrap();
    let mut failures = 0;
    for spot in (12..good.len() - 20).step_by(good.len() / 23) {
        let mut bad = good.clone();
        for b in &mut bad[spot..(spot + 8).min(good.len() - 20)] {
            *b ^= 0x5a;
        }
        std::fs::write(&pack, &bad).unwrap();
        let store = ObjectStore::open(&dir.join(".git"), 1 << 20);
        let mut reader = store.reader().unwrap();
        for id in &blobs {
            match reader.blob(*id) {
                Ok(_) => {} // checked against its id in debug builds
                Err(e) => {
                    failures += 1;
                    let e = e.to_string();
                    assert!(e.contains("pack") || e.contains("object"), "{e}");
                }
            }
        }
    }
    assert!(failures > 0, "the damage was seen");
    std::fs::write(&pack, &good).unwrap();
}

#[test]
fn a_blob_skipped_from_its_first_bytes_is_not_read_whole_and_text_is() {
    let tmp = crate::test_git::new_repo();
    let dir = tmp.path();
    let mut binary = vec![b'x'; 200_000];
    binary[100] = 0;
    let text: Vec<u8> = (0..20_000)
        .flat_map(|i| format!("{i}\n").into_bytes())
        .collect();
    let late_nul: Vec<u8> = [vec![b'y'; 9_000], vec![0], vec![b'y'; 9_000]].concat();
    std::fs::write(dir.join("big.bin"), &binary).unwrap();
    std::fs::write(dir.join("big.txt"), &text).unwrap();
    std::fs::write(dir.join("late.bin"), &late_nul).unwrap();
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "one"]);
    let id = |path: &str| Oid::parse(&git(dir, &["rev-parse", &format!("HEAD:{path}")])).unwrap();
    let peek = super::Peek {
        len: 8000,
        skip: &|head: &[u8]| head.contains(&0),
    };
    for packed in [false, true] {
        if packed {
            git(dir, &["gc", "-q"]);
        }
        let store = ObjectStore::open(&dir.join(".git"), 1 << 20);
        let mut reader = store.reader().unwrap();
        assert_eq!(reader.blob_unless(id("big.bin"), &peek).unwrap(), None);
        assert_eq!(
            reader.blob_unless(id("big.txt"), &peek).unwrap().unwrap(),
            text
        );
        // A NUL past the first 8,000 bytes is text to git.
        assert_eq!(
            reader.blob_unless(id("late.bin"), &peek).unwrap().unwrap(),
            late_nul
        );
        assert_eq!(reader.blob(id("big.bin")).unwrap(), binary);
    }
}

#[test]
fn a_large_binary_stored_as_a_delta_is_skipped_from_its_first_bytes_and_text_is_read_whole() {
    let tmp = crate::test_git::new_repo();
    let dir = tmp.path();
    // Bytes zlib cannot shrink, so the deltas between versions are large.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut noise = |n: usize, text: bool| -> Vec<u8> {
        (0..n)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let b = (state >> 24) as u8;
                if text { b'a' + b % 26 } else { b | 1 }
            })
            .collect()
    };
    let mut binary = noise(1 << 20, false);
    binary[10] = 0;
    let mut text = noise(1 << 20, true);
    for (name, data) in [("a.bin", &binary), ("a.txt", &text)] {
        std::fs::write(dir.join(name), data).unwrap();
    }
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "one"]);
    let fresh_bin = noise(300_000, false);
    let fresh_text = noise(300_000, true);
    binary[400_000..700_000].copy_from_slice(&fresh_bin);
    text[400_000..700_000].copy_from_slice(&fresh_text);
    for (name, data) in [("a.bin", &binary), ("a.txt", &text)] {
        std::fs::write(dir.join(name), data).unwrap();
    }
    git(dir, &["commit", "-q", "-am", "two"]);
    git(dir, &["repack", "-a", "-d", "-q", "-f", "--window=10"]);
    let verify = git(
        dir,
        &[
            "verify-pack",
            "-v",
            &pack_index(&dir.join(".git")).to_string_lossy(),
        ],
    );
    let id = |rev: &str| Oid::parse(&git(dir, &["rev-parse", rev])).unwrap();
    let deltas: Vec<Oid> = ["HEAD~:a.bin", "HEAD:a.bin", "HEAD~:a.txt", "HEAD:a.txt"]
        .iter()
        .map(|r| id(r))
        .filter(|o| {
            verify
                .lines()
                .any(|l| l.starts_with(&o.to_string()) && l.split_whitespace().count() == 7)
        })
        .collect();
    assert_eq!(deltas.len(), 2, "one version of each is a delta: {verify}");
    let peek = super::Peek {
        len: 8000,
        skip: &|head: &[u8]| head.contains(&0),
    };
    let store = ObjectStore::open(&dir.join(".git"), 0);
    let mut reader = store.reader().unwrap();
    for rev in ["HEAD~:a.bin", "HEAD:a.bin"] {
        assert_eq!(reader.blob_unless(id(rev), &peek).unwrap(), None, "{rev}");
    }
    assert_eq!(
        reader.skipped_through_delta, 1,
        "the delta was not made whole"
    );
    assert_eq!(
        reader
            .blob_unless(id("HEAD:a.txt"), &peek)
            .unwrap()
            .unwrap(),
        text
    );
    assert_eq!(reader.blob(id("HEAD:a.bin")).unwrap(), binary);
}

#[test]
fn a_gc_beside_the_reader_deleting_its_pack_loses_nothing() {
    let tmp = temp_history();
    let dir = tmp.path();
    git(dir, &["gc", "-q"]);
    let old_pack = pack_index(&dir.join(".git")).with_extension("pack");
    std::fs::write(dir.join("late.txt"), "committed after the gc\n").unwrap();
    git(dir, &["add", "late.txt"]);
    git(dir, &["commit", "-q", "-m", "late"]);
    let store = ObjectStore::open(&dir.join(".git"), 1 << 20);
    let mut reader = store.reader().unwrap();
    let id = |rev: &str| Oid::parse(&git(dir, &["rev-parse", rev])).unwrap();
    let early = reader.blob(id("HEAD~:f1.txt")).unwrap();
    // The gc packs everything anew, deletes the old pack and the loose copy.
    git(dir, &["repack", "-a", "-d", "-q", "-f"]);
    git(dir, &["prune-packed"]);
    assert!(!old_pack.exists());
    assert_eq!(
        reader.blob(id("HEAD:late.txt")).unwrap(),
        b"committed after the gc\n"
    );
    assert_eq!(reader.blob(id("HEAD~:f1.txt")).unwrap(), early);
    assert_eq!(
        reader.blob(id("HEAD~2:f2.txt")).unwrap().len(),
        git(dir, &["cat-file", "-s", "HEAD~2:f2.txt"])
            .parse::<usize>()
            .unwrap()
    );
}

/// An alternates line with a tab in its path is C-quoted, as git writes
/// such names (`"…\tstore/.git/objects"`); git unquotes it, and so does
/// the reader: every blob of the store behind it reads as git prints it.
#[test]
fn an_alternate_whose_path_is_quoted_is_followed() {
    let tmp = tempfile::tempdir().unwrap();
    let origin = packed_history(&tmp.path().join("odd\tstore"));
    let borrower = tmp.path().join("borrower");
    std::fs::create_dir(&borrower).unwrap();
    git(&borrower, &["init", "-q", "-b", "main"]);
    let objects = origin.join(".git/objects");
    let quoted = format!(
        "\"{}\"\n",
        objects.display().to_string().replace('\t', "\\t")
    );
    std::fs::write(borrower.join(".git/objects/info/alternates"), quoted).unwrap();
    // git itself reads the quoted line: the borrower sees the origin's objects.
    let head = git(&origin, &["rev-parse", "HEAD"]);
    assert_eq!(git(&borrower, &["cat-file", "-t", &head]), "commit");
    let store = ObjectStore::open(&borrower.join(".git"), 1 << 20);
    let mut reader = store.reader().unwrap();
    let blobs = every_blob(&origin);
    assert!(blobs.len() > 100, "{} blobs", blobs.len());
    for id in blobs {
        let want = std::process::Command::new("git")
            .args(["cat-file", "blob", &id.to_string()])
            .current_dir(&borrower)
            .output()
            .unwrap()
            .stdout;
        assert_eq!(reader.blob(id).unwrap(), want, "blob {id}");
    }
}

#[test]
fn c_quoted_names_unquote_as_git_unquotes_them() {
    use super::unquote_c;
    assert_eq!(
        unquote_c(b"\"a\\tb\\\\c\\\"d\""),
        Some(b"a\tb\\c\"d".to_vec())
    );
    assert_eq!(
        unquote_c(b"\"caf\\303\\251\""),
        Some("café".as_bytes().to_vec())
    );
    assert_eq!(unquote_c(b"plain/path"), None);
    assert_eq!(unquote_c(b"\"bad\\q\""), None);
    assert_eq!(unquote_c(b"\"short\\3\""), None);
}

/// Several packs under a multi-pack-index (`git multi-pack-index write`),
/// as `git maintenance` leaves them: every blob reads as git prints it.
#[test]
fn packs_under_a_multi_pack_index_read_as_git() {
    let tmp = temp_history();
    let dir = tmp.path();
    git(dir, &["repack", "-q"]);
    std::fs::write(dir.join("later.txt"), "a later pack\n").unwrap();
    git(dir, &["add", "later.txt"]);
    git(dir, &["commit", "-q", "-m", "later"]);
    git(dir, &["repack", "-q"]);
    git(dir, &["multi-pack-index", "write"]);
    let common = dir.join(".git");
    assert!(common.join("objects/pack/multi-pack-index").exists());
    let packs = std::fs::read_dir(common.join("objects/pack"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "pack")
        })
        .count();
    assert!(packs >= 2, "{packs} packs");
    reads_as_git(dir, &common, 1 << 20);
}

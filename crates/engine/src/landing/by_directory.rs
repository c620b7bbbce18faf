//! A landing's per-file work (writing files in place or to temp files,
//! renaming staged ones into place) from several threads, each taking a
//! whole directory's files at a time: two threads working in one directory
//! only queue on its lock (the kernel spins on it when creating files, and
//! holds it while a rename frees the old file's blocks), while threads in
//! different directories overlap, as git's `checkout.workers` does.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use crate::error::{Error, Result};
use crate::git::RepoPath;

/// What the threads did: the indices of the jobs done (in no particular
/// order), and the error that stopped them.
#[derive(Default)]
pub struct Outcome {
    pub done: Vec<usize>,
    pub error: Option<Error>,
}

/// How often the calling thread reports progress while the threads work.
const TICK: Duration = Duration::from_millis(100);

/// Runs `work` on every job of `jobs` (sorted by path, so a directory's
/// files are neighbours) from `workers` threads, each with its own state
/// from `init` (a thread's own repository handle, say). The first error
/// stops every thread after its current job. `each` is called after every
/// job done, from the thread that did it, with the number done so far;
/// `end` once by each thread when no work is left for it (a staging thread
/// waits there for the files it wrote), its error stopping the run as a
/// job's does; `tick` is called on the calling thread, which reports progress there,
/// every 100 ms and once at the end. With one worker everything runs on
/// the calling thread.
// The closures are the steps of a thread's life, each named at the call.
#[allow(clippy::too_many_arguments)]
pub fn run<T: Sync, S>(
    jobs: &[T],
    path_of: impl Fn(&T) -> &RepoPath + Sync,
    workers: usize,
    init: impl Fn() -> Result<S> + Sync,
    work: impl Fn(&mut S, &T) -> Result<()> + Sync,
    end: impl Fn(&mut S) -> Result<()> + Sync,
    each: impl Fn(usize) + Sync,
    mut tick: impl FnMut(usize),
) -> Outcome {
    if workers <= 1 {
        return on_this_thread(jobs, init, work, end, each, tick);
    }
    let shared = Shared {
        starts: directory_starts(jobs, path_of),
        next: AtomicUsize::new(0),
        count: AtomicUsize::new(0),
        failed: AtomicBool::new(false),
    };
    let (alive, finished) = mpsc::channel::<()>();
    let results: Vec<Outcome> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                let alive = alive.clone();
                let (shared, init, work, end, each) = (&shared, &init, &work, &end, &each);
                scope.spawn(move || {
                    // Dropped when the thread ends, however it ends: the
                    // calling thread stops waiting once every one is gone.
                    let _alive = alive;
                    shared.work_directories(jobs, init, work, end, each)
                })
            })
            .collect();
        drop(alive);
        while let Err(mpsc::RecvTimeoutError::Timeout) = finished.recv_timeout(TICK) {
            tick(shared.count.load(Ordering::Relaxed));
        }
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| stopped_short()))
            .collect()
    });
    tick(shared.count.load(Ordering::Relaxed));
    let mut out = Outcome::default();
    for r in results {
        out.done.extend(r.done);
        if out.error.is_none() {
            out.error = r.error;
        }
    }
    out
}

/// Every job in order on the calling thread, until one fails.
fn on_this_thread<T, S>(
    jobs: &[T],
    init: impl Fn() -> Result<S>,
    work: impl Fn(&mut S, &T) -> Result<()>,
    end: impl Fn(&mut S) -> Result<()>,
    each: impl Fn(usize),
    mut tick: impl FnMut(usize),
) -> Outcome {
    let mut out = Outcome::default();
    let mut state = match init() {
        Ok(s) => s,
        Err(e) => {
            out.error = Some(e);
            return out;
        }
    };
    for (i, job) in jobs.iter().enumerate() {
        if let Err(e) = work(&mut state, job) {
            out.error = Some(e);
            break;
        }
        out.done.push(i);
        each(out.done.len());
    }
    if let Err(e) = end(&mut state) {
        out.error.get_or_insert(e);
    }
    tick(out.done.len());
    out
}

/// The index of each directory's first job, and the number of jobs last.
fn directory_starts<T>(jobs: &[T], path_of: impl Fn(&T) -> &RepoPath) -> Vec<usize> {
    let mut starts: Vec<usize> = (0..jobs.len())
        .filter(|&i| i == 0 || parent(path_of(&jobs[i])) != parent(path_of(&jobs[i - 1])))
        .collect();
    starts.push(jobs.len());
    starts
}

/// What the threads share: the directories, the next one to take, the
/// jobs done, and whether one failed.
struct Shared {
    starts: Vec<usize>,
    next: AtomicUsize,
    count: AtomicUsize,
    failed: AtomicBool,
}

impl Shared {
    /// One thread's work: whole directories, one after the other, until
    /// none is left or a job fails here or on another thread.
    fn work_directories<T, S>(
        &self,
        jobs: &[T],
        init: impl Fn() -> Result<S>,
        work: impl Fn(&mut S, &T) -> Result<()>,
        end: impl Fn(&mut S) -> Result<()>,
        each: impl Fn(usize),
    ) -> Outcome {
        let mut out = Outcome::default();
        let mut state = match init() {
            Ok(s) => s,
            Err(e) => {
                self.failed.store(true, Ordering::Relaxed);
                out.error = Some(e);
                return out;
            }
        };
        while !self.failed.load(Ordering::Relaxed) {
            let d = self.next.fetch_add(1, Ordering::Relaxed);
            let Some(range) = self.starts.get(d..d + 2) else {
                break;
            };
            for (i, job) in jobs.iter().enumerate().take(range[1]).skip(range[0]) {
                if self.failed.load(Ordering::Relaxed) {
                    return out;
                }
                if let Err(e) = work(&mut state, job) {
                    self.failed.store(true, Ordering::Relaxed);
                    out.error = Some(e);
                    return out;
                }
                out.done.push(i);
                each(self.count.fetch_add(1, Ordering::Relaxed) + 1);
            }
        }
        if let Err(e) = end(&mut state) {
            self.failed.store(true, Ordering::Relaxed);
            out.error.get_or_insert(e);
        }
        out
    }
}

/// The outcome of a thread that panicked.
fn stopped_short() -> Outcome {
    Outcome {
        done: Vec::new(),
        error: Some(Error::Internal {
            at: "a landing's writer threads",
            message: "a thread writing the landing's files stopped short".into(),
        }),
    }
}

/// The directory part of `path` (empty at the top).
fn parent(path: &RepoPath) -> &[u8] {
    let b = path.as_bytes();
    &b[..b.iter().rposition(|c| *c == b'/').unwrap_or(0)]
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::run;
    use crate::error::Error;
    use crate::git::RepoPath;

    fn jobs() -> Vec<RepoPath> {
        (0..200)
            .map(|i| RepoPath::from(format!("d{}/f{i:03}", i / 20).as_str()))
            .collect()
    }

    /// Every job is done once, by one or by several threads, a
    /// directory's jobs stay with one thread at a time, and every thread
    /// ends once.
    #[test]
    fn every_job_is_done_once_whatever_the_threads() {
        let jobs = jobs();
        for workers in [1, 2, 8] {
            let seen = Mutex::new(Vec::new());
            let counted = AtomicUsize::new(0);
            let mut ticks = Vec::new();
            let ended = AtomicUsize::new(0);
            let out = run(
                &jobs,
                |p| p,
                workers,
                || Ok(std::thread::current().id()),
                |me, p| {
                    seen.lock().unwrap().push((p.to_string(), *me));
                    Ok(())
                },
                |_| {
                    ended.fetch_add(1, Ordering::Relaxed);
                    Ok(())
                },
                |n| {
                    counted.fetch_max(n, Ordering::Relaxed);
                },
                |n| ticks.push(n),
            );
            assert!(out.error.is_none());
            assert_eq!(
                ended.load(Ordering::Relaxed),
                workers,
                "each thread ends once"
            );
            let mut done = out.done.clone();
            done.sort_unstable();
            assert_eq!(done, (0..200).collect::<Vec<_>>(), "{workers}");
            assert_eq!(counted.load(Ordering::Relaxed), 200);
            assert_eq!(ticks.last(), Some(&200), "{workers}: the last tick");
            let seen = seen.into_inner().unwrap();
            for dir in 0..10 {
                let owners: std::collections::HashSet<_> = seen
                    .iter()
                    .filter(|(p, _)| p.starts_with(&format!("d{dir}/")))
                    .map(|(_, t)| *t)
                    .collect();
                assert_eq!(owners.len(), 1, "{workers}: d{dir} done by one thread");
            }
        }
    }

    /// The first error stops the threads: it is returned, the failed job
    /// is not counted done, and no job after it in its directory runs.
    #[test]
    fn the_first_error_stops_every_thread() {
        let jobs = jobs();
        for workers in [1, 4] {
            let ran = Mutex::new(Vec::new());
            let out = run(
                &jobs,
                |p| p,
                workers,
                || Ok(()),
                |(), p| {
                    ran.lock().unwrap().push(p.to_string());
                    if p.as_bytes() == b"d3/f065" {
                        return Err(Error::Internal {
                            at: "a test",
                            message: "refused".into(),
                        });
                    }
                    Ok(())
                },
                |_| Ok(()),
                |_| {},
                |_| {},
            );
            assert!(
                matches!(out.error, Some(Error::Internal { .. })),
                "{workers}"
            );
            assert!(!out.done.contains(&65), "{workers}");
            let ran = ran.into_inner().unwrap();
            assert!(!ran.iter().any(|p| p == "d3/f066"), "{workers}: {ran:?}");
            assert!(out.done.len() < 200, "{workers}");
        }
    }
}

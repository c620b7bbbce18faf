//! The one time source and the one id source of git-evolv.
//!
//! Everything that stamps a time into an object (proposal ids, commit
//! signatures, audit records, ages) reads [`now_secs`] and [`signature`];
//! everything that needs a unique name (proposal nonces, journal nonces,
//! throwaway worktrees, retry jitter) reads [`unique`]. Tests fix both so
//! human output can be snapshotted: in debug builds only, the environment
//! variable `GIT_EVOLV_TEST_TIME=<unix seconds>` fixes the clock and makes
//! the ids a per-process counter. A release build never reads it, so no
//! environment can change what a user's repository records.
//!
//! Times compared with the file system's own timestamps (lock files'
//! mtimes during recovery, the journal's start) must stay real: they use
//! [`real_now`], which no test setting changes.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// The test override variable (debug builds only; see the module).
pub const TEST_TIME_VAR: &str = "GIT_EVOLV_TEST_TIME";

/// The fixed test time, if a debug build was given one.
pub fn test_time() -> Option<i64> {
    if cfg!(debug_assertions) {
        std::env::var(TEST_TIME_VAR).ok()?.trim().parse().ok()
    } else {
        None
    }
}

/// The real wall clock, for comparisons with file-system timestamps.
pub fn real_now() -> SystemTime {
    SystemTime::now()
}

/// Seconds since the epoch: the time git-evolv records.
pub fn now_secs() -> i64 {
    test_time().unwrap_or_else(|| {
        real_now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64)
    })
}

/// Nanoseconds since the epoch on the real clock: an order of arrival
/// between processes (the server's landing queue), never a recorded time.
pub fn now_nanos() -> u64 {
    real_now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// A string no other call of this or any concurrent process returns
/// (nanoseconds, process id and a counter); under the test clock, the
/// time and the counter only, so it is the same on every run.
pub fn unique() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    match test_time() {
        Some(t) => format!("{t:x}.{n:x}"),
        None => {
            let nanos = real_now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos());
            format!("{nanos:x}.{:x}.{n:x}", std::process::id())
        }
    }
}

/// A well-mixed 64-bit number from [`unique`], for retry jitter.
pub fn unique_u64() -> u64 {
    // FNV-1a, then a multiplicative finaliser: cheap and well spread.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in unique().bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    h ^ (h >> 29).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unique_never_repeats_in_a_process() {
        let a: std::collections::BTreeSet<String> = (0..1000).map(|_| unique()).collect();
        assert_eq!(a.len(), 1000);
    }

    #[test]
    fn the_real_clock_is_after_2020() {
        assert!(now_secs() > 1_577_836_800 || std::env::var_os(TEST_TIME_VAR).is_some());
    }
}

/// `secs` since the epoch as an RFC 3339 UTC time (`2026-11-28T01:02:03Z`),
/// by the proleptic Gregorian calendar (days to a date as in Hinnant's
/// `civil_from_days`).
pub fn utc_rfc3339(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod rfc3339_tests {
    use super::utc_rfc3339;

    #[test]
    fn formats_known_instants() {
        assert_eq!(utc_rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc_rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc_rfc3339(1_795_827_599), "2026-11-28T00:59:59Z");
        assert_eq!(utc_rfc3339(-1), "1969-12-31T23:59:59Z");
    }
}

//! The push options a pusher may send (`git push -o …`): `evolv.*` ones
//! are ours and must be known; anything else is some other tool's and
//! ignored. None of them names a command, a path or a flag: the server's
//! configuration decides what runs.

use crate::error::{Error, Result};

/// What the push options ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PushOptions {
    /// Wait for the landing (the default), or answer once queued
    /// (`evolv.wait=false`).
    pub wait: bool,
}

impl Default for PushOptions {
    fn default() -> Self {
        PushOptions { wait: true }
    }
}

/// Parses the options; an unknown or malformed `evolv.*` option is refused.
pub fn parse(options: &[String]) -> Result<PushOptions> {
    let mut out = PushOptions::default();
    for option in options {
        let Some(rest) = option.strip_prefix("evolv.") else {
            continue;
        };
        let (key, value) = rest.split_once('=').unwrap_or((rest, "true"));
        match (key, value) {
            ("wait", "true" | "1" | "yes") => out.wait = true,
            ("wait", "false" | "0" | "no") => out.wait = false,
            _ => {
                return Err(Error::invalid(
                    format!(
                        "unknown push option {}",
                        evolv_core::receive::ref_name::shown(option)
                    ),
                    "the server knows only `-o evolv.wait=false` (answer once queued) and `-o evolv.wait=true`",
                ));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knows_wait_and_refuses_other_evolv_options() {
        let o = |v: &[&str]| parse(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert!(o(&[]).unwrap().wait);
        assert!(!o(&["evolv.wait=false"]).unwrap().wait);
        assert!(o(&["ci.skip", "evolv.wait=true"]).unwrap().wait);
        assert!(o(&["evolv.validate=rm -rf /"]).is_err());
        assert!(o(&["evolv.wait=maybe"]).is_err());
    }
}

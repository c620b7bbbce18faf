//! What `git fsck` refuses inside a `.gitmodules` blob (its
//! `gitmodulesName`, `gitmodulesUrl`, `gitmodulesPath` and
//! `gitmodulesUpdate` errors). `git submodule` passes these values to
//! other programs: a url or path starting with `-` is read as an option, a
//! `../` url can climb out of the host part of an http url
//! (CVE-2020-11008), a newline hidden as `%0a` splits a credential
//! request, a name with a `..` component writes outside `.git/modules`,
//! and `update = !cmd` runs a command. A tree holding such a file came by
//! fetch from a hostile clone; git's `transfer.fsckObjects` refuses it,
//! and so does a landing. Pure: bytes in, a reason out.

use crate::config::parse::parse_prefix;

/// Why git's fsck refuses a `.gitmodules` holding `content`, or `None`.
/// A file git cannot parse is only reported by fsck (`gitmodulesParse`
/// is INFO), so the entries before the error are judged and the rest is
/// let be, as git's own check does.
pub fn refusal(content: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(content);
    let (entries, _syntax_error) = parse_prefix(&text);
    for entry in entries {
        let Some((name, key)) = entry
            .key
            .strip_prefix("submodule.")
            .and_then(|rest| rest.rsplit_once('.'))
        else {
            continue;
        };
        let at = |what: &str, id: &str| {
            format!(
                "names submodule '{}' (line {}), {what} (git fsck: {id})",
                name.escape_debug(),
                entry.line
            )
        };
        if !name_is_safe(name) {
            return Some(at(
                "whose name git refuses (empty, or a '..' component)",
                "gitmodulesName",
            ));
        }
        let Some(value) = entry.value.as_deref() else {
            continue;
        };
        match key {
            "url" if !url_is_safe(value) => {
                return Some(at(
                    "whose url git refuses (an option, a newline, or '../' past the host)",
                    "gitmodulesUrl",
                ));
            }
            "path" if value.starts_with('-') => {
                return Some(at("whose path starts with '-'", "gitmodulesPath"));
            }
            "update" if value.starts_with('!') => {
                return Some(at("whose update runs a command ('!…')", "gitmodulesUpdate"));
            }
            _ => {}
        }
    }
    None
}

/// git's `check_submodule_name`: not empty, no `..` component (with `/`
/// or `\` as separators, whatever the platform).
fn name_is_safe(name: &str) -> bool {
    !name.is_empty() && !name.split(['/', '\\']).any(|component| component == "..")
}

/// git's `check_submodule_url`.
fn url_is_safe(url: &str) -> bool {
    if url.starts_with('-') {
        return false;
    }
    if url.starts_with("./") || url.starts_with("../") || url.starts_with("git://") {
        // Such a url may be appended to an http url and decoded.
        if percent_decoded(url).contains(&b'\n') {
            return false;
        }
        let (climbs, rest) = leading_dotdots(url);
        return !(climbs > 0 && (rest.starts_with(':') || rest.starts_with('/')));
    }
    match curl_url(url) {
        Some(curl) => credential_url_is_valid(curl),
        None => true,
    }
}

/// How many `../` lead `url` (`./` skipped between them), and what follows.
fn leading_dotdots(mut url: &str) -> (usize, &str) {
    let mut climbs = 0;
    loop {
        if let Some(rest) = url.strip_prefix("../") {
            climbs += 1;
            url = rest;
        } else if let Some(rest) = url.strip_prefix("./") {
            url = rest;
        } else {
            return (climbs, url);
        }
    }
}

/// The url curl would be given for `url`, when it goes to curl: the http
/// and ftp schemes, also behind a `scheme::` remote-helper prefix.
fn curl_url(url: &str) -> Option<&str> {
    const HELPERS: [&str; 4] = ["http::", "https::", "ftp::", "ftps::"];
    const SCHEMES: [&str; 4] = ["http://", "https://", "ftp://", "ftps://"];
    if let Some(rest) = HELPERS.iter().find_map(|p| url.strip_prefix(p)) {
        return Some(rest);
    }
    SCHEMES.iter().any(|s| url.starts_with(s)).then_some(url)
}

/// git's `credential_from_url_gently` succeeds and finds a host: a
/// scheme, a non-empty host, and no newline in any decoded part.
fn credential_url_is_valid(url: &str) -> bool {
    let Some((scheme, rest)) = url.split_once("://") else {
        return false;
    };
    if scheme.is_empty() || scheme.contains('\n') {
        return false;
    }
    let slash = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let at = rest.find('@').filter(|&at| at < slash);
    let (user_info, host) = match at {
        Some(at) => (&rest[..at], &rest[at + 1..slash]),
        None => ("", &rest[..slash]),
    };
    let host = percent_decoded(host);
    !host.is_empty()
        && !host.contains(&b'\n')
        && !percent_decoded(user_info).contains(&b'\n')
        && !percent_decoded(&rest[slash..]).contains(&b'\n')
}

/// `%XX` escapes decoded; anything else, a bad escape too, kept as it is.
fn percent_decoded(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && let (Some(hi), Some(lo)) = (
                bytes.get(i + 1).copied().and_then(hex),
                bytes.get(i + 2).copied().and_then(hex),
            )
        {
            out.push((hi * 16 + lo) as u8);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::refusal;

    fn module(body: &str) -> Option<String> {
        refusal(format!("[submodule \"m\"]\n\tpath = m\n{body}").as_bytes())
    }

    #[test]
    fn what_git_submodule_would_misread_is_refused() {
        let refused = [
            ("\turl = -upload-pack=touch /tmp/pwn\n", "gitmodulesUrl"),
            ("\turl = ../../../:evil.example/x.git\n", "gitmodulesUrl"),
            ("\turl = ..//evil\n", "gitmodulesUrl"),
            ("\turl = ./x%0ahost=evil\n", "gitmodulesUrl"),
            ("\turl = git://host/x%0Ay\n", "gitmodulesUrl"),
            ("\turl = https:///example.com/x.git\n", "gitmodulesUrl"),
            ("\turl = http::https:///x\n", "gitmodulesUrl"),
            ("\turl = https://user%0a@example.com/x\n", "gitmodulesUrl"),
            ("\turl = https://example.com/x%0ay\n", "gitmodulesUrl"),
            ("\tpath = -x\n", "gitmodulesPath"),
            ("\tupdate = !rm -rf ~\n", "gitmodulesUpdate"),
        ];
        for (body, id) in refused {
            let why = module(body).unwrap_or_else(|| panic!("accepted {body:?}"));
            assert!(why.contains(id), "{body:?}: {why}");
        }
        for name in ["..", "a/../b", "..\\x", "x/.."] {
            let text = format!(
                "[submodule \"{}\"]\n\turl = ../ok.git\n",
                name.replace('\\', "\\\\")
            );
            let why = refusal(text.as_bytes()).unwrap_or_else(|| panic!("accepted {name}"));
            assert!(why.contains("gitmodulesName"), "{name}: {why}");
        }
    }

    #[test]
    fn ordinary_submodules_pass() {
        for body in [
            "\turl = https://github.com/o/r.git\n",
            "\turl = http::https://example.com/r\n",
            "\turl = ../sibling.git\n",
            "\turl = ./sub\n",
            "\turl = git@github.com:o/r.git\n",
            "\turl = ssh://git@example.com/r\n",
            "\turl = /srv/git/r.git\n",
            "\turl = git://example.com/r.git\n",
            "\tupdate = rebase\n\tbranch = main\n",
            "\tpath = a-b\n",
            "\turl = https://:443/x\n",
        ] {
            assert_eq!(module(body), None, "{body:?}");
        }
        for name in ["a..b", "...", "sub/..x"] {
            let text = format!("[submodule \"{name}\"]\n\tpath = x\n");
            assert_eq!(refusal(text.as_bytes()), None, "{name}");
        }
    }

    #[test]
    fn entries_before_a_syntax_error_are_still_judged() {
        let text = "[submodule \"m\"]\n\turl = -x\n[broken\n";
        assert!(refusal(text.as_bytes()).is_some());
        assert_eq!(
            refusal(b"[broken\n\turl = -x\n"),
            None,
            "git cannot parse it either"
        );
        assert_eq!(refusal(b"\xff\xfe not config"), None);
    }
}

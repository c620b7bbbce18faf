//! Who runs the operations of this thread, for the op log (issue 26):
//! `cli` unless a front end says otherwise for the duration of a call
//! ([`scoped`]: `mcp:<client name>`, `web`) or for the whole process
//! ([`set_default`]: the hook binary's `hook`). A thread-local, as
//! `progress::scoped`, so no parameter runs through every use case.

use std::cell::RefCell;
use std::sync::OnceLock;

static DEFAULT: OnceLock<String> = OnceLock::new();

thread_local! {
    static CURRENT: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// The actor of this process when no call says otherwise (set once).
pub fn set_default(actor: &str) {
    let _ = DEFAULT.set(actor.to_string());
}

/// This thread's actor until the guard drops (then the one before it).
#[must_use = "the actor is this thread's only while the guard lives"]
pub struct Entered(Option<String>);

impl Drop for Entered {
    fn drop(&mut self) {
        let previous = self.0.take();
        CURRENT.with(|c| *c.borrow_mut() = previous);
    }
}

/// Makes `actor` this thread's actor while the returned guard lives (a
/// pooled thread never keeps a call's actor).
pub fn enter(actor: &str) -> Entered {
    Entered(CURRENT.with(|c| c.borrow_mut().replace(actor.to_string())))
}

/// Runs `f` with `actor` as this thread's actor.
pub fn scoped<T>(actor: &str, f: impl FnOnce() -> T) -> T {
    let _entered = enter(actor);
    f()
}

/// The actor an operation recorded now is attributed to.
pub fn current() -> String {
    CURRENT
        .with(|c| c.borrow().clone())
        .or_else(|| DEFAULT.get().cloned())
        .unwrap_or_else(|| "cli".to_string())
}

/// The actor of an MCP client that said its name in `initialize`.
pub fn mcp(client: Option<&str>) -> String {
    match client.map(str::trim).filter(|n| !n.is_empty()) {
        Some(name) => format!("mcp:{name}"),
        None => "mcp".to_string(),
    }
}

//! How the command line opens a session: the context its use cases run
//! with (the actor the op log names, `cli`, or `hook` for the hook binary;
//! the progress bars, for the commands that draw them), and what the
//! session's automatic recovery did, told to the user.

use std::path::Path;

use super::{Output, recover};
use crate::context::Context;
use crate::error::Result;
use crate::ops::Session;
use crate::ops::UseCase;

/// Who the op log names for what the command line does.
pub(crate) const CLI_ACTOR: &str = "cli";

/// Who it names for what the hook binary does.
pub(super) const HOOK_ACTOR: &str = "hook";

/// Opens the repository as requests of type `R` say (`ops::session::Open`)
/// and tells the user what an automatic recovery did.
pub(crate) fn session<R: UseCase>(dir: &Path, out: &Output) -> Result<Session> {
    opened::<R>(dir, out, Context::new(CLI_ACTOR))
}

/// [`session`] for the commands whose work is drawn as progress on stderr
/// (when `out` allows it): propose, apply, rollback, undo and redo.
pub(crate) fn drawing_session<R: UseCase>(dir: &Path, out: &Output) -> Result<Session> {
    let context = Context::new(CLI_ACTOR).with_progress(out.progress());
    opened::<R>(dir, out, context)
}

fn opened<R: UseCase>(dir: &Path, out: &Output, context: Context) -> Result<Session> {
    let session = Session::open_for::<R>(dir, context)?;
    recover::report_automatic(&session, out);
    Ok(session)
}

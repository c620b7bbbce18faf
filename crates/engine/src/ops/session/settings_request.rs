//! The settings around a directory, asked for without a use case of
//! their own (the command line's colour and pager).

use super::{Open, Session, UseCase};
use crate::error::Result;
use crate::ops::settings::Settings;

/// A session without a repository, for its settings.
pub struct SettingsRequest;

impl UseCase for SettingsRequest {
    const OPEN: Open = Open::NoRepository;
    type Outcome = Settings;

    fn run(&self, session: &Session) -> Result<Settings> {
        Ok(session.settings()?.clone())
    }
}

//! [`Error`]: what a use case of the application layer reports, with the
//! context of where it happened ("stage graph, film x: …"), the way the CLI
//! prints it.

use std::error::Error as StdError;
use std::fmt;

/// An application-layer error: a message, or a message wrapped around the error
/// that caused it. Displayed alone it is the outermost message; `{:#}` through
/// `anyhow` (the CLI's edge) prints the whole chain.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A problem this layer found itself ("no screenplay in …").
    #[error("{0}")]
    Message(String),
    /// `context` around the error that caused it.
    #[error("{context}")]
    Context {
        /// What was being done.
        context: String,
        /// Why it failed.
        #[source]
        source: Box<dyn StdError + Send + Sync + 'static>,
    },
    /// An error from a layer below, passed on unchanged.
    #[error(transparent)]
    Below(Box<dyn StdError + Send + Sync + 'static>),
}

/// A use case's result.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An error that is only a message.
    pub fn msg(text: impl fmt::Display) -> Error {
        Error::Message(text.to_string())
    }
}

/// An error this layer can wrap: every error type of the layers below, and its own.
pub trait Cause: Sized {
    /// The error as the source of a context message.
    fn boxed(self) -> Box<dyn StdError + Send + Sync + 'static>;
}

impl Cause for Error {
    fn boxed(self) -> Box<dyn StdError + Send + Sync + 'static> {
        Box::new(self)
    }
}

/// Errors of the layers below: `?` passes them on, [`Context`] wraps them.
macro_rules! causes {
    ($($t:ty),* $(,)?) => {$(
        impl Cause for $t {
            fn boxed(self) -> Box<dyn StdError + Send + Sync + 'static> {
                Box::new(self)
            }
        }
        impl From<$t> for Error {
            fn from(e: $t) -> Error {
                Error::Below(Box::new(e))
            }
        }
    )*};
}

causes!(
    std::io::Error,
    serde_json::Error,
    std::fmt::Error,
    crate::store::StoreError,
    crate::store::MergeError,
    crate::llm::LlmError,
    crate::llm::batch::BatchError,
    crate::llm::ConfigError,
    crate::llm::local::LocalError,
    crate::embed::EmbedError,
    crate::graph::gold::GoldError,
    crate::screenplay::ParseError,
    crate::media::subtitles::SubtitleError,
    crate::media::shots::ShotError,
    crate::media::video::VideoError,
    crate::graph::GraphError,
    crate::trees::jsonl::TreeFileError,
    crate::trees::import::ImportError,
    crate::eval::protocol::ProtocolError,
    crate::eval::subject::SubjectError,
    crate::eval::html::HtmlError,
);

/// `anyhow`-style context on results and options.
pub trait Context<T> {
    /// Wraps the error (or `None`) in `context`.
    fn context(self, context: impl fmt::Display) -> Result<T>;
    /// Wraps the error (or `None`) in the message `f` makes, made only on failure.
    fn with_context<C: fmt::Display>(self, f: impl FnOnce() -> C) -> Result<T>;
}

impl<T, E: Cause> Context<T> for std::result::Result<T, E> {
    fn context(self, context: impl fmt::Display) -> Result<T> {
        self.map_err(|e| Error::Context {
            context: context.to_string(),
            source: e.boxed(),
        })
    }

    fn with_context<C: fmt::Display>(self, f: impl FnOnce() -> C) -> Result<T> {
        self.map_err(|e| Error::Context {
            context: f().to_string(),
            source: e.boxed(),
        })
    }
}

impl<T> Context<T> for Option<T> {
    fn context(self, context: impl fmt::Display) -> Result<T> {
        self.ok_or_else(|| Error::msg(context))
    }

    fn with_context<C: fmt::Display>(self, f: impl FnOnce() -> C) -> Result<T> {
        self.ok_or_else(|| Error::msg(f()))
    }
}

/// Returns early with an [`Error::Message`] formatted like `format!`.
macro_rules! bail {
    ($($arg:tt)*) => {
        return Err($crate::workspace::Error::msg(format!($($arg)*)))
    };
}
pub(crate) use bail;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_wraps_the_cause_and_keeps_it_as_the_source() {
        let r: std::result::Result<(), std::io::Error> = Err(std::io::Error::other("disk on fire"));
        let e = r.context("writing graphs/x.json").unwrap_err();
        assert_eq!(e.to_string(), "writing graphs/x.json");
        assert_eq!(e.source().unwrap().to_string(), "disk on fire");
        let chained = format!("{:#}", anyhow::Error::from(e));
        assert_eq!(chained, "writing graphs/x.json: disk on fire");
    }

    #[test]
    fn a_passed_on_error_reads_as_itself() {
        let e = Error::from(std::io::Error::other("gone"));
        assert_eq!(format!("{:#}", anyhow::Error::from(e)), "gone");
    }

    #[test]
    fn none_becomes_the_message() {
        let e = None::<u8>.context("no model handle").unwrap_err();
        assert_eq!(e.to_string(), "no model handle");
        assert!(e.source().is_none());
    }
}

//! quick-xml errors in words, for `FdxError` messages.

use quick_xml::errors::{Error as XmlError, IllFormedError};
use quick_xml::escape::EscapeError;

/// An entity or character-reference error in words.
pub(super) fn escape_message(err: &EscapeError) -> String {
    match err {
        EscapeError::UnrecognizedEntity(_, name) => format!(
            "reference to the undeclared entity `&{name};` (only &amp; &lt; &gt; &quot; &apos; and \
             character references are read; entities from a DOCTYPE are never expanded)"
        ),
        EscapeError::UnterminatedEntity(_) => {
            "`&` that does not start an entity reference ending in `;` (a literal ampersand is written `&amp;`)".to_string()
        }
        EscapeError::InvalidCharRef(e) => format!("invalid character reference: {e}"),
    }
}

/// A reader error in words.
pub(super) fn xml_message(err: &XmlError) -> String {
    match err {
        XmlError::IllFormed(IllFormedError::MismatchedEndTag { expected, found }) => {
            format!("</{found}> where </{expected}> was expected (mismatched end tag)")
        }
        XmlError::IllFormed(IllFormedError::UnmatchedEndTag(tag)) => {
            format!("</{tag}> closes no open element")
        }
        XmlError::Escape(e) => escape_message(e),
        other => other.to_string(),
    }
}

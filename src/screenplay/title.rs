//! Title-page vocabulary shared by the readers that guess title-page keys
//! (FDX's positional paragraphs in `fdx/title.rs`, laid-out text's lines
//! before the story in `plaintext/build.rs`).
//!
//! Only the word lists are shared: each reader keeps its own rules, tuned to
//! what its files look like (FDX compares whole words and knows the
//! abbreviations; plain text looks for a full month name anywhere in the line).

/// Month names, lower case, in calendar order.
pub(crate) const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// Abbreviated month names, lower case (`sep` and `sept` both; `may` has none).
pub(crate) const MONTH_ABBREVIATIONS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
];

/// True when `word` (lower case) is a month's name or its abbreviation.
pub(crate) fn is_month_word(word: &str) -> bool {
    MONTHS.contains(&word) || MONTH_ABBREVIATIONS.contains(&word)
}

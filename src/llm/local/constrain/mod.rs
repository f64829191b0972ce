//! Schema-constrained decoding: a JSON schema is compiled into a byte-level
//! pushdown matcher, and at each step every vocabulary token that cannot
//! extend the parse is masked out, so the finished output always parses and
//! validates.
//!
//! Supported subset: `type` (a name or a list), `object` with `properties`
//! and `required` (properties are emitted in the order of the schema's
//! `properties` map, which is alphabetical unless serde_json's
//! `preserve_order` feature is on; optional ones may be skipped; no others), `array` with `items`, `minItems`, `maxItems`
//! (default bound [`schema::DEFAULT_MAX_ITEMS`]), `string` with `minLength`,
//! `maxLength` (default bound [`schema::DEFAULT_MAX_STRING_CHARS`]), escapes
//! and any UTF-8, `number`/`integer` (`minimum: 0`, or an integer range of at
//! most 1001 values), `boolean`, `null`, `enum`, `const`, `anyOf`, nesting.
//! Annotations (`description`, `title`, `format`, ...) are ignored; anything
//! else is a [`SchemaError`] naming the keyword. Output is compact JSON.
//!
//! Nothing here needs a model: the vocabulary is a list of byte strings.

pub mod machine;
pub mod mask;
pub mod schema;
pub mod validate;

#[cfg(test)]
mod proptests;

pub use mask::{Matcher, SchemaMasks, TokenSet, VocabTrie};
pub use schema::{Grammar, SchemaError};
pub use validate::validate;

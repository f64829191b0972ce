//! Films: the unit every stage's rows hang off.

use rusqlite::{params, OptionalExtension};

use super::{Store, StoreError};

/// A film's row id in the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FilmId(pub i64);

impl Store {
    /// Returns the film with this slug, creating it (with `title`) if it is new.
    pub fn ensure_film(&self, slug: &str, title: Option<&str>) -> Result<FilmId, StoreError> {
        if let Some(id) = self.film_id(slug)? {
            return Ok(id);
        }
        self.conn
            .execute(
                "INSERT INTO films (slug, title) VALUES (?1, ?2)",
                params![slug, title],
            )
            .map_err(|source| self.sql_error(source))?;
        Ok(FilmId(self.conn.last_insert_rowid()))
    }

    /// The id of the film with this slug, if the store has it.
    pub fn film_id(&self, slug: &str) -> Result<Option<FilmId>, StoreError> {
        self.conn
            .query_row("SELECT id FROM films WHERE slug = ?1", [slug], |row| {
                row.get(0).map(FilmId)
            })
            .optional()
            .map_err(|source| self.sql_error(source))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ensure_film_is_idempotent() {
        let store = Store::open_in_memory().unwrap();
        let a = store
            .ensure_film("the-second-key", Some("The Second Key"))
            .unwrap();
        let b = store.ensure_film("the-second-key", None).unwrap();
        assert_eq!(a, b);
        assert_eq!(store.film_id("other").unwrap(), None);
    }
}

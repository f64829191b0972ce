//! One writer per store at a time. A command that writes a workspace's store
//! takes [`WriterLock`] first: an exclusive lock on `<store>.lock` beside the
//! database, which the operating system releases when the process ends, even
//! when it is killed. A second process waits its turn (saying so once) or,
//! asked not to wait, stops with an error naming the store and the process
//! that holds it — never a raw SQL error, never a run resumed under a live one.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::{Context, Error, Result};
use crate::util::report::Reporter;

/// What to do when another process holds the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wait {
    /// Block until it is free, after a note to the reporter.
    Yes,
    /// Stop with an error at once.
    No,
}

/// The held lock; dropping it (or the process ending) releases the store.
#[derive(Debug)]
pub struct WriterLock {
    file: File,
    path: PathBuf,
}

impl WriterLock {
    /// The lock file of the store at `store`: `<store>.lock`.
    pub fn path_for(store: &Path) -> PathBuf {
        let mut name = store.as_os_str().to_owned();
        name.push(".lock");
        PathBuf::from(name)
    }

    /// Takes the store at `store` for `command` (e.g. "moviegraph run"), waiting
    /// or not as `wait` says; a wait is noted to `reporter`.
    pub fn acquire(
        store: &Path,
        command: &str,
        wait: Wait,
        reporter: &dyn Reporter,
    ) -> Result<WriterLock> {
        let path = Self::path_for(store);
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .with_context(|| format!("opening the store's lock file {}", path.display()))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let holder = holder(&mut file);
                match wait {
                    Wait::No => {
                        return Err(Error::msg(format!(
                            "the store {} is in use by {holder}; wait for it to finish, or run \
                             without --no-wait to wait for it",
                            store.display()
                        )))
                    }
                    Wait::Yes => {
                        reporter.note(&format!(
                            "waiting for the store {}: it is in use by {holder} (one writer at a \
                             time; --no-wait stops instead)",
                            store.display()
                        ));
                        file.lock().with_context(|| {
                            format!("waiting for the lock on {}", path.display())
                        })?;
                    }
                }
            }
            Err(TryLockError::Error(e)) => {
                return Err(e).with_context(|| format!("locking {}", path.display()))
            }
        }
        let me = format!(
            "process {} (`{command}`, started {})",
            std::process::id(),
            httpdate::fmt_http_date(std::time::SystemTime::now())
        );
        file.set_len(0)
            .and_then(|()| file.seek(SeekFrom::Start(0)))
            .and_then(|_| file.write_all(me.as_bytes()))
            .and_then(|()| file.flush())
            .with_context(|| format!("writing {}", path.display()))?;
        Ok(WriterLock { file, path })
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for WriterLock {
    fn drop(&mut self) {
        // Leave the file (another process may be waiting on it); say nobody holds it.
        let _ = self.file.set_len(0);
        let _ = self.file.unlock();
    }
}

/// Who holds the lock, as its holder wrote it. A holder writes its line just
/// after it takes the lock, so an empty file is read again for a moment.
fn holder(file: &mut File) -> String {
    for _ in 0..20 {
        let mut text = String::new();
        let _ = file.seek(SeekFrom::Start(0));
        let _ = file.read_to_string(&mut text);
        let text = text.trim();
        if !text.is_empty() {
            return text.to_owned();
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    "another process".to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::report::{Recorder, Silent};

    #[test]
    fn a_second_writer_that_does_not_wait_is_told_who_holds_the_store() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("w.db");
        let first = WriterLock::acquire(&store, "moviegraph run", Wait::No, &Silent).unwrap();
        let err = WriterLock::acquire(&store, "moviegraph run", Wait::No, &Silent)
            .unwrap_err()
            .to_string();
        assert!(err.contains("w.db"), "{err}");
        assert!(
            err.contains(&format!("process {}", std::process::id())),
            "{err}"
        );
        assert!(err.contains("`moviegraph run`"), "{err}");
        drop(first);
        WriterLock::acquire(&store, "moviegraph run", Wait::No, &Silent).unwrap();
    }

    #[test]
    fn a_waiting_writer_gets_the_store_when_the_first_lets_go() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("w.db");
        let first = WriterLock::acquire(&store, "one", Wait::No, &Silent).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let s = store.clone();
        let notes = std::sync::Arc::new(Recorder::default());
        let seen = notes.clone();
        let waiter = std::thread::spawn(move || {
            let lock = WriterLock::acquire(&s, "two", Wait::Yes, seen.as_ref()).unwrap();
            tx.send(()).unwrap();
            drop(lock);
        });
        assert!(rx
            .recv_timeout(std::time::Duration::from_millis(300))
            .is_err());
        drop(first);
        rx.recv_timeout(std::time::Duration::from_secs(10)).unwrap();
        waiter.join().unwrap();
        // The wait was said once, through the reporter, naming the holder.
        let lines = notes.lines();
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(
            lines[0].starts_with("note: waiting for the store") && lines[0].contains("`one`"),
            "{lines:?}"
        );
    }
}

//! Atomic file writes: the new bytes go to a temporary file in the same
//! folder, are synced, and are renamed over the target, so a crash leaves the
//! old file or the new one, never half of one.

use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `path` through `.{name}.tmp` in the same folder (created
/// if missing), synced and renamed into place; the temporary file is removed
/// when any step fails. The temporary name is the same for every writer, so
/// the leftover of a writer killed mid-write is overwritten by the next one
/// rather than left behind; writers of one path take turns (the workspace's
/// store lock), so they never share it at once.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp"));
    let result = (|| -> std::io::Result<()> {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn writes_replaces_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join("out.json");
        write_atomic(&path, b"one").unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        assert_eq!(names(&dir.path().join("sub")), ["out.json"]);
    }

    #[test]
    fn the_leftover_of_a_writer_killed_mid_write_is_not_left_behind() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("report.json");
        // What a SIGKILL between create and rename leaves.
        std::fs::write(dir.path().join(".report.json.tmp"), b"half").unwrap();
        write_atomic(&path, b"whole").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"whole");
        assert_eq!(names(dir.path()), ["report.json"]);
    }

    #[test]
    fn a_failed_rename_removes_the_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("taken");
        std::fs::create_dir(&target).unwrap();
        std::fs::write(target.join("inside"), b"x").unwrap();
        assert!(write_atomic(&target, b"bytes").is_err());
        assert_eq!(names(dir.path()), ["taken"]);
    }
}

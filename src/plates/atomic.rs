//! Replacing a folder so that no reader ever sees it half written.
//!
//! The new contents go into a temporary folder beside the target (same parent, so the same
//! file system and a rename is atomic), each file flushed with `fsync`, then the folder
//! itself. Then the target, if any, is renamed aside, the temporary folder renamed to the
//! target, the parent flushed, and the old folder removed. A reader therefore finds the
//! complete old folder, the complete new one, or — between the two renames, a few
//! microseconds — none at all; never a mix, never a partial file. (Swapping two folders in
//! one step needs `renameat2(RENAME_EXCHANGE)`, which the standard library does not offer.)

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::PlateError;

/// Makes the temporary names of concurrent writes within one process distinct.
static NEXT_ID: AtomicU64 = AtomicU64::new(0);

/// Splits a target folder path into its parent (`.` for a bare name) and its name.
fn split_target(dir: &Path) -> Result<(PathBuf, String), PlateError> {
    let invalid = || {
        PlateError::write(
            dir,
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "the plate folder needs a plain folder name",
            ),
        )
    };
    let name = dir
        .file_name()
        .ok_or_else(invalid)?
        .to_str()
        .ok_or_else(invalid)?
        .to_owned();
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Ok((parent, name))
}

/// Writes `bytes` to a new file at `path` and flushes it to the disk.
fn write_synced(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = fs::File::create_new(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

/// Flushes a folder's entries (new names, renames) to the disk. Only Unix can open a folder
/// for this; elsewhere the rename is atomic but its durability is the file system's affair.
fn sync_folder(path: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        fs::File::open(path)?.sync_all()
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        Ok(())
    }
}

/// Replaces the file `path` with `bytes` atomically: written to a hidden temporary name in
/// the same folder, flushed, then renamed over `path`, so a reader (an image viewer that
/// reloads) sees the old file or the new one, never a part. Creates missing parents.
pub(super) fn write_file_atomically(path: &Path, bytes: &[u8]) -> Result<(), PlateError> {
    let (parent, name) = split_target(path)?;
    fs::create_dir_all(&parent).map_err(|e| PlateError::write(&parent, e))?;
    let tmp = parent.join(format!(".{name}.tmp-{}", std::process::id()));
    let _ = fs::remove_file(&tmp);
    if let Err(e) = write_synced(&tmp, bytes) {
        let _ = fs::remove_file(&tmp);
        return Err(PlateError::write(&tmp, e));
    }
    if let Err(e) = fs::rename(&tmp, path) {
        let _ = fs::remove_file(&tmp);
        return Err(PlateError::write(path, e));
    }
    Ok(())
}

/// Replaces the folder `dir` with one holding exactly `files` (name, contents), atomically
/// as described in the module documentation. On error, removes the temporary folder and
/// leaves `dir` as it was. Creates `dir`'s missing parents. Refuses a `dir` that exists and
/// is not a folder (or a link to one).
pub(super) fn write_folder_atomically(
    dir: &Path,
    files: &[(&str, Vec<u8>)],
) -> Result<(), PlateError> {
    let (parent, name) = split_target(dir)?;
    fs::create_dir_all(&parent).map_err(|e| PlateError::write(&parent, e))?;
    let target_exists = match fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => true,
        Ok(_) => {
            return Err(PlateError::write(
                dir,
                io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    "it exists and is not a folder",
                ),
            ))
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => false,
        Err(e) => return Err(PlateError::write(dir, e)),
    };

    let pid = std::process::id();
    let (tmp, id) = loop {
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        let tmp = parent.join(format!(".{name}.tmp-{pid}-{id}"));
        match fs::create_dir(&tmp) {
            Ok(()) => break (tmp, id),
            // Left behind by a process that had our pid and crashed: pick the next name.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(PlateError::write(&tmp, e)),
        }
    };
    let discard = |e: PlateError| {
        // The temporary folder is ours alone; failing to remove it cannot make things worse
        // than the error being returned.
        let _ = fs::remove_dir_all(&tmp);
        e
    };

    for (file, bytes) in files {
        let path = tmp.join(file);
        write_synced(&path, bytes).map_err(|e| discard(PlateError::write(dir.join(file), e)))?;
    }
    sync_folder(&tmp).map_err(|e| discard(PlateError::write(&tmp, e)))?;

    let old = parent.join(format!(".{name}.old-{pid}-{id}"));
    if target_exists {
        fs::rename(dir, &old).map_err(|e| discard(PlateError::write(dir, e)))?;
    }
    if let Err(e) = fs::rename(&tmp, dir) {
        let e = if target_exists {
            match fs::rename(&old, dir) {
                Ok(()) => e,
                Err(back) => io::Error::new(
                    e.kind(),
                    format!(
                        "{e}; the previous folder could not be moved back ({back}) and is at {}",
                        old.display()
                    ),
                ),
            }
        } else {
            e
        };
        return Err(discard(PlateError::write(dir, e)));
    }
    // The new folder is in place and complete. Flushing the parent makes the rename
    // durable, and removing the old folder frees its space; if either fails the plate is
    // still correctly written, so neither is reported as a failure of the write.
    let _ = sync_folder(&parent);
    if target_exists {
        let _ = fs::remove_dir_all(&old);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listing(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn splits_target_paths() {
        assert_eq!(
            split_target(Path::new("plates")).unwrap(),
            (PathBuf::from("."), "plates".into())
        );
        assert_eq!(
            split_target(Path::new("out/room/plates/")).unwrap(),
            (PathBuf::from("out/room"), "plates".into())
        );
        assert_eq!(
            split_target(Path::new("/plates")).unwrap(),
            (PathBuf::from("/"), "plates".into())
        );
        for bad in ["/", "..", "out/..", ""] {
            let e = split_target(Path::new(bad)).unwrap_err();
            assert_eq!(e.source.kind(), io::ErrorKind::InvalidInput, "{bad:?}");
        }
    }

    #[test]
    fn failure_while_writing_keeps_the_old_folder() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("plates");
        write_folder_atomically(&dir, &[("a.txt", b"old a".to_vec())]).unwrap();

        // The second file cannot be created (its folder does not exist), after the first
        // was written into the temporary folder.
        let e = write_folder_atomically(
            &dir,
            &[
                ("a.txt", b"new a".to_vec()),
                ("no/such/b.txt", b"b".to_vec()),
            ],
        )
        .unwrap_err();
        assert_eq!(e.source.kind(), io::ErrorKind::NotFound);
        assert_eq!(e.path, dir.join("no/such/b.txt"));
        assert_eq!(listing(tmp.path()), ["plates"]);
        assert_eq!(listing(&dir), ["a.txt"]);
        assert_eq!(fs::read(dir.join("a.txt")).unwrap(), b"old a");

        // A repeated name fails on the second write (files are created, never overwritten).
        let e = write_folder_atomically(&dir, &[("x", vec![1]), ("x", vec![2])]).unwrap_err();
        assert_eq!(e.source.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(listing(tmp.path()), ["plates"]);
        assert_eq!(fs::read(dir.join("a.txt")).unwrap(), b"old a");

        // And a good write replaces the folder's whole contents.
        write_folder_atomically(&dir, &[("b.txt", b"new b".to_vec())]).unwrap();
        assert_eq!(listing(tmp.path()), ["plates"]);
        assert_eq!(listing(&dir), ["b.txt"]);
    }

    #[test]
    fn skips_temporary_names_left_by_a_crash() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("plates");
        let pid = std::process::id();
        // Squat on the next temporary names this process could pick (64 of them: more than
        // all the other tests of this process together take, even running concurrently).
        let next = NEXT_ID.load(Ordering::Relaxed);
        let mut expected: Vec<String> = (next..next + 64)
            .map(|id| format!(".plates.tmp-{pid}-{id}"))
            .collect();
        for s in &expected {
            fs::create_dir(tmp.path().join(s)).unwrap();
        }
        write_folder_atomically(&dir, &[("a", vec![7])]).unwrap();
        assert_eq!(fs::read(dir.join("a")).unwrap(), [7]);
        // The squatters are not ours to remove, and they are all that is left beside it.
        expected.push("plates".into());
        expected.sort();
        assert_eq!(listing(tmp.path()), expected);
        assert!(NEXT_ID.load(Ordering::Relaxed) > next + 64);
    }

    #[cfg(unix)]
    #[test]
    fn a_link_to_a_folder_is_replaced_by_a_folder() {
        let tmp = tempfile::tempdir().unwrap();
        let elsewhere = tmp.path().join("elsewhere");
        fs::create_dir(&elsewhere).unwrap();
        fs::write(elsewhere.join("keep.txt"), b"mine").unwrap();
        let dir = tmp.path().join("plates");
        std::os::unix::fs::symlink(&elsewhere, &dir).unwrap();
        write_folder_atomically(&dir, &[("a", vec![1])]).unwrap();
        assert!(fs::symlink_metadata(&dir).unwrap().is_dir());
        assert_eq!(listing(&dir), ["a"]);
        assert_eq!(listing(&elsewhere), ["keep.txt"]);
        assert_eq!(listing(tmp.path()), ["elsewhere", "plates"]);
    }
}

//! The files the binary writes (`--html`, `--directory`, `gen --output`,
//! `results.edn`, benchmark files): each is written whole or not at all.
//!
//! A file is written under a temporary name in its own directory and renamed
//! to its name once complete, so that a failed write (a full disk, a file
//! size limit, a stop) leaves the file that was there before, or none,
//! never a truncated one; the temporary file is removed on failure. A
//! directory of artifacts is built the same way, in a temporary sibling,
//! then moved into place ([`replace_dir`]). What is not a regular file (a
//! device such as `/dev/null`, a FIFO) is written in place: renaming over it
//! would replace it.
//!
//! A file size limit (`ulimit -f`) is an error of the write that passes it
//! once the binary ignores SIGXFSZ (it does at startup).

use std::fs::{self, Permissions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path`, whole or not at all.
pub fn write(path: &Path, bytes: impl AsRef<[u8]>) -> io::Result<()> {
    write_with(path, |w| w.write_all(bytes.as_ref()))
}

/// Writes `path` with `write` (through a buffer), whole or not at all;
/// what `write` returns.
pub fn write_with<T>(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<T>,
) -> io::Result<T> {
    let path = resolved(path);
    let existing = fs::metadata(&path).ok();
    if existing
        .as_ref()
        .is_some_and(|m| !m.is_file() && !m.is_dir())
    {
        // A device or a FIFO: written in place.
        let mut out = BufWriter::new(fs::OpenOptions::new().write(true).open(&path)?);
        let value = write(&mut out)?;
        out.flush()?;
        return Ok(value);
    }
    let mut tmp = temporary_file(&path)?;
    if let Some(m) = &existing {
        // The file keeps its permissions, as it did when truncated; a
        // failure leaves the default ones, which is no reason to fail.
        let _ = fs::set_permissions(tmp.path(), m.permissions());
    }
    let mut out = BufWriter::new(tmp.as_file_mut());
    let value = write(&mut out)?;
    out.flush()?;
    drop(out);
    tmp.persist(&path).map_err(|e| e.error)?;
    Ok(value)
}

/// A new file beside `path`, named after it, removed when dropped unless
/// it is renamed.
fn temporary_file(path: &Path) -> io::Result<tempfile::NamedTempFile> {
    let mut builder = tempfile::Builder::new();
    let prefix = format!(".{}.", file_name(path));
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // What `File::create` asks for: read and write for all, less the umask.
        builder.permissions(Permissions::from_mode(0o666));
    }
    builder.tempfile_in(directory_of(path))
}

/// Replaces the artifacts of an earlier run in `dir` with new ones, keeping
/// every other file there: `fill` writes the new ones into an empty
/// temporary directory beside `dir`; once it succeeded, `remove_own`
/// removes from `dir` what an earlier run wrote, and the new entries are
/// moved in. When `dir` does not exist the temporary directory becomes it.
/// If `fill` fails, `dir` is left as it was.
pub fn replace_dir(
    dir: &Path,
    remove_own: impl FnOnce(&Path) -> io::Result<()>,
    fill: impl FnOnce(&Path) -> io::Result<()>,
) -> io::Result<()> {
    let dir = resolved(dir);
    let parent = directory_of(&dir);
    fs::create_dir_all(&parent)?;
    let staging = tempfile::Builder::new()
        .prefix(&format!(".{}.", file_name(&dir)))
        .tempdir_in(&parent)?;
    fill(staging.path())?;
    match fs::metadata(&dir) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            fs::rename(staging.path(), &dir)?;
            // Renamed: nothing is left to remove.
            let _ = staging.keep();
            Ok(())
        }
        Err(e) => Err(e),
        Ok(m) if !m.is_dir() => Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            "it exists and is not a directory",
        )),
        Ok(_) => {
            remove_own(&dir)?;
            move_into(staging.path(), &dir)
        }
    }
}

/// Moves every entry of `from` into `to`, merging directories that are in
/// both and replacing files.
fn move_into(from: &Path, to: &Path) -> io::Result<()> {
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        let both_dirs = entry.file_type()?.is_dir() && target.is_dir();
        match both_dirs {
            true => move_into(&entry.path(), &target)?,
            false => fs::rename(entry.path(), &target)?,
        }
    }
    Ok(())
}

/// `path`, or what it links to when it is a symbolic link (so that the
/// file linked to is replaced, not the link).
fn resolved(path: &Path) -> PathBuf {
    let is_link = fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    match is_link {
        true => fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()),
        false => path.to_path_buf(),
    }
}

/// The directory a path's entry is in (`.` for a bare name).
fn directory_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map_or_else(|| "isocheck".into(), |n| n.to_string_lossy().into_owned())
}

/// Whether two paths name the same file (the same device and inode, or
/// the same canonical path). A path that does not exist is no file.
pub fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(x), Ok(y)) = (fs::metadata(a), fs::metadata(b)) {
            return (x.dev(), x.ino()) == (y.dev(), y.ino());
        }
    }
    match (fs::canonicalize(a), fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("isocheck-files-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn a_failed_write_leaves_the_old_file_and_no_temporary_one() {
        let dir = scratch("failed");
        let path = dir.join("out.html");
        write(&path, "old").unwrap();
        let failed: io::Result<()> = write_with(&path, |w| {
            w.write_all(b"half")?;
            Err(io::Error::other("disk full"))
        });
        assert!(failed.is_err());
        assert_eq!(fs::read_to_string(&path).unwrap(), "old");
        assert_eq!(names(&dir), ["out.html"]);
        write(&path, "new").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
        let _ = fs::remove_dir_all(&dir);
    }

    #[cfg(unix)]
    #[test]
    fn a_device_is_written_in_place() {
        use std::os::unix::fs::FileTypeExt;
        write(Path::new("/dev/null"), "gone").unwrap();
        let kind = fs::metadata("/dev/null").unwrap().file_type();
        assert!(kind.is_char_device());
    }

    #[test]
    fn a_directory_keeps_foreign_files_and_loses_its_old_artifacts() {
        let dir = scratch("replace");
        let out = dir.join("out");
        let fill = |files: &'static [&'static str]| {
            move |d: &Path| {
                for f in files {
                    fs::create_dir_all(d.join(f).parent().unwrap())?;
                    fs::write(d.join(f), f)?;
                }
                Ok(())
            }
        };
        let own = |d: &Path| {
            for f in ["a.txt", "sub/1.dot"] {
                let _ = fs::remove_file(d.join(f));
            }
            Ok(())
        };
        replace_dir(&out, own, fill(&["a.txt", "sub/1.dot"])).unwrap();
        fs::write(out.join("mine.txt"), "user's").unwrap();
        replace_dir(&out, own, fill(&["b.txt", "sub/2.dot"])).unwrap();
        assert_eq!(names(&out), ["b.txt", "mine.txt", "sub"]);
        assert_eq!(names(&out.join("sub")), ["2.dot"]);
        assert_eq!(names(&dir), ["out"]);
        let failed = replace_dir(&out, own, |_| Err(io::Error::other("stop")));
        assert!(failed.is_err());
        assert_eq!(names(&out), ["b.txt", "mine.txt", "sub"]);
        assert_eq!(names(&dir), ["out"]);
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_link_is_followed_and_kept() {
        let dir = scratch("link");
        let real = dir.join("real.html");
        write(&real, "old").unwrap();
        #[cfg(unix)]
        {
            let link = dir.join("link.html");
            std::os::unix::fs::symlink(&real, &link).unwrap();
            write(&link, "new").unwrap();
            assert!(fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink());
            assert_eq!(fs::read_to_string(&real).unwrap(), "new");
            assert!(same_file(&link, &real));
        }
        assert!(!same_file(&real, &dir.join("absent")));
        let _ = fs::remove_dir_all(&dir);
    }
}

//! An input's bytes and text as held in memory: read into a buffer, or,
//! for a large regular file, mapped from the page cache.
//!
//! Reading a 500 MB history into a buffer costs the kernel a zeroed page
//! for each 4 KB of it and a copy from the page cache into that page (a
//! third of the whole load's system time). A mapping shows the cached
//! pages as they are. The cost is the mapping's hazard: should another
//! process shrink the file while isocheck reads it, touching a page past
//! the new end kills isocheck with SIGBUS, and should it rewrite the file,
//! the text may change after it was checked to be UTF-8. A Jepsen history
//! is written once, before it is checked, so isocheck maps only regular
//! files of [`MAP_FROM`] bytes or more, where the copy is worth sparing
//! (and reads those its file system cannot map); pipes, FIFOs, standard
//! input and small files are read into a buffer.

use memmap2::Mmap;
use std::fs::File;
use std::ops::Deref;
use std::path::Path;
use std::sync::Arc;

/// Regular files of this many bytes or more are mapped.
pub(super) const MAP_FROM: u64 = 4 << 20;

/// An input's bytes. A clone shares a mapping (a bench parses one input
/// several times).
#[derive(Clone)]
pub(super) enum Bytes {
    Read(Vec<u8>),
    Mapped(Arc<Mmap>),
}

impl Deref for Bytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Read(b) => b,
            Bytes::Mapped(m) => m,
        }
    }
}

impl Bytes {
    /// The regular file at `path`, whose size was `len` bytes: mapped
    /// from [`MAP_FROM`] bytes on, else read.
    pub(super) fn of_file(path: &Path, len: u64) -> std::io::Result<Bytes> {
        if len < MAP_FROM {
            return std::fs::read(path).map(Bytes::Read);
        }
        let file = File::open(path)?;
        // SAFETY: the mapping is read-only; it stays valid while `Bytes`
        // owns it. What another process may do to the file meanwhile is
        // the hazard the module's comment accepts.
        // Not populated up front: the pages are faulted in (a few dozen at
        // a time) by the reader's threads, which poll the limits meanwhile.
        match unsafe { Mmap::map(&file) } {
            Ok(map) => Ok(Bytes::Mapped(Arc::new(map))),
            // A file system that cannot map the file can still read it.
            Err(_) => std::fs::read(path).map(Bytes::Read),
        }
    }
}

/// UTF-8 text: read into a `String`, or a mapping checked to be UTF-8.
pub struct Text(Held);

enum Held {
    Read(String),
    Mapped(Arc<Mmap>),
}

impl Text {
    /// The bytes as text, or the bytes back with the UTF-8 error.
    pub(super) fn of_bytes(bytes: Bytes) -> Result<Text, (Bytes, std::str::Utf8Error)> {
        match bytes {
            Bytes::Read(b) => String::from_utf8(b)
                .map(|s| Text(Held::Read(s)))
                .map_err(|e| {
                    let error = e.utf8_error();
                    (Bytes::Read(e.into_bytes()), error)
                }),
            Bytes::Mapped(m) => match std::str::from_utf8(&m) {
                Ok(_) => Ok(Text(Held::Mapped(m))),
                Err(e) => Err((Bytes::Mapped(m), e)),
            },
        }
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Held::Read(s) => s,
            // SAFETY: checked to be UTF-8 when the `Text` was made, and
            // the mapping is read-only; a file rewritten by another process
            // meanwhile is the hazard the module's comment accepts.
            Held::Mapped(m) => unsafe { std::str::from_utf8_unchecked(m) },
        }
    }
}

impl Deref for Text {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl From<String> for Text {
    fn from(s: String) -> Text {
        Text(Held::Read(s))
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Text {
        Text(Held::Read(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn file_of(bytes: &[u8]) -> tempfile::NamedTempFile {
        let mut f = tempfile::NamedTempFile::new().expect("temporary file");
        f.write_all(bytes).expect("written");
        f
    }

    /// A mapped file and the same file read hold the same bytes, and the
    /// same text.
    #[test]
    fn mapped_and_read_agree() {
        let body: Vec<u8> = "{:type :ok, :value [[:r é nil]]}\n"
            .bytes()
            .cycle()
            .take(MAP_FROM as usize + 7)
            .collect();
        let f = file_of(&body);
        let mapped = Bytes::of_file(f.path(), body.len() as u64).expect("mapped");
        assert!(matches!(mapped, Bytes::Mapped(_)));
        assert_eq!(&*mapped, &body[..]);
        let read = Bytes::of_file(f.path(), 0).expect("read");
        assert!(matches!(read, Bytes::Read(_)));
        let (mapped, read) = (Text::of_bytes(mapped), Text::of_bytes(read));
        let as_str = |t: Result<Text, _>| t.ok().map(|t| t.as_str().to_owned());
        assert_eq!(as_str(mapped), as_str(read));
    }

    /// Invalid UTF-8 in a mapping is found where a read finds it, and
    /// the bytes come back for the diagnostic.
    #[test]
    fn invalid_utf8_in_a_mapping_is_an_error() {
        let mut body = vec![b' '; MAP_FROM as usize + 3];
        body[MAP_FROM as usize] = 0xFF;
        let f = file_of(&body);
        let mapped = Bytes::of_file(f.path(), body.len() as u64).expect("mapped");
        let (back, e) = Text::of_bytes(mapped).err().expect("refused");
        assert_eq!(e.valid_up_to(), MAP_FROM as usize);
        assert_eq!(back.len(), body.len());
    }

    /// An empty file is read, not mapped (a mapping has at least a page).
    #[test]
    fn an_empty_file_is_read() {
        let f = file_of(b"");
        let bytes = Bytes::of_file(f.path(), 0).expect("read");
        assert!(matches!(bytes, Bytes::Read(ref b) if b.is_empty()));
    }
}

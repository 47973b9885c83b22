//! Jepsen's store file, `test.jepsen` (`jepsen.store.format`, Jepsen 0.3
//! on): the magic `JEPSEN`, a version (0 or 1), the offset of the current
//! block index, then blocks. Each block is a 28-byte header (length,
//! CRC32, type; the type field is declared 16 bytes long) and its data:
//! an index (type 1: the root block's id, then id and offset pairs),
//! Fressian (2), a partial map (3: a rest block's id, then Fressian), a
//! Fressian stream (4) or a big vector (5).
//!
//! Only what holds the test map is read: the header, the index it points
//! to, and the root block (a Fressian map whose `:history` and `:results`
//! are references to other blocks, or a partial map whose rest blocks are
//! followed only while a wanted key is missing). The history, however
//! large, is never touched. Every offset and length is checked against
//! the file's size, every block's checksum verified.

use super::fressian::{self, Limits, Value};
use std::collections::HashSet;
use std::io::{self, Read, Seek, SeekFrom};

const MAGIC: &[u8; 6] = b"JEPSEN";
/// Magic, version, index offset.
const FILE_HEADER: u64 = 18;
/// Length (8), checksum (4), type (2) and padding to 28.
const BLOCK_HEADER: u64 = 28;
/// The largest block read whole: a test map is kilobytes.
const MAX_BLOCK: u64 = 64 << 20;
/// Partial-map rest blocks followed at most.
const MAX_REST_BLOCKS: usize = 1024;

/// Why a `test.jepsen` could not give its test map.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The file breaks Jepsen's block format.
    #[error("{problem} at byte {at}")]
    Format {
        /// The byte where it is.
        at: u64,
        /// What is wrong.
        problem: String,
    },
    /// The file could not be read.
    #[error("{0}")]
    Io(#[from] io::Error),
}

fn format<T>(at: u64, problem: impl Into<String>) -> Result<T, Error> {
    Err(Error::Format {
        at,
        problem: problem.into(),
    })
}

/// The test map at the root of the file: the values of top-level keys
/// named `wanted` (as keywords) built, the others [`Value::Skipped`].
pub fn read_test_map(file: &mut (impl Read + Seek), wanted: &[&str]) -> Result<Value, Error> {
    let size = file.seek(SeekFrom::End(0))?;
    let mut f = File { file, size };
    let index_at = f.header()?;
    let index = f.block(index_at)?;
    if index.kind != 1 {
        return format(
            index_at,
            format!(
                "the header points to a block of type {}, not an index",
                index.kind
            ),
        );
    }
    let (root, offsets) = parse_index(&index)?;
    if root == 0 {
        return format(
            index.data_at,
            "the block index names no root (no test map was saved)",
        );
    }
    let keep = |k: &Value| key_name(k).is_some_and(|n| wanted.contains(&n));
    let mut seen = HashSet::new();
    let mut entries: Vec<(Value, Value)> = Vec::new();
    let mut next = root;
    // A partial map goes on in its rest block; earlier blocks' keys win,
    // as Jepsen's PartialMap looks them up.
    while next != 0 {
        if !seen.insert(next) || seen.len() > MAX_REST_BLOCKS {
            return format(
                index.data_at,
                format!("the test map's blocks loop back to block {next}"),
            );
        }
        let Some(&at) = offsets.iter().find(|(id, _)| *id == next).map(|(_, at)| at) else {
            return format(
                index.data_at,
                format!("the block index has no block {next}"),
            );
        };
        let block = f.block(at)?;
        let (rest, map) = match block.kind {
            2 => (0, decode(&block, 0, &keep)?),
            3 => {
                let Some(rest) = block.data.get(..4) else {
                    return format(
                        block.data_at,
                        "a partial map block without its rest pointer",
                    );
                };
                let rest = i32::from_be_bytes([rest[0], rest[1], rest[2], rest[3]]);
                (rest, decode(&block, 4, &keep)?)
            }
            other => {
                return format(
                    at,
                    format!("the test map's block is of type {other}, not a map"),
                )
            }
        };
        let Value::Map(kvs) = map else {
            return format(block.data_at, "the test map is not a map");
        };
        for (k, v) in kvs {
            if !entries.iter().any(|(known, _)| *known == k) {
                entries.push((k, v));
            }
        }
        let found = |name: &&str| entries.iter().any(|(k, _)| key_name(k) == Some(name));
        next = if wanted.iter().all(found) { 0 } else { rest };
    }
    Ok(Value::Map(entries))
}

/// A top-level keyword's name (Jepsen's test map keys have no namespace).
pub fn key_name(k: &Value) -> Option<&str> {
    match k {
        Value::Keyword { ns: None, name } => Some(name),
        _ => None,
    }
}

struct File<'f, R> {
    file: &'f mut R,
    size: u64,
}

/// A block's type and data, and where the data starts in the file.
struct Block {
    kind: u16,
    data: Vec<u8>,
    data_at: u64,
}

impl<R: Read + Seek> File<'_, R> {
    fn read_at(&mut self, at: u64, len: u64) -> Result<Vec<u8>, Error> {
        if at.checked_add(len).is_none_or(|end| end > self.size) {
            return format(
                at,
                format!("{len} bytes past the end of the file ({} bytes)", self.size),
            );
        }
        self.file.seek(SeekFrom::Start(at))?;
        let mut buf = vec![
            0;
            usize::try_from(len)
                .unwrap_or(usize::MAX)
                .min(MAX_BLOCK as usize)
        ];
        self.file.read_exact(&mut buf)?;
        Ok(buf)
    }

    /// The magic and the version checked; the offset of the block index.
    fn header(&mut self) -> Result<u64, Error> {
        if self.size < FILE_HEADER {
            return format(0, "a file shorter than Jepsen's header");
        }
        let h = self.read_at(0, FILE_HEADER)?;
        if &h[..6] != MAGIC {
            return format(0, "no JEPSEN magic");
        }
        let version = i32::from_be_bytes([h[6], h[7], h[8], h[9]]);
        if !(0..=1).contains(&version) {
            return format(6, format!("version {version} (isocheck reads 0 and 1)"));
        }
        let index = i64::from_be_bytes([h[10], h[11], h[12], h[13], h[14], h[15], h[16], h[17]]);
        match u64::try_from(index) {
            Ok(0) => format(
                10,
                "no block index (Jepsen wrote none: did the test crash?)",
            ),
            Ok(at) => Ok(at),
            Err(_) => format(10, format!("a block index offset of {index}")),
        }
    }

    /// The block at `at`, its length bounded and its checksum checked.
    fn block(&mut self, at: u64) -> Result<Block, Error> {
        let header = self.read_at(at, BLOCK_HEADER)?;
        let len = i64::from_be_bytes([
            header[0], header[1], header[2], header[3], header[4], header[5], header[6], header[7],
        ]);
        let stored = u32::from_be_bytes([header[8], header[9], header[10], header[11]]);
        let kind = u16::from_be_bytes([header[12], header[13]]);
        let data_len = match u64::try_from(len)
            .ok()
            .and_then(|l| l.checked_sub(BLOCK_HEADER))
        {
            Some(n) if n <= MAX_BLOCK => n,
            Some(n) => {
                return format(
                    at,
                    format!("a block of {n} bytes (isocheck reads blocks up to {MAX_BLOCK})"),
                )
            }
            None => return format(at, format!("a block length of {len}")),
        };
        let data_at = at + BLOCK_HEADER;
        let data = self.read_at(data_at, data_len)?;
        // The CRC32 of the data, then of the header with the checksum
        // zeroed (jepsen.store.format's block-checksum).
        let mut blank = header.clone();
        blank[8..12].fill(0);
        let mut crc = crc32fast::Hasher::new();
        crc.update(&data);
        crc.update(&blank);
        let actual = crc.finalize();
        if actual != stored {
            return format(
                at,
                format!("block checksum 0x{stored:08X} where its CRC32 is 0x{actual:08X}"),
            );
        }
        Ok(Block {
            kind,
            data,
            data_at,
        })
    }
}

/// An index block's root id and its (id, offset) pairs.
fn parse_index(index: &Block) -> Result<(i32, Vec<(i32, u64)>), Error> {
    let d = &index.data;
    if d.len() < 4 || !(d.len() - 4).is_multiple_of(12) {
        return format(index.data_at, format!("a block index of {} bytes", d.len()));
    }
    let root = i32::from_be_bytes([d[0], d[1], d[2], d[3]]);
    let pairs = d[4..]
        .chunks_exact(12)
        .map(|p| {
            let id = i32::from_be_bytes([p[0], p[1], p[2], p[3]]);
            let at = u64::from_be_bytes([p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11]]);
            (id, at)
        })
        .collect();
    Ok((root, pairs))
}

/// A block's Fressian from `skip` bytes into its data; errors placed in
/// the file.
fn decode(block: &Block, skip: usize, keep: &dyn Fn(&Value) -> bool) -> Result<Value, Error> {
    let bytes = block.data.get(skip..).unwrap_or_default();
    fressian::decode_map(bytes, Limits::default(), keep).map_err(|e| Error::Format {
        at: block.data_at + (skip + e.at) as u64,
        problem: e.problem.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    /// A block as jepsen.store.format writes it.
    fn block(kind: u16, data: &[u8]) -> Vec<u8> {
        let mut header = vec![0u8; 28];
        header[..8].copy_from_slice(&((28 + data.len()) as i64).to_be_bytes());
        header[12..14].copy_from_slice(&kind.to_be_bytes());
        let mut crc = crc32fast::Hasher::new();
        crc.update(data);
        crc.update(&header);
        header[8..12].copy_from_slice(&crc.finalize().to_be_bytes());
        header.extend_from_slice(data);
        header
    }

    /// `{:name "x"}` in Fressian: MAP, a list of two, KEY nil "name", "x".
    const NAME_MAP: &[u8] = &[
        0xC0, 0xE6, 0xCA, 0xF7, 0xDE, b'n', b'a', b'm', b'e', 0xDB, b'x',
    ];

    /// A file of one Fressian root block and its index.
    fn file_with_root(kind: u16, data: &[u8]) -> Vec<u8> {
        let root = block(kind, data);
        let mut index = 1i32.to_be_bytes().to_vec();
        index.extend(1i32.to_be_bytes());
        index.extend(18u64.to_be_bytes());
        let index_at = 18 + root.len() as u64;
        let mut f = b"JEPSEN".to_vec();
        f.extend(1i32.to_be_bytes());
        f.extend(index_at.to_be_bytes());
        f.extend(root);
        f.extend(block(1, &index));
        f
    }

    fn read(bytes: &[u8]) -> Result<Value, Error> {
        read_test_map(&mut Cursor::new(bytes), &["name"])
    }

    fn problem(bytes: &[u8]) -> (u64, String) {
        match read(bytes) {
            Err(Error::Format { at, problem }) => (at, problem),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_root_fressian_block() {
        let v = read(&file_with_root(2, NAME_MAP)).expect("read");
        assert_eq!(v.to_edn(), "{:name \"x\"}");
    }

    #[test]
    fn damage_is_named_with_its_offset() {
        let good = file_with_root(2, NAME_MAP);
        let mut bad = good.clone();
        bad[0] = b'X';
        assert_eq!(problem(&bad), (0, "no JEPSEN magic".into()));
        let mut bad = good.clone();
        bad[9] = 7;
        assert_eq!(problem(&bad).0, 6);
        let mut bad = good.clone();
        bad[10..18].fill(0);
        assert!(problem(&bad).1.contains("no block index"));
        // A flipped data byte fails the root block's checksum.
        let mut bad = good.clone();
        bad[18 + 28 + 3] ^= 0x20;
        assert_eq!(problem(&bad).0, 18);
        assert!(problem(&bad).1.contains("checksum"));
        // Truncated: the index lies past the end.
        let (at, p) = problem(&good[..good.len() - 5]);
        assert!(p.contains("past the end"), "{at} {p}");
        assert_eq!(
            problem(&good[..10]).1,
            "a file shorter than Jepsen's header"
        );
    }

    #[test]
    fn a_hostile_block_length_allocates_nothing() {
        let mut f = file_with_root(2, NAME_MAP);
        // The root block claims an exabyte.
        f[18..26].copy_from_slice(&(1i64 << 60).to_be_bytes());
        assert!(problem(&f).1.contains("isocheck reads blocks up to"));
        f[18..26].copy_from_slice(&(-5i64).to_be_bytes());
        assert!(problem(&f).1.contains("block length of -5"));
    }

    #[test]
    fn bad_fressian_in_the_root_is_placed_in_the_file() {
        let mut data = NAME_MAP.to_vec();
        data[2] = 0xF3; // no such code
        let (at, p) = problem(&file_with_root(2, &data));
        assert_eq!((at, p.as_str()), (18 + 28 + 2, "unknown code 0xF3"));
    }

    #[test]
    fn a_partial_map_root_that_refers_to_itself_stops() {
        let mut data = 1i32.to_be_bytes().to_vec();
        // No :name here: the rest block (itself) would be read forever.
        data.extend([0xC0, 0xE4]);
        assert!(problem(&file_with_root(3, &data)).1.contains("loop back"));
    }
}

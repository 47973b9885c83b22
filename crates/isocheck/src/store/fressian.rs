//! A reader of Fressian, the binary format Jepsen writes its test map in
//! (`test.fressian` in stores before Jepsen 0.3, and the blocks of
//! `test.jepsen` since): every code of Datomic's `FressianReader.java`
//! (`Codes.java`), the tags of Fressian's own handlers, of
//! `clojure.data.fressian` (keywords, symbols, records, ...) and of Jepsen's
//! `jepsen.store.fressian` (sets, date-times, ops, block references).
//!
//! Written by hand: no crate on crates.io reads Fressian (searched for
//! issue 34), and the subset Jepsen writes is small. What it adds to the
//! Java reader is for hostile files: every length is checked against the
//! bytes left before anything is allocated; nesting is bounded; what the
//! caches hand out is counted against [`Limits::max_units`] (a cached value
//! referred to many times, each reference a byte, would otherwise expand
//! exponentially); a tag no handler knows is kept as [`Value::Tagged`] with
//! the fields its struct declares, and the read goes on, as Java's
//! `TaggedObject` does. Values nobody asked for are walked without being
//! built ([`decode_map`]), so a test map's inline history costs its cached
//! values only.

use crate::history::edn;
use crate::limits;

/// A value read from Fressian, with Clojure's and Jepsen's types.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// `nil`
    Nil,
    /// A boolean.
    Bool(bool),
    /// An integer (every packed width).
    Int(i64),
    /// Doubles and floats.
    Double(f64),
    /// A string (packed or chunked, joined).
    Str(String),
    /// Bytes (packed or chunked, joined).
    Bytes(Vec<u8>),
    /// A Clojure keyword.
    Keyword {
        /// Its namespace, if any.
        ns: Option<String>,
        /// Its name.
        name: String,
    },
    /// A Clojure symbol.
    Symbol {
        /// Its namespace, if any.
        ns: Option<String>,
        /// Its name.
        name: String,
    },
    /// A character (a Unicode code point).
    Char(u32),
    /// Lists, vectors and arrays: Fressian has one sequence type.
    List(Vec<Value>),
    /// In the order written.
    Set(Vec<Value>),
    /// In the order written.
    Map(Vec<(Value, Value)>),
    /// `java.util.Date`: milliseconds since the epoch.
    Inst(i64),
    /// A UUID's 16 bytes.
    Uuid(Vec<u8>),
    /// Two's complement, big-endian (`BigInteger.toByteArray`).
    BigInt(Vec<u8>),
    /// A `BigDecimal`.
    BigDec {
        /// The unscaled value, two's complement, big-endian.
        unscaled: Vec<u8>,
        /// The power of ten it is divided by.
        scale: i64,
    },
    /// A Clojure ratio: numerator and denominator.
    Ratio(Box<Value>, Box<Value>),
    /// A regular expression's source.
    Regex(String),
    /// A URI, as written.
    Uri(String),
    /// A Clojure record: its class name (a symbol) and its fields (a map).
    Record(Box<Value>, Box<Value>),
    /// A struct whose tag no handler here knows (Jepsen's `date-time`,
    /// `block-ref`, ops, ...), or a known tag with fields of the wrong
    /// shape: kept opaque.
    Tagged {
        /// The struct's tag.
        tag: String,
        /// Its fields, in order.
        fields: Vec<Value>,
    },
    /// A value [`decode_map`] walked without building.
    Skipped,
}

/// Bounds on one decode.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Values built, plus their bytes of text, plus what cache references
    /// copied: a bound on memory whatever the caches do.
    pub max_units: u64,
    /// Values inside values.
    pub max_depth: u32,
}

impl Default for Limits {
    /// A test map is kilobytes; a million units is tens of megabytes.
    fn default() -> Limits {
        Limits {
            max_units: 4 << 20,
            max_depth: 100,
        }
    }
}

/// Why the bytes are not Fressian isocheck can read, and where.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{problem} at byte {at}")]
pub struct DecodeError {
    /// Offset of the code or field at fault, from the start of the bytes.
    pub at: usize,
    /// What is wrong there.
    pub problem: Problem,
}

/// What can be wrong in Fressian data.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Problem {
    /// The data ends inside a value.
    #[error("the data ends inside a value")]
    Truncated,
    /// A byte that is no Fressian code.
    #[error("unknown code 0x{0:02X}")]
    UnknownCode(u8),
    /// A length longer than the bytes left.
    #[error("a length of {0} where {1} bytes are left")]
    Length(i64, usize),
    /// A reference to a priority-cache entry not yet written.
    #[error("a reference to priority cache entry {0}, which is not there")]
    CacheMiss(i64),
    /// A reference to a priority-cache entry from inside itself.
    #[error("a reference to priority cache entry {0} while it is being read")]
    CacheCycle(i64),
    /// A reference to a struct type not yet defined.
    #[error("a reference to struct type {0}, which is not there")]
    StructMiss(i64),
    /// A string that is not UTF-8.
    #[error("byte 0x{0:02X} cannot start a character of a string")]
    Utf8(u8),
    /// Values nested beyond the decoder's limit.
    #[error("values nested deeper than {0}")]
    TooDeep(u32),
    /// More values than the decoder's limit (a cache bomb).
    #[error("more than {0} units of values (a cached value referred to too often?)")]
    TooLarge(u64),
    /// A footer without Fressian's magic.
    #[error("a footer whose magic is 0x{0:08X}, not 0xCFCFCFCF")]
    FooterMagic(u32),
    /// A footer whose length disagrees with the data.
    #[error("a footer saying {0} bytes where {1} precede it")]
    FooterLength(u32, usize),
    /// A footer whose checksum disagrees with the data.
    #[error("a footer checksum 0x{0:08X} where the bytes' Adler-32 is 0x{1:08X}")]
    FooterChecksum(u32, u32),
    /// Something else where an integer must be.
    #[error("{0} where an integer was expected")]
    NotAnInteger(&'static str),
    /// A code that cannot appear inside a chunked string or bytes.
    #[error("code 0x{0:02X} inside a chunked {1}")]
    Chunk(u8, &'static str),
    /// A map with an odd number of values.
    #[error("a map whose last key has no value")]
    OddMap,
}

type Result<T> = std::result::Result<T, DecodeError>;

/// The one value at the start of `bytes` (and the footer after it, when
/// there is one: its length and checksum are checked).
pub fn decode(bytes: &[u8], limits: Limits) -> Result<Value> {
    let mut r = Reader::new(bytes, limits);
    let v = r.value(Mode::Build)?;
    r.trailing_footer()?;
    Ok(v)
}

/// Every value in `bytes`, one after the other (a stream, as Jepsen's
/// FressianStream blocks hold), footers between them checked.
pub fn decode_all(bytes: &[u8], limits: Limits) -> Result<Vec<Value>> {
    let mut r = Reader::new(bytes, limits);
    let mut values = Vec::new();
    while r.pos < bytes.len() {
        if r.peek() == Some(code::FOOTER) {
            r.pos += 1;
            r.footer()?;
            continue;
        }
        values.push(r.value(Mode::Build)?);
    }
    Ok(values)
}

/// Like [`decode`], but when the value is a map, the values of keys
/// `keep` refuses are walked, not built: they come back
/// [`Value::Skipped`]. For a test map whose history is inline.
pub fn decode_map(bytes: &[u8], limits: Limits, keep: &dyn Fn(&Value) -> bool) -> Result<Value> {
    let mut r = Reader::new(bytes, limits);
    let v = r.value(Mode::Keep(keep))?;
    r.trailing_footer()?;
    Ok(v)
}

/// Fressian's codes (`org.fressian.impl.Codes`).
mod code {
    pub const PRIORITY_CACHE_PACKED_START: u8 = 0x80;
    pub const STRUCT_CACHE_PACKED_START: u8 = 0xA0;
    pub const LONG_ARRAY: u8 = 0xB0;
    pub const DOUBLE_ARRAY: u8 = 0xB1;
    pub const BOOLEAN_ARRAY: u8 = 0xB2;
    pub const INT_ARRAY: u8 = 0xB3;
    pub const FLOAT_ARRAY: u8 = 0xB4;
    pub const OBJECT_ARRAY: u8 = 0xB5;
    pub const MAP: u8 = 0xC0;
    pub const SET: u8 = 0xC1;
    pub const UUID: u8 = 0xC3;
    pub const REGEX: u8 = 0xC4;
    pub const URI: u8 = 0xC5;
    pub const BIGINT: u8 = 0xC6;
    pub const BIGDEC: u8 = 0xC7;
    pub const INST: u8 = 0xC8;
    pub const SYM: u8 = 0xC9;
    pub const KEY: u8 = 0xCA;
    pub const GET_PRIORITY_CACHE: u8 = 0xCC;
    pub const PUT_PRIORITY_CACHE: u8 = 0xCD;
    pub const FOOTER: u8 = 0xCF;
    pub const FOOTER_MAGIC: u32 = 0xCFCF_CFCF;
    pub const BYTES_PACKED_LENGTH_START: u8 = 0xD0;
    pub const BYTES_CHUNK: u8 = 0xD8;
    pub const BYTES: u8 = 0xD9;
    pub const STRING_PACKED_LENGTH_START: u8 = 0xDA;
    pub const STRING_CHUNK: u8 = 0xE2;
    pub const STRING: u8 = 0xE3;
    pub const LIST_PACKED_LENGTH_START: u8 = 0xE4;
    pub const LIST: u8 = 0xEC;
    pub const BEGIN_CLOSED_LIST: u8 = 0xED;
    pub const BEGIN_OPEN_LIST: u8 = 0xEE;
    pub const STRUCTTYPE: u8 = 0xEF;
    pub const STRUCT: u8 = 0xF0;
    pub const TRUE: u8 = 0xF5;
    pub const FALSE: u8 = 0xF6;
    pub const NULL: u8 = 0xF7;
    pub const INT: u8 = 0xF8;
    pub const FLOAT: u8 = 0xF9;
    pub const DOUBLE: u8 = 0xFA;
    pub const DOUBLE_0: u8 = 0xFB;
    pub const DOUBLE_1: u8 = 0xFC;
    pub const END_COLLECTION: u8 = 0xFD;
    pub const RESET_CACHES: u8 = 0xFE;
}

/// What to do with the value being read.
#[derive(Clone, Copy)]
enum Mode<'k> {
    Build,
    /// Walk it (caching what it caches), build nothing.
    Skip,
    /// Build it; if it is a map, skip the values of keys not kept.
    Keep(&'k dyn Fn(&Value) -> bool),
}

impl Mode<'_> {
    fn builds(self) -> bool {
        !matches!(self, Mode::Skip)
    }

    /// The mode of the values inside this one.
    fn inner(self) -> Self {
        match self {
            Mode::Keep(_) => Mode::Build,
            m => m,
        }
    }
}

/// A priority cache entry: the value, and the units it cost to build
/// (what every reference to it costs again). `None` while it is read.
type Cached = Option<(Value, u64)>;

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    /// Where the bytes the next footer counts begin.
    segment: usize,
    priority: Vec<Cached>,
    /// Struct types: the tag and the field count it declared.
    structs: Vec<(String, i64)>,
    units: u64,
    depth: u32,
    limits: Limits,
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8], limits: Limits) -> Reader<'a> {
        Reader {
            bytes,
            pos: 0,
            segment: 0,
            priority: Vec::new(),
            structs: Vec::new(),
            units: 0,
            depth: 0,
            limits,
        }
    }

    fn fail<T>(&self, at: usize, problem: Problem) -> Result<T> {
        Err(DecodeError { at, problem })
    }

    fn left(&self) -> usize {
        self.bytes.len().saturating_sub(self.pos)
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn byte(&mut self) -> Result<u8> {
        match self.peek() {
            Some(b) => {
                self.pos += 1;
                Ok(b)
            }
            None => self.fail(self.pos, Problem::Truncated),
        }
    }

    /// The next `n` bytes; an `n` past the end is an error before anything
    /// is allocated.
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if n > self.left() {
            return self.fail(self.pos, Problem::Truncated);
        }
        let slice = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(slice)
    }

    /// `n` bytes as an unsigned big-endian number (`n` ≤ 8).
    fn raw(&mut self, n: usize) -> Result<u64> {
        Ok(self
            .take(n)?
            .iter()
            .fold(0u64, |acc, &b| (acc << 8) | u64::from(b)))
    }

    fn spend(&mut self, units: u64) -> Result<()> {
        self.units = self.units.saturating_add(units);
        if self.units > self.limits.max_units {
            return self.fail(self.pos, Problem::TooLarge(self.limits.max_units));
        }
        Ok(())
    }

    fn value(&mut self, mode: Mode) -> Result<Value> {
        if self.depth >= self.limits.max_depth {
            return self.fail(self.pos, Problem::TooDeep(self.limits.max_depth));
        }
        limits::tick();
        let at = self.pos;
        let code = self.byte()?;
        self.depth += 1;
        let v = self.read(code, at, mode);
        self.depth -= 1;
        if mode.builds() {
            self.spend(1)?;
        }
        v
    }

    fn read(&mut self, code: u8, at: usize, mode: Mode) -> Result<Value> {
        use code::*;
        let built = |v: Value| if mode.builds() { v } else { Value::Skipped };
        Ok(match code {
            0x00..=0x7F | 0xFF | INT => built(Value::Int(self.int_of(code)?)),
            TRUE => built(Value::Bool(true)),
            FALSE => built(Value::Bool(false)),
            NULL => built(Value::Nil),
            FLOAT => built(Value::Double(f64::from(
                f32::from_bits(self.raw(4)? as u32),
            ))),
            DOUBLE => built(Value::Double(f64::from_bits(self.raw(8)?))),
            DOUBLE_0 => built(Value::Double(0.0)),
            DOUBLE_1 => built(Value::Double(1.0)),
            0x80..=0x9F => self.cached(i64::from(code - PRIORITY_CACHE_PACKED_START), at, mode)?,
            GET_PRIORITY_CACHE => {
                let index = self.int()?;
                self.cached(index, at, mode)?
            }
            PUT_PRIORITY_CACHE => self.put(mode)?,
            0xA0..=0xAF => {
                self.known_struct(i64::from(code - STRUCT_CACHE_PACKED_START), at, mode)?
            }
            STRUCT => {
                let index = self.int()?;
                self.known_struct(index, at, mode)?
            }
            STRUCTTYPE => {
                let tag = tag_name(&self.value(Mode::Build)?);
                // A tag that is not a string is written out as text, which
                // may be longer than the value it came from: it is paid for.
                self.spend(tag.len() as u64)?;
                let fields = self.int()?;
                self.structs.push((tag.clone(), fields));
                self.structure(&tag, fields, mode)?
            }
            LONG_ARRAY => self.structure("long[]", 2, mode)?,
            DOUBLE_ARRAY => self.structure("double[]", 2, mode)?,
            BOOLEAN_ARRAY => self.structure("boolean[]", 2, mode)?,
            INT_ARRAY => self.structure("int[]", 2, mode)?,
            FLOAT_ARRAY => self.structure("float[]", 2, mode)?,
            OBJECT_ARRAY => self.structure("Object[]", 2, mode)?,
            MAP => self.structure("map", 1, mode)?,
            SET => self.structure("set", 1, mode)?,
            UUID => self.structure("uuid", 2, mode)?,
            REGEX => self.structure("regex", 1, mode)?,
            URI => self.structure("uri", 1, mode)?,
            BIGINT => self.structure("bigint", 1, mode)?,
            BIGDEC => self.structure("bigdec", 2, mode)?,
            INST => self.structure("inst", 1, mode)?,
            SYM => self.structure("sym", 2, mode)?,
            KEY => self.structure("key", 2, mode)?,
            0xD0..=0xD7 => {
                let bytes = self.take(usize::from(code - BYTES_PACKED_LENGTH_START))?;
                self.bytes_value(bytes.to_vec(), mode)?
            }
            BYTES => {
                let n = self.count()?;
                let bytes = self.take(n)?;
                self.bytes_value(bytes.to_vec(), mode)?
            }
            BYTES_CHUNK => {
                let bytes = self.chunked_bytes()?;
                self.bytes_value(bytes, mode)?
            }
            0xDA..=0xE1 => self.string(usize::from(code - STRING_PACKED_LENGTH_START), mode)?,
            STRING => {
                let n = self.count()?;
                self.string(n, mode)?
            }
            STRING_CHUNK => self.chunked_string(mode)?,
            0xE4..=0xEB => self.list(usize::from(code - LIST_PACKED_LENGTH_START), mode)?,
            LIST => {
                let n = self.count()?;
                self.list(n, mode)?
            }
            BEGIN_CLOSED_LIST => self.until_end(false, mode)?,
            BEGIN_OPEN_LIST => self.until_end(true, mode)?,
            FOOTER => {
                self.footer()?;
                self.value(mode)?
            }
            RESET_CACHES => {
                self.reset_caches();
                self.value(mode)?
            }
            _ => return self.fail(at, Problem::UnknownCode(code)),
        })
    }

    /// The integer of an int code (packed or `INT`), as `FressianReader`'s
    /// `internalReadInt`: the packed codes hold the high bits, signed.
    fn int_of(&mut self, code: u8) -> Result<i64> {
        let high = |zero: u8| i64::from(code) - i64::from(zero);
        Ok(match code {
            0xFF => -1,
            0x00..=0x3F => i64::from(code),
            0x40..=0x5F => (high(0x50) << 8) | self.raw(1)? as i64,
            0x60..=0x6F => (high(0x68) << 16) | self.raw(2)? as i64,
            0x70..=0x73 => (high(0x72) << 24) | self.raw(3)? as i64,
            0x74..=0x77 => (high(0x76) << 32) | self.raw(4)? as i64,
            0x78..=0x7B => (high(0x7A) << 40) | self.raw(5)? as i64,
            0x7C..=0x7F => (high(0x7E) << 48) | self.raw(6)? as i64,
            // INT: eight bytes, two's complement.
            _ => self.raw(8)? as i64,
        })
    }

    /// An integer field (a count, an index): any value, which must be an
    /// integer, as `readInt` accepts.
    fn int(&mut self) -> Result<i64> {
        let at = self.pos;
        match self.value(Mode::Build)? {
            Value::Int(n) => Ok(n),
            other => self.fail(at, Problem::NotAnInteger(kind_name(&other))),
        }
    }

    /// A count of bytes or values that follow: at most the bytes left
    /// (each value takes at least one).
    fn count(&mut self) -> Result<usize> {
        let at = self.pos;
        let n = self.int()?;
        self.length(n, at)
    }

    fn length(&self, n: i64, at: usize) -> Result<usize> {
        match usize::try_from(n) {
            Ok(len) if len <= self.left() && n <= i64::from(i32::MAX) => Ok(len),
            _ => self.fail(at, Problem::Length(n, self.left())),
        }
    }

    fn values(&mut self, n: usize, mode: Mode) -> Result<Vec<Value>> {
        // Each value takes a byte: no more than the bytes left are asked
        // for, and room grows with what is read.
        let mut items = Vec::with_capacity(if mode.builds() { n.min(1024) } else { 0 });
        for _ in 0..n {
            let v = self.value(mode.inner())?;
            if mode.builds() {
                items.push(v);
            }
        }
        Ok(items)
    }

    fn list(&mut self, n: usize, mode: Mode) -> Result<Value> {
        let at = self.pos;
        let n = self.length(n as i64, at)?;
        let items = self.values(n, mode)?;
        Ok(if mode.builds() {
            Value::List(items)
        } else {
            Value::Skipped
        })
    }

    /// A closed list (ended by `END_COLLECTION`) or an open one (ended by
    /// `END_COLLECTION` or the end of the bytes).
    fn until_end(&mut self, open: bool, mode: Mode) -> Result<Value> {
        let mut items = Vec::new();
        loop {
            match self.peek() {
                Some(code::END_COLLECTION) => {
                    self.pos += 1;
                    break;
                }
                None if open => break,
                _ => {
                    let v = self.value(mode.inner())?;
                    if mode.builds() {
                        items.push(v);
                    }
                }
            }
        }
        Ok(if mode.builds() {
            Value::List(items)
        } else {
            Value::Skipped
        })
    }

    fn bytes_value(&mut self, bytes: Vec<u8>, mode: Mode) -> Result<Value> {
        if !mode.builds() {
            return Ok(Value::Skipped);
        }
        self.spend(bytes.len() as u64)?;
        Ok(Value::Bytes(bytes))
    }

    /// `BYTES_CHUNK` pieces, then a last `BYTES` piece.
    fn chunked_bytes(&mut self) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        loop {
            let n = self.count()?;
            out.extend_from_slice(self.take(n)?);
            let at = self.pos;
            match self.byte()? {
                code::BYTES_CHUNK => continue,
                code::BYTES => {
                    let n = self.count()?;
                    out.extend_from_slice(self.take(n)?);
                    return Ok(out);
                }
                other => return self.fail(at, Problem::Chunk(other, "byte string")),
            }
        }
    }

    fn string(&mut self, n: usize, mode: Mode) -> Result<Value> {
        let at = self.pos;
        let bytes = self.take(n)?;
        if !mode.builds() {
            return Ok(Value::Skipped);
        }
        let mut units = Vec::with_capacity(n);
        utf16_of(bytes, at, &mut units)?;
        self.text(&units)
    }

    /// `STRING_CHUNK` pieces, then a last packed or `STRING` piece. Each
    /// piece is decoded alone (a character never spans two), but a
    /// surrogate pair can: the UTF-16 units are joined first.
    fn chunked_string(&mut self, mode: Mode) -> Result<Value> {
        let mut units = Vec::new();
        let mut n = self.count()?;
        loop {
            let at = self.pos;
            let piece = self.take(n)?;
            if mode.builds() {
                utf16_of(piece, at, &mut units)?;
            }
            let at = self.pos;
            match self.byte()? {
                code::STRING_CHUNK => n = self.count()?,
                code::STRING => {
                    n = self.count()?;
                    break;
                }
                c @ 0xDA..=0xE1 => {
                    n = usize::from(c - code::STRING_PACKED_LENGTH_START);
                    break;
                }
                other => return self.fail(at, Problem::Chunk(other, "string")),
            }
        }
        let at = self.pos;
        let last = self.take(n)?;
        if !mode.builds() {
            return Ok(Value::Skipped);
        }
        utf16_of(last, at, &mut units)?;
        self.text(&units)
    }

    fn text(&mut self, units: &[u16]) -> Result<Value> {
        self.spend(units.len() as u64)?;
        Ok(Value::Str(String::from_utf16_lossy(units)))
    }

    /// `PUT_PRIORITY_CACHE`: the next value, built whatever the mode (a
    /// later reference may need it), and cached.
    fn put(&mut self, mode: Mode) -> Result<Value> {
        let index = self.priority.len();
        self.priority.push(None);
        let before = self.units;
        let v = self.value(Mode::Build)?;
        let cost = self.units.saturating_sub(before);
        let out = if mode.builds() {
            // Two copies now live, the cache's and this one: both are paid
            // for, or puts nested in puts copy without bound.
            self.spend(cost)?;
            v.clone()
        } else {
            Value::Skipped
        };
        if let Some(slot) = self.priority.get_mut(index) {
            *slot = Some((v, cost));
        }
        Ok(out)
    }

    fn cached(&mut self, index: i64, at: usize, mode: Mode) -> Result<Value> {
        let entry = usize::try_from(index)
            .ok()
            .and_then(|i| self.priority.get(i));
        match entry {
            None => self.fail(at, Problem::CacheMiss(index)),
            Some(None) => self.fail(at, Problem::CacheCycle(index)),
            Some(Some(_)) if !mode.builds() => Ok(Value::Skipped),
            Some(Some((v, cost))) => {
                let (v, cost) = (v.clone(), *cost);
                self.spend(cost)?;
                Ok(v)
            }
        }
    }

    fn known_struct(&mut self, index: i64, at: usize, mode: Mode) -> Result<Value> {
        let found = usize::try_from(index)
            .ok()
            .and_then(|i| self.structs.get(i));
        match found.cloned() {
            Some((tag, fields)) => self.structure(&tag, fields, mode),
            None => self.fail(at, Problem::StructMiss(index)),
        }
    }

    /// A struct's fields, read as the handler of its tag reads them (some
    /// read a count, then that many values; the field count a struct type
    /// declares is what unknown tags are read by), then made a value.
    fn structure(&mut self, tag: &str, declared: i64, mode: Mode) -> Result<Value> {
        if let (Mode::Keep(keep), "map") = (mode, tag) {
            return self.kept_map(keep);
        }
        let at = self.pos;
        let n = match arity(tag) {
            Arity::Fixed(n) => n,
            Arity::Counted => self.count()?,
            Arity::Declared => self.length(declared, at)?,
        };
        let fields = self.values(n, mode.inner())?;
        Ok(if mode.builds() {
            // Each value built keeps its own copy of the tag's text.
            self.spend(tag.len() as u64)?;
            known(tag, fields)
        } else {
            Value::Skipped
        })
    }

    /// A map's entries (a list of keys and values), the values of keys
    /// `keep` refuses skipped.
    fn kept_map(&mut self, keep: &dyn Fn(&Value) -> bool) -> Result<Value> {
        let at = self.pos;
        let code = self.byte()?;
        let count = match code {
            0xE4..=0xEB => Some(usize::from(code - code::LIST_PACKED_LENGTH_START)),
            code::LIST => Some(self.count()?),
            code::BEGIN_CLOSED_LIST | code::BEGIN_OPEN_LIST => None,
            // The entries are not a plain list (cached, say): build them.
            _ => {
                let kvs = self.read(code, at, Mode::Build)?;
                return Ok(known("map", vec![kvs]));
            }
        };
        let mut entries = Vec::new();
        let mut read = 0;
        loop {
            let done = match count {
                Some(n) => read >= n,
                None => match self.peek() {
                    Some(code::END_COLLECTION) => {
                        self.pos += 1;
                        true
                    }
                    None => code == code::BEGIN_OPEN_LIST,
                    Some(_) => false,
                },
            };
            if done {
                break;
            }
            let k = self.value(Mode::Build)?;
            if count.is_some_and(|n| read + 1 >= n) || self.at_end_of(code) {
                return self.fail(self.pos, Problem::OddMap);
            }
            let v = self.value(if keep(&k) { Mode::Build } else { Mode::Skip })?;
            entries.push((k, v));
            read += 2;
        }
        Ok(Value::Map(entries))
    }

    /// Whether a closed or open list of entries ends here.
    fn at_end_of(&self, list: u8) -> bool {
        match self.peek() {
            Some(code::END_COLLECTION) => {
                list == code::BEGIN_CLOSED_LIST || list == code::BEGIN_OPEN_LIST
            }
            None => list == code::BEGIN_OPEN_LIST,
            Some(_) => false,
        }
    }

    /// After the `FOOTER` code: the rest of the magic, the length of the
    /// bytes since the last footer, and their Adler-32 (which covers the
    /// magic and the length too, as Java's `CheckedInputStream` reads them).
    fn footer(&mut self) -> Result<()> {
        let start = self.pos - 1;
        let magic = (u32::from(code::FOOTER) << 24) | self.raw(3)? as u32;
        if magic != code::FOOTER_MAGIC {
            return self.fail(start, Problem::FooterMagic(magic));
        }
        let length = self.raw(4)? as u32;
        let counted = start.saturating_sub(self.segment);
        if u64::from(length) != counted as u64 {
            return self.fail(start, Problem::FooterLength(length, counted));
        }
        let mut adler = adler2::Adler32::new();
        adler.write_slice(self.bytes.get(self.segment..self.pos).unwrap_or_default());
        let stored = self.raw(4)? as u32;
        if stored != adler.checksum() {
            return self.fail(start, Problem::FooterChecksum(stored, adler.checksum()));
        }
        self.segment = self.pos;
        self.reset_caches();
        Ok(())
    }

    /// A footer right after the top value is checked; other bytes after
    /// it are left alone (Jepsen reads one value).
    fn trailing_footer(&mut self) -> Result<()> {
        if self.peek() == Some(code::FOOTER) {
            self.pos += 1;
            self.footer()?;
        }
        Ok(())
    }

    fn reset_caches(&mut self) {
        self.priority.clear();
        self.structs.clear();
    }
}

/// How many values a tag's handler reads.
enum Arity {
    Fixed(usize),
    /// A count, then that many (the array handlers).
    Counted,
    /// The field count its struct type declared (tags without a handler).
    Declared,
}

fn arity(tag: &str) -> Arity {
    match tag {
        "map"
        | "set"
        | "uuid"
        | "regex"
        | "uri"
        | "bigint"
        | "inst"
        | "char"
        | "byte"
        | "vec"
        | "atom"
        | "persistent-hash-set"
        | "persistent-sorted-set" => Arity::Fixed(1),
        "key" | "sym" | "bigdec" | "ratio" | "record" => Arity::Fixed(2),
        "int[]" | "long[]" | "float[]" | "double[]" | "boolean[]" | "Object[]" => Arity::Counted,
        _ => Arity::Declared,
    }
}

/// The value a tag's handler makes of its fields; fields of another shape
/// than the handler's (or a tag without one) make a [`Value::Tagged`].
fn known(tag: &str, fields: Vec<Value>) -> Value {
    use Value::*;
    let shaped = match (tag, fields.as_slice()) {
        ("map", [List(kvs)]) if kvs.len().is_multiple_of(2) => Some(Map(kvs
            .chunks(2)
            .map(|kv| (kv[0].clone(), kv[1].clone()))
            .collect())),
        ("set" | "persistent-hash-set" | "persistent-sorted-set", [List(xs)]) => {
            Some(Set(xs.clone()))
        }
        ("set" | "persistent-hash-set" | "persistent-sorted-set", [Nil]) => Some(Set(Vec::new())),
        ("key" | "sym", [ns @ (Nil | Str(_)), Str(name)]) => {
            let ns = match ns {
                Str(s) => Some(s.clone()),
                _ => None,
            };
            let name = name.clone();
            Some(if tag == "key" {
                Keyword { ns, name }
            } else {
                Symbol { ns, name }
            })
        }
        ("uuid", [Bytes(b)]) => Some(Uuid(b.clone())),
        ("regex", [Str(s)]) => Some(Regex(s.clone())),
        ("uri", [Str(s)]) => Some(Uri(s.clone())),
        ("bigint", [Bytes(b)]) => Some(BigInt(b.clone())),
        ("bigdec", [Bytes(b), Int(scale)]) => Some(BigDec {
            unscaled: b.clone(),
            scale: *scale,
        }),
        ("inst", [Int(ms)]) => Some(Inst(*ms)),
        ("char", [Int(c)]) => u32::try_from(*c).ok().map(Char),
        ("byte", [Int(b)]) => Some(Int(*b)),
        ("ratio", [n, d]) => Some(Ratio(Box::new(n.clone()), Box::new(d.clone()))),
        ("record", [name, map @ Map(_)]) => {
            Some(Record(Box::new(name.clone()), Box::new(map.clone())))
        }
        ("vec" | "atom", [v]) => Some(v.clone()),
        ("map-entry", [k, v]) => Some(List(vec![k.clone(), v.clone()])),
        ("int[]" | "long[]" | "float[]" | "double[]" | "boolean[]" | "Object[]", _) => {
            Some(List(fields.clone()))
        }
        _ => None,
    };
    shaped.unwrap_or(Tagged {
        tag: tag.to_string(),
        fields,
    })
}

/// A struct type's tag as text (Fressian allows any value; every writer
/// uses a string).
fn tag_name(tag: &Value) -> String {
    match tag {
        Value::Str(s) => s.clone(),
        other => other.to_edn(),
    }
}

fn kind_name(v: &Value) -> &'static str {
    match v {
        Value::Nil => "nil",
        Value::Bool(_) => "a boolean",
        Value::Int(_) => "an integer",
        Value::Double(_) => "a float",
        Value::Str(_) => "a string",
        Value::List(_) => "a list",
        Value::Map(_) => "a map",
        _ => "a value",
    }
}

/// Fressian's UTF-8 (Java's `Fns.readUTF8Chars`): one, two or three bytes
/// per UTF-16 unit, so characters past the BMP come as two surrogates of
/// three bytes each. Continuation bytes are taken as Java takes them.
fn utf16_of(bytes: &[u8], at: usize, out: &mut Vec<u16>) -> Result<()> {
    let mut i = 0;
    let cont = |j: usize| bytes.get(j).map(|b| u16::from(b & 0x3F));
    while let Some(&b) = bytes.get(i) {
        let lead = u16::from(b);
        let (unit, len) = match b >> 4 {
            0..=7 => (Some(lead), 1),
            12 | 13 => (cont(i + 1).map(|c1| ((lead & 0x1F) << 6) | c1), 2),
            14 => (
                cont(i + 1)
                    .zip(cont(i + 2))
                    .map(|(c1, c2)| ((lead & 0x0F) << 12) | (c1 << 6) | c2),
                3,
            ),
            _ => (None, 1),
        };
        match unit {
            Some(u) => out.push(u),
            None => {
                return Err(DecodeError {
                    at: at + i,
                    problem: Problem::Utf8(b),
                })
            }
        }
        i += len;
    }
    Ok(())
}

impl Value {
    /// The value as EDN text that isocheck's EDN reader reads back. Types
    /// EDN lacks are tagged `#fressian/...`; Jepsen's date-times and
    /// instants are `#jepsen/date-time "..."` and `#jepsen/instant "..."`.
    pub fn to_edn(&self) -> String {
        let mut out = String::new();
        self.write_edn(&mut out);
        out
    }

    fn write_edn(&self, out: &mut String) {
        use Value::*;
        match self {
            Nil | Skipped => out.push_str("nil"),
            Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Int(n) => out.push_str(&n.to_string()),
            Double(d) => out.push_str(&edn_double(*d)),
            Str(s) => edn::write_string(s, out),
            Keyword { ns, name } => named(":", ns, name, out),
            Symbol { ns, name } => named("", ns, name, out),
            Char(c) => match char::from_u32(*c) {
                Some(ch) if ch.is_ascii_alphanumeric() => {
                    out.push('\\');
                    out.push(ch);
                }
                Some(ch) if *c <= 0xFFFF => out.push_str(&format!("\\u{:04X}", u32::from(ch))),
                _ => tagged("fressian/char", &Int(i64::from(*c)), out),
            },
            List(xs) => seq("[", xs.iter(), "]", out),
            // EDN sets and maps hold no duplicates (as EDN compares them):
            // each element or key once. Every child's text is made once.
            Set(xs) => {
                let mut seen = std::collections::HashSet::new();
                let items: Vec<String> = xs
                    .iter()
                    .map(Value::to_edn)
                    .filter(|t| seen.insert(edn_identity(t)))
                    .collect();
                out.push_str("#{");
                out.push_str(&items.join(" "));
                out.push('}');
            }
            Map(kvs) => {
                let mut seen = std::collections::HashSet::new();
                let items: Vec<String> = kvs
                    .iter()
                    .filter_map(|(k, v)| {
                        let key = k.to_edn();
                        seen.insert(edn_identity(&key))
                            .then(|| format!("{key} {}", v.to_edn()))
                    })
                    .collect();
                out.push('{');
                out.push_str(&items.join(" "));
                out.push('}');
            }
            Inst(ms) => tagged("fressian/inst", &Int(*ms), out),
            Uuid(b) if b.len() == 16 => {
                let h: String = b.iter().map(|x| format!("{x:02x}")).collect();
                out.push_str(&format!(
                    "#uuid \"{}-{}-{}-{}-{}\"",
                    &h[0..8],
                    &h[8..12],
                    &h[12..16],
                    &h[16..20],
                    &h[20..32]
                ));
            }
            Uuid(b) | Bytes(b) => tagged("fressian/bytes", &Str(hex(b)), out),
            BigInt(b) => {
                out.push_str(&decimal(b));
                out.push('N');
            }
            BigDec { unscaled, scale } => {
                out.push_str(&decimal(unscaled));
                if *scale != 0 {
                    out.push_str(&format!("E{}", -i128::from(*scale)));
                }
                out.push('M');
            }
            Ratio(n, d) => tagged(
                "fressian/ratio",
                &List(vec![(**n).clone(), (**d).clone()]),
                out,
            ),
            Regex(s) => tagged("fressian/regex", &Str(s.clone()), out),
            Uri(s) => tagged("fressian/uri", &Str(s.clone()), out),
            Record(name, map) => tagged(
                "fressian/record",
                &List(vec![(**name).clone(), (**map).clone()]),
                out,
            ),
            Tagged { tag, fields } => match (tag.as_str(), fields.as_slice()) {
                ("date-time", [s @ Str(_)]) => tagged("jepsen/date-time", s, out),
                ("instant", [s @ Str(_)]) => tagged("jepsen/instant", s, out),
                _ => tagged(
                    "fressian/tagged",
                    &List(vec![Str(tag.clone()), List(fields.clone())]),
                    out,
                ),
            },
        }
    }
}

/// What EDN's reader tells duplicates by: the canonical form of the text
/// read back (`1N` and `1` are one key).
fn edn_identity(text: &str) -> String {
    match crate::history::edn::read_all(text) {
        Ok(forms) if forms.len() == 1 => forms[0].canonical(),
        _ => text.to_string(),
    }
}

fn seq<'v>(open: &str, xs: impl Iterator<Item = &'v Value>, close: &str, out: &mut String) {
    out.push_str(open);
    for (i, x) in xs.enumerate() {
        if i > 0 {
            out.push(' ');
        }
        x.write_edn(out);
    }
    out.push_str(close);
}

fn tagged(tag: &str, v: &Value, out: &mut String) {
    out.push('#');
    out.push_str(tag);
    out.push(' ');
    v.write_edn(out);
}

/// A keyword or symbol; one whose name EDN cannot spell is a string.
fn named(prefix: &str, ns: &Option<String>, name: &str, out: &mut String) {
    let full = match ns {
        Some(ns) => format!("{ns}/{name}"),
        None => name.to_string(),
    };
    // A first character EDN cannot mistake for a number or a tag.
    let plain = |s: &str| {
        s.starts_with(|c: char| c.is_ascii_alphabetic() || "*!_?<>=".contains(c))
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "*+!-_?<>=./".contains(c))
    };
    let name_ok = plain(name) && !name.contains('/');
    if name_ok && ns.as_deref().is_none_or(|n| plain(n) && !n.contains('/')) {
        out.push_str(prefix);
        out.push_str(&full);
    } else {
        edn::write_string(&full, out);
    }
}

fn edn_double(d: f64) -> String {
    if d.is_nan() {
        "##NaN".into()
    } else if d.is_infinite() {
        if d > 0.0 { "##Inf" } else { "##-Inf" }.into()
    } else {
        // Debug always writes a point or an exponent: a float to EDN.
        format!("{d:?}")
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A two's complement big-endian integer in decimal (`BigInteger`'s
/// `toByteArray` form; empty is zero).
pub fn decimal(bytes: &[u8]) -> String {
    let negative = bytes.first().is_some_and(|b| b & 0x80 != 0);
    // The magnitude: negate a negative number (invert, add one).
    let mut mag: Vec<u8> = if negative {
        let mut m: Vec<u8> = bytes.iter().map(|b| !b).collect();
        for b in m.iter_mut().rev() {
            let (sum, carry) = b.overflowing_add(1);
            *b = sum;
            if !carry {
                break;
            }
        }
        m
    } else {
        bytes.to_vec()
    };
    let mut digits = Vec::new();
    while mag.iter().any(|&b| b != 0) {
        // Divide by ten, big-endian, keeping the remainder.
        let mut rem = 0u32;
        for b in mag.iter_mut() {
            let cur = (rem << 8) | u32::from(*b);
            *b = (cur / 10) as u8;
            rem = cur % 10;
        }
        digits.push(b'0' + rem as u8);
    }
    if digits.is_empty() {
        digits.push(b'0');
    }
    if negative {
        digits.push(b'-');
    }
    digits.reverse();
    String::from_utf8_lossy(&digits).into_owned()
}

#[cfg(test)]
mod tests;

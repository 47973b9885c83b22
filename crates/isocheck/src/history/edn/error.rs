//! What can be wrong with EDN text.

use nom::error::{ErrorKind, ParseError};

/// A syntax problem, without its position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Problem {
    /// The text ended where the named thing was expected.
    #[error("unexpected end of input: expected {0}")]
    Eof(&'static str),
    /// Something else than what the grammar allows here.
    #[error("unexpected {found}: expected {expected}")]
    Unexpected {
        /// What was found, as written.
        found: String,
        /// What the grammar allows here.
        expected: &'static str,
    },
    /// A closing bracket nothing opened.
    #[error("unmatched closing `{0}`")]
    Unmatched(char),
    /// A string whose closing quote is missing.
    #[error("string is never closed")]
    UnterminatedString,
    /// A backslash escape EDN does not define.
    #[error("invalid escape `\\{0}` in string")]
    InvalidEscape(String),
    /// A character literal EDN does not define.
    #[error("invalid character literal `{0}`")]
    InvalidChar(String),
    /// A number EDN does not accept.
    #[error("invalid number `{0}`")]
    InvalidNumber(String),
    /// A symbol or keyword EDN does not accept.
    #[error("invalid symbol or keyword `{0}`")]
    InvalidSymbol(String),
    /// A tag that is not a symbol.
    #[error("invalid tag `#{0}`")]
    InvalidTag(String),
    /// A `#inst` whose value is not an RFC 3339 timestamp.
    #[error("invalid #inst {0}")]
    InvalidInst(String),
    /// A `#uuid` whose value is not a UUID.
    #[error("invalid #uuid {0}")]
    InvalidUuid(String),
    /// A key or value no value is equal to (`##NaN`).
    #[error("{0} cannot be compared with any value")]
    NotComparable(String),
    /// A map with an odd number of forms.
    #[error("map has a key without a value")]
    OddMap,
    /// A map with two equal keys.
    #[error("duplicate key {0} in map")]
    DuplicateKey(String),
    /// A set with two equal elements.
    #[error("duplicate element {0} in set")]
    DuplicateSetElement(String),
    /// A `#_` with nothing after it.
    #[error("`#_` must be followed by a form to discard")]
    EmptyDiscard,
    /// Forms nested beyond the reader's limit.
    #[error("nesting is deeper than {0} levels")]
    TooDeep(usize),
    /// Bytes that are not UTF-8.
    #[error("input is not valid UTF-8")]
    InvalidUtf8,
    /// Anything else, said in words.
    #[error("{0}")]
    Other(String),
}

impl Problem {
    /// A line of advice shown under the diagnostic.
    pub fn help(&self) -> String {
        match self {
            Problem::Eof(_) => "the file ends in the middle of a form; was it truncated?".into(),
            Problem::Unexpected { .. } => {
                "check the brackets and the form before this point".into()
            }
            Problem::Unmatched(_) => "remove it, or add the opening bracket it closes".into(),
            Problem::UnterminatedString => "add the closing `\"`".into(),
            Problem::InvalidEscape(_) => {
                "EDN strings allow \\t \\r \\n \\\\ \\\" \\f \\b and \\uXXXX".into()
            }
            Problem::InvalidChar(_) => {
                "use \\c, \\newline, \\return, \\space, \\tab, \\formfeed, \\backspace or \\uXXXX"
                    .into()
            }
            Problem::InvalidNumber(_) => {
                "EDN numbers look like 12, -3, 12N, 1.5, 1e3, 1.5M, 1/2, 0x1F or 2r101 (a leading 0 means octal; a ratio's denominator is not 0; a BigDec's exponent and scale fit 32 bits, as in Java)"
                    .into()
            }
            Problem::InvalidSymbol(_) => {
                "symbols and keywords are made of letters, digits and .*+!-_?$%&=<>/'#: ".into()
            }
            Problem::InvalidTag(_) => "a tag is `#` followed by a symbol, e.g. #inst".into(),
            Problem::InvalidInst(_) => {
                "#inst takes a timestamp as clojure.instant reads it: \
                 yyyy-MM-ddTHH:mm:ss.fff then Z or ±HH:mm (trailing parts optional), \
                 e.g. #inst \"2024-01-01T00:00:00.000-00:00\""
                    .into()
            }
            Problem::InvalidUuid(_) => {
                "#uuid takes 8-4-4-4-12 hex digits, e.g. #uuid \"6ba7b810-9dad-11d1-80b4-00c04fd430c8\" \
                 (java.util.UUID reads shorter groups too, differently across Java versions; \
                 isocheck refuses them)"
                    .into()
            }
            Problem::NotComparable(_) => {
                "##NaN is not equal to itself under Clojure's `=`, and Elle and Jepsen's checkers \
                 match it or not depending on where they look it up: isocheck cannot say which \
                 write a read of it observed; use another value"
                    .into()
            }
            Problem::OddMap => "every key in a map needs a value".into(),
            Problem::DuplicateKey(_) => "each key may appear once in a map".into(),
            Problem::DuplicateSetElement(_) => "each element may appear once in a set".into(),
            Problem::EmptyDiscard => "remove the `#_` or put a form after it".into(),
            Problem::TooDeep(_) => "histories never nest this deep; is the file corrupt?".into(),
            Problem::InvalidUtf8 => "EDN files are UTF-8 text".into(),
            Problem::Other(_) => "see the EDN grammar in grammar/edn.ebnf".into(),
        }
    }
}

/// A nom error: a problem at a point of the input, with the length of the
/// offending text (0 for a point).
#[derive(Debug, Clone, PartialEq)]
pub struct EdnError<'a> {
    /// Where the problem starts.
    pub at: &'a [u8],
    /// How many bytes it covers (0 for a point).
    pub len: usize,
    /// What the problem is.
    pub problem: Problem,
}

impl<'a> EdnError<'a> {
    /// A problem at `at`, covering `len` bytes.
    pub fn new(at: &'a [u8], len: usize, problem: Problem) -> Self {
        EdnError { at, len, problem }
    }

    /// "unexpected X: expected Y" at `at`, naming what `at` starts with.
    pub fn unexpected(at: &'a [u8], expected: &'static str) -> Self {
        match at.first() {
            None => EdnError::new(at, 0, Problem::Eof(expected)),
            Some(_) => {
                let found = describe(at);
                let len = super::lex::char_len(at[0]).min(at.len());
                EdnError::new(at, len, Problem::Unexpected { found, expected })
            }
        }
    }
}

/// How to name the first character of `at` in a message.
fn describe(at: &[u8]) -> String {
    let c = std::str::from_utf8(&at[..super::lex::char_len(at[0]).min(at.len())])
        .ok()
        .and_then(|s| s.chars().next());
    match c {
        Some('\n') => "end of line".into(),
        Some(c) if c.is_control() => format!("control character U+{:04X}", c as u32),
        Some(c) => format!("`{c}`"),
        None => format!("byte 0x{:02X}", at[0]),
    }
}

impl<'a> ParseError<&'a [u8]> for EdnError<'a> {
    fn from_error_kind(input: &'a [u8], kind: ErrorKind) -> Self {
        EdnError::new(input, 0, Problem::Other(format!("syntax error ({kind:?})")))
    }

    fn append(_: &'a [u8], _: ErrorKind, other: Self) -> Self {
        other
    }
}

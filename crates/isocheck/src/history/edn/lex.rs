//! nom parsers for EDN's lexical forms, and the generic value reader.
//!
//! Every parser takes the rest of the input as a byte slice; because all
//! slices are suffixes of one buffer, a position is `buffer length - rest
//! length`, and spans cost nothing to record.

use super::error::{EdnError, Problem};
use super::{Kind, Node};
use crate::history::span::Span;
use nom::bytes::complete::{tag, take_while, take_while1};
use nom::{Err, IResult, Parser};
use std::borrow::Cow;
use std::collections::HashSet;

pub type In<'a> = &'a [u8];
pub type PResult<'a, T> = IResult<In<'a>, T, EdnError<'a>>;

/// Deeper nesting is refused rather than risking the stack.
pub const MAX_DEPTH: usize = 200;

const WS: u8 = 1;
const DELIM: u8 = 2;
/// Bytes allowed in symbols and keywords (non-ASCII bytes included).
const SYM: u8 = 4;

static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let ws = [b' ', b'\t', b'\n', b'\r', 0x0B, 0x0C, b','];
    let mut i = 0;
    while i < ws.len() {
        t[ws[i] as usize] = WS | DELIM;
        i += 1;
    }
    let delims = [b'(', b')', b'[', b']', b'{', b'}', b'"', b';', b'\\'];
    let mut i = 0;
    while i < delims.len() {
        t[delims[i] as usize] = DELIM;
        i += 1;
    }
    let sym = b".*+!-_?$%&=<>/'#:";
    let mut i = 0;
    while i < sym.len() {
        t[sym[i] as usize] = SYM;
        i += 1;
    }
    let mut b = 0;
    while b < 256 {
        if (b as u8).is_ascii_alphanumeric() || b >= 0x80 {
            t[b] = SYM;
        }
        b += 1;
    }
    t
};

#[inline]
pub fn is_ws(b: u8) -> bool {
    CLASS[b as usize] & WS != 0
}

/// Does `b` end a token (number, symbol, keyword)?
#[inline]
pub fn is_delim(b: u8) -> bool {
    CLASS[b as usize] & DELIM != 0
}

pub fn fail<T>(e: EdnError<'_>) -> PResult<'_, T> {
    Err(Err::Failure(e))
}

/// The UTF-8 byte-order mark U+FEFF. Some editors start a file with one;
/// there it is skipped, anywhere else it is a symbol character.
const BOM: &[u8] = "\u{FEFF}".as_bytes();

/// The text after its byte-order mark, if it starts with one.
pub fn without_bom(text: In<'_>) -> In<'_> {
    text.strip_prefix(BOM).unwrap_or(text)
}

/// A maximal run of non-delimiter bytes.
pub fn token(i: In<'_>) -> PResult<'_, In<'_>> {
    take_while1(|b| !is_delim(b)).parse(i)
}

/// The generic reader over one buffer.
#[derive(Clone, Copy)]
pub struct Reader<'a> {
    pub full: &'a [u8],
}

impl<'a> Reader<'a> {
    pub fn new(text: &'a str) -> Self {
        Reader {
            full: text.as_bytes(),
        }
    }

    #[inline]
    pub fn pos(&self, rest: In<'a>) -> usize {
        self.full.len() - rest.len()
    }

    #[inline]
    pub fn span(&self, from: In<'a>, to: In<'a>) -> Span {
        Span::new(self.pos(from), self.pos(to))
    }

    pub fn str_of(&self, bytes: &'a [u8]) -> Result<&'a str, Err<EdnError<'a>>> {
        std::str::from_utf8(bytes)
            .map_err(|_| Err::Failure(EdnError::new(bytes, bytes.len(), Problem::InvalidUtf8)))
    }

    /// Skips whitespace, commas, `;` comments and `#_` discards.
    #[inline]
    pub fn skip_ws(&self, mut i: In<'a>, depth: usize) -> PResult<'a, ()> {
        loop {
            match i.first() {
                Some(&b) if is_ws(b) => i = &i[1..],
                Some(b';') => {
                    // Clojure ends a comment at either line terminator.
                    i = match memchr::memchr2(b'\n', b'\r', i) {
                        Some(n) => &i[n + 1..],
                        None => &i[i.len()..],
                    }
                }
                Some(b'#') if i.get(1) == Some(&b'_') => i = self.discard(i, depth)?.0,
                _ => return Ok((i, ())),
            }
        }
    }

    fn discard(&self, i: In<'a>, depth: usize) -> PResult<'a, ()> {
        if depth > MAX_DEPTH {
            return fail(EdnError::new(i, 2, Problem::TooDeep(MAX_DEPTH)));
        }
        let (rest, _) = tag(&b"#_"[..]).parse(i)?;
        // `#_ #_ a b` nests: the inner discard is part of the outer one's form.
        let (rest, ()) = self.skip_ws(rest, depth + 1)?;
        match rest.first() {
            None | Some(b')' | b']' | b'}') => fail(EdnError::new(i, 2, Problem::EmptyDiscard)),
            _ => {
                let (rest, _) = self.value(rest, depth + 1)?;
                Ok((rest, ()))
            }
        }
    }

    /// Any EDN value. Whitespace before it must already be skipped.
    pub fn value(&self, i: In<'a>, depth: usize) -> PResult<'a, Node<'a>> {
        if depth > MAX_DEPTH {
            return fail(EdnError::new(i, 1, Problem::TooDeep(MAX_DEPTH)));
        }
        let Some(&b) = i.first() else {
            return fail(EdnError::unexpected(i, "a value"));
        };
        match b {
            b'(' => self.seq(i, b')', depth, Kind::List),
            b'[' => self.seq(i, b']', depth, Kind::Vector),
            b'{' => self.map(i, depth),
            b'"' => self.string(i),
            b'\\' => self.character(i),
            b':' => self.keyword(i),
            b'#' => self.dispatch(i, depth),
            b')' | b']' | b'}' => fail(EdnError::new(i, 1, Problem::Unmatched(b as char))),
            b'0'..=b'9' => self.number(i),
            b'+' | b'-' if i.get(1).is_some_and(u8::is_ascii_digit) => self.number(i),
            _ if is_delim(b) => fail(EdnError::unexpected(i, "a value")),
            _ => self.symbol(i),
        }
    }

    /// The elements of a list, vector or set body, up to `close`.
    fn elements(
        &self,
        open: In<'a>,
        body: In<'a>,
        close: u8,
        depth: usize,
    ) -> PResult<'a, Vec<Node<'a>>> {
        let mut items = Vec::new();
        let mut i = body;
        loop {
            (i, ()) = self.skip_ws(i, depth)?;
            match i.first() {
                Some(&c) if c == close => return Ok((&i[1..], items)),
                None => return fail(EdnError::new(open, 1, Problem::Eof(closing_name(close)))),
                Some(_) => {
                    let (rest, v) = self.value(i, depth + 1)?;
                    items.push(v);
                    i = rest;
                }
            }
        }
    }

    fn seq(
        &self,
        i: In<'a>,
        close: u8,
        depth: usize,
        make: fn(Vec<Node<'a>>) -> Kind<'a>,
    ) -> PResult<'a, Node<'a>> {
        let (rest, items) = self.elements(i, &i[1..], close, depth)?;
        Ok((
            rest,
            Node {
                span: self.span(i, rest),
                kind: make(items),
            },
        ))
    }

    fn map(&self, i: In<'a>, depth: usize) -> PResult<'a, Node<'a>> {
        let (rest, items) = self.elements(i, &i[1..], b'}', depth)?;
        if items.len() % 2 == 1 {
            let key = &items[items.len() - 1];
            let at = &self.full[key.span.start()..];
            return fail(EdnError::new(at, key.span.len(), Problem::OddMap));
        }
        let mut entries = Vec::with_capacity(items.len() / 2);
        let mut it = items.into_iter();
        while let (Some(k), Some(v)) = (it.next(), it.next()) {
            entries.push((k, v));
        }
        self.check_unique(entries.iter().map(|(k, _)| k), Problem::DuplicateKey)?;
        Ok((
            rest,
            Node {
                span: self.span(i, rest),
                kind: Kind::Map(entries),
            },
        ))
    }

    fn check_unique<'n>(
        &self,
        nodes: impl ExactSizeIterator<Item = &'n Node<'a>>,
        problem: fn(String) -> Problem,
    ) -> Result<(), Err<EdnError<'a>>>
    where
        'a: 'n,
    {
        if nodes.len() < 2 {
            return Ok(());
        }
        let mut seen = HashSet::new();
        for n in nodes {
            let canon = n.canonical();
            if !seen.insert(canon) {
                let at = &self.full[n.span.start()..];
                let text = String::from_utf8_lossy(&at[..n.span.len()]).into_owned();
                return Err(Err::Failure(EdnError::new(at, n.span.len(), problem(text))));
            }
        }
        Ok(())
    }

    /// `#{...}`, `#tag value`, `##Inf`; `#_` is handled by [`Reader::skip_ws`].
    fn dispatch(&self, i: In<'a>, depth: usize) -> PResult<'a, Node<'a>> {
        match i.get(1) {
            Some(b'{') => {
                let (rest, items) = self.elements(i, &i[2..], b'}', depth)?;
                self.check_unique(items.iter(), Problem::DuplicateSetElement)?;
                Ok((
                    rest,
                    Node {
                        span: self.span(i, rest),
                        kind: Kind::Set(items),
                    },
                ))
            }
            Some(b'#') => self.symbolic(i),
            Some(b'_') => {
                let (rest, ()) = self.discard(i, depth)?;
                let (rest, ()) = self.skip_ws(rest, depth)?;
                self.value(rest, depth)
            }
            Some(c) if c.is_ascii_alphabetic() => {
                let (rest, name) = token(&i[1..])?;
                let name = self.str_of(name)?;
                if !valid_symbol(name) {
                    return fail(EdnError::new(
                        i,
                        name.len() + 1,
                        Problem::InvalidTag(name.into()),
                    ));
                }
                let (rest, ()) = self.skip_ws(rest, depth)?;
                if rest
                    .first()
                    .is_none_or(|&c| matches!(c, b')' | b']' | b'}'))
                {
                    return fail(EdnError::unexpected(rest, "a value after the tag"));
                }
                let (rest, v) = self.value(rest, depth + 1)?;
                if let Some(problem) = check_tagged(name, &v) {
                    return fail(EdnError::new(i, self.pos(rest) - self.pos(i), problem));
                }
                Ok((
                    rest,
                    Node {
                        span: self.span(i, rest),
                        kind: Kind::Tagged(name, Box::new(v)),
                    },
                ))
            }
            _ => {
                let (_, t) = take_while(|b| !is_delim(b)).parse(&i[1..])?;
                let t = String::from_utf8_lossy(t).into_owned();
                fail(EdnError::new(i, t.len() + 1, Problem::InvalidTag(t)))
            }
        }
    }

    /// `##Inf`, `##-Inf`, `##NaN`.
    fn symbolic(&self, i: In<'a>) -> PResult<'a, Node<'a>> {
        let (rest, t) = token(&i[2..])
            .map_err(|_| Err::Failure(EdnError::unexpected(&i[2..], "Inf, -Inf or NaN")))?;
        let f = match t {
            b"Inf" => f64::INFINITY,
            b"-Inf" => f64::NEG_INFINITY,
            b"NaN" => f64::NAN,
            _ => {
                let t = String::from_utf8_lossy(t).into_owned();
                return fail(EdnError::new(
                    i,
                    t.len() + 2,
                    Problem::InvalidTag(format!("#{t}")),
                ));
            }
        };
        Ok((
            rest,
            Node {
                span: self.span(i, rest),
                kind: Kind::Float(f),
            },
        ))
    }

    pub fn string(&self, i: In<'a>) -> PResult<'a, Node<'a>> {
        let (rest, s) = self.string_body(i)?;
        Ok((
            rest,
            Node {
                span: self.span(i, rest),
                kind: Kind::Str(s),
            },
        ))
    }

    /// A string literal starting at `"`; borrowed when it has no escapes.
    pub fn string_body(&self, i: In<'a>) -> PResult<'a, Cow<'a, str>> {
        let body = &i[1..];
        let mut owned: Option<String> = None;
        let mut from = 0;
        loop {
            let Some(n) = memchr::memchr2(b'"', b'\\', &body[from..]) else {
                return fail(EdnError::new(i, 1, Problem::UnterminatedString));
            };
            let at = from + n;
            if body[at] == b'"' {
                let tail = self.str_of(&body[from..at])?;
                let s = match owned {
                    None => Cow::Borrowed(tail),
                    Some(mut s) => {
                        s.push_str(tail);
                        Cow::Owned(s)
                    }
                };
                return Ok((&body[at + 1..], s));
            }
            let s = owned.get_or_insert_with(String::new);
            s.push_str(self.str_of(&body[from..at])?);
            let (c, used) = unescape(&body[at..])?;
            s.push(c);
            from = at + used;
        }
    }

    fn character(&self, i: In<'a>) -> PResult<'a, Node<'a>> {
        let body = &i[1..];
        let first_len = match body.first() {
            None => return fail(EdnError::new(i, 1, Problem::InvalidChar("\\".into()))),
            Some(&b) if b != b',' && is_ws(b) => {
                return fail(EdnError::new(i, 1, Problem::InvalidChar("\\".into())))
            }
            Some(&b) => char_len(b),
        };
        let (rest, more) =
            take_while(|b| !is_delim(b)).parse(body.get(first_len..).unwrap_or(&[]))?;
        let text = self.str_of(&body[..first_len + more.len()])?;
        let c = char_literal(text).ok_or_else(|| {
            Err::Failure(EdnError::new(
                i,
                text.len() + 1,
                Problem::InvalidChar(format!("\\{text}")),
            ))
        })?;
        Ok((
            rest,
            Node {
                span: self.span(i, rest),
                kind: Kind::Char(c),
            },
        ))
    }

    pub fn keyword(&self, i: In<'a>) -> PResult<'a, Node<'a>> {
        let (rest, name) = self.keyword_name(i)?;
        Ok((
            rest,
            Node {
                span: self.span(i, rest),
                kind: Kind::Keyword(name),
            },
        ))
    }

    /// The name of a keyword starting at `:`, without the colon.
    pub fn keyword_name(&self, i: In<'a>) -> PResult<'a, &'a str> {
        let (rest, t) = self.keyword_bytes(i)?;
        Ok((rest, self.str_of(t)?))
    }

    /// The name of a keyword starting at `:`, as bytes: the hot path for op
    /// keys and micro-op functions, which are matched as bytes.
    #[inline]
    pub fn keyword_bytes(&self, i: In<'a>) -> PResult<'a, &'a [u8]> {
        let body = &i[1..];
        let mut n = 0;
        let mut valid = true;
        while n < body.len() {
            let class = CLASS[body[n] as usize];
            if class & DELIM != 0 {
                break;
            }
            valid &= class & SYM != 0;
            n += 1;
        }
        if n == 0 || body[0] == b':' || !valid {
            let name = String::from_utf8_lossy(&body[..n]);
            return fail(EdnError::new(
                i,
                n + 1,
                Problem::InvalidSymbol(format!(":{name}")),
            ));
        }
        Ok((&body[n..], &body[..n]))
    }

    fn symbol(&self, i: In<'a>) -> PResult<'a, Node<'a>> {
        let (rest, t) = token(i)?;
        let name = self.str_of(t)?;
        let kind = match name {
            "nil" => Kind::Nil,
            "true" => Kind::Bool(true),
            "false" => Kind::Bool(false),
            _ if valid_symbol(name) => Kind::Symbol(name),
            _ => {
                return fail(EdnError::new(
                    i,
                    t.len(),
                    Problem::InvalidSymbol(name.into()),
                ))
            }
        };
        Ok((
            rest,
            Node {
                span: self.span(i, rest),
                kind,
            },
        ))
    }

    pub fn number(&self, i: In<'a>) -> PResult<'a, Node<'a>> {
        let (rest, t) = token(i)?;
        let text = self.str_of(t)?;
        let kind = parse_number(text).ok_or_else(|| {
            Err::Failure(EdnError::new(
                i,
                t.len(),
                Problem::InvalidNumber(text.into()),
            ))
        })?;
        Ok((
            rest,
            Node {
                span: self.span(i, rest),
                kind,
            },
        ))
    }
}

/// Why Clojure's reader would refuse `#inst` or `#uuid` with this value
/// (isocheck also refuses the UUID forms Java versions read differently);
/// `None` for a good one and for other tags.
fn check_tagged(tag: &str, v: &Node<'_>) -> Option<Problem> {
    use super::scalar;
    let text = match &v.kind {
        Kind::Str(s) => Some(s.as_ref()),
        _ => None,
    };
    match (tag, text) {
        ("inst", Some(s)) => scalar::inst_millis(s)
            .err()
            .map(|why| Problem::InvalidInst(format!("{s:?}: {why}"))),
        ("uuid", Some(s)) => scalar::uuid(s)
            .is_none()
            .then(|| Problem::InvalidUuid(format!("{s:?}"))),
        ("inst", None) => Some(Problem::InvalidInst("a tag on a non-string".into())),
        ("uuid", None) => Some(Problem::InvalidUuid("a tag on a non-string".into())),
        _ => None,
    }
}

fn closing_name(close: u8) -> &'static str {
    match close {
        b')' => "`)`",
        b']' => "`]`",
        _ => "`}`",
    }
}

/// Bytes of the UTF-8 character that starts with `first`.
pub(crate) fn char_len(first: u8) -> usize {
    match first {
        0xF0.. => 4,
        0xE0.. => 3,
        0xC0.. => 2,
        _ => 1,
    }
}

/// Decodes one escape at `s` (which starts with `\`): the char and the bytes used.
fn unescape(s: &[u8]) -> Result<(char, usize), Err<EdnError<'_>>> {
    let bad = |len: usize| {
        let text = String::from_utf8_lossy(&s[1..len.min(s.len())]).into_owned();
        Err::Failure(EdnError::new(
            s,
            len.min(s.len()),
            Problem::InvalidEscape(text),
        ))
    };
    let c = match s.get(1) {
        Some(b't') => '\t',
        Some(b'r') => '\r',
        Some(b'n') => '\n',
        Some(b'\\') => '\\',
        Some(b'"') => '"',
        Some(b'f') => '\u{0C}',
        Some(b'b') => '\u{08}',
        Some(b'u') => {
            let code = hex4(s.get(2..6).ok_or_else(|| bad(s.len()))?).ok_or_else(|| bad(6))?;
            // A character beyond U+FFFF is two escapes, a surrogate pair, as
            // in Java's UTF-16 strings: "\uD83D\uDE00" is "😀".
            let low = match s.get(6..8) {
                Some(b"\\u") if (0xD800..0xDC00).contains(&code) => s.get(8..12).and_then(hex4),
                _ => None,
            };
            return match low.filter(|l| (0xDC00..0xE000).contains(l)) {
                Some(low) => char::from_u32(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00))
                    .map(|c| (c, 12))
                    .ok_or_else(|| bad(12)),
                None => char::from_u32(code).map(|c| (c, 6)).ok_or_else(|| bad(6)),
            };
        }
        Some(&b) => return Err(bad(1 + char_len(b))),
        None => return Err(bad(1)),
    };
    Ok((c, 2))
}

/// Four hex digits.
fn hex4(hex: &[u8]) -> Option<u32> {
    let text = std::str::from_utf8(hex).ok()?;
    let ok = hex.len() == 4 && hex.iter().all(u8::is_ascii_hexdigit);
    ok.then(|| u32::from_str_radix(text, 16).ok()).flatten()
}

/// The char a character literal (without its backslash) stands for.
fn char_literal(text: &str) -> Option<char> {
    let mut chars = text.chars();
    let first = chars.next()?;
    if chars.next().is_none() {
        return Some(first);
    }
    match text {
        "newline" => Some('\n'),
        "return" => Some('\r'),
        "space" => Some(' '),
        "tab" => Some('\t'),
        "formfeed" => Some('\u{0C}'),
        "backspace" => Some('\u{08}'),
        _ if text.len() == 5 && text.starts_with('u') => {
            let hex = &text[1..];
            hex.bytes()
                .all(|b| b.is_ascii_hexdigit())
                .then(|| u32::from_str_radix(hex, 16).ok().and_then(char::from_u32))
                .flatten()
        }
        _ if text.len() >= 2 && text.len() <= 4 && text.starts_with('o') => {
            let oct = &text[1..];
            u32::from_str_radix(oct, 8)
                .ok()
                .filter(|&n| n <= 0o377)
                .and_then(char::from_u32)
        }
        _ => None,
    }
}

fn valid_symbol_chars(s: &str) -> bool {
    s.bytes().all(|b| CLASS[b as usize] & SYM != 0)
}

/// EDN's symbol rules: no leading digit, no digit after a leading sign or
/// dot, at most one `/` with a non-empty namespace and name (or `/` alone).
pub fn valid_symbol(s: &str) -> bool {
    if s == "/" {
        return true;
    }
    let starts_ok = |part: &str| {
        let b = part.as_bytes();
        match b.first() {
            None => false,
            Some(c) if c.is_ascii_digit() || *c == b':' || *c == b'#' => false,
            Some(b'+' | b'-' | b'.') => !b.get(1).is_some_and(u8::is_ascii_digit),
            Some(_) => true,
        }
    };
    if !valid_symbol_chars(s) {
        return false;
    }
    match s.split_once('/') {
        None => starts_ok(s),
        Some((ns, name)) => starts_ok(ns) && starts_ok(name) && !name.contains('/'),
    }
}

/// An EDN number literal: `-12`, `12N`, `1.5`, `-1e3`, `1.5M`, and the
/// integers clojure.edn also reads: hex `0x1F`, octal `017`, radix `2r101`.
pub fn parse_number(text: &str) -> Option<Kind<'_>> {
    if text.contains('/') {
        return ratio_value(text).map(|_| Kind::Ratio(text));
    }
    let b = text.as_bytes();
    let unsigned = b
        .strip_prefix(b"-")
        .or_else(|| b.strip_prefix(b"+"))
        .unwrap_or(b);
    if let Some(n) = radix_integer(unsigned) {
        return n.map(|n| Kind::Int(if b[0] == b'-' { -n } else { n }));
    }
    let digits = unsigned.iter().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 || (digits > 1 && unsigned[0] == b'0') {
        return None;
    }
    let tail = &unsigned[digits..];
    let sign_len = b.len() - unsigned.len();
    match tail {
        [] => Some(
            text.parse::<i64>()
                .map(Kind::Int)
                .unwrap_or(Kind::BigInt(text)),
        ),
        [b'N'] => Some(Kind::BigInt(&text[..text.len() - 1])),
        _ => {
            let (body, big) = match tail.last() {
                Some(b'M') => (&text[..text.len() - 1], true),
                _ => (text, false),
            };
            let rest = &body.as_bytes()[sign_len + digits..];
            if !float_tail(rest) {
                return None;
            }
            if big {
                // Java's BigDecimal refuses exponents and scales beyond 32 bits.
                super::scalar::decimal(body).map(|_| Kind::BigDec(body))
            } else {
                body.parse::<f64>().ok().map(Kind::Float)
            }
        }
    }
}

/// The value of a ratio `n/d`, reduced: the numerator (signed) and the
/// denominator (positive). clojure.edn reads decimal parts, leading zeros
/// allowed, a sign on the numerator only, and refuses a zero denominator;
/// isocheck also refuses parts beyond 127 bits, which it cannot reduce.
pub fn ratio_value(text: &str) -> Option<(i128, i128)> {
    let (num, den) = text.split_once('/')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(num.strip_prefix(['+', '-']).unwrap_or(num)) || !digits(den) {
        return None;
    }
    let (n, d) = (num.parse::<i128>().ok()?, den.parse::<i128>().ok()?);
    if d == 0 {
        return None;
    }
    // d > 0, so the divisor is at least 1 and at most d: both divisions are exact.
    let g = gcd(n.unsigned_abs(), d.unsigned_abs()) as i128;
    Some((n / g, d / g))
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// A hex, octal or radix integer without its sign (`Some(None)` if it is
/// malformed or beyond 64 bits), or `None` for any other number. Printed
/// Java objects (`#object[java.lang.Object 0x5e9f23b4 ...]`) carry hex.
fn radix_integer(unsigned: &[u8]) -> Option<Option<i64>> {
    let text = std::str::from_utf8(unsigned).ok()?;
    let text = text.strip_suffix('N').unwrap_or(text);
    let (radix, digits) = if let Some(hex) =
        text.strip_prefix("0x").or_else(|| text.strip_prefix("0X"))
    {
        (16, hex)
    } else if let Some((radix, digits)) = text.split_once(['r', 'R']) {
        let radix = match radix.as_bytes() {
            [b'1'..=b'9'] | [b'1'..=b'9', b'0'..=b'9'] => radix.parse().ok(),
            _ => None,
        };
        (radix.filter(|r| (2..=36).contains(r))?, digits)
    } else if text.len() > 1 && text.starts_with('0') && text.bytes().all(|c| c.is_ascii_digit()) {
        (8, &text[1..])
    } else {
        return None;
    };
    let valid = !digits.is_empty() && digits.chars().all(|c| c.is_digit(radix));
    Some(
        valid
            .then(|| i64::from_str_radix(digits, radix).ok())
            .flatten(),
    )
}

/// `(.digits*)?([eE][+-]?digits)?`, empty allowed (for `1M`).
fn float_tail(mut t: &[u8]) -> bool {
    if let Some(r) = t.strip_prefix(b".") {
        t = &r[r.iter().take_while(|c| c.is_ascii_digit()).count()..];
    }
    if let Some(r) = t.strip_prefix(b"e").or_else(|| t.strip_prefix(b"E")) {
        let r = r
            .strip_prefix(b"-")
            .or_else(|| r.strip_prefix(b"+"))
            .unwrap_or(r);
        let n = r.iter().take_while(|c| c.is_ascii_digit()).count();
        return n > 0 && n == r.len();
    }
    t.is_empty()
}

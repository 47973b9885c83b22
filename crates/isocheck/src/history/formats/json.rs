//! JSON histories, as elle-cli reads them: one array of op objects, or one
//! object a line (JSON Lines), keys as Jepsen's (`type`, `f`, `process`,
//! `time`, `index`, `value`, anything else kept as an extra). Ops go straight
//! into the same arenas as EDN's, with spans into the JSON text, so pairing,
//! workload detection, the checks and the diagnostics are EDN's.
//!
//! elle-cli turns JSON into EDN with three rules, which this module owns and
//! applies wherever a JSON value becomes an EDN one (interning, register
//! values, the ops reports print): object keys become keywords; the values of
//! `type` and `f` become keywords (`"ok"` is `:ok`); and a `value` that is an
//! array of arrays starting with a string is a transaction, whose micro-op
//! functions become keywords (`["append", 1, 2]` is `[:append 1 2]`). Every
//! other string stays a string: `["w", "x", 1]` writes key `"x"`.
//!
//! Elle's closed-predicate workload adds two shapes, which elle-cli does not
//! read, so that a JSON history means what its EDN twin means. A predicate
//! read `["rp", pred, rows]` takes its predicate as a micro-op's function
//! (`"true"` is `:true`, `["mod", 2, 0]` is `[:mod 2 0]`). Its rows, and
//! the value of an op whose `f` is `"init"`, map keys to values, keys being
//! the keys micro-ops name: an object's key is the number its text spells
//! when it spells one (`{"7": 1}` is `{7 1}`), else the string (`{"x": 0}`
//! is `{"x" 0}`, the key `["w", "x", 1]` writes); an array of `[key, value]`
//! pairs says any key (`[["7", 1]]` is `{"7" 1}`).

use super::super::edn::lex::{parse_number, valid_symbol};
use super::super::edn::{Kind, Node};
use super::super::error::{ErrorKind, HistoryError};
use super::super::jepsen::{describe, Ops};
use super::super::model::{MicroOp, MopKind, MopValue, Op, OpType, OpValue, Process};
use super::super::span::Span;
use super::super::value::Val;
use std::borrow::Cow;

/// Nesting deeper than this is an error, as in EDN: no stack overflow.
const MAX_DEPTH: usize = 200;

/// Whether the first bytes of a file (after white space and a byte order
/// mark) are a JSON history: an object whose first key is a string, or an
/// array whose first element is one. EDN op maps have keyword keys.
pub fn looks_like_json(head: &[u8]) -> bool {
    let mut rest = skip_ws(head);
    if let Some(after) = rest.strip_prefix(b"[") {
        rest = skip_ws(after);
    }
    rest.strip_prefix(b"{")
        .is_some_and(|after| skip_ws(after).first() == Some(&b'"'))
}

fn skip_ws(b: &[u8]) -> &[u8] {
    let n = b.iter().take_while(|c| is_ws(**c)).count();
    &b[n..]
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// Reads every op of a JSON history.
pub fn read_ops(text: &str) -> Result<Ops, HistoryError> {
    let mut p = Parser::new(text);
    let mut out = OpsBuilder {
        out: Ops {
            json: true,
            ..Ops::default()
        },
    };
    out.out.ops.reserve(text.len() / 128);
    p.ws();
    match p.peek() {
        Some(b'[') => {
            let open = p.pos;
            p.pos += 1;
            p.elements(open, b']', |p| {
                let op = p.value(1)?;
                out.op(op)
            })?;
            p.ws();
            if p.pos < p.b.len() {
                return Err(p.error(
                    p.pos,
                    1,
                    "nothing may follow the array of ops",
                    "remove it, or put every op inside the array",
                ));
            }
        }
        _ => {
            while p.pos < p.b.len() {
                if p.peek() == Some(b',') {
                    return Err(p.stray_comma(p.pos, "between ops: one object a line needs no commas (or put them all in one array)"));
                }
                let op = p.value(0)?;
                out.op(op)?;
                p.ws();
            }
        }
    }
    Ok(out.out)
}

/// A JSON value with the span of its text.
#[derive(Debug)]
pub(crate) struct J<'a> {
    span: Span,
    kind: JKind<'a>,
}

#[derive(Debug)]
enum JKind<'a> {
    Null,
    Bool(bool),
    /// A number's text, valid JSON (and so valid EDN).
    Num(&'a str),
    Str(Cow<'a, str>),
    Arr(Vec<J<'a>>),
    Obj(Vec<(J<'a>, J<'a>)>),
}

impl J<'_> {
    pub(crate) fn str(&self) -> Option<&str> {
        match &self.kind {
            JKind::Str(s) => Some(s),
            _ => None,
        }
    }

    pub(crate) fn span(&self) -> Span {
        self.span
    }

    /// An object's members, in file order.
    pub(crate) fn members(&self) -> Option<&[(J<'_>, J<'_>)]> {
        match &self.kind {
            JKind::Obj(members) => Some(members),
            _ => None,
        }
    }

    /// An array's elements.
    pub(crate) fn items(&self) -> Option<&[J<'_>]> {
        match &self.kind {
            JKind::Arr(items) => Some(items),
            _ => None,
        }
    }

    /// A number's text, or a string's.
    pub(crate) fn num_or_str(&self) -> Option<&str> {
        match &self.kind {
            JKind::Num(t) => Some(t),
            JKind::Str(s) => Some(s),
            _ => None,
        }
    }

    pub(crate) fn is_null(&self) -> bool {
        matches!(self.kind, JKind::Null)
    }

    /// What the value is, for messages ("the string \"x\"").
    pub(crate) fn describe(&self) -> String {
        describe(&node(self, Context::Op))
    }
}

/// Reads a JSON text that is one array, calling `item` on each element in
/// turn; `help` says what the array should hold.
pub(crate) fn for_each_element(
    text: &str,
    help: &str,
    mut item: impl FnMut(J<'_>) -> Result<(), HistoryError>,
) -> Result<(), HistoryError> {
    let mut p = Parser::new(text);
    p.ws();
    if p.peek() != Some(b'[') {
        let mut e = p.unexpected(p.pos, "`[`");
        e.help = help.to_string();
        return Err(e);
    }
    let open = p.pos;
    p.pos += 1;
    p.elements(open, b']', |p| item(p.value(1)?))?;
    p.ws();
    if p.pos < p.b.len() {
        return Err(p.error(
            p.pos,
            1,
            "nothing may follow the array",
            "remove it, or put it inside the array",
        ));
    }
    Ok(())
}

/// A recursive-descent reader of JSON (RFC 8259) that keeps spans.
struct Parser<'a> {
    text: &'a str,
    b: &'a [u8],
    pos: usize,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Self {
        let b = text.as_bytes();
        let pos = if b.starts_with("\u{FEFF}".as_bytes()) {
            3
        } else {
            0
        };
        Parser { text, b, pos }
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    fn ws(&mut self) {
        while self.peek().is_some_and(is_ws) {
            self.pos += 1;
        }
    }

    fn error(&self, at: usize, len: usize, msg: &str, help: &str) -> HistoryError {
        let label = if at >= self.b.len() {
            "the input ends here"
        } else {
            "here"
        };
        // A token cut short by the end of the input ends there.
        let start = at.min(self.b.len());
        let end = at.saturating_add(len).min(self.b.len()).max(start);
        HistoryError::new(ErrorKind::Json(msg.to_string()), help).at(Span::new(start, end), label)
    }

    fn stray_comma(&self, at: usize, why: &str) -> HistoryError {
        HistoryError::new(
            ErrorKind::Json("stray comma".to_string()),
            format!("remove this comma: {why}"),
        )
        .at(Span::new(at, at + 1), "this comma")
    }

    fn unclosed(&self, open: usize, what: &str) -> HistoryError {
        HistoryError::new(
            ErrorKind::Json(format!("the input ends inside {what}")),
            "close it, or check that the file was written whole",
        )
        .at(Span::new(open, open + 1), "opened here")
    }

    /// One value, after white space.
    fn value(&mut self, depth: usize) -> Result<J<'a>, HistoryError> {
        self.ws();
        if depth > MAX_DEPTH {
            return Err(self.error(
                self.pos,
                1,
                "values nest deeper than 200 levels",
                "histories nest a few levels; this file is not one",
            ));
        }
        let start = self.pos;
        let kind = match self.peek() {
            None => {
                return Err(self.error(
                    start,
                    0,
                    "expected a JSON value",
                    "the input ends early; check that the file was written whole",
                ))
            }
            Some(b'{') => self.object(depth)?,
            Some(b'[') => {
                self.pos += 1;
                let mut items = Vec::new();
                self.elements(start, b']', |p| {
                    items.push(p.value(depth + 1)?);
                    Ok(())
                })?;
                JKind::Arr(items)
            }
            Some(b'"') => JKind::Str(self.string()?),
            Some(b'-' | b'0'..=b'9') => JKind::Num(self.number()?),
            Some(b't') => self.literal("true", JKind::Bool(true))?,
            Some(b'f') => self.literal("false", JKind::Bool(false))?,
            Some(b'n') => self.literal("null", JKind::Null)?,
            Some(b',') => return Err(self.stray_comma(start, "JSON has no empty elements")),
            Some(_) => {
                return Err(self.unexpected(
                    start,
                    "a JSON value (an object, array, string, number, true, false or null)",
                ))
            }
        };
        Ok(J {
            span: Span::new(start, self.pos),
            kind,
        })
    }

    /// "expected X, found Y" at `at`, Y being the character there.
    fn unexpected(&self, at: usize, expected: &str) -> HistoryError {
        let found = self.text[at..].chars().next().map_or(0, char::len_utf8);
        let what = match &self.text[at..at + found] {
            "" => "the end of the input".to_string(),
            c if c.chars().all(char::is_control) => format!("`{}`", c.escape_debug()),
            c => format!("`{c}`"),
        };
        let help = match &self.text[at..at + found] {
            ":" => "keys are strings in double quotes; EDN's keywords are not JSON",
            "'" => "JSON strings use double quotes",
            _ => "check the JSON syntax here",
        };
        self.error(
            at,
            found,
            &format!("expected {expected}, found {what}"),
            help,
        )
    }

    /// The elements of an array or the members of an object, after the
    /// opening bracket at `open`: `item` reads one, commas between them.
    fn elements(
        &mut self,
        open: usize,
        close: u8,
        mut item: impl FnMut(&mut Self) -> Result<(), HistoryError>,
    ) -> Result<(), HistoryError> {
        let what = if close == b']' {
            "this array"
        } else {
            "this object"
        };
        let mut first = true;
        loop {
            self.ws();
            match self.peek() {
                None => return Err(self.unclosed(open, what)),
                Some(c) if c == close && first => break,
                Some(b',') if first => {
                    return Err(self.stray_comma(self.pos, "nothing comes before it"))
                }
                _ => {}
            }
            item(self)?;
            self.ws();
            match self.peek() {
                None => return Err(self.unclosed(open, what)),
                Some(c) if c == close => break,
                Some(b',') => {
                    let comma = self.pos;
                    self.pos += 1;
                    self.ws();
                    if self.peek() == Some(close) {
                        return Err(self
                            .stray_comma(comma, "JSON allows no comma before a closing bracket"));
                    }
                }
                Some(_) => {
                    let expected = if close == b']' {
                        "`,` or `]`"
                    } else {
                        "`,` or `}`"
                    };
                    return Err(self.unexpected(self.pos, expected));
                }
            }
            first = false;
        }
        self.pos += 1;
        Ok(())
    }

    fn object(&mut self, depth: usize) -> Result<JKind<'a>, HistoryError> {
        let open = self.pos;
        self.pos += 1;
        let mut members = Vec::new();
        self.elements(open, b'}', |p| {
            p.ws();
            if p.peek() != Some(b'"') {
                return Err(p.unexpected(p.pos, "a key in double quotes"));
            }
            let key = p.value(depth + 1)?;
            p.ws();
            if p.peek() != Some(b':') {
                return Err(p.unexpected(p.pos, "`:` after the key"));
            }
            p.pos += 1;
            let value = p.value(depth + 1)?;
            members.push((key, value));
            Ok(())
        })?;
        Ok(JKind::Obj(members))
    }

    fn literal(&mut self, word: &str, kind: JKind<'a>) -> Result<JKind<'a>, HistoryError> {
        let end = self.pos + word.len();
        let ends = self.b.get(end).is_none_or(|c| !c.is_ascii_alphanumeric());
        if self.b[self.pos..].starts_with(word.as_bytes()) && ends {
            self.pos = end;
            return Ok(kind);
        }
        let len = self.b[self.pos..]
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric())
            .count();
        Err(self.error(
            self.pos,
            len,
            "not a JSON value",
            "JSON's literals are true, false and null; strings need double quotes",
        ))
    }

    fn number(&mut self) -> Result<&'a str, HistoryError> {
        let start = self.pos;
        let digits = |p: &mut Self| {
            let from = p.pos;
            while p.peek().is_some_and(|c| c.is_ascii_digit()) {
                p.pos += 1;
            }
            p.pos - from
        };
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        let int_start = self.pos;
        let n = digits(self);
        let mut ok = n > 0 && !(n > 1 && self.b[int_start] == b'0');
        if ok && self.peek() == Some(b'.') {
            self.pos += 1;
            ok = digits(self) > 0;
        }
        if ok && matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            ok = digits(self) > 0;
        }
        ok = ok
            && self
                .peek()
                .is_none_or(|c| !c.is_ascii_alphanumeric() && c != b'.');
        if !ok {
            let len = self.b[start..]
                .iter()
                .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'-' | b'+'))
                .count();
            return Err(self.error(
                start,
                len,
                "not a JSON number",
                "JSON numbers are decimal, without leading zeros: -12, 3.5, 1e9",
            ));
        }
        Ok(&self.text[start..self.pos])
    }

    /// A string, at its opening quote; borrowed unless it has escapes.
    fn string(&mut self) -> Result<Cow<'a, str>, HistoryError> {
        let open = self.pos;
        self.pos += 1;
        let from = self.pos;
        loop {
            match self.peek() {
                None => return Err(self.unclosed_string(open)),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(Cow::Borrowed(&self.text[from..self.pos - 1]));
                }
                Some(b'\\') => break,
                Some(c) if c < 0x20 => return Err(self.control(c)),
                Some(_) => self.pos += 1,
            }
        }
        let mut s = self.text[from..self.pos].to_string();
        loop {
            match self.peek() {
                None => return Err(self.unclosed_string(open)),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(Cow::Owned(s));
                }
                Some(b'\\') => s.push(self.escape()?),
                Some(c) if c < 0x20 => return Err(self.control(c)),
                Some(_) => {
                    let c = self.text[self.pos..].chars().next().unwrap_or('\u{FFFD}');
                    s.push(c);
                    self.pos += c.len_utf8();
                }
            }
        }
    }

    fn unclosed_string(&self, open: usize) -> HistoryError {
        HistoryError::new(
            ErrorKind::Json("unterminated string".to_string()),
            "close the string with `\"`",
        )
        .at(Span::new(open, open + 1), "opened here")
    }

    fn control(&self, c: u8) -> HistoryError {
        let msg = format!("control character {c:#04x} in a string");
        self.error(
            self.pos,
            1,
            &msg,
            "JSON strings escape control characters: \\n, \\t, \\u0000",
        )
    }

    /// One escape sequence, at its backslash.
    fn escape(&mut self) -> Result<char, HistoryError> {
        let at = self.pos;
        let c = match self.b.get(at + 1) {
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => return self.unicode_escape(),
            _ => {
                return Err(self.error(
                    at,
                    2,
                    "invalid escape",
                    "JSON's escapes are \\\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX",
                ))
            }
        };
        self.pos += 2;
        Ok(c)
    }

    /// `\uXXXX`, or a surrogate pair of them.
    fn unicode_escape(&mut self) -> Result<char, HistoryError> {
        let at = self.pos;
        let bad = |p: &Self| {
            p.error(at, 6, "invalid \\u escape", "\\u takes four hex digits; a character beyond U+FFFF is a surrogate pair \\uD83D\\uDE00")
        };
        let hex = |p: &Self, i: usize| {
            p.text
                .get(i..i + 4)
                .filter(|h| h.bytes().all(|c| c.is_ascii_hexdigit()))
                .and_then(|h| u32::from_str_radix(h, 16).ok())
        };
        let hi = hex(self, at + 2).ok_or_else(|| bad(self))?;
        self.pos += 6;
        if !(0xD800..0xDC00).contains(&hi) {
            return char::from_u32(hi).ok_or_else(|| bad(self));
        }
        let lo = match self.b[self.pos..].starts_with(b"\\u") {
            true => hex(self, self.pos + 2).filter(|lo| (0xDC00..0xE000).contains(lo)),
            false => None,
        };
        let lo = lo.ok_or_else(|| bad(self))?;
        self.pos += 6;
        char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)).ok_or_else(|| bad(self))
    }
}

/// Where a value sits, for elle-cli's keyword rules.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Context {
    /// An op, or any other value whose keys and nested `type`, `f` and
    /// `value` entries follow the rules.
    Op,
    /// A micro-op of a transaction: its first string is its function.
    MicroOp,
    /// A `type` or `f` value: a string is a keyword.
    Keyword,
    /// An op's `value`: a transaction when it is an array of arrays whose
    /// first starts with a string.
    Value,
    /// A predicate read's predicate: a string, or an array's first, is a
    /// keyword.
    Predicate,
    /// A closed-predicate map of keys to values (an `init` op's value, a
    /// predicate read's rows): an object, or an array of pairs.
    Rows,
}

/// The EDN value of `j` where it sits (see the module comment).
fn node<'j>(j: &'j J<'_>, cx: Context) -> Node<'j> {
    let kind = match &j.kind {
        JKind::Null => Kind::Nil,
        JKind::Bool(b) => Kind::Bool(*b),
        JKind::Num(t) => parse_number(t).unwrap_or(Kind::Symbol(t)),
        JKind::Str(s) if matches!(cx, Context::Keyword | Context::Predicate) && valid_symbol(s) => {
            Kind::Keyword(s)
        }
        JKind::Str(s) => Kind::Str(Cow::Borrowed(s)),
        JKind::Arr(items) if cx == Context::Rows && items.iter().all(is_pair) => {
            Kind::Map(items.iter().filter_map(pair_nodes).collect())
        }
        JKind::Arr(items) => {
            let predicate_read =
                cx == Context::MicroOp && items.first().and_then(J::str) == Some("rp");
            let cx_of = |i: usize| match cx {
                Context::Value if is_transaction(items) => Context::MicroOp,
                Context::MicroOp | Context::Predicate if i == 0 => Context::Keyword,
                Context::MicroOp if predicate_read && i == 1 => Context::Predicate,
                Context::MicroOp if predicate_read && i == 2 => Context::Rows,
                _ => Context::Op,
            };
            let items = items.iter().enumerate();
            Kind::Vector(items.map(|(i, x)| node(x, cx_of(i))).collect())
        }
        JKind::Obj(members) if cx == Context::Rows => Kind::Map(
            members
                .iter()
                .map(|(k, v)| (row_key(k), node(v, Context::Op)))
                .collect(),
        ),
        JKind::Obj(members) => {
            let init = members
                .iter()
                .any(|(k, v)| k.str() == Some("f") && v.str() == Some("init"));
            Kind::Map(
                members
                    .iter()
                    .map(|(k, v)| (key_node(k), node(v, member_context(k, init))))
                    .collect(),
            )
        }
    };
    Node { span: j.span, kind }
}

fn is_pair(j: &J<'_>) -> bool {
    j.items().is_some_and(|kv| kv.len() == 2)
}

/// The key and value nodes of a `[key, value]` pair, read as a micro-op's.
fn pair_nodes<'j>(j: &'j J<'_>) -> Option<(Node<'j>, Node<'j>)> {
    match j.items()? {
        [k, v] => Some((node(k, Context::Op), node(v, Context::Op))),
        _ => None,
    }
}

/// A key of a closed-predicate object: the number its text spells, when
/// it spells a JSON number (Jepsen's JSON writes `{7 1}` as `{"7": 1}`),
/// else the string, as a micro-op's `"x"` is.
fn row_key<'j>(k: &'j J<'_>) -> Node<'j> {
    let kind = match k.str() {
        Some(s) if is_json_number(s) => parse_number(s).unwrap_or(Kind::Str(Cow::Borrowed(s))),
        Some(s) => Kind::Str(Cow::Borrowed(s)),
        None => return node(k, Context::Op),
    };
    Node { span: k.span, kind }
}

/// Whether `s` is the whole text of a JSON number.
fn is_json_number(s: &str) -> bool {
    let mut p = Parser::new(s);
    s.starts_with(['-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9'])
        && p.number().is_ok()
        && p.pos == s.len()
}

/// elle-cli's `:key-fn keyword`: a key is a keyword when its name is one,
/// else it stays a string.
fn key_node<'j>(k: &'j J<'_>) -> Node<'j> {
    let kind = match k.str() {
        Some(s) if valid_symbol(s) => Kind::Keyword(s),
        Some(s) => Kind::Str(Cow::Borrowed(s)),
        None => return node(k, Context::Op),
    };
    Node { span: k.span, kind }
}

/// The context of an op's member; `init` when the op's `f` is `"init"`
/// (closed-predicate's, whose value is a map of rows).
fn member_context(key: &J<'_>, init: bool) -> Context {
    match key.str() {
        Some("type" | "f") => Context::Keyword,
        Some("value") if init => Context::Rows,
        Some("value") => Context::Value,
        _ => Context::Op,
    }
}

/// elle-cli's test for a transaction: the first element is an array that
/// starts with a string.
fn is_transaction(items: &[J<'_>]) -> bool {
    match items.first().map(|j| &j.kind) {
        Some(JKind::Arr(mop)) => mop.first().is_some_and(|f| f.str().is_some()),
        _ => false,
    }
}

/// Reads the JSON `text` (an op, a micro-op or a value already read once)
/// and hands its EDN value to `f`; `None` if it is not JSON.
pub fn with_node<R>(text: &str, cx: Context, f: impl FnOnce(&Node<'_>) -> R) -> Option<R> {
    let mut p = Parser::new(text);
    let j = p.value(0).ok()?;
    Some(f(&node(&j, cx)))
}

/// Where the JSON value at the front of `text` ends (a byte offset), when
/// it reads: its whole text, which a span longer than 16 MiB does not give.
pub fn value_end(text: &str) -> Option<usize> {
    let mut p = Parser::new(text);
    p.value(0).ok()?;
    Some(p.pos)
}

/// The EDN text of the JSON `text` (an op, a micro-op or a value), its
/// maps' entries in the file's order: what reports print for it.
pub fn to_edn(text: &str, cx: Context) -> Option<String> {
    with_node(text, cx, |n| {
        let mut out = String::new();
        write_edn(n, &mut out);
        out
    })
}

fn write_edn(n: &Node<'_>, out: &mut String) {
    match &n.kind {
        Kind::Map(entries) => {
            out.push('{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_edn(k, out);
                out.push(' ');
                write_edn(v, out);
            }
            out.push('}');
        }
        Kind::Vector(items) => {
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                write_edn(x, out);
            }
            out.push(']');
        }
        _ => n.write_canonical(out),
    }
}

/// Turns op objects into ops in the arenas.
struct OpsBuilder {
    out: Ops,
}

/// The keys an op's fields are read from.
const OP_KEYS: [&str; 6] = ["type", "process", "index", "time", "f", "value"];

impl OpsBuilder {
    fn op(&mut self, j: J<'_>) -> Result<(), HistoryError> {
        let JKind::Obj(members) = &j.kind else {
            let what = describe(&node(&j, Context::Op));
            return Err(HistoryError::new(
                ErrorKind::NotAnOp(what),
                "a JSON history holds op objects, like {\"type\": \"ok\", \"process\": 0, \"value\": [...]}",
            )
            .at(j.span, "not an op object"));
        };
        let mut op = Op::new(self.out.ops.len() as i64, OpType::Info, j.span);
        let mut ty = None;
        let (mut init, mut value_at) = (false, (j.span, 0, 0));
        let extras_start = self.out.extras.len();
        for (n, (k, v)) in members.iter().enumerate() {
            let name = k.str().unwrap_or_default();
            if members[..n]
                .iter()
                .any(|(seen, _)| seen.str() == Some(name))
            {
                return Err(HistoryError::new(
                    ErrorKind::DuplicateField(name.to_string()),
                    "each key may appear once in an op",
                )
                .at(k.span, "again here"));
            }
            match OP_KEYS.iter().position(|&key| key == name) {
                Some(0) => ty = Some(op_type(v)?),
                Some(1) => op.process = self.process(v)?,
                Some(2) => op.index = int_field(v, "index", "an integer")?,
                Some(3) => op.set_time(int_field(v, "time", "an integer (nanoseconds)")?),
                Some(4) => {
                    init = v.str() == Some("init");
                    op.f = self.val(v, Context::Keyword)?;
                }
                Some(5) => {
                    value_at = (v.span, self.out.mops.len(), self.out.elems.len());
                    op.value = self.op_value(v)?;
                }
                _ => self.out.extras.push((k.span, v.span)),
            }
        }
        if init && matches!(op.value, OpValue::Txn { .. }) {
            // Closed-predicate's `init` holds rows: `[["r", 0]]` is no read.
            let (span, mops, elems) = value_at;
            self.out.mops.truncate(mops);
            self.out.elems.truncate(elems);
            op.value = OpValue::Other(span);
        }
        op.extras_start = extras_start as u32;
        op.extras_len = (self.out.extras.len() - extras_start) as u32;
        op.ty = match ty {
            Some(t) => t,
            None => return Err(missing_type(members, j.span)),
        };
        self.out.ops.push(op);
        crate::limits::tick_read(self.out.ops.len(), j.span.end());
        Ok(())
    }

    fn process(&mut self, j: &J<'_>) -> Result<Process, HistoryError> {
        let n = node(j, Context::Op);
        Ok(match n.integer() {
            Some(Some(p)) => Process::Client(p),
            Some(None) => {
                let expected = "an integer within 64 bits (or a non-integer such as \"nemesis\")";
                return Err(bad_field(&n, "process", expected));
            }
            None => Process::Other(self.out.values.node(&n)?),
        })
    }

    /// A value interned; small integers without the generic path. JSON
    /// has no NaN, so the error of [`super::super::value::ValueTable::node`]
    /// never comes, but is passed on all the same.
    fn val(&mut self, j: &J<'_>, cx: Context) -> Result<Val, HistoryError> {
        if let JKind::Num(t) = j.kind {
            if let Ok(n) = t.parse::<u64>() {
                return Ok(self.out.values.uint(n));
            }
        }
        Ok(self.out.values.node(&node(j, cx))?)
    }

    /// `value`: a transaction when every element is a micro-op, else an
    /// opaque value (read again by span where a workload needs it).
    fn op_value(&mut self, j: &J<'_>) -> Result<OpValue, HistoryError> {
        Ok(match &j.kind {
            JKind::Null => OpValue::Nil,
            JKind::Arr(items) => {
                let (mops, elems) = (self.out.mops.len(), self.out.elems.len());
                let mut all = true;
                for m in items {
                    if !self.mop(m)? {
                        all = false;
                        break;
                    }
                }
                if all {
                    let len = (self.out.mops.len() - mops) as u32;
                    return Ok(OpValue::Txn {
                        start: mops as u32,
                        len,
                    });
                }
                self.out.mops.truncate(mops);
                self.out.elems.truncate(elems);
                OpValue::Other(j.span)
            }
            _ => OpValue::Other(j.span),
        })
    }

    /// `["r", k, v]`, `["r", k]`, `["append", k, v]`, `["w", k, v]`; false
    /// for anything else, as EDN's reader does.
    fn mop(&mut self, j: &J<'_>) -> Result<bool, HistoryError> {
        const KINDS: [(&str, MopKind); 3] = [
            ("r", MopKind::Read),
            ("append", MopKind::Append),
            ("w", MopKind::Write),
        ];
        let JKind::Arr(parts) = &j.kind else {
            return Ok(false);
        };
        let kind = parts
            .first()
            .and_then(J::str)
            .and_then(|f| KINDS.iter().find(|(name, _)| *name == f));
        let (Some(&(_, kind)), 2..=3) = (kind, parts.len()) else {
            return Ok(false);
        };
        let key = self.val(&parts[1], Context::Op)?;
        let value = match parts.get(2).map(|v| &v.kind) {
            None => MopValue::Val(Val::NIL),
            Some(JKind::Arr(elems)) if kind == MopKind::Read => {
                let start = self.out.elems.len();
                for e in elems {
                    let v = self.val(e, Context::Op)?;
                    self.out.elems.push(v);
                }
                // Past `u32`, `history::build` refuses the history.
                let len = (self.out.elems.len() - start) as u32;
                MopValue::List {
                    start: start as u32,
                    len,
                }
            }
            Some(_) => MopValue::Val(self.val(&parts[2], Context::Op)?),
        };
        self.out.mops.push(MicroOp::new(kind, key, value, j.span));
        Ok(true)
    }
}

fn op_type(j: &J<'_>) -> Result<OpType, HistoryError> {
    const TYPES: [(&str, OpType); 4] = [
        ("invoke", OpType::Invoke),
        ("ok", OpType::Ok),
        ("fail", OpType::Fail),
        ("info", OpType::Info),
    ];
    let found = j
        .str()
        .and_then(|s| TYPES.iter().find(|(name, _)| *name == s));
    match found {
        Some(&(_, t)) => Ok(t),
        None => Err(bad_field(
            &node(j, Context::Op),
            "type",
            "one of \"invoke\", \"ok\", \"fail\", \"info\"",
        )),
    }
}

fn int_field(j: &J<'_>, field: &'static str, expected: &'static str) -> Result<i64, HistoryError> {
    let n = node(j, Context::Op);
    match n.kind {
        Kind::Int(i) => Ok(i),
        _ => Err(bad_field(&n, field, expected)),
    }
}

fn bad_field(n: &Node<'_>, field: &'static str, expected: &'static str) -> HistoryError {
    HistoryError::new(
        ErrorKind::BadField { field, expected },
        format!("found {}", describe(n)),
    )
    .at(n.span, "here")
}

/// An op without `type`: a results file's map if it has `valid?`.
fn missing_type(members: &[(J<'_>, J<'_>)], span: Span) -> HistoryError {
    let is_results = members.iter().any(|(k, _)| k.str() == Some("valid?"));
    let (kind, help) = match is_results {
        true => (
            ErrorKind::NotAHistory,
            "this looks like a checker's results; pass the history beside it",
        ),
        false => (
            ErrorKind::MissingType,
            "every op needs \"type\", one of \"invoke\", \"ok\", \"fail\", \"info\"",
        ),
    };
    let head = Span::new(span.start(), span.start() + 1);
    HistoryError::new(kind, help).at(head, "this op")
}

#[cfg(test)]
mod tests;

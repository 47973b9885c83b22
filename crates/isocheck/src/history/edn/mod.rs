//! A zero-copy EDN reader with byte spans, written with nom.
//!
//! [`read_all`] reads every top-level form of a text into [`Node`]s, each with
//! the span it came from; strings borrow from the input unless they contain
//! escapes. The typed Jepsen op reader ([`crate::history::jepsen`]) shares the
//! lexical parsers of `lex` and falls back to `lex::Reader::value` for
//! everything it does not read itself. The accepted language is written down
//! in `grammar/edn.ebnf`.

pub mod error;
pub(crate) mod lex;
pub mod scalar;

pub use error::{EdnError, Problem};
pub use lex::ratio_value;

use crate::history::span::Span;
use std::borrow::Cow;
use std::fmt::Write;

/// An EDN value with the span it was read from.
#[derive(Debug, Clone, PartialEq)]
pub struct Node<'a> {
    /// Where the form is in the text.
    pub span: Span,
    /// What the form is.
    pub kind: Kind<'a>,
}

/// The EDN value kinds.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind<'a> {
    /// `nil`
    Nil,
    /// `true` or `false`.
    Bool(bool),
    /// An integer that fits in 64 bits.
    Int(i64),
    /// An integer with an `N` suffix or beyond 64 bits: its digits (with sign, without `N`).
    BigInt(&'a str),
    /// A floating-point number.
    Float(f64),
    /// A decimal with an `M` suffix: its text without the `M`.
    BigDec(&'a str),
    /// A ratio `n/d` as written (`2/4`); [`ratio_value`] reduces it.
    /// Clojure writes ratios; one that divides (`4/2`) is an integer.
    Ratio(&'a str),
    /// A string, unescaped.
    Str(Cow<'a, str>),
    /// A character (`\\a`, `\\newline`).
    Char(char),
    /// A keyword's name, without the colon (`jepsen.history/op` for `:jepsen.history/op`).
    Keyword(&'a str),
    /// A symbol.
    Symbol(&'a str),
    /// `(...)`
    List(Vec<Node<'a>>),
    /// `[...]`
    Vector(Vec<Node<'a>>),
    /// `{...}`, its entries in the order written.
    Map(Vec<(Node<'a>, Node<'a>)>),
    /// `#{...}`, its elements in the order written.
    Set(Vec<Node<'a>>),
    /// A tagged form: `#tag form`.
    Tagged(&'a str, Box<Node<'a>>),
}

/// A syntax error at a byte offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    /// Where the problem is.
    pub span: Span,
    /// What the problem is.
    pub problem: Problem,
}

impl SyntaxError {
    /// The error of a value read from a slice that starts at `offset` of
    /// the file, in the file's coordinates.
    pub fn shifted(self, offset: usize) -> SyntaxError {
        let span = Span::new(self.span.start() + offset, self.span.end() + offset);
        SyntaxError { span, ..self }
    }

    /// The error nom returned, located in `full`.
    pub fn from_nom(full: &[u8], e: nom::Err<EdnError<'_>>) -> SyntaxError {
        match e {
            nom::Err::Error(e) | nom::Err::Failure(e) => {
                let start = full.len() - e.at.len();
                SyntaxError {
                    span: Span::new(start, start + e.len),
                    problem: e.problem,
                }
            }
            nom::Err::Incomplete(_) => SyntaxError {
                span: Span::new(full.len(), full.len()),
                problem: Problem::Eof("more input"),
            },
        }
    }
}

/// Reads every top-level form of `text`.
pub fn read_all(text: &str) -> Result<Vec<Node<'_>>, SyntaxError> {
    match read_forms(text) {
        (forms, None) => Ok(forms),
        (_, Some(e)) => Err(e),
    }
}

/// Reads the first form of `text` (whitespace and comments may come before
/// it), and nothing after it: what the readers use to read again a value
/// the op reader spanned, from [`Span::text_from`].
pub fn read_first(text: &str) -> Result<Node<'_>, SyntaxError> {
    first(text).map(|(node, _)| node)
}

/// Where the first form of `text` ends (a byte offset), when it reads: its
/// whole text, which a span longer than 16 MiB does not give.
pub fn first_form_end(text: &str) -> Option<usize> {
    first(text).ok().map(|(_, end)| end)
}

/// The text of the form `span` covers in `text`, whole: a span clipped at
/// 16 MiB is followed to the end of the form. Empty when the span is not in
/// `text`.
pub fn form_text(text: &str, span: Span) -> &str {
    let tail = span.text_from(text);
    match span.is_clipped() {
        false => tail,
        true => first_form_end(tail)
            .and_then(|end| tail.get(..end))
            .unwrap_or(""),
    }
}

fn first(text: &str) -> Result<(Node<'_>, usize), SyntaxError> {
    let r = lex::Reader::new(text);
    let step = r
        .skip_ws(lex::without_bom(r.full), 0)
        .and_then(|(rest, ())| match rest.first() {
            None => Err(nom::Err::Failure(EdnError::new(
                rest,
                0,
                Problem::Eof("a value"),
            ))),
            Some(_) => r.value(rest, 0),
        });
    match step {
        Ok((rest, node)) => Ok((node, r.pos(rest))),
        Err(e) => Err(SyntaxError::from_nom(r.full, e)),
    }
}

/// Reads top-level forms up to the first error: the forms before it, and
/// the error if there was one.
pub fn read_forms(text: &str) -> (Vec<Node<'_>>, Option<SyntaxError>) {
    let r = lex::Reader::new(text);
    let mut i = lex::without_bom(r.full);
    let mut out = Vec::new();
    loop {
        let step = r.skip_ws(i, 0).and_then(|(rest, ())| match rest.first() {
            None => Ok((rest, None)),
            Some(_) => r.value(rest, 0).map(|(rest, v)| (rest, Some(v))),
        });
        match step {
            Ok((_, None)) => return (out, None),
            Ok((rest, Some(v))) => {
                out.push(v);
                i = rest;
            }
            Err(e) => return (out, Some(SyntaxError::from_nom(r.full, e))),
        }
    }
}

impl<'a> Node<'a> {
    /// The canonical EDN text of this value: equal for values that Clojure's
    /// `=` considers equal (`1` and `1N`; `0.0` and `-0.0`; `10M` and `1E1M`;
    /// two `#inst`s of the same millisecond; a `#uuid` in either case; a list
    /// and a vector with the same elements; maps and sets in any order), and
    /// different otherwise (`1`, `1.0` and `1M` are three values). `##NaN`,
    /// which is not `=` to itself, is written as any float; where values are
    /// compared it is refused ([`Node::nan`]).
    pub fn canonical(&self) -> String {
        let mut s = String::new();
        self.write_canonical(&mut s);
        s
    }

    /// The form as canonical EDN text (how values are compared).
    pub fn write_canonical(&self, out: &mut String) {
        match &self.kind {
            Kind::Nil => out.push_str("nil"),
            Kind::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Kind::Int(n) => {
                let _ = write!(out, "{n}");
            }
            Kind::BigInt(digits) => write_big_int(digits, out),
            Kind::Float(f) => write_float(*f, out),
            Kind::BigDec(text) => match scalar::decimal(text) {
                Some(d) => scalar::write_decimal(&d, out),
                // The reader accepts only the decimals Java reads.
                None => {
                    out.push_str(text);
                    out.push('M');
                }
            },
            Kind::Ratio(text) => write_ratio(text, out),
            Kind::Str(s) => write_string(s, out),
            Kind::Char(c) => write_char(*c, out),
            Kind::Keyword(k) => {
                out.push(':');
                out.push_str(k);
            }
            Kind::Symbol(s) => out.push_str(s),
            Kind::List(items) | Kind::Vector(items) => write_seq(items, "[", "]", out),
            Kind::Set(items) => write_sorted(items.iter().map(Node::canonical), "#{", "}", out),
            Kind::Map(entries) => {
                let parts = entries
                    .iter()
                    .map(|(k, v)| format!("{} {}", k.canonical(), v.canonical()));
                write_sorted(parts, "{", "}", out)
            }
            Kind::Tagged(tag, v) => write_tagged(tag, v, out),
        }
    }

    /// The span of the first `##NaN` in this value, if it holds one. NaN is
    /// not `=` to itself in Clojure, yet a `=` on two read from one file says
    /// true (the reader gives the same object twice) while a map lookup says
    /// false: no answer is Clojure's, so isocheck refuses NaN as a key or value.
    pub fn nan(&self) -> Option<Span> {
        match &self.kind {
            Kind::Float(f) if f.is_nan() => Some(self.span),
            Kind::List(items) | Kind::Vector(items) | Kind::Set(items) => {
                items.iter().find_map(Node::nan)
            }
            Kind::Map(entries) => entries
                .iter()
                .find_map(|(k, v)| k.nan().or_else(|| v.nan())),
            Kind::Tagged(_, v) => v.nan(),
            _ => None,
        }
    }

    /// The value of a map entry whose key is the keyword `:name`.
    pub fn get(&self, name: &str) -> Option<&Node<'a>> {
        match &self.untagged().kind {
            Kind::Map(entries) => entries
                .iter()
                .find(|(k, _)| k.kind == Kind::Keyword(name))
                .map(|(_, v)| v),
            _ => None,
        }
    }

    /// The value of an integer (`5`, `5N`, or a ratio that divides, as
    /// Clojure's `integer?` sees them): `Some(None)` when it is beyond
    /// `i64`, `None` when the node is not an integer.
    pub fn integer(&self) -> Option<Option<i64>> {
        match self.kind {
            Kind::Int(n) => Some(Some(n)),
            Kind::BigInt(digits) => Some(digits.parse().ok()),
            Kind::Ratio(text) => match lex::ratio_value(text)? {
                (n, 1) => Some(i64::try_from(n).ok()),
                _ => None,
            },
            _ => None,
        }
    }

    /// The value under any number of tags.
    pub fn untagged(&self) -> &Node<'a> {
        match &self.kind {
            Kind::Tagged(_, v) => v.untagged(),
            _ => self,
        }
    }
}

/// `#inst` and `#uuid` (which the reader checked) by the value they read
/// as; any other tag by its name and value, as Clojure's `tagged-literal`
/// compares them.
fn write_tagged(tag: &str, v: &Node<'_>, out: &mut String) {
    let text = match &v.kind {
        Kind::Str(s) => s.as_ref(),
        _ => "",
    };
    let inst = (tag == "inst")
        .then(|| scalar::inst_millis(text).ok())
        .flatten();
    let uuid = (tag == "uuid").then(|| scalar::uuid(text)).flatten();
    match (inst, uuid) {
        (Some(millis), _) => scalar::write_inst(millis, out),
        (_, Some(bits)) => scalar::write_uuid(bits, out),
        _ => {
            out.push('#');
            out.push_str(tag);
            out.push(' ');
            v.write_canonical(out);
        }
    }
}

fn write_seq(items: &[Node<'_>], open: &str, close: &str, out: &mut String) {
    out.push_str(open);
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        item.write_canonical(out);
    }
    out.push_str(close);
}

fn write_sorted(parts: impl Iterator<Item = String>, open: &str, close: &str, out: &mut String) {
    let mut parts: Vec<String> = parts.collect();
    parts.sort_unstable();
    out.push_str(open);
    out.push_str(&parts.join(" "));
    out.push_str(close);
}

fn write_big_int(digits: &str, out: &mut String) {
    match digits.parse::<i64>() {
        Ok(n) => {
            let _ = write!(out, "{n}");
        }
        Err(_) => {
            let (neg, body) = match digits.strip_prefix('-') {
                Some(b) => (true, b),
                None => (false, digits.strip_prefix('+').unwrap_or(digits)),
            };
            if neg {
                out.push('-');
            }
            out.push_str(body);
            out.push('N');
        }
    }
}

/// A ratio reduced as Clojure reads it: `2/4` is `1/2`, `4/2` is `2`.
fn write_ratio(text: &str, out: &mut String) {
    match lex::ratio_value(text) {
        Some((n, 1)) => write_big_int(&n.to_string(), out),
        Some((n, d)) => {
            let _ = write!(out, "{n}/{d}");
        }
        None => out.push_str(text),
    }
}

/// Appends `f` as canonical EDN (`##NaN`, `##Inf` and `##-Inf` for the
/// non-finite; `-0.0` as `0.0`, which Clojure's `=` and `hash` equate).
pub fn write_float(f: f64, out: &mut String) {
    if f == 0.0 {
        out.push_str("0.0");
    } else if f.is_nan() {
        out.push_str("##NaN");
    } else if f.is_infinite() {
        out.push_str(if f > 0.0 { "##Inf" } else { "##-Inf" });
    } else {
        let _ = write!(out, "{f:?}");
    }
}

/// Appends `s` as a canonical EDN string literal.
pub fn write_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{0C}' => out.push_str("\\f"),
            '\u{08}' => out.push_str("\\b"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Appends `c` as a canonical EDN character literal.
pub fn write_char(c: char, out: &mut String) {
    match c {
        '\n' => out.push_str("\\newline"),
        '\r' => out.push_str("\\return"),
        ' ' => out.push_str("\\space"),
        '\t' => out.push_str("\\tab"),
        '\u{0C}' => out.push_str("\\formfeed"),
        '\u{08}' => out.push_str("\\backspace"),
        c if c.is_control() => {
            let _ = write!(out, "\\u{:04x}", c as u32);
        }
        c => {
            out.push('\\');
            out.push(c);
        }
    }
}

#[cfg(test)]
mod tests;

//! Differential tests of the EDN reader against clojure-reader 0.7.
//!
//! - `corpus_forms_agree`: every `.edn` file of `../shared/corpus` read by
//!   both readers, form by form; wherever both accept a form the trees must be
//!   equal. Inputs only one reader accepts are counted and printed, not failed.
//! - `corpus_ops_agree`: the typed ops `jepsen::read_ops` makes of each corpus
//!   history agree with the op maps clojure-reader reads.
//! - `random_values_agree`: a proptest over generated EDN in the language both
//!   readers accept, printed with random whitespace, commas, comments and
//!   discards.
//! - `known_*`: the inputs on which the readers are known to differ, pinned so
//!   that a change to either shows up.
//!
//! Run with `-- --nocapture` to see the reports.

use clojure_reader::edn::{self as clj, Edn};
use isocheck::history::edn::{self, ratio_value, read_all, Kind, Node};
use isocheck::history::jepsen::{read_ops, Ops};
use isocheck::history::{MopValue, Op, OpValue, Process};
use proptest::prelude::*;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::Instant;

mod common;

use common::skip::corpus_root;

// ---------------------------------------------------------------------------
// Reading with both readers
// ---------------------------------------------------------------------------

/// clojure-reader's error: its code and the byte offset in the whole text.
#[derive(Debug)]
struct CljError {
    code: String,
    at: Option<usize>,
}

/// clojure-reader's forms up to the first error. Its `read` returns one form
/// and the rest; at the end of input it fails with `UnexpectedEOF` and no
/// position, which is how the end is told from a truncated form.
fn clj_forms(text: &str) -> (Vec<Edn<'_>>, Option<CljError>) {
    let mut out = Vec::new();
    let mut rest = text;
    loop {
        match clj::read(rest) {
            Ok((e, r)) => {
                out.push(e);
                rest = r;
            }
            Err(e) if e.line.is_none() && e.ptr.is_none() => return (out, None),
            Err(e) => {
                let base = text.len() - rest.len();
                let code = format!("{:?}", e.code);
                return (
                    out,
                    Some(CljError {
                        code,
                        at: e.ptr.map(|p| base + p),
                    }),
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Structural comparison
// ---------------------------------------------------------------------------

fn kind_name(k: &Kind<'_>) -> &'static str {
    match k {
        Kind::Nil => "nil",
        Kind::Bool(_) => "bool",
        Kind::Int(_) => "int",
        Kind::BigInt(_) => "bigint",
        Kind::Float(_) => "float",
        Kind::BigDec(_) => "bigdec",
        Kind::Ratio(_) => "rational",
        Kind::Str(_) => "string",
        Kind::Char(_) => "char",
        Kind::Keyword(_) => "keyword",
        Kind::Symbol(_) => "symbol",
        Kind::List(_) => "list",
        Kind::Vector(_) => "vector",
        Kind::Map(_) => "map",
        Kind::Set(_) => "set",
        Kind::Tagged(..) => "tagged",
    }
}

fn clj_kind_name(e: &Edn<'_>) -> &'static str {
    match e {
        Edn::Nil => "nil",
        Edn::Bool(_) => "bool",
        Edn::Int(_) => "int",
        Edn::BigInt(_) => "bigint",
        Edn::Double(_) => "float",
        Edn::BigDec(_) => "bigdec",
        Edn::Rational(_) => "rational",
        Edn::Str(_) => "string",
        Edn::Char(_) => "char",
        Edn::Key(_) => "keyword",
        Edn::Symbol(_) => "symbol",
        Edn::List(_) => "list",
        Edn::Vector(_) => "vector",
        Edn::Map(_) => "map",
        Edn::Set(_) => "set",
        Edn::Tagged(..) => "tagged",
        _ => "unknown",
    }
}

/// Our BigInt digits (`-12`, `+12`, `-0`) as `BigInt`'s decimal text.
fn big_int_text(digits: &str) -> String {
    let (neg, body) = match digits.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, digits.strip_prefix('+').unwrap_or(digits)),
    };
    let body = body.trim_start_matches('0');
    match (body.is_empty(), neg) {
        (true, _) => "0".into(),
        (false, true) => format!("-{body}"),
        (false, false) => body.into(),
    }
}

/// Our BigDec text (without `M`) as (unscaled integer, scale), the way
/// `BigDecimal::as_bigint_and_exponent` reports it: `-1.50e3` is (-150, -1).
fn big_dec_parts(text: &str) -> (String, i64) {
    let (neg, body) = match text.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let (mantissa, exp) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], body[i + 1..].parse::<i64>().expect("exponent")),
        None => (body, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = format!("{int}{frac}");
    let sign = if neg { "-" } else { "" };
    (
        big_int_text(&format!("{sign}{digits}")),
        frac.len() as i64 - exp,
    )
}

fn clj_big_dec_parts(e: &Edn<'_>) -> Option<(String, i64)> {
    match e {
        Edn::BigDec(d) => {
            let (unscaled, scale) = d.as_bigint_and_exponent();
            Some((unscaled.to_string(), scale))
        }
        _ => None,
    }
}

/// The same decimal, scale included; but clojure-reader reads -1.0M and
/// -1.00M as -1M (scale 0): it negates by multiplying, and bigdecimal's
/// multiplication takes a shortcut for a factor of 1 that drops the scale.
fn big_dec_same(ours: &str, c: &Edn<'_>) -> bool {
    let (ours, theirs) = (big_dec_parts(ours), clj_big_dec_parts(c));
    match theirs {
        Some(t) if t == ours => true,
        Some((u, 0)) if u == "-1" => {
            let digits = ours.0.trim_start_matches('-');
            let ones = digits.trim_end_matches('0');
            ours.0.starts_with('-') && ones == "1" && (digits.len() - ones.len()) as i64 == ours.1
        }
        _ => false,
    }
}

/// A text that identifies a value exactly, kinds included (a list is not a
/// vector, 1 is not 1N): used to pair map entries and set elements.
fn exact(n: &Node<'_>) -> String {
    let mut s = String::new();
    exact_into(n, &mut s);
    s
}

fn exact_into(n: &Node<'_>, out: &mut String) {
    match &n.kind {
        Kind::Nil => out.push_str("nil"),
        Kind::Bool(b) => {
            let _ = write!(out, "{b}");
        }
        Kind::Int(i) => {
            let _ = write!(out, "i{i}");
        }
        Kind::BigInt(d) => {
            let _ = write!(out, "I{}", big_int_text(d));
        }
        Kind::Float(f) => float_exact(*f, out),
        Kind::BigDec(t) => dec_exact(big_dec_parts(t), out),
        Kind::Ratio(t) => ratio_exact(ratio_value(t), out),
        Kind::Str(s) => {
            let _ = write!(out, "{s:?}");
        }
        Kind::Char(c) => {
            let _ = write!(out, "{c:?}");
        }
        Kind::Keyword(k) => {
            let _ = write!(out, ":{k:?}");
        }
        Kind::Symbol(k) => {
            let _ = write!(out, "'{k:?}");
        }
        Kind::List(items) => seq_exact(items.iter().map(exact), "(", ")", out),
        Kind::Vector(items) => seq_exact(items.iter().map(exact), "[", "]", out),
        Kind::Set(items) => sorted_exact(items.iter().map(exact), "#{", "}", out),
        Kind::Map(entries) => sorted_exact(
            entries
                .iter()
                .map(|(k, v)| format!("{} {}", exact(k), exact(v))),
            "{",
            "}",
            out,
        ),
        Kind::Tagged(t, v) => {
            let _ = write!(out, "#{t:?} ");
            exact_into(v, out);
        }
    }
}

fn clj_exact(e: &Edn<'_>) -> String {
    let mut s = String::new();
    clj_exact_into(e, &mut s);
    s
}

fn clj_exact_into(e: &Edn<'_>, out: &mut String) {
    match e {
        Edn::Nil => out.push_str("nil"),
        Edn::Bool(b) => {
            let _ = write!(out, "{b}");
        }
        Edn::Int(i) => {
            let _ = write!(out, "i{i}");
        }
        Edn::BigInt(b) => {
            let _ = write!(out, "I{b}");
        }
        Edn::Double(f) => float_exact(f.0, out),
        Edn::BigDec(_) => dec_exact(clj_big_dec_parts(e).expect("bigdec"), out),
        Edn::Str(s) => {
            let _ = write!(out, "{:?}", s.as_ref());
        }
        Edn::Char(c) => {
            let _ = write!(out, "{c:?}");
        }
        Edn::Key(k) => {
            let _ = write!(out, ":{:?}", k.as_ref());
        }
        Edn::Symbol(k) => {
            let _ = write!(out, "'{:?}", k.as_ref());
        }
        Edn::List(items) => seq_exact(items.iter().map(clj_exact), "(", ")", out),
        Edn::Vector(items) => seq_exact(items.iter().map(clj_exact), "[", "]", out),
        Edn::Set(items) => sorted_exact(items.iter().map(clj_exact), "#{", "}", out),
        Edn::Map(entries) => sorted_exact(
            entries
                .iter()
                .map(|(k, v)| format!("{} {}", clj_exact(k), clj_exact(v))),
            "{",
            "}",
            out,
        ),
        Edn::Tagged(t, v) => {
            let _ = write!(out, "#{:?} ", t.as_ref());
            clj_exact_into(v, out);
        }
        Edn::Rational((n, d)) => ratio_exact(Some(clj_ratio(*n, *d)), out),
        other => {
            let _ = write!(out, "?{other:?}");
        }
    }
}

/// clojure-reader's ratio in lowest terms, as Clojure (and ours) reads it;
/// clojure-reader keeps `2/4` as written. Its denominator is positive.
fn clj_ratio(n: i64, d: i64) -> (i128, i128) {
    let (mut a, mut b) = (n.unsigned_abs(), d.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    let g = i128::from(a.max(1));
    (i128::from(n) / g, i128::from(d) / g)
}

/// Ratios by value (`2/4` as `1/2`), as Clojure reads them.
fn ratio_exact(reduced: Option<(i128, i128)>, out: &mut String) {
    let _ = write!(out, "r{reduced:?}");
}

/// Decimals by value (1.50M as 1.5M): both readers refuse two numerically
/// equal keys in a map or set, and clojure-reader does not keep the scale of
/// -1.0M (see `big_dec_same`, which compares scales).
fn dec_exact((unscaled, scale): (String, i64), out: &mut String) {
    let trimmed = unscaled.trim_end_matches('0');
    if trimmed.is_empty() || trimmed == "-" {
        out.push_str("D0");
    } else {
        let zeros = (unscaled.len() - trimmed.len()) as i64;
        let _ = write!(out, "D{trimmed}s{}", scale - zeros);
    }
}

fn float_exact(f: f64, out: &mut String) {
    if f.is_nan() {
        out.push_str("fNaN");
    } else {
        let _ = write!(out, "f{:016x}", f.to_bits());
    }
}

fn seq_exact(parts: impl Iterator<Item = String>, open: &str, close: &str, out: &mut String) {
    out.push_str(open);
    out.push_str(&parts.collect::<Vec<_>>().join(" "));
    out.push_str(close);
}

fn sorted_exact(parts: impl Iterator<Item = String>, open: &str, close: &str, out: &mut String) {
    let mut parts: Vec<String> = parts.collect();
    parts.sort_unstable();
    seq_exact(parts.into_iter(), open, close, out);
}

/// Compares our tree with clojure-reader's: same kinds, same scalars (floats
/// bitwise or both NaN, big numbers by value and scale), sequences in order,
/// map entries and set elements as sets. The error names the path.
fn same(o: &Node<'_>, c: &Edn<'_>, path: &str) -> Result<(), String> {
    let differ = || {
        Err(format!(
            "at {path}: ours {} {}, clojure-reader {} {}",
            kind_name(&o.kind),
            shorten(&o.canonical(), 80),
            clj_kind_name(c),
            shorten(&format!("{c}"), 80)
        ))
    };
    let ok = match (&o.kind, c) {
        (Kind::Nil, Edn::Nil) => true,
        (Kind::Bool(a), Edn::Bool(b)) => a == b,
        (Kind::Int(a), Edn::Int(b)) => a == b,
        (Kind::BigInt(a), Edn::BigInt(b)) => big_int_text(a) == b.to_string(),
        (Kind::Float(a), Edn::Double(b)) => {
            a.to_bits() == b.0.to_bits() || (a.is_nan() && b.0.is_nan())
        }
        (Kind::BigDec(a), Edn::BigDec(_)) => big_dec_same(a, c),
        (Kind::Ratio(a), Edn::Rational((n, d))) => ratio_value(a) == Some(clj_ratio(*n, *d)),
        (Kind::Str(a), Edn::Str(b)) => a.as_ref() == b.as_ref(),
        (Kind::Char(a), Edn::Char(b)) => a == b,
        (Kind::Keyword(a), Edn::Key(b)) => *a == b.as_ref(),
        (Kind::Symbol(a), Edn::Symbol(b)) => *a == b.as_ref(),
        (Kind::List(a), Edn::List(b)) | (Kind::Vector(a), Edn::Vector(b)) => {
            if a.len() != b.len() {
                return Err(format!(
                    "at {path}: ours has {} elements, clojure-reader {}",
                    a.len(),
                    b.len()
                ));
            }
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                same(x, y, &format!("{path}[{i}]"))?;
            }
            true
        }
        (Kind::Set(a), Edn::Set(b)) => {
            if a.len() != b.len() {
                return Err(format!(
                    "at {path}: ours has {} set elements, clojure-reader {}",
                    a.len(),
                    b.len()
                ));
            }
            let theirs: HashMap<String, &Edn<'_>> = b.iter().map(|e| (clj_exact(e), e)).collect();
            for x in a {
                match theirs.get(&exact(x)) {
                    Some(y) => same(x, y, &format!("{path}#{{{}}}", shorten(&x.canonical(), 30)))?,
                    None => {
                        return Err(format!(
                            "at {path}: set element {} is not in clojure-reader's set",
                            shorten(&x.canonical(), 60)
                        ))
                    }
                }
            }
            true
        }
        (Kind::Map(a), Edn::Map(b)) => {
            if a.len() != b.len() {
                return Err(format!(
                    "at {path}: ours has {} map entries, clojure-reader {}",
                    a.len(),
                    b.len()
                ));
            }
            let theirs: HashMap<String, (&Edn<'_>, &Edn<'_>)> =
                b.iter().map(|(k, v)| (clj_exact(k), (k, v))).collect();
            for (k, v) in a {
                let at = format!("{path}{{{}}}", shorten(&k.canonical(), 30));
                match theirs.get(&exact(k)) {
                    Some((ck, cv)) => {
                        same(k, ck, &at)?;
                        same(v, cv, &at)?;
                    }
                    None => {
                        return Err(format!(
                            "at {path}: key {} is not in clojure-reader's map",
                            shorten(&k.canonical(), 60)
                        ))
                    }
                }
            }
            true
        }
        (Kind::Tagged(t, v), Edn::Tagged(ct, cv)) => {
            if *t != ct.as_ref() {
                return differ();
            }
            return same(v, cv, &format!("{path}#{t}"));
        }
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        differ()
    }
}

fn shorten(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        s.chars().take(n.saturating_sub(3)).collect::<String>() + "..."
    }
}

// ---------------------------------------------------------------------------
// Canonical text of clojure-reader values, as `Node::canonical` writes ours
// ---------------------------------------------------------------------------

fn canon(e: &Edn<'_>) -> String {
    let mut s = String::new();
    canon_into(e, &mut s);
    s
}

fn canon_into(e: &Edn<'_>, out: &mut String) {
    match e {
        Edn::Nil => out.push_str("nil"),
        Edn::Bool(b) => {
            let _ = write!(out, "{b}");
        }
        Edn::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Edn::BigInt(b) => {
            let text = b.to_string();
            match text.parse::<i64>() {
                Ok(i) => {
                    let _ = write!(out, "{i}");
                }
                Err(_) => {
                    let _ = write!(out, "{text}N");
                }
            }
        }
        Edn::Double(f) => edn::write_float(f.0, out),
        Edn::BigDec(_) => {
            // Ours keeps the written exponent (1.5e3M stays 1.5e3M); a
            // BigDecimal only knows (15, -2), which prints as 15e2M. The two
            // agree for every BigDec written without an exponent.
            let (unscaled, scale) = clj_big_dec_parts(e).expect("bigdec");
            let (neg, digits) = match unscaled.strip_prefix('-') {
                Some(d) => (true, d.to_string()),
                None => (false, unscaled.clone()),
            };
            if neg {
                out.push('-');
            }
            if scale <= 0 {
                out.push_str(&digits);
                if scale < 0 {
                    let _ = write!(out, "e{}", -scale);
                }
            } else {
                let scale = scale as usize;
                let padded = format!("{digits:0>width$}", width = scale + 1);
                let (int, frac) = padded.split_at(padded.len() - scale);
                let frac = frac.trim_end_matches('0');
                out.push_str(int);
                if !frac.is_empty() {
                    out.push('.');
                    out.push_str(frac);
                }
            }
            out.push('M');
        }
        Edn::Str(s) => edn::write_string(s, out),
        Edn::Char(c) => edn::write_char(*c, out),
        Edn::Key(k) => {
            out.push(':');
            out.push_str(k);
        }
        Edn::Symbol(s) => out.push_str(s),
        Edn::List(items) | Edn::Vector(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                canon_into(item, out);
            }
            out.push(']');
        }
        Edn::Set(items) => {
            let mut parts: Vec<String> = items.iter().map(canon).collect();
            parts.sort_unstable();
            let _ = write!(out, "#{{{}}}", parts.join(" "));
        }
        Edn::Map(entries) => {
            let mut parts: Vec<String> = entries
                .iter()
                .map(|(k, v)| format!("{} {}", canon(k), canon(v)))
                .collect();
            parts.sort_unstable();
            let _ = write!(out, "{{{}}}", parts.join(" "));
        }
        Edn::Tagged(t, v) => {
            let _ = write!(out, "#{t} ");
            canon_into(v, out);
        }
        Edn::Rational((n, d)) => match clj_ratio(*n, *d) {
            (n, 1) => {
                let _ = write!(out, "{n}");
            }
            (n, d) => {
                let _ = write!(out, "{n}/{d}");
            }
        },
        other => {
            let _ = write!(out, "{other}");
        }
    }
}

// ---------------------------------------------------------------------------
// The corpus
// ---------------------------------------------------------------------------

fn corpus_files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for entry in std::fs::read_dir(&d).expect("read corpus directory") {
            let p = entry.expect("directory entry").path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|e| e == "edn") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn rel(p: &Path) -> String {
    p.strip_prefix(corpus_root())
        .unwrap_or(p)
        .display()
        .to_string()
}

/// A line of text around byte `at`, for reports.
fn excerpt(text: &str, at: usize, len: usize) -> String {
    let mut from = at.min(text.len());
    while !text.is_char_boundary(from) {
        from -= 1;
    }
    let mut to = (at + len.max(1)).min(text.len());
    while !text.is_char_boundary(to) {
        to += 1;
    }
    shorten(&text[from..to], 100)
}

/// Counts by category, with the example first in file order.
#[derive(Default)]
struct Tally(BTreeMap<String, (usize, usize, String)>);

impl Tally {
    fn add(&mut self, category: String, file: usize, example: impl FnOnce() -> String) {
        let e = self
            .0
            .entry(category)
            .or_insert((0, usize::MAX, String::new()));
        e.0 += 1;
        if file < e.1 {
            e.1 = file;
            e.2 = example();
        }
    }

    fn merge(&mut self, other: Tally) {
        for (cat, (n, file, ex)) in other.0 {
            let e = self.0.entry(cat).or_insert((0, usize::MAX, String::new()));
            e.0 += n;
            if file < e.1 {
                e.1 = file;
                e.2 = ex;
            }
        }
    }

    fn print(&self, title: &str) {
        let total: usize = self.0.values().map(|e| e.0).sum();
        eprintln!("{title}: {total}");
        for (cat, (n, _, ex)) in &self.0 {
            eprintln!("  {n:>6} × {cat}\n           first: {ex}");
        }
    }
}

/// What reading the corpus with both readers found.
#[derive(Default)]
struct Outcome {
    files: usize,
    forms_compared: usize,
    whole_files: usize,
    /// (file index, message): forms both readers accept but read differently.
    form_disagreements: Vec<(usize, String)>,
    /// Forms we accept that clojure-reader rejects, by its error code.
    clj_rejects: Tally,
    /// Forms clojure-reader accepts that we reject, by our problem.
    ours_rejects: Tally,
    histories: usize,
    ops_compared: usize,
    ops_skipped: Tally,
    op_disagreements: Vec<(usize, String)>,
}

impl Outcome {
    fn merge(&mut self, o: Outcome) {
        self.files += o.files;
        self.forms_compared += o.forms_compared;
        self.whole_files += o.whole_files;
        self.form_disagreements.extend(o.form_disagreements);
        self.clj_rejects.merge(o.clj_rejects);
        self.ours_rejects.merge(o.ours_rejects);
        self.histories += o.histories;
        self.ops_compared += o.ops_compared;
        self.ops_skipped.merge(o.ops_skipped);
        self.op_disagreements.extend(o.op_disagreements);
    }
}

/// At most this many disagreements are kept per worker.
const KEEP: usize = 100;

fn compare_forms(
    file: usize,
    name: &str,
    text: &str,
    (theirs, their_err): &(Vec<Edn<'_>>, Option<CljError>),
    out: &mut Outcome,
) {
    out.files += 1;
    let (ours, our_err) = edn::read_forms(text);
    if our_err.is_some() {
        assert!(
            read_all(text).is_err(),
            "{name}: read_all accepts what its steps reject"
        );
    }
    let n = ours.len().min(theirs.len());
    for (i, (o, c)) in ours.iter().zip(theirs).enumerate() {
        out.forms_compared += 1;
        if let Err(e) = same(o, c, "$") {
            if out.form_disagreements.len() < KEEP {
                out.form_disagreements.push((
                    file,
                    format!(
                        "{name}: form {i} (byte {}): {e}\n      input: {}",
                        o.span.start(),
                        excerpt(text, o.span.start(), o.span.len())
                    ),
                ));
            }
        }
    }
    match (&our_err, their_err) {
        (None, None) => {
            out.whole_files += 1;
            if ours.len() != theirs.len() {
                out.form_disagreements.push((
                    file,
                    format!(
                        "{name}: both read the whole file, ours as {} forms, clojure-reader as {}",
                        ours.len(),
                        theirs.len()
                    ),
                ));
            }
        }
        (_, Some(ce)) if ours.len() > n || our_err.is_none() => {
            // clojure-reader stopped at a form we read.
            let at = ce.at.unwrap_or(0);
            let ex = match ours.get(n) {
                Some(o) => excerpt(text, o.span.start(), o.span.len()),
                None => excerpt(text, at, 60),
            };
            out.clj_rejects
                .add(ce.code.clone(), file, || format!("{name} @{at}: {ex}"));
        }
        (Some(oe), _) if theirs.len() > n || their_err.is_none() => {
            let problem = format!("{:?}", oe.problem);
            let cat: String = problem
                .chars()
                .take_while(|c| c.is_alphanumeric())
                .collect();
            let at = oe.span.start();
            out.ours_rejects.add(cat, file, || {
                format!(
                    "{name} @{at}: {problem}: {}",
                    excerpt(text, at, oe.span.len().max(40))
                )
            });
        }
        // Both stopped at the same form: nothing more to compare.
        _ => {}
    }
}

fn check_file(file: usize, path: &Path, out: &mut Outcome) {
    let name = rel(path);
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{name}: not read ({e})");
            return;
        }
    };
    let theirs = clj_forms(&text);
    compare_forms(file, &name, &text, &theirs, out);
    if is_history(path) {
        compare_ops(file, &name, &text, &theirs, out);
    }
}

static CORPUS_OUTCOME: OnceLock<Outcome> = OnceLock::new();

/// Reads the corpus at `root` once (on all cores; clojure-reader is slow in
/// debug builds) for both corpus tests.
fn corpus_outcome(root: &Path) -> &'static Outcome {
    CORPUS_OUTCOME.get_or_init(|| {
        let files = corpus_files(root);
        let started = Instant::now();
        let mut order: Vec<usize> = (0..files.len()).collect();
        let size = |i: usize| std::fs::metadata(&files[i]).map_or(0, |m| m.len());
        order.sort_by_key(|&i| std::cmp::Reverse(size(i)));
        let next = AtomicUsize::new(0);
        let workers = std::thread::available_parallelism().map_or(2, |n| n.get().min(4));
        let mut total = Outcome::default();
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..workers)
                .map(|_| {
                    s.spawn(|| {
                        let mut out = Outcome::default();
                        while let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
                            check_file(i, &files[i], &mut out);
                        }
                        out
                    })
                })
                .collect();
            for h in handles {
                total.merge(h.join().expect("a corpus worker panicked"));
            }
        });
        total.form_disagreements.sort();
        total.op_disagreements.sort();
        eprintln!(
            "corpus read by both readers in {:.1?} ({workers} threads)",
            started.elapsed()
        );
        total
    })
}

/// Every form of every corpus file, read by both readers.
#[test]
fn corpus_forms_agree() {
    let Some(root) = common::corpus_dir() else {
        return;
    };
    let out = corpus_outcome(&root);
    eprintln!(
        "corpus: {} files, {} forms compared, {} files read whole by both readers",
        out.files, out.forms_compared, out.whole_files
    );
    out.clj_rejects
        .print("forms we accept and clojure-reader rejects (by its error)");
    out.ours_rejects
        .print("forms clojure-reader accepts and we reject (by our problem)");
    assert!(out.files > 0, "no .edn files under {}", root.display());
    let msgs: Vec<&str> = out
        .form_disagreements
        .iter()
        .map(|(_, m)| m.as_str())
        .collect();
    assert!(
        msgs.is_empty(),
        "{} form(s) both readers accept but read differently:\n  {}",
        msgs.len(),
        msgs.join("\n  ")
    );
}

// ---------------------------------------------------------------------------
// Typed ops
// ---------------------------------------------------------------------------

fn is_history(p: &Path) -> bool {
    let r = rel(p);
    p.file_name().is_some_and(|n| n == "history.edn")
        || (r.starts_with("elle/histories/") && !r["elle/histories/".len()..].contains('/'))
}

fn key<'a>(m: &'a BTreeMap<Edn<'a>, Edn<'a>>, name: &'static str) -> Option<&'a Edn<'a>> {
    m.get(&Edn::Key(name.into()))
}

const KNOWN_KEYS: [&str; 6] = ["type", "process", "index", "time", "f", "value"];

/// Does clojure-reader's value have the shape `read_ops` reads as a transaction?
fn is_txn(v: &Edn<'_>) -> bool {
    match v {
        Edn::Vector(items) | Edn::List(items) => items.iter().all(|m| match m {
            Edn::Vector(parts) => {
                matches!(parts.len(), 2 | 3)
                    && matches!(&parts[0], Edn::Key(f) if ["r", "append", "w"].contains(&f.as_ref()))
            }
            _ => false,
        }),
        _ => false,
    }
}

fn compare_op(
    ops: &Ops,
    text: &str,
    pos: usize,
    op: &Op,
    m: &BTreeMap<Edn<'_>, Edn<'_>>,
) -> Vec<String> {
    let mut errs = Vec::new();
    let display = |v| ops.values.display(v);
    let nil = Edn::Nil;

    // :type
    match key(m, "type") {
        Some(Edn::Key(t)) if t.as_ref() == op.ty.name() => {}
        other => errs.push(format!(":type: ours {:?}, clojure-reader {other:?}", op.ty)),
    }
    // :process: an integer is a client, anything else is kept as a value
    match (key(m, "process"), op.process) {
        (None, Process::Missing) => {}
        (Some(Edn::Int(n)), Process::Client(p)) if *n == p => {}
        // Clojure's integer? holds for 5N too: a client, like Jepsen's client-op?;
        // and 4/2 reads as 2N.
        (Some(v @ (Edn::BigInt(_) | Edn::Rational(_))), Process::Client(p))
            if canon(v) == p.to_string() => {}
        (Some(v), Process::Other(ours))
            if !matches!(v, Edn::Int(_)) && canon(v) == display(ours) => {}
        (theirs, ours) => errs.push(format!(
            ":process: ours {ours:?}, clojure-reader {theirs:?}"
        )),
    }
    // :index: the position when absent
    match key(m, "index") {
        None if op.index == pos as i64 => {}
        Some(Edn::Int(n)) if *n == op.index => {}
        theirs => errs.push(format!(
            ":index: ours {}, clojure-reader {theirs:?}",
            op.index
        )),
    }
    // :time
    match (key(m, "time"), op.time()) {
        (None, None) => {}
        (Some(Edn::Int(n)), Some(t)) if *n == t => {}
        (theirs, ours) => errs.push(format!(":time: ours {ours:?}, clojure-reader {theirs:?}")),
    }
    // :f
    let f = canon(key(m, "f").unwrap_or(&nil));
    if f != display(op.f) {
        errs.push(format!(":f: ours {}, clojure-reader {f}", display(op.f)));
    }
    // :value
    let value = key(m, "value").unwrap_or(&nil);
    match op.value {
        OpValue::Nil if matches!(value, Edn::Nil) => {}
        OpValue::Txn { start, len } if is_txn(value) => {
            let (Edn::Vector(theirs) | Edn::List(theirs)) = value else {
                unreachable!()
            };
            if theirs.len() != len as usize {
                errs.push(format!(
                    ":value: ours {len} micro-ops, clojure-reader {}",
                    theirs.len()
                ));
            }
            let mops = &ops.mops[start as usize..(start + len) as usize];
            for (i, (mop, cm)) in mops.iter().zip(theirs).enumerate() {
                let Edn::Vector(parts) = cm else {
                    unreachable!()
                };
                let f = canon(&parts[0]);
                let k = canon(&parts[1]);
                let v = canon(parts.get(2).unwrap_or(&nil));
                let ours_v = match mop.value() {
                    MopValue::Val(v) => display(v),
                    MopValue::List { start, len } => {
                        let elems = &ops.elems[start as usize..(start + len) as usize];
                        let items: Vec<String> = elems.iter().map(|e| display(*e)).collect();
                        format!("[{}]", items.join(" "))
                    }
                };
                let ours = format!(":{} {} {}", mop.kind.name(), display(mop.key), ours_v);
                let theirs = format!("{f} {k} {v}");
                if ours != theirs {
                    errs.push(format!(
                        "micro-op {i}: ours [{ours}], clojure-reader [{theirs}]"
                    ));
                }
            }
        }
        OpValue::Other(span) if !is_txn(value) && !matches!(value, Edn::Nil) => {
            let slice = &text[span.start()..span.end()];
            match read_all(slice) {
                Ok(forms) if forms.len() == 1 => {
                    if let Err(e) = same(&forms[0], value, ":value") {
                        errs.push(e);
                    }
                }
                other => errs.push(format!(":value span {slice:?} reads as {other:?}")),
            }
        }
        ours => errs.push(format!(
            ":value: ours {ours:?}, clojure-reader {}",
            shorten(&canon(value), 80)
        )),
    }
    // Other keys are kept as extras.
    let mut theirs: Vec<(String, &Edn<'_>)> = m
        .iter()
        .filter(|(k, _)| !matches!(k, Edn::Key(n) if KNOWN_KEYS.contains(&n.as_ref())))
        .map(|(k, v)| (clj_exact(k), v))
        .collect();
    theirs.sort_by(|a, b| a.0.cmp(&b.0));
    let mut ours = Vec::new();
    for (k, v) in &ops.extras[op.extras_range()] {
        let read = |s: isocheck::history::Span| {
            let mut f = read_all(&text[s.start()..s.end()]).expect("an extra reads");
            assert_eq!(f.len(), 1);
            f.remove(0)
        };
        ours.push((read(*k), read(*v)));
    }
    ours.sort_by_key(|(k, _)| exact(k));
    if ours.len() != theirs.len() {
        errs.push(format!(
            "extras: ours {} keys, clojure-reader {}",
            ours.len(),
            theirs.len()
        ));
    } else {
        for ((ok, ov), (ck, cv)) in ours.iter().zip(&theirs) {
            if exact(ok) != *ck {
                errs.push(format!(
                    "extra key: ours {}, clojure-reader {ck}",
                    exact(ok)
                ));
            } else if let Err(e) = same(ov, cv, &format!("{{{}}}", ok.canonical())) {
                errs.push(e);
            }
        }
    }
    errs
}

/// The op maps of a history as clojure-reader reads it.
fn clj_op_maps<'e, 'a>(forms: &'a [Edn<'e>]) -> Vec<Option<&'a BTreeMap<Edn<'e>, Edn<'e>>>> {
    let items: &[Edn<'e>] = match forms {
        [Edn::Vector(v)] | [Edn::List(v)] => v,
        _ => forms,
    };
    items
        .iter()
        .map(|e| match e {
            Edn::Map(m) => Some(m),
            Edn::Tagged(_, v) => match v.as_ref() {
                Edn::Map(m) => Some(m),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

fn compare_ops(
    file: usize,
    name: &str,
    text: &str,
    (forms, err): &(Vec<Edn<'_>>, Option<CljError>),
    out: &mut Outcome,
) {
    let ops = match read_ops(text) {
        Ok(ops) => ops,
        Err(e) => {
            out.ops_skipped
                .add(format!("read_ops rejects: {}", e.kind), file, || {
                    name.to_string()
                });
            return;
        }
    };
    out.histories += 1;
    let maps = clj_op_maps(forms);
    let mut errors = Vec::new();
    if let Some(e) = err {
        out.ops_skipped.add(
            format!("clojure-reader stops early ({})", e.code),
            file,
            || format!("{name}: after {} op maps", maps.len()),
        );
    } else if maps.len() != ops.ops.len() {
        errors.push(format!(
            "{name}: ours {} ops, clojure-reader {} op maps",
            ops.ops.len(),
            maps.len()
        ));
    }
    for (pos, (op, m)) in ops.ops.iter().zip(&maps).enumerate() {
        out.ops_compared += 1;
        let Some(m) = m else {
            errors.push(format!(
                "{name}: op {pos}: clojure-reader reads no map here"
            ));
            continue;
        };
        for e in compare_op(&ops, text, pos, op, m) {
            errors.push(format!(
                "{name}: op {pos} at byte {}: {e}\n      op: {}",
                op.span.start(),
                excerpt(text, op.span.start(), op.span.len())
            ));
        }
        if errors.len() > KEEP {
            break;
        }
    }
    let room = KEEP.saturating_sub(out.op_disagreements.len());
    out.op_disagreements
        .extend(errors.into_iter().take(room).map(|e| (file, e)));
}

/// The ops `read_ops` makes of each corpus history agree with the op maps
/// clojure-reader reads: :type, :process, :index, :time, :f, each micro-op of
/// a transaction, other values, and the extra keys.
#[test]
fn corpus_ops_agree() {
    let Some(root) = common::corpus_dir() else {
        return;
    };
    let out = corpus_outcome(&root);
    eprintln!(
        "corpus ops: {} histories, {} ops compared",
        out.histories, out.ops_compared
    );
    out.ops_skipped
        .print("histories not compared, or only in part");
    assert!(out.histories > 0, "no histories under {}", root.display());
    let msgs: Vec<&str> = out
        .op_disagreements
        .iter()
        .map(|(_, m)| m.as_str())
        .collect();
    assert!(
        msgs.is_empty(),
        "{} op(s) read differently:\n  {}",
        msgs.len(),
        msgs.join("\n  ")
    );
}

/// Op comparison of one text read by both readers.
fn op_errors(ours_text: &str, their_text: &str) -> Vec<String> {
    let ops = read_ops(ours_text).expect("read_ops reads it");
    let (forms, err) = clj_forms(their_text);
    assert!(err.is_none(), "clojure-reader reads {their_text:?}");
    let maps = clj_op_maps(&forms);
    assert_eq!(maps.len(), ops.ops.len(), "{their_text:?}");
    let mut errors = Vec::new();
    for (pos, (op, m)) in ops.ops.iter().zip(&maps).enumerate() {
        errors.extend(compare_op(&ops, ours_text, pos, op, m.expect("a map")));
    }
    errors
}

/// Histories in the corners of the op reader, outside any corpus.
const OP_HISTORIES: [&str; 7] = [
    "{:type :invoke, :f :txn, :process 0, :value [[:append :x 1] [:r :y nil] [:r 5]]}\n\
     {:type :ok, :f :txn, :process 0, :value [[:append :x 1] [:r :y [1 2 -3 4N]] [:r 5 (7)]]}",
    "[#jepsen.history.Op{:index 7, :time 99, :type :info, :process :nemesis, :f :kill, :value {:n1 :killed}}\n\
     #jepsen.history.Op {:index 8, :type :fail, :process 2, :value [[:w \"k\" [1 2]]], :error [:abort \"x\"]}]",
    "({:type :ok, :process 1, :value ([:w 1 nil] [:append [:a 1] {:b #{2}}])})",
    "{:type :ok, :process -3, :value [[:cas 1 [1 2]]]} {:type :ok, :process 1.5, :value nil}",
    "{:type :ok, :value 12, 1 2, \"s\" #{:a}, [1] (2)} {:type :invoke, :process 9223372036854775807N}",
    "{:type :ok, :f nil, :value []} #_{:type :ok} {:type :ok, :value [[:r 1] [:r 2 []]], :process 5N}",
    "{:type :info, :process :nemesis, :f :pause, :value 2/4, :x [-1/3]} {:type :ok, :process 4/2, :value [[:w 1 3/2]]}",
];

#[test]
fn typed_ops_agree_on_examples() {
    for text in OP_HISTORIES {
        let errors = op_errors(text, text);
        assert!(errors.is_empty(), "{text}:\n  {}", errors.join("\n  "));
    }
}

/// The op comparison is not vacuous: each change to the text is noticed.
#[test]
fn typed_op_comparison_notices_differences() {
    let ours = "{:index 1, :time 5, :type :ok, :process 0, :f :txn, :value [[:append 1 2] [:r 1 [2]]], :x 1}";
    let changes = [
        (":type :ok", ":type :fail"),
        (":process 0", ":process 1"),
        (":process 0", ":process :zero"),
        (":index 1", ":index 2"),
        (":time 5", ":time 6"),
        (":f :txn", ":f :other"),
        ("[:append 1 2]", "[:append 1 3]"),
        ("[:append 1 2]", "[:w 1 2]"),
        ("[:r 1 [2]]", "[:r 1 [2 3]]"),
        ("[:r 1 [2]]", "[:r 2 [2]]"),
        ("[:r 1 [2]]", "[:r 1 nil]"),
        (" [:r 1 [2]]", ""),
        (":x 1", ":x 2"),
        (":x 1", ":y 1"),
    ];
    for (from, to) in changes {
        let theirs = ours.replacen(from, to, 1);
        assert_ne!(theirs, ours);
        let errors = op_errors(ours, &theirs);
        assert!(!errors.is_empty(), "changing {from} to {to} went unnoticed");
    }
}

// ---------------------------------------------------------------------------
// Random values
// ---------------------------------------------------------------------------

/// A generated value, in the language both readers accept; scalars carry the
/// text they are printed as.
#[derive(Clone, Debug)]
enum V {
    Nil,
    Bool(bool),
    /// An integer token: `-12`, `+7`, `123456789012345678901234`, `5N`.
    Int(String),
    Float(f64, u8),
    /// A float token as written: `1.`, `0.e5`, `-1.5E+3`, `1e400`.
    FloatTok(String),
    /// A BigDec token, with its `M`.
    Dec(String),
    /// A ratio in lowest terms, not an integer: `-3/4` (clojure-reader keeps
    /// `2/4` as written, where Clojure and we reduce it).
    Ratio(String),
    Str(String),
    Char(char),
    Kw(String),
    Sym(String),
    List(Vec<V>),
    Vector(Vec<V>),
    Map(Vec<(V, V)>),
    Set(Vec<V>),
    Tag(String, Box<V>),
}

/// Equal for values either reader calls equal (ours: 1 = 1N, (1) = [1];
/// clojure-reader: 0.0 = -0.0, 1.5e3M = 15e2M); used to keep map keys and
/// set elements unique for both.
fn loose(v: &V) -> String {
    match v {
        V::Nil => "nil".into(),
        V::Bool(b) => b.to_string(),
        V::Int(t) => format!("i{}", big_int_text(t.trim_end_matches('N'))),
        V::Float(f, _) => format!("f{:?}", if *f == 0.0 { 0.0 } else { *f }),
        V::FloatTok(t) => {
            let f: f64 = t.parse().expect("a float token");
            format!("f{:?}", if f == 0.0 { 0.0 } else { f })
        }
        V::Dec(t) => {
            let mut s = String::new();
            dec_exact(big_dec_parts(t.trim_end_matches('M')), &mut s);
            s
        }
        V::Ratio(t) => format!("q{t}"),
        V::Str(s) => format!("s{s:?}"),
        V::Char(c) => format!("c{c:?}"),
        V::Kw(k) => format!(":{k}"),
        V::Sym(s) => format!("'{s}"),
        V::List(items) | V::Vector(items) => {
            format!(
                "[{}]",
                items.iter().map(loose).collect::<Vec<_>>().join(" ")
            )
        }
        V::Set(items) => {
            let mut p: Vec<String> = items.iter().map(loose).collect();
            p.sort();
            format!("#{{{}}}", p.join(" "))
        }
        V::Map(entries) => {
            let mut p: Vec<String> = entries
                .iter()
                .map(|(k, v)| format!("{} {}", loose(k), loose(v)))
                .collect();
            p.sort();
            format!("{{{}}}", p.join(" "))
        }
        V::Tag(t, v) => format!("#{t} {}", loose(v)),
    }
}

fn has_dec(v: &V) -> bool {
    match v {
        V::Dec(_) => true,
        V::List(items) | V::Vector(items) | V::Set(items) => items.iter().any(has_dec),
        V::Map(entries) => entries.iter().any(|(k, v)| has_dec(k) || has_dec(v)),
        V::Tag(_, v) => has_dec(v),
        _ => false,
    }
}

fn unique<T>(items: Vec<T>, key: impl Fn(&T) -> String) -> Vec<T> {
    let mut seen = std::collections::HashSet::new();
    items.into_iter().filter(|x| seen.insert(key(x))).collect()
}

const SYM_FIRST: &str = "[a-zA-Z*!_?$%&=<>'éλжあ]";
const SYM_REST: &str = "[a-zA-Z0-9.*+!_?$%&=<>'#:éλжあ-]";

fn regex(pattern: &str) -> impl Strategy<Value = String> {
    proptest::string::string_regex(pattern).expect("a valid regex")
}

fn symbol_part() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => regex(&format!("{SYM_FIRST}{SYM_REST}{{0,8}}")),
        // A sign or dot first: then no digit second.
        1 => regex(&format!("[+.-]([a-zA-Z.*+!_?$%&=<>'#:éλ-]{SYM_REST}{{0,5}})?")),
    ]
}

fn leaf() -> impl Strategy<Value = V> {
    let int = prop_oneof![
        any::<i64>().prop_map(|n| n.to_string()),
        (0i64..i64::MAX).prop_map(|n| format!("+{n}")),
        (-1000i64..1000).prop_map(|n| n.to_string()),
        (-1000i64..1000).prop_map(|n| format!("{n}N")),
        "[+-]?[1-9][0-9]{18,30}N?",
        Just("-0".to_string()),
        Just("-9223372036854775808".to_string()),
        Just("9223372036854775808".to_string()),
    ];
    let float = prop_oneof![
        (
            any::<f64>().prop_filter("finite", |f| f.is_finite()),
            0u8..6
        ),
        ((-1000i32..1000).prop_map(|n| n as f64 / 8.0), 0u8..6),
        (Just(-0.0), 0u8..6),
    ];
    let dec = "[+-]?(0|[1-9][0-9]{0,20})(\\.[0-9]{0,6})?([eE][+-]?[0-9]{1,3})?M";
    let string_char = prop_oneof![
        4 => proptest::char::range(' ', '~'),
        1 => prop_oneof![Just('"'), Just('\\'), Just('\n'), Just('\t'), Just('\r')],
        1 => any::<char>(),
    ];
    let string =
        proptest::collection::vec(string_char, 0..12).prop_map(|cs| cs.into_iter().collect());
    let character = prop_oneof![
        4 => proptest::char::range('!', '~'),
        1 => prop_oneof![Just('\n'), Just(' '), Just('\t'), Just('\r')],
        1 => any::<char>().prop_filter("not ours whitespace", |c| !matches!(c, '\u{0B}' | '\u{0C}')),
    ];
    let keyword = prop_oneof![
        "[a-zA-Z0-9*!_?$%&=<>'.+#/éλ-][a-zA-Z0-9*!_?$%&=<>'.+#/:éλ-]{0,10}",
        (symbol_part(), symbol_part()).prop_map(|(ns, n)| format!("{ns}/{n}")),
    ];
    let symbol = prop_oneof![
        4 => symbol_part(),
        2 => (symbol_part(), symbol_part()).prop_map(|(ns, n)| format!("{ns}/{n}")),
        1 => Just("/".to_string()),
    ];
    prop_oneof![
        1 => Just(V::Nil),
        1 => any::<bool>().prop_map(V::Bool),
        4 => int.prop_map(V::Int),
        3 => float.prop_map(|(f, s)| V::Float(f, s)),
        1 => regex(
            "[+-]?(0|[1-9][0-9]{0,5})(\\.[0-9]{0,4}([eE][+-]?[0-9]{1,3})?|[eE][+-]?[0-9]{1,3})"
        )
        .prop_map(V::FloatTok),
        2 => dec.prop_map(V::Dec),
        1 => (-1000i64..1000, 2i64..1000)
            .prop_filter("in lowest terms", |&(n, d)| clj_ratio(n, d) == (n.into(), d.into()))
            .prop_map(|(n, d)| V::Ratio(format!("{n}/{d}"))),
        3 => string.prop_map(V::Str),
        2 => character.prop_map(V::Char),
        3 => keyword.prop_map(V::Kw),
        3 => symbol.prop_map(V::Sym),
    ]
}

fn value() -> impl Strategy<Value = V> {
    let tag = "[a-zA-Z][a-zA-Z0-9.*+!_?$%&=<>:#-]{0,6}(/[a-zA-Z][a-zA-Z0-9]{0,4})?";
    leaf().prop_recursive(4, 64, 6, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(V::List),
            proptest::collection::vec(inner.clone(), 0..6).prop_map(V::Vector),
            proptest::collection::vec((inner.clone(), inner.clone()), 0..5)
                .prop_map(|es| V::Map(unique(es, |(k, _)| loose(k)))),
            proptest::collection::vec(inner.clone(), 0..6).prop_map(|xs| V::Set(unique(xs, loose))),
            // #inst and #uuid are read as instants and UUIDs (grammar 2.8).
            (
                tag.prop_filter("not inst or uuid", |t| t != "inst" && t != "uuid"),
                inner
            )
                .prop_map(|(t, v)| V::Tag(t, Box::new(v))),
        ]
    })
}

/// splitmix64: the printer's choices of layout.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len() as u64) as usize]
    }
}

const WS: [&str; 9] = [" ", " ", ",", ", ", "\t", "\n", "\r\n", "\u{0B}", "\u{0C}"];
const DISCARDED: [&str; 8] = [
    "1", ":k", "\"s\"", "[1 [2]]", "{:a 1}", "#t x", "sym", "\\c",
];
const COMMENT: [&str; 5] = [
    "",
    " comment",
    ";; [unbalanced {",
    " \"quote",
    " #_ not a discard",
];

/// Whitespace, comments and discards between forms; at least one whitespace
/// character first when `required` (or when anything is written at all, so
/// that `#_` never glues onto a token).
fn sep(rng: &mut Rng, out: &mut String, required: bool) {
    let extra = match rng.below(4) {
        0 | 1 => 0,
        2 => 1,
        _ => 2,
    };
    if !required && extra == 0 {
        return;
    }
    out.push_str(rng.pick(&WS));
    for _ in 0..extra {
        match rng.below(3) {
            0 => out.push_str(rng.pick(&WS)),
            1 => {
                out.push(';');
                out.push_str(rng.pick(&COMMENT));
                out.push('\n');
            }
            _ => {
                out.push_str("#_");
                if rng.below(2) == 0 {
                    out.push(' ');
                }
                out.push_str(rng.pick(&DISCARDED));
                out.push_str(rng.pick(&WS));
            }
        }
    }
}

fn print(v: &V, rng: &mut Rng, out: &mut String) {
    match v {
        V::Nil => out.push_str("nil"),
        V::Bool(b) => {
            let _ = write!(out, "{b}");
        }
        V::Int(t) | V::Dec(t) | V::FloatTok(t) | V::Ratio(t) => out.push_str(t),
        V::Float(f, style) => {
            let plus = if *style >= 3 && f.is_sign_positive() {
                "+"
            } else {
                ""
            };
            let _ = match style % 3 {
                0 => write!(out, "{plus}{f:?}"),
                1 => write!(out, "{plus}{f:e}"),
                _ => write!(out, "{plus}{f:E}"),
            };
        }
        V::Str(s) => {
            out.push('"');
            for c in s.chars() {
                let escaped = rng.below(2) == 0;
                match c {
                    '"' => out.push_str("\\\""),
                    '\\' => out.push_str("\\\\"),
                    '\n' if escaped => out.push_str("\\n"),
                    '\t' if escaped => out.push_str("\\t"),
                    '\r' if escaped => out.push_str("\\r"),
                    c => out.push(c),
                }
            }
            out.push('"');
        }
        V::Char(c) => match c {
            '\n' => out.push_str("\\newline"),
            ' ' => out.push_str("\\space"),
            '\t' => out.push_str("\\tab"),
            '\r' => out.push_str("\\return"),
            c => {
                out.push('\\');
                out.push(*c);
            }
        },
        V::Kw(k) => {
            out.push(':');
            out.push_str(k);
        }
        V::Sym(s) => out.push_str(s),
        V::List(items) => print_seq(items.iter(), "(", ")", rng, out),
        V::Vector(items) => print_seq(items.iter(), "[", "]", rng, out),
        V::Set(items) => print_seq(items.iter(), "#{", "}", rng, out),
        V::Map(entries) => print_seq(entries.iter().flat_map(|(k, v)| [k, v]), "{", "}", rng, out),
        V::Tag(t, v) => {
            out.push('#');
            out.push_str(t);
            let mut inner = String::new();
            print(v, rng, &mut inner);
            let glued = inner.starts_with(['(', '[', '{', '"']) && rng.below(2) == 0;
            sep(rng, out, !glued);
            out.push_str(&inner);
        }
    }
}

fn print_seq<'a>(
    items: impl Iterator<Item = &'a V>,
    open: &str,
    close: &str,
    rng: &mut Rng,
    out: &mut String,
) {
    out.push_str(open);
    sep(rng, out, false);
    for (i, item) in items.enumerate() {
        if i > 0 {
            sep(rng, out, true);
        }
        print(item, rng, out);
    }
    sep(rng, out, false);
    out.push_str(close);
}

fn print_text(forms: &[V], seed: u64) -> String {
    let mut rng = Rng(seed);
    let mut out = String::new();
    sep(&mut rng, &mut out, false);
    for (i, v) in forms.iter().enumerate() {
        if i > 0 {
            sep(&mut rng, &mut out, true);
        }
        print(v, &mut rng, &mut out);
    }
    sep(&mut rng, &mut out, false);
    if rng.below(8) == 0 {
        out.push_str(" ; a last comment without a line feed");
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig {
        // 100,000 in the nightly run; PROPTEST_CASES=N for another hunt.
        cases: common::cases(2500, 100_000),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Both readers read generated EDN to the same trees; and the canonical
    /// text of clojure-reader's trees (the printer the op comparison uses)
    /// is ours.
    #[test]
    fn random_values_agree(forms in proptest::collection::vec(value(), 1..4), seed in any::<u64>()) {
        let text = print_text(&forms, seed);
        let ours = read_all(&text);
        let (theirs, their_err) = clj_forms(&text);
        prop_assert!(ours.is_ok(), "we reject {:?}: {:?}", text, ours.err());
        prop_assert!(their_err.is_none(), "clojure-reader rejects {:?}: {:?}", text, their_err);
        let ours = ours.unwrap();
        prop_assert_eq!(ours.len(), forms.len(), "our form count for {:?}", text);
        prop_assert_eq!(theirs.len(), forms.len(), "clojure-reader's form count for {:?}", text);
        for ((o, c), v) in ours.iter().zip(&theirs).zip(&forms) {
            if let Err(e) = same(o, c, "$") {
                prop_assert!(false, "{} in {:?}", e, text);
            }
            if !has_dec(v) {
                prop_assert_eq!(o.canonical(), canon(c), "canonical text of {:?}", text);
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Known differences, pinned
// ---------------------------------------------------------------------------

fn describe_ours(text: &str) -> Result<Vec<String>, String> {
    read_all(text)
        .map(|fs| fs.iter().map(exact).collect())
        .map_err(|e| format!("{:?}", e.problem))
}

fn describe_theirs(text: &str) -> Result<Vec<String>, String> {
    match clj_forms(text) {
        (forms, None) => Ok(forms.iter().map(clj_exact).collect()),
        (_, Some(e)) => Err(e.code),
    }
}

/// Inputs both readers accept but read differently. When one stops
/// differing, take it off this list (and off the notes in grammar/edn.ebnf).
const BOTH_ACCEPT_DIFFERENTLY: [(&str, &str); 5] = [
    (
        "a\\b",
        "\\ ends a token for us (and Clojure: symbol a, char \\b); clojure-reader reads one symbol",
    ),
    (":a\\b", "the same for keywords"),
    (
        "a\u{3000}b",
        "U+3000 is whitespace for clojure-reader (and Clojure); a symbol character for us",
    ),
    (
        "a\u{A0}b",
        "U+00A0 is whitespace for clojure-reader (Rust's is_whitespace); a symbol char for us and Clojure",
    ),
    (
        "a\u{2028}b",
        "U+2028 is whitespace for clojure-reader (and Clojure); a symbol character for us",
    ),
];

#[test]
fn known_both_accept_differently() {
    let mut changed = Vec::new();
    for (text, why) in BOTH_ACCEPT_DIFFERENTLY {
        let (ours, theirs) = (describe_ours(text), describe_theirs(text));
        eprintln!("{text:?}: ours {ours:?}, clojure-reader {theirs:?} ({why})");
        if ours.is_err() || theirs.is_err() || ours == theirs {
            changed.push(format!(
                "{text:?} ({why}): ours {ours:?}, clojure-reader {theirs:?}"
            ));
        }
    }
    assert!(
        changed.is_empty(),
        "no longer both accepted and different:\n  {}",
        changed.join("\n  ")
    );
}

/// clojure-reader reads -1.0M with scale 0 (BigDecimal -1, not -1.0), unlike
/// -2.0M: tolerated by `big_dec_same`.
#[test]
fn known_clojure_reader_drops_the_scale_of_minus_one() {
    for text in ["-1.0M", "-1.00M"] {
        let (forms, err) = clj_forms(text);
        assert!(err.is_none());
        assert_eq!(
            clj_big_dec_parts(&forms[0]),
            Some(("-1".to_string(), 0)),
            "{text}"
        );
        let ours = read_all(text).expect("reads");
        assert!(same(&ours[0], &forms[0], "$").is_ok());
    }
    let (forms, _) = clj_forms("-2.0M");
    assert_eq!(clj_big_dec_parts(&forms[0]), Some(("-20".to_string(), 1)));
    // A real difference of scale is still caught.
    let (forms, _) = clj_forms("1.0M");
    let ours = read_all("1.00M").expect("reads");
    assert!(same(&ours[0], &forms[0], "$").is_err());
}

/// Inputs we accept and clojure-reader rejects (with its error code).
/// (`{0.0 1 -0.0 2}` and `{1.5M 1 15e-1M 2}` left it: we now compare 0.0
/// and -0.0, and BigDecimals, as Clojure does, and refuse them too.)
const WE_ACCEPT_CLJ_REJECTS: [(&str, &str); 11] = [
    ("\"\\u0041\"", "InvalidEscape: \\uXXXX in strings"),
    ("\"\\f\\b\"", "InvalidEscape: \\f and \\b in strings"),
    ("\\u0041", "InvalidChar: \\uXXXX characters"),
    ("\\o101", "InvalidChar: octal characters"),
    ("\\formfeed", "InvalidChar: \\formfeed, \\backspace"),
    ("##Inf", "InvalidTag/EOF: symbolic values"),
    ("[##NaN]", "InvalidTag: symbolic values"),
    ("\\a\\b", "InvalidChar: \\ does not end a character token"),
    ("\\a\"s\"", "InvalidChar: \" does not end a character token"),
    ("#a'b 1", "InvalidTag: ' is not a tag character"),
    ("#a", "UnexpectedEOF (we too reject, see below)"),
];

#[test]
fn known_we_accept_clojure_reader_rejects() {
    let mut changed = Vec::new();
    for (text, why) in WE_ACCEPT_CLJ_REJECTS {
        let (ours, theirs) = (describe_ours(text), describe_theirs(text));
        eprintln!("{text:?}: ours {ours:?}, clojure-reader {theirs:?} ({why})");
        let expected = match text {
            "#a" => ours.is_err() && theirs.is_err(),
            _ => ours.is_ok() && theirs.is_err(),
        };
        if !expected {
            changed.push(format!(
                "{text:?} ({why}): ours {ours:?}, clojure-reader {theirs:?}"
            ));
        }
    }
    assert!(changed.is_empty(), "changed:\n  {}", changed.join("\n  "));
}

/// Inputs clojure-reader accepts and we reject: where we are stricter (by
/// design: EDN, not Clojure) or clojure-reader looser than Clojure.
const CLJ_ACCEPTS_WE_REJECT: [(&str, &str); 13] = [
    ("00.5", "leading zeros"),
    ("1_000", "digit separators (num-bigint's parser)"),
    (".5", "a symbol for clojure-reader"),
    ("a/b/c", "symbols: one / at most"),
    ("a/1", "symbols: name starting with a digit"),
    ("::a", "auto-resolved keywords"),
    ("\\ ", "backslash-space"),
    ("#_{:a 1 :a 2}", "duplicate keys inside a discard"),
    ("{1 2 1N 3}", "1 and 1N are equal for us (and Clojure)"),
    (
        "#{[1] (1)}",
        "a list and a vector are equal for us (and Clojure)",
    ),
    ("#:ns{:a 1}", "namespaced maps"),
    ("#éa 1", "tags with a non-ASCII first letter"),
    ("a@b", "@ in symbols"),
];

#[test]
fn known_clojure_reader_accepts_we_reject() {
    let mut changed = Vec::new();
    for (text, why) in CLJ_ACCEPTS_WE_REJECT {
        let (ours, theirs) = (describe_ours(text), describe_theirs(text));
        eprintln!("{text:?}: ours {ours:?}, clojure-reader {theirs:?} ({why})");
        if ours.is_ok() || theirs.is_err() {
            changed.push(format!(
                "{text:?} ({why}): ours {ours:?}, clojure-reader {theirs:?}"
            ));
        }
    }
    assert!(changed.is_empty(), "changed:\n  {}", changed.join("\n  "));
}

/// Clojure's reader ends a `;` comment at a line feed or a carriage return;
/// so does ours (a file with old Mac line ends is not one long comment).
#[test]
fn lone_carriage_return_ends_a_comment() {
    let forms = read_all(";c\r1").expect("reads");
    assert_eq!(forms.len(), 1, "`;c\\r1` should read as the single form 1");
}

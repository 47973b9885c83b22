//! Keeps `grammar/edn.ebnf` in step with the EDN readers.
//!
//! Every `example` annotation in the grammar must be accepted by
//! `edn::read_all` (and, for whole histories, by `jepsen::read_ops`), every
//! `counterexample` rejected, with the Problem or Kind it names. Every `Kind`
//! variant must be the subject of an example and every `Problem` variant of a
//! counterexample: adding a variant to the parser without documenting it here
//! fails this test, with a message saying what to add. The annotation format
//! is described at the top of the grammar.

use isocheck::history::edn::{read_all, Node, SyntaxError};
use isocheck::history::error::ErrorKind;
use isocheck::history::jepsen::read_ops;
use isocheck::history::{load, Format, LoadOptions};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Debug;

const GRAMMAR: &str = include_str!("../grammar/edn.ebnf");
const GRAMMAR_PATH: &str = "grammar/edn.ebnf";
const EDN_MOD: &str = include_str!("../crates/isocheck/src/history/edn/mod.rs");
const EDN_ERROR: &str = include_str!("../crates/isocheck/src/history/edn/error.rs");
const EXAMPLES_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/grammar/examples");

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum What {
    Example,
    Counterexample,
    Unreachable,
}

#[derive(Debug)]
struct Annotation {
    line: usize,
    what: What,
    /// A Kind, Problem or ErrorKind variant name, if given.
    name: Option<String>,
    history: bool,
    ops_only: bool,
    esc: bool,
    forms: Option<usize>,
    /// The text as written in the grammar (before escapes).
    raw: String,
    /// The input: `raw`, with escapes decoded when `esc` is set.
    bytes: Vec<u8>,
}

impl Annotation {
    fn at(&self) -> String {
        format!("{GRAMMAR_PATH}:{}: `{}`", self.line, shorten(&self.raw))
    }
}

fn shorten(s: &str) -> String {
    if s.chars().count() <= 80 {
        s.to_string()
    } else {
        s.chars().take(77).collect::<String>() + "..."
    }
}

/// The name of an enum variant from its `Debug` text: `Int(5)` -> `Int`.
fn variant_name(v: &impl Debug) -> String {
    format!("{v:?}")
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}

/// The variant names of `pub enum <name>` in Rust source, read from the text
/// so that a new variant is noticed without this file having to change.
fn enum_variants(source: &str, header: &str) -> Vec<String> {
    let start = source
        .find(header)
        .unwrap_or_else(|| panic!("cannot find `{header}` in the parser source"));
    let mut out = Vec::new();
    let mut depth = 0i32;
    for line in source[start..].lines().skip(1) {
        let t = line.trim();
        if depth == 0 && t == "}" {
            return out;
        }
        if depth == 0 && !t.starts_with("//") && !t.starts_with("#[") {
            let ident: String = t
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if ident.starts_with(|c: char| c.is_ascii_uppercase()) {
                out.push(ident);
            }
        }
        depth += t.matches('{').count() as i32 - t.matches('}').count() as i32;
    }
    panic!("`{header}` is not closed");
}

/// Decodes `\n \r \t \\ \xNN \u{N..}` into bytes.
fn unescape(s: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            let mut buf = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            continue;
        }
        match chars.next() {
            Some('n') => out.push(b'\n'),
            Some('r') => out.push(b'\r'),
            Some('t') => out.push(b'\t'),
            Some('\\') => out.push(b'\\'),
            Some('x') => {
                let hex: String = chars.by_ref().take(2).collect();
                let b = u8::from_str_radix(&hex, 16).map_err(|_| format!("bad \\x{hex}"))?;
                out.push(b);
            }
            Some('u') => {
                if chars.next() != Some('{') {
                    return Err("\\u must be followed by {".into());
                }
                let hex: String = chars.by_ref().take_while(|&c| c != '}').collect();
                let c = u32::from_str_radix(&hex, 16)
                    .ok()
                    .and_then(char::from_u32)
                    .ok_or_else(|| format!("bad \\u{{{hex}}}"))?;
                let mut buf = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
            other => return Err(format!("unknown escape \\{}", other.unwrap_or(' '))),
        }
    }
    Ok(out)
}

/// Parses one annotation line, `None` when the line is not one.
fn parse_annotation(line_no: usize, line: &str) -> Option<Result<Annotation, String>> {
    let t = line.trim();
    let body = t.strip_prefix("(* ")?;
    let word: String = body
        .chars()
        .take_while(|c| c.is_ascii_lowercase())
        .collect();
    let what = match word.as_str() {
        "example" => What::Example,
        "counterexample" => What::Counterexample,
        "unreachable" => What::Unreachable,
        _ => return None,
    };
    Some(parse_annotation_body(line_no, what, &body[word.len()..]))
}

fn parse_annotation_body(line_no: usize, what: What, rest: &str) -> Result<Annotation, String> {
    let (flags, rest) = match rest.strip_prefix('(') {
        Some(r) => {
            let close = r.find(')').ok_or("unclosed flag list")?;
            (&r[..close], &r[close + 1..])
        }
        None => ("", rest),
    };
    let rest = rest
        .strip_prefix(':')
        .ok_or("expected `:` after the annotation word and flags")?;
    let rest = rest
        .strip_suffix("*)")
        .ok_or("an annotation must end its line with `*)`")?;
    let raw = rest
        .strip_prefix(' ')
        .unwrap_or(rest)
        .trim_end()
        .to_string();
    let mut a = Annotation {
        line: line_no,
        what,
        name: None,
        history: false,
        ops_only: false,
        esc: false,
        forms: None,
        raw: raw.clone(),
        bytes: Vec::new(),
    };
    for flag in flags.split(',').map(str::trim).filter(|f| !f.is_empty()) {
        match flag {
            "history" => a.history = true,
            "ops-only" => a.ops_only = true,
            "esc" => a.esc = true,
            f if f.starts_with("forms=") => {
                a.forms = Some(f[6..].parse().map_err(|_| format!("bad flag `{f}`"))?)
            }
            f if f.starts_with(|c: char| c.is_ascii_uppercase())
                && f.chars().all(|c| c.is_ascii_alphanumeric()) =>
            {
                if a.name.replace(f.to_string()).is_some() {
                    return Err("more than one variant name".into());
                }
            }
            f => return Err(format!("unknown flag `{f}`")),
        }
    }
    a.bytes = if a.esc {
        unescape(&raw)?
    } else {
        raw.into_bytes()
    };
    Ok(a)
}

fn annotations() -> Vec<Annotation> {
    let mut out = Vec::new();
    let mut bad = Vec::new();
    for (i, line) in GRAMMAR.lines().enumerate() {
        match parse_annotation(i + 1, line) {
            Some(Ok(a)) => out.push(a),
            Some(Err(e)) => bad.push(format!("{GRAMMAR_PATH}:{}: {e}", i + 1)),
            None => {
                // A misspelt or mis-shaped annotation would silently test
                // nothing: a comment line opening with a lowercase word and
                // `(` or `:` is taken for one.
                if let Some(body) = line.trim_start().strip_prefix("(*") {
                    let body = body.trim_start();
                    let word: String = body
                        .chars()
                        .take_while(|c| c.is_ascii_lowercase() || *c == '-')
                        .collect();
                    let next = body[word.len()..].chars().next();
                    if !word.is_empty() && matches!(next, Some('(' | ':')) {
                        bad.push(format!(
                            "{GRAMMAR_PATH}:{}: malformed annotation `{word}`: write `(* \
                             example...`, `(* counterexample...` or `(* unreachable...`",
                            i + 1
                        ));
                    }
                }
            }
        }
    }
    assert!(bad.is_empty(), "bad annotations:\n{}", bad.join("\n"));
    out
}

fn syntax_name(e: &SyntaxError) -> String {
    variant_name(&e.problem)
}

/// The name of a history error: the Problem for syntax errors, else the ErrorKind.
fn history_error_name(kind: &ErrorKind) -> String {
    match kind {
        ErrorKind::Syntax(p) => variant_name(p),
        k => variant_name(k),
    }
}

fn check_name(a: &Annotation, found: &str, failures: &mut Vec<String>) {
    if let Some(want) = &a.name {
        if want != found {
            failures.push(format!("{}: expected {want}, got {found}", a.at()));
        }
    }
}

/// Reads bytes that are not UTF-8 the way a user's file is read.
fn load_bytes(a: &Annotation) -> Result<(), ErrorKind> {
    let dir = std::env::temp_dir().join(format!("isocheck-grammar-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(format!("line-{}.edn", a.line));
    std::fs::write(&path, &a.bytes).expect("write temp file");
    let opts = LoadOptions {
        format: Some(Format::Edn),
        workload: None,
    };
    let r = load(&path, &opts).map(|_| ()).map_err(|d| d.error.kind);
    let _ = std::fs::remove_file(&path);
    let _ = std::fs::remove_dir(&dir);
    r
}

fn kinds(forms: &[Node<'_>]) -> Vec<String> {
    forms.iter().map(|n| variant_name(&n.kind)).collect()
}

fn check(a: &Annotation, failures: &mut Vec<String>) {
    let text = match std::str::from_utf8(&a.bytes) {
        Ok(t) => t,
        Err(_) => {
            match (a.what, load_bytes(a)) {
                (What::Counterexample, Err(kind)) => {
                    check_name(a, &history_error_name(&kind), failures)
                }
                (What::Counterexample, Ok(())) => {
                    failures.push(format!("{}: a file with these bytes was accepted", a.at()))
                }
                _ => failures.push(format!("{}: only counterexamples may be non-UTF-8", a.at())),
            }
            return;
        }
    };
    match (a.what, a.history) {
        (What::Example, false) => match read_all(text) {
            Ok(forms) => {
                let want = a.forms.unwrap_or(1);
                if forms.len() != want {
                    failures.push(format!(
                        "{}: expected {want} form(s), read {}: {:?}",
                        a.at(),
                        forms.len(),
                        kinds(&forms)
                    ));
                }
                for k in kinds(&forms) {
                    check_name(a, &k, failures);
                }
            }
            Err(e) => failures.push(format!("{}: rejected with {:?}", a.at(), e.problem)),
        },
        (What::Example, true) => {
            match (read_all(text), a.ops_only) {
                (Err(e), false) => {
                    failures.push(format!("{}: read_all rejects: {:?}", a.at(), e.problem))
                }
                (Ok(_), true) => failures.push(format!(
                    "{}: marked ops-only, but read_all accepts it too",
                    a.at()
                )),
                _ => {}
            }
            if let Err(e) = read_ops(text) {
                failures.push(format!("{}: read_ops rejects: {:?}", a.at(), e.kind));
            }
        }
        (What::Counterexample, false) => match read_all(text) {
            Ok(forms) => failures.push(format!("{}: accepted as {:?}", a.at(), kinds(&forms))),
            Err(e) => check_name(a, &syntax_name(&e), failures),
        },
        (What::Counterexample, true) => match read_ops(text) {
            Ok(ops) => failures.push(format!(
                "{}: read_ops accepts {} op(s)",
                a.at(),
                ops.ops.len()
            )),
            Err(e) => check_name(a, &history_error_name(&e.kind), failures),
        },
        (What::Unreachable, _) => {}
    }
}

#[test]
fn grammar_examples_are_accepted_and_counterexamples_rejected() {
    let all = annotations();
    assert!(
        all.len() > 100,
        "only {} annotations found in {GRAMMAR_PATH}",
        all.len()
    );
    let mut failures = Vec::new();
    for a in &all {
        if a.what == What::Unreachable
            && (a.history || a.esc || a.forms.is_some() || a.name.is_none())
        {
            failures.push(format!(
                "{}: `unreachable` takes just a Problem name",
                a.at()
            ));
        }
        if a.forms.is_some() && (a.what != What::Example || a.history) {
            failures.push(format!("{}: forms=N is for plain examples", a.at()));
        }
        if a.ops_only && !(a.what == What::Example && a.history) {
            failures.push(format!("{}: ops-only is for history examples", a.at()));
        }
        check(a, &mut failures);
    }
    let n = |w: What| all.iter().filter(|a| a.what == w).count();
    eprintln!(
        "{GRAMMAR_PATH}: {} examples, {} counterexamples checked",
        n(What::Example),
        n(What::Counterexample)
    );
    assert!(
        failures.is_empty(),
        "{} grammar annotation(s) disagree with the parser (fix the grammar if the parser is \
         right, else the parser):\n  {}",
        failures.len(),
        failures.join("\n  ")
    );
}

/// Every `Kind` variant is the subject of an example; every `Problem` variant
/// of a counterexample, or declared unreachable.
#[test]
fn grammar_covers_every_kind_and_problem() {
    let all = annotations();
    let kinds = enum_variants(EDN_MOD, "pub enum Kind<'a> {");
    let problems = enum_variants(EDN_ERROR, "pub enum Problem {");
    assert!(
        kinds.len() >= 15,
        "read only {kinds:?} from src/history/edn/mod.rs"
    );
    assert!(
        problems.len() >= 16,
        "read only {problems:?} from src/history/edn/error.rs"
    );

    let mut errors = Vec::new();
    let named = |what: What| -> BTreeMap<String, usize> {
        let mut m = BTreeMap::new();
        for a in all.iter().filter(|a| a.what == what) {
            if let Some(n) = &a.name {
                *m.entry(n.clone()).or_insert(0) += 1;
            }
        }
        m
    };
    let example_kinds = named(What::Example);
    let mut countered = named(What::Counterexample);
    let unreachable = named(What::Unreachable);

    for k in &kinds {
        if !example_kinds.contains_key(k) {
            errors.push(format!(
                "Kind::{k} (src/history/edn/mod.rs) has no example in {GRAMMAR_PATH}: add or \
                 extend a production for it, with at least one `(* example({k}): ... *)` line"
            ));
        }
    }
    for name in example_kinds.keys() {
        if !kinds.contains(name) {
            errors.push(format!(
                "{GRAMMAR_PATH} names Kind::{name}, which does not exist"
            ));
        }
    }
    let error_kinds = [
        "NotAnOp",
        "MissingType",
        "NotAHistory",
        "BadField",
        "DuplicateField",
    ];
    for p in &problems {
        let reached = countered.contains_key(p);
        let declared = unreachable.contains_key(p);
        match (reached, declared) {
            (false, false) => errors.push(format!(
                "Problem::{p} (src/history/edn/error.rs) is not exercised by any counterexample \
                 in {GRAMMAR_PATH}: add a `(* counterexample({p}): ... *)` line under the \
                 production it belongs to, or `(* unreachable({p}): why *)` if no input can \
                 produce it"
            )),
            (true, true) => errors.push(format!(
                "Problem::{p} has counterexamples but is declared unreachable in {GRAMMAR_PATH}"
            )),
            _ => {}
        }
    }
    for name in unreachable.keys() {
        if !problems.contains(name) {
            errors.push(format!(
                "{GRAMMAR_PATH}: unreachable({name}) names no Problem variant"
            ));
        }
    }
    countered.retain(|n, _| !problems.contains(n) && !error_kinds.contains(&n.as_str()));
    for name in countered.keys() {
        errors.push(format!(
            "{GRAMMAR_PATH}: counterexample({name}) names neither a Problem nor a history ErrorKind"
        ));
    }
    assert!(
        errors.is_empty(),
        "the grammar is out of step with the parser:\n  {}",
        errors.join("\n  ")
    );
}

/// Minimal well-formedness of the EBNF itself: every rule used is defined,
/// every rule defined is used (but for the start symbols), none twice.
#[test]
fn grammar_rules_are_defined_and_used() {
    // Start symbols, and `delimiter`, which documents the tokenizer.
    const ROOTS: [&str; 3] = ["history", "edn_text", "delimiter"];
    #[derive(Debug, PartialEq)]
    enum Tok {
        Ident(String),
        Eq,
        Semi,
        Other,
    }
    let b = GRAMMAR.as_bytes();
    let mut toks = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let until = |from: usize, end: &[u8]| -> usize {
            let rest = &GRAMMAR[from..];
            let end = std::str::from_utf8(end).unwrap();
            from + rest
                .find(end)
                .unwrap_or_else(|| panic!("unclosed `{end}` at byte {from}"))
                + end.len()
        };
        if b[i..].starts_with(b"(*") {
            i = until(i + 2, b"*)");
        } else if c == b'"' || c == b'\'' || c == b'?' {
            i = until(i + 1, &[c]);
            toks.push(Tok::Other);
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            toks.push(Tok::Ident(GRAMMAR[s..i].to_string()));
        } else if c == b'=' {
            toks.push(Tok::Eq);
            i += 1;
        } else if c == b';' {
            toks.push(Tok::Semi);
            i += 1;
        } else if c.is_ascii_whitespace() {
            i += 1;
        } else if b"|,[]{}()-*0123456789".contains(&c) {
            toks.push(Tok::Other);
            i += 1;
        } else {
            panic!(
                "unexpected character {:?} in the EBNF outside comments",
                c as char
            );
        }
    }
    let mut defined = BTreeMap::new();
    let mut used = BTreeSet::new();
    let mut errors = Vec::new();
    for rule in toks.split(|t| *t == Tok::Semi).filter(|r| !r.is_empty()) {
        match rule {
            [Tok::Ident(name), Tok::Eq, body @ ..] if !body.is_empty() => {
                if defined.insert(name.clone(), ()).is_some() {
                    errors.push(format!("rule `{name}` is defined twice"));
                }
                for t in body {
                    match t {
                        Tok::Ident(n) => {
                            used.insert(n.clone());
                        }
                        Tok::Eq => errors.push(format!("rule `{name}` has a stray `=`")),
                        _ => {}
                    }
                }
            }
            other => errors.push(format!("not a rule: {other:?}")),
        }
    }
    for n in &used {
        if !defined.contains_key(n) {
            errors.push(format!("`{n}` is used but not defined"));
        }
    }
    for n in defined.keys() {
        if !used.contains(n) && !ROOTS.contains(&n.as_str()) {
            errors.push(format!("`{n}` is defined but never used"));
        }
    }
    assert!(defined.len() > 40, "only {} rules found", defined.len());
    assert!(
        errors.is_empty(),
        "{GRAMMAR_PATH}:\n  {}",
        errors.join("\n  ")
    );
}

/// Whole-history examples under `grammar/examples/`: each is read by both readers.
#[test]
fn grammar_example_files_are_histories() {
    // Part of the repository: missing, it is a failure, not a skip.
    let dir = std::fs::read_dir(EXAMPLES_DIR).unwrap_or_else(|e| panic!("{EXAMPLES_DIR}: {e}"));
    let mut n = 0;
    for entry in dir {
        let path = entry.expect("directory entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("edn") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("read example");
        read_all(&text).unwrap_or_else(|e| panic!("{}: read_all: {e:?}", path.display()));
        let ops = read_ops(&text)
            .unwrap_or_else(|e| panic!("{}: read_ops: {:?}", path.display(), e.kind));
        assert!(!ops.ops.is_empty(), "{}: no ops", path.display());
        isocheck::history::parse_edn(&path.display().to_string(), &text)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        n += 1;
    }
    assert!(n > 0, "no .edn files in {EXAMPLES_DIR}");
}

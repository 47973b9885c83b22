//! The exec protocol, version [`VERSION`]: the lines `isocheck run --db
//! exec:PROGRAM` writes to a client program's stdin and reads back from
//! its stdout, one JSON object per line each way, one answer per request.
//! This module owns their text: writing requests, reading a line with a
//! bound on its length, and checking an answer against the request it
//! answers. A [`Violation`] says what was expected; the caller adds the
//! line's number and text.
//!
//! Requests, in order: `hello` (the version, the workload and the
//! isolation level asked), then `setup` (to the one program that creates
//! the tables before the run) or one op at a time, named and shaped as in
//! Jepsen's history: `{"f":"txn","value":[["append",1,2],["r",1,null]]}`
//! (`"w"` for rw-register writes), or a cas-register op
//! (`{"f":"read","value":[1,null]}`, `"write"` `[1,2]`, `"cas"`
//! `[1,[2,3]]`). Answers: `{"type":"ok",...}` (with `"version"` for hello,
//! with `"value"` for a transaction, the micro-ops sent with the reads
//! filled in, and for a register read `[k, v]`), `{"type":"fail",
//! "error":"..."}` when the op did not happen, `{"type":"info",
//! "error":"..."}` when its outcome is unknown.

use crate::cas::Op;
use isocheck_gen::edn::Reads;
use isocheck_gen::workload::{Mop, Value};
use serde_json::Value as Json;
use std::fmt::Write as _;
use std::io::{self, BufRead};

/// The protocol's version, in `hello` and its answer.
pub const VERSION: u64 = 1;

/// The longest answer line read, in bytes: far beyond any transaction's
/// reads, and small enough that a program writing without a newline
/// cannot fill memory (a parsed line takes about 16 times its size).
pub const MAX_LINE: usize = 8 << 20;

/// The first line to every program.
pub fn hello(workload: &str, isolation: Option<&str>) -> String {
    let isolation = match isolation {
        Some(i) => format!("\"{i}\""),
        None => "null".into(),
    };
    format!(
        "{{\"f\":\"hello\",\"version\":{VERSION},\"workload\":\"{workload}\",\
         \"isolation\":{isolation}}}\n"
    )
}

/// The request to create the workload's tables, dropping earlier ones.
pub const SETUP: &str = "{\"f\":\"setup\"}\n";

/// A transaction's request: its micro-ops as Jepsen's history writes
/// them, reads `null`.
pub fn txn(mops: &[Mop], list: bool) -> String {
    let mut line = String::from("{\"f\":\"txn\",\"value\":[");
    for (i, m) in mops.iter().enumerate() {
        if i > 0 {
            line.push(',');
        }
        let _ = match *m {
            Mop::Read(k) => write!(line, "[\"r\",{k},null]"),
            Mop::Write(k, v) => write!(line, "[\"{}\",{k},{v}]", write_name(list)),
        };
    }
    line.push_str("]}\n");
    line
}

/// A register op's request.
pub fn register(op: Op) -> String {
    match op {
        Op::Read(k) => format!("{{\"f\":\"read\",\"value\":[{k},null]}}\n"),
        Op::Write(k, v) => format!("{{\"f\":\"write\",\"value\":[{k},{v}]}}\n"),
        Op::Cas(k, old, new) => format!("{{\"f\":\"cas\",\"value\":[{k},[{old},{new}]]}}\n"),
    }
}

/// A write micro-op's name, as Jepsen's history gives it.
fn write_name(list: bool) -> &'static str {
    if list {
        "append"
    } else {
        "w"
    }
}

/// One line read from a program.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// A whole line, without its newline.
    Text(Vec<u8>),
    /// More than the limit without a newline: the rest is not read.
    TooLong,
    /// The program closed its end.
    Eof,
}

/// Reads one line of at most `max` bytes. A last line without a newline
/// counts as a line.
pub fn read_line<R: BufRead>(r: &mut R, max: usize) -> io::Result<Line> {
    let mut line = Vec::new();
    loop {
        let buf = match r.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            return Ok(match line.is_empty() {
                true => Line::Eof,
                false => Line::Text(line),
            });
        }
        let (take, end) = match buf.iter().position(|&b| b == b'\n') {
            Some(at) => (at, true),
            None => (buf.len(), false),
        };
        if line.len().saturating_add(take) > max {
            return Ok(Line::TooLong);
        }
        line.extend_from_slice(&buf[..take]);
        r.consume(if end { take + 1 } else { take });
        if end {
            return Ok(Line::Text(line));
        }
    }
}

/// Reads and drops the rest of a line that was too long; false at the end
/// of the input.
pub fn skip_line<R: BufRead>(r: &mut R) -> io::Result<bool> {
    loop {
        let buf = r.fill_buf()?;
        if buf.is_empty() {
            return Ok(false);
        }
        match buf.iter().position(|&b| b == b'\n') {
            Some(at) => {
                r.consume(at + 1);
                return Ok(true);
            }
            None => {
                let n = buf.len();
                r.consume(n);
            }
        }
    }
}

/// What an answer broke: what was expected, in words.
#[derive(Debug, PartialEq, Eq)]
pub struct Violation(pub String);

fn expected(what: impl Into<String>) -> Violation {
    Violation(what.into())
}

/// An answer's outcome.
#[derive(Debug, PartialEq)]
pub enum Answer {
    /// `ok`, with its `value` if it has one.
    Ok(Option<Json>),
    /// `fail` and its `error`.
    Fail(String),
    /// `info` and its `error`.
    Info(String),
}

/// Parses an answer line into its outcome.
pub fn answer(line: &[u8]) -> Result<(Answer, serde_json::Map<String, Json>), Violation> {
    let json: Json =
        serde_json::from_slice(line).map_err(|e| expected(format!("one JSON object ({e})")))?;
    let Json::Object(mut map) = json else {
        return Err(expected(format!(
            "a JSON object such as {{\"type\": \"ok\"}}, not {}",
            kind(&json)
        )));
    };
    let error = match map.remove("error") {
        None | Some(Json::Null) => String::new(),
        Some(Json::String(s)) => s,
        Some(other) => other.to_string(),
    };
    let answer = match map.get("type") {
        Some(Json::String(t)) if t == "ok" => Answer::Ok(map.remove("value")),
        Some(Json::String(t)) if t == "fail" => Answer::Fail(error),
        Some(Json::String(t)) if t == "info" => Answer::Info(error),
        Some(other) => {
            return Err(expected(format!(
                "\"type\" to be \"ok\", \"fail\" or \"info\", not {other}"
            )))
        }
        None => return Err(expected("a \"type\": \"ok\", \"fail\" or \"info\"")),
    };
    Ok((answer, map))
}

/// Checks the answer to `hello`: `ok` with this protocol's version. A
/// refusal is `Ok(Err(why))`.
pub fn hello_answer(line: &[u8]) -> Result<Result<(), String>, Violation> {
    let (answer, map) = answer(line)?;
    match answer {
        Answer::Fail(why) | Answer::Info(why) => return Ok(Err(why)),
        Answer::Ok(_) => {}
    }
    match map.get("version") {
        Some(v) if v.as_u64() == Some(VERSION) => Ok(Ok(())),
        Some(v) => Err(expected(format!(
            "\"version\": {VERSION} (this isocheck speaks version {VERSION} of the protocol), \
             not {v}"
        ))),
        None => Err(expected(format!(
            "the answer to hello to be {{\"type\": \"ok\", \"version\": {VERSION}}}"
        ))),
    }
}

/// Fills `reads` from an `ok` transaction's value: the micro-ops sent,
/// in order, each read with its value.
pub fn txn_reads(
    mops: &[Mop],
    list: bool,
    value: Option<&Json>,
    reads: &mut Reads,
) -> Result<(), Violation> {
    reads.clear();
    let Some(Json::Array(got)) = value else {
        return Err(expected(
            "\"value\": the micro-ops sent, in order, with the reads filled in",
        ));
    };
    if got.len() != mops.len() {
        return Err(expected(format!(
            "\"value\" to hold the {} micro-ops sent, not {}",
            mops.len(),
            got.len()
        )));
    }
    for (i, (&m, g)) in mops.iter().zip(got).enumerate() {
        let start = offset(reads.values.len())?;
        micro_op(m, list, g, &mut reads.values)
            .map_err(|Violation(what)| Violation(format!("micro-op {} to be {what}", i + 1)))?;
        reads.spans.push((start, offset(reads.values.len())?));
    }
    Ok(())
}

/// Checks one micro-op of an answer against the one sent, keeping a
/// read's values; the violation says what the micro-op should be.
fn micro_op(m: Mop, list: bool, got: &Json, out: &mut Vec<Value>) -> Result<(), Violation> {
    let sent = match m {
        Mop::Read(k) => format!("[\"r\", {k}, ...]"),
        Mop::Write(k, v) => format!("[\"{}\", {k}, {v}]", write_name(list)),
    };
    let as_sent = || expected(format!("{sent} as sent, not {got}"));
    let Some([f, k, v]) = got.as_array().map(Vec::as_slice) else {
        return Err(as_sent());
    };
    let (name, key) = match m {
        Mop::Read(k) => ("r", k),
        Mop::Write(k, _) => (write_name(list), k),
    };
    if f.as_str() != Some(name) || k.as_u64() != Some(key) {
        return Err(as_sent());
    }
    match m {
        Mop::Write(_, value) if v.as_u64() == Some(value) => Ok(()),
        Mop::Write(..) => Err(as_sent()),
        Mop::Read(_) => read_value(v, list, out).map_err(|what| {
            expected(format!(
                "{sent} with the value read: {what} (or null), not {v}"
            ))
        }),
    }
}

/// A read's value: a list's values, or a register's value (nothing for
/// null); what was expected otherwise.
fn read_value(v: &Json, list: bool, out: &mut Vec<Value>) -> Result<(), &'static str> {
    match (v, list) {
        (Json::Null, _) => Ok(()),
        (Json::Array(values), true) => {
            for x in values {
                out.push(x.as_u64().ok_or("a list of non-negative integers")?);
            }
            Ok(())
        }
        (_, true) => Err("a list of non-negative integers"),
        (v, false) => {
            out.push(v.as_u64().ok_or("a non-negative integer")?);
            Ok(())
        }
    }
}

/// What an `ok` register read saw: its value must be `[key, value]`
/// (value null for none). Other register ops need no value.
pub fn register_read(op: Op, value: Option<&Json>) -> Result<Option<Value>, Violation> {
    let Op::Read(key) = op else {
        return Ok(None);
    };
    let wrong = || {
        let got = value.map_or("nothing".into(), Json::to_string);
        expected(format!(
            "\"value\": [{key}, the value read (or null)], not {got}"
        ))
    };
    let Some([k, v]) = value.and_then(Json::as_array).map(Vec::as_slice) else {
        return Err(wrong());
    };
    if k.as_u64() != Some(key) {
        return Err(wrong());
    }
    match v {
        Json::Null => Ok(None),
        v => v.as_u64().map(Some).ok_or_else(wrong),
    }
}

/// A position in a transaction's read values.
fn offset(n: usize) -> Result<u32, Violation> {
    u32::try_from(n).map_err(|_| expected("fewer than 2^32 values read"))
}

/// A JSON value's kind, for messages.
fn kind(v: &Json) -> &'static str {
    match v {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "an array",
        Json::Object(_) => "an object",
    }
}

/// A line's text for a message: valid UTF-8 shown as is, cut to `max`
/// characters.
pub fn excerpt(line: &[u8], max: usize) -> String {
    let text = String::from_utf8_lossy(line);
    let mut chars = text.chars();
    let cut: String = chars.by_ref().take(max).collect();
    match chars.next() {
        Some(_) => format!("{cut}…"),
        None => cut,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn violation<T: std::fmt::Debug>(r: Result<T, Violation>) -> String {
        r.unwrap_err().0
    }

    #[test]
    fn requests_name_micro_ops_as_jepsen_does() {
        let mops = [Mop::Write(1, 2), Mop::Read(1)];
        assert_eq!(
            txn(&mops, true),
            "{\"f\":\"txn\",\"value\":[[\"append\",1,2],[\"r\",1,null]]}\n"
        );
        assert!(txn(&mops, false).contains("[\"w\",1,2]"));
        assert_eq!(
            register(Op::Cas(3, 4, 5)),
            "{\"f\":\"cas\",\"value\":[3,[4,5]]}\n"
        );
        let h: Json = serde_json::from_str(&hello("list-append", Some("serializable"))).unwrap();
        assert_eq!(h["version"], 1);
        assert_eq!(h["isolation"], "serializable");
        let h: Json = serde_json::from_str(&hello("rw-register", None)).unwrap();
        assert_eq!(h["isolation"], Json::Null);
    }

    #[test]
    fn answers_have_a_type() {
        assert_eq!(answer(br#"{"type":"ok"}"#).unwrap().0, Answer::Ok(None));
        let (a, _) = answer(br#"{"type":"fail","error":"busy"}"#).unwrap();
        assert_eq!(a, Answer::Fail("busy".into()));
        let (a, _) = answer(br#"{"type":"info","error":{"code":7}}"#).unwrap();
        assert_eq!(a, Answer::Info("{\"code\":7}".into()));
        assert!(violation(answer(b"garbage")).starts_with("one JSON object ("));
        assert!(violation(answer(b"")).starts_with("one JSON object ("));
        assert!(violation(answer(b"[1]")).contains("not an array"));
        assert!(violation(answer(br#"{"value":1}"#)).contains("a \"type\""));
        assert!(violation(answer(br#"{"type":"yes"}"#)).contains("not \"yes\""));
        // serde_json's recursion limit: deep nesting is an error, not a
        // stack overflow.
        let deep = "[".repeat(100_000);
        assert!(violation(answer(deep.as_bytes())).starts_with("one JSON object"));
    }

    #[test]
    fn hello_is_answered_with_the_version() {
        assert_eq!(hello_answer(br#"{"type":"ok","version":1}"#), Ok(Ok(())));
        assert_eq!(
            hello_answer(br#"{"type":"fail","error":"no cas"}"#),
            Ok(Err("no cas".into()))
        );
        assert!(violation(hello_answer(br#"{"type":"ok","version":2}"#)).contains("not 2"));
        assert!(violation(hello_answer(br#"{"type":"ok"}"#)).contains("\"version\": 1"));
    }

    fn reads_of(mops: &[Mop], list: bool, value: &str) -> Result<Reads, Violation> {
        let json: Json = serde_json::from_str(value).unwrap();
        let mut reads = Reads::default();
        txn_reads(mops, list, Some(&json), &mut reads).map(|()| reads)
    }

    #[test]
    fn transactions_answer_with_their_reads() {
        let mops = [Mop::Write(1, 2), Mop::Read(1), Mop::Read(3)];
        let r = reads_of(
            &mops,
            true,
            r#"[["append",1,2],["r",1,[5,2]],["r",3,null]]"#,
        )
        .unwrap();
        assert_eq!(r.values, [5, 2]);
        assert_eq!(r.spans, [(0, 0), (0, 2), (2, 2)]);
        let r = reads_of(&mops, false, r#"[["w",1,2],["r",1,2],["r",3,null]]"#).unwrap();
        assert_eq!((r.values, r.spans), (vec![2], vec![(0, 0), (0, 1), (1, 1)]));
    }

    #[test]
    fn a_transaction_answer_must_match_what_was_sent() {
        let mops = [Mop::Write(1, 2), Mop::Read(1)];
        let bad = |v| violation(reads_of(&mops, true, v));
        assert!(bad(r#"[["append",1,2]]"#).contains("the 2 micro-ops sent, not 1"));
        let e = bad(r#"[["append",1,3],["r",1,[]]]"#);
        assert!(
            e.starts_with("micro-op 1 to be [\"append\", 1, 2] as sent"),
            "{e}"
        );
        let e = bad(r#"[["append",1,2],["r",2,[]]]"#);
        assert!(
            e.starts_with("micro-op 2 to be [\"r\", 1, ...] as sent"),
            "{e}"
        );
        let e = bad(r#"[["append",1,2],["r",1,[-1]]]"#);
        assert!(e.contains("a list of non-negative integers"), "{e}");
        let e = bad(r#"[["append",1,2],["r",1,"x"]]"#);
        assert!(e.contains("(or null), not \"x\""), "{e}");
        assert!(bad(r#"[["append",1,2],["r",1]]"#).contains("as sent"));
        assert!(bad(r#"[["w",1,2],["r",1,[]]]"#).contains("as sent"));
        let e = violation(reads_of(&mops, false, r#"[["w",1,2],["r",1,[2]]]"#));
        assert!(e.contains("a non-negative integer"), "{e}");
        let mut reads = Reads::default();
        let e = violation(txn_reads(&mops, true, None, &mut reads));
        assert!(e.contains("with the reads filled in"), "{e}");
    }

    #[test]
    fn register_reads_answer_key_and_value() {
        let read = |v: &str| register_read(Op::Read(4), Some(&serde_json::from_str(v).unwrap()));
        assert_eq!(read("[4,7]"), Ok(Some(7)));
        assert_eq!(read("[4,null]"), Ok(None));
        assert!(violation(read("[5,7]")).contains("[4, the value read"));
        assert!(violation(read("7")).contains("not 7"));
        assert!(violation(register_read(Op::Read(4), None)).contains("not nothing"));
        assert_eq!(register_read(Op::Write(4, 1), None), Ok(None));
    }

    #[test]
    fn lines_are_bounded() {
        let mut r = io::BufReader::with_capacity(4, &b"abc\nlonger line\nend"[..]);
        assert_eq!(read_line(&mut r, 8).unwrap(), Line::Text(b"abc".to_vec()));
        assert_eq!(read_line(&mut r, 8).unwrap(), Line::TooLong);
        assert!(skip_line(&mut r).unwrap());
        assert_eq!(read_line(&mut r, 8).unwrap(), Line::Text(b"end".to_vec()));
        assert_eq!(read_line(&mut r, 8).unwrap(), Line::Eof);
        assert!(!skip_line(&mut r).unwrap());
        // A line of exactly the limit is whole.
        let mut r = io::BufReader::new(&b"12345678\n"[..]);
        assert_eq!(
            read_line(&mut r, 8).unwrap(),
            Line::Text(b"12345678".to_vec())
        );
        // An endless line stops at the limit, having read little more.
        let mut endless = io::BufReader::with_capacity(1024, io::repeat(b'x'));
        assert_eq!(read_line(&mut endless, MAX_LINE).unwrap(), Line::TooLong);
    }

    #[test]
    fn excerpts_are_cut() {
        assert_eq!(excerpt(b"abc", 5), "abc");
        assert_eq!(excerpt("héllo wörld".as_bytes(), 5), "héllo…");
        assert_eq!(excerpt(b"\xff", 5), "\u{fffd}");
    }
}

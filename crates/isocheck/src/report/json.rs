//! Elle's result map as JSON.
//!
//! The same structure as the EDN: keys lose their colon (`"valid?"`,
//! `"value'"`), keywords become strings without the colon (`:unknown` →
//! `"unknown"`), sets become arrays, and ops are converted from the text the
//! history wrote them in (keywords → strings, map keys as strings, integers
//! as numbers when they fit in 64 bits and as strings when they do not).

use super::result::R;
use crate::history::edn::{self, Kind, Node};
use serde_json::{Map, Number, Value};

/// A result map as a JSON value.
pub(crate) fn to_json(r: &R<'_>) -> Value {
    crate::limits::tick();
    match r {
        R::Nil => Value::Null,
        R::Bool(b) => Value::Bool(*b),
        R::Int(i) => Value::from(*i),
        R::Kw(k) => Value::String(k.to_string()),
        R::Sym(s) => Value::String((*s).to_string()),
        R::Edn(text) => edn_text(text),
        R::Vec(items) | R::Set(items) => Value::Array(items.iter().map(to_json).collect()),
        R::Map(entries) => Value::Object(
            entries
                .iter()
                .map(|(k, v)| (key_of(k), to_json(v)))
                .collect::<Map<String, Value>>(),
        ),
    }
}

/// A map key as a string: a keyword's name, a string's contents, else the
/// key's EDN text.
fn key_of(r: &R<'_>) -> String {
    match r {
        R::Kw(k) => k.to_string(),
        R::Edn(text) => match edn::read_all(text).ok().as_deref() {
            Some([n]) => node_key(n),
            _ => text.to_string(),
        },
        other => match to_json(other) {
            Value::String(s) => s,
            v => v.to_string(),
        },
    }
}

/// EDN text (an op, a micro-op, a value) as JSON.
fn edn_text(text: &str) -> Value {
    match edn::read_all(text).ok().as_deref() {
        Some([n]) => node(n),
        _ => Value::String(text.to_string()),
    }
}

fn node(n: &Node<'_>) -> Value {
    match &n.kind {
        Kind::Nil => Value::Null,
        Kind::Bool(b) => Value::Bool(*b),
        Kind::Int(i) => Value::from(*i),
        Kind::BigInt(digits) => big_int(digits),
        Kind::Float(f) => Number::from_f64(*f).map_or_else(
            || {
                let mut s = String::new();
                edn::write_float(*f, &mut s);
                Value::String(s)
            },
            Value::Number,
        ),
        Kind::BigDec(text) => Value::String(format!("{text}M")),
        Kind::Ratio(_) => Value::String(n.canonical()),
        Kind::Str(s) => Value::String(s.to_string()),
        Kind::Char(c) => Value::String(c.to_string()),
        Kind::Keyword(k) | Kind::Symbol(k) => Value::String((*k).to_string()),
        Kind::List(items) | Kind::Vector(items) | Kind::Set(items) => {
            Value::Array(items.iter().map(node).collect())
        }
        Kind::Map(entries) => Value::Object(
            entries
                .iter()
                .map(|(k, v)| (node_key(k), node(v)))
                .collect::<Map<String, Value>>(),
        ),
        Kind::Tagged(_, inner) => node(inner),
    }
}

fn node_key(k: &Node<'_>) -> String {
    match &k.untagged().kind {
        Kind::Keyword(name) | Kind::Symbol(name) => (*name).to_string(),
        Kind::Str(s) => s.to_string(),
        _ => k.canonical(),
    }
}

/// An integer beyond `i64`: a number when it fits in `u64`, else its digits.
fn big_int(digits: &str) -> Value {
    let plain = digits.strip_prefix('+').unwrap_or(digits);
    if let Ok(i) = plain.parse::<i64>() {
        return Value::from(i);
    }
    if let Ok(u) = plain.parse::<u64>() {
        return Value::from(u);
    }
    Value::String(plain.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ops_become_objects() {
        let v = edn_text(
            r#"#jepsen.history.Op{:index 3, :type :ok, :process 0, :value [[:r :x [1 2]] [:append :x 3]], :big 123456789012345678901234567890, :u 18446744073709551615N, "s" #{1}, [1 2] 1.5}"#,
        );
        assert_eq!(
            v,
            serde_json::json!({
                "index": 3, "type": "ok", "process": 0,
                "value": [["r", "x", [1, 2]], ["append", "x", 3]],
                "big": "123456789012345678901234567890",
                "u": 18446744073709551615u64,
                "s": [1],
                "[1 2]": 1.5
            })
        );
    }

    #[test]
    fn keys_lose_their_colon() {
        let r = R::Map(vec![
            (R::Kw("valid?".into()), R::Kw("unknown".into())),
            (
                R::Kw("value'".into()),
                R::Edn(":elle.list-append/init".into()),
            ),
            (R::Edn("1".into()), R::Set(vec![R::Int(2)])),
            (R::Kw("txns".into()), R::Vec(vec![R::Sym("...")])),
        ]);
        assert_eq!(
            to_json(&r),
            serde_json::json!({
                "valid?": "unknown",
                "value'": "elle.list-append/init",
                "1": [2],
                "txns": ["..."]
            })
        );
    }
}

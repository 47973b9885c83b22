//! The JSON reader against the EDN reader: the same history written both
//! ways reads to the same ops (hand-written cases and a proptest round
//! trip), its diagnostics point at the offending bytes, and detection tells
//! JSON from EDN by content.

use super::*;
use crate::history::edn;
use crate::history::error::ErrorKind;
use crate::history::jepsen;
use crate::history::{parse_text, Format, History, RegisterF, Workload};
use proptest::prelude::*;

mod closed_predicate;

/// What the model holds of an op, its values as canonical EDN: equal for
/// the same history read from EDN and from JSON.
fn fingerprint(ops: &Ops, text: &str) -> Vec<String> {
    let show = |v: Val| ops.values.display(v);
    let other = |span: Span, cx| {
        let slice = &text[span.start()..span.end()];
        match ops.json {
            true => with_node(slice, cx, |n| n.canonical()).expect("JSON"),
            false => edn::read_all(slice).expect("EDN")[0].canonical(),
        }
    };
    let mop = |m: &MicroOp| {
        let v = match m.value() {
            MopValue::Val(v) => show(v),
            MopValue::List { start, len } => {
                let items = &ops.elems[start as usize..(start + len) as usize];
                format!("{:?}", items.iter().map(|v| show(*v)).collect::<Vec<_>>())
            }
        };
        format!("[{} {} {v}]", m.kind.name(), show(m.key))
    };
    ops.ops
        .iter()
        .map(|op| {
            let process = match op.process {
                Process::Client(p) => p.to_string(),
                Process::Other(v) => show(v),
                Process::Missing => "-".into(),
            };
            let value = match op.value {
                OpValue::Txn { start, len } => ops.mops[start as usize..(start + len) as usize]
                    .iter()
                    .map(mop)
                    .collect::<Vec<_>>()
                    .join(" "),
                OpValue::Other(span) => other(span, Context::Value),
                v => format!("{v:?}"),
            };
            let extras: Vec<String> = ops.extras[op.extras_range()]
                .iter()
                .map(|&(_, v)| other(v, Context::Op))
                .collect();
            format!(
                "{} {:?} {process} {} {:?} {value} {extras:?}",
                op.index,
                op.ty,
                show(op.f),
                op.time()
            )
        })
        .collect()
}

fn json(text: &str) -> Ops {
    read_ops(text).unwrap_or_else(|e| panic!("{e:?}\n{text}"))
}

fn same_ops(edn_text: &str, json_text: &str) {
    let e = jepsen::read_ops(edn_text).expect("EDN reads");
    let j = json(json_text);
    assert!(j.json && !e.json);
    assert_eq!(fingerprint(&e, edn_text), fingerprint(&j, json_text));
}

fn history(format: Format, text: &str) -> History {
    parse_text(format, "t", text.to_string(), None).unwrap_or_else(|d| panic!("{d}"))
}

fn error(text: &str) -> HistoryError {
    match read_ops(text) {
        Ok(_) => panic!("accepted: {text}"),
        Err(e) => e,
    }
}

/// The error's message and the text its first label underlines.
fn at<'t>(text: &'t str, e: &HistoryError) -> (String, &'t str) {
    let span = e.span().expect("a span");
    (e.kind.to_string(), &text[span.start()..span.end()])
}

#[test]
fn list_append_reads_as_its_edn() {
    same_ops(
        r#"{:type :invoke, :f :txn, :value [[:append 1 2] [:r 1 nil]], :process 0, :time 5, :index 0}
{:type :ok, :f :txn, :value [[:append 1 2] [:r 1 [1 2]] [:r 3]], :process 0, :time 9, :index 1}"#,
        r#"[{"type": "invoke", "f": "txn", "value": [["append", 1, 2], ["r", 1, null]], "process": 0, "time": 5, "index": 0},
{"type": "ok", "f": "txn", "value": [["append", 1, 2], ["r", 1, [1, 2]], ["r", 3]], "process": 0, "time": 9, "index": 1}]"#,
    );
}

#[test]
fn string_keys_and_extras_stay_strings_as_elle_cli_reads_them() {
    same_ops(
        r#"{:type :fail, :f :txn, :value [[:w "x" 2]], :process "nemesis", :error "no", :op-index 1}"#,
        r#"{"type": "fail", "f": "txn", "value": [["w", "x", 2]], "process": "nemesis", "error": "no", "op-index": 1}"#,
    );
}

#[test]
fn register_values_read_as_their_edn() {
    let edn_text = "{:type :invoke, :f :cas, :value [1 [2 3]], :process 1}\n{:type :ok, :f :read, :value nil, :process 2}\n{:type :ok, :f :write, :value 18446744073709551616, :process 2}";
    let json_text = "{\"type\":\"invoke\",\"f\":\"cas\",\"value\":[1,[2,3]],\"process\":1}\n{\"type\":\"ok\",\"f\":\"read\",\"value\":null,\"process\":2}\n{\"type\":\"ok\",\"f\":\"write\",\"value\":18446744073709551616,\"process\":2}";
    same_ops(edn_text, json_text);
}

#[test]
fn a_cas_register_history_builds_as_its_edn() {
    let edn_text = "{:type :invoke, :f :cas, :value [0 [2 3]], :process 1}\n{:type :ok, :f :cas, :value [0 [2 3]], :process 1}\n{:type :invoke, :f :write, :value [0 4], :process 2}\n{:type :info, :f :write, :value [0 4], :process 2}";
    let json_text = r#"[{"type":"invoke","f":"cas","value":[0,[2,3]],"process":1},
{"type":"ok","f":"cas","value":[0,[2,3]],"process":1},
{"type":"invoke","f":"write","value":[0,4],"process":2},
{"type":"info","f":"write","value":[0,4],"process":2}]"#;
    let (e, j) = (
        history(Format::Edn, edn_text),
        history(Format::Json, json_text),
    );
    assert_eq!(j.workload, Workload::CasRegister);
    assert!(j.independent_keys && j.json);
    assert_eq!(e.registers, j.registers);
    assert_eq!(j.registers[0].f, RegisterF::Cas);
}

#[test]
fn escapes_decode_and_keywords_need_a_keyword_name() {
    let ops =
        json(r#"{"type":"ok","f":"a b","process":0,"value":[["w","\u00e9\ud83d\ude00\n\/",1]]}"#);
    assert_eq!(ops.values.display(ops.ops[0].f), "\"a b\"");
    assert_eq!(ops.values.display(ops.mops[0].key), "\"é😀\\n/\"");
}

#[test]
fn an_irregular_value_is_not_a_transaction() {
    let ops = json(r#"{"type":"ok","f":"txn","process":0,"value":[["put",1,2]]}"#);
    assert!(matches!(ops.ops[0].value, OpValue::Other(_)));
    assert!(ops.mops.is_empty());
    let text = r#"{"type":"ok","f":"txn","process":0,"value":[["put",1,2]]}"#;
    let d = parse_text(Format::Json, "t", text.into(), None).expect_err("refused");
    assert_eq!(d.error.kind, ErrorKind::NotATransaction);
}

#[test]
fn framings_array_and_lines_read_alike() {
    let a = r#"{"type":"invoke","process":0,"value":[["r",1,null]]}"#;
    let b = r#"{"type":"ok","process":0,"value":[["r",1,[]]]}"#;
    let lines = format!("\u{feff}{a}\n{b}\n");
    let array = format!("[ {a} ,\n {b} ]\n");
    assert_eq!(
        fingerprint(&json(&lines), &lines),
        fingerprint(&json(&array), &array)
    );
    assert!(json("[]").ops.is_empty());
    assert!(json("  \n").ops.is_empty());
}

#[test]
fn ops_print_as_edn_in_the_files_order() {
    let op = r#"{"type":"ok","f":"txn","value":[["append","x",1],["r","x",[1]]],"process":0,"error":{"why":"no","type":"t"}}"#;
    assert_eq!(
        to_edn(op, Context::Op).as_deref(),
        Some(
            r#"{:type :ok, :f :txn, :value [[:append "x" 1] [:r "x" [1]]], :process 0, :error {:why "no", :type :t}}"#
        )
    );
    assert_eq!(
        to_edn(r#"["r", 1, null]"#, Context::MicroOp).as_deref(),
        Some("[:r 1 nil]")
    );
    assert_eq!(
        to_edn("[\"w\", 1]", Context::Op).as_deref(),
        Some("[\"w\" 1]")
    );
}

/// Closed-predicate's shapes: the predicate read's predicate as a micro-op
/// function, its rows and an `init` op's value as maps whose object keys
/// spell numbers or strings, or `[key, value]` pairs of any keys.
#[test]
fn closed_predicate_values_print_as_their_edn() {
    let cases = [
        (
            r#"["rp", ["mod", 2, 0], {"7": 1, "x": 2, "07": 3, "-1.5": 4}]"#,
            Context::MicroOp,
            r#"[:rp [:mod 2 0] {7 1, "x" 2, "07" 3, -1.5 4}]"#,
        ),
        (
            r#"["rp", "true", [["7", 1], [[1], 2]]]"#,
            Context::MicroOp,
            r#"[:rp :true {"7" 1, [1] 2}]"#,
        ),
        (
            r#"["rp", ["=", "x"], null]"#,
            Context::MicroOp,
            r#"[:rp [:= "x"] nil]"#,
        ),
        (
            r#"["rp", "true", [1, 2]]"#,
            Context::MicroOp,
            "[:rp :true [1 2]]",
        ),
        (
            r#"{"f": "txn", "value": [["insert", "x", 1], ["rp", "true", {"x": 1}]]}"#,
            Context::Op,
            r#"{:f :txn, :value [[:insert "x" 1] [:rp :true {"x" 1}]]}"#,
        ),
        (
            r#"{"value": [["r", 0]], "f": "init"}"#,
            Context::Op,
            r#"{:value {"r" 0}, :f :init}"#,
        ),
        (
            r#"{"f": "read", "value": {"7": 1}}"#,
            Context::Op,
            r#"{:f :read, :value {"7" 1}}"#,
        ),
    ];
    for (json, cx, edn) in cases {
        assert_eq!(to_edn(json, cx).as_deref(), Some(edn), "{json}");
    }
}

/// An `init` op's pairs are rows even where they look like micro-ops.
#[test]
fn init_pairs_are_rows() {
    let h = history(
        Format::Json,
        r#"{"type": "ok", "process": 0, "f": "init", "value": [["r", 0], ["w", 1]]}"#,
    );
    assert_eq!(h.workload, Workload::ClosedPredicate);
    let keys: Vec<String> = (h.mops.iter())
        .map(|m| format!("{:?} {}", m.kind, h.values.display(m.key)))
        .collect();
    assert_eq!(keys, ["Init \"r\"", "Init \"w\""]);
}

#[test]
fn stray_commas_are_pointed_at() {
    for text in [
        r#"[{"type":"ok","process":0},]"#,
        r#"[,{"type":"ok","process":0}]"#,
        r#"{"type":"ok","process":0,}"#,
        r#"{"type":"ok","value":[1,,2]}"#,
        "{\"type\":\"ok\"}\n,{\"type\":\"ok\"}",
    ] {
        let e = error(text);
        assert_eq!(at(text, &e), ("stray comma".into(), ","), "{text}");
        assert_eq!(e.code(), "isocheck::syntax");
        assert!(e.help.starts_with("remove this comma"), "{text}");
    }
}

#[test]
fn syntax_errors_have_a_place_and_a_help() {
    let cases: &[(&str, &str, &str)] = &[
        (r#"{"type":"ok" "process":0}"#, "expected `,` or `}`, found `\"`", "\""),
        (r#"[{"type":"ok"} {"type":"ok"}]"#, "expected `,` or `]`, found `{`", "{"),
        (r#"{type:"ok"}"#, "expected a key in double quotes, found `t`", "t"),
        (r#"{"type" "ok"}"#, "expected `:` after the key, found `\"`", "\""),
        (r#"{"type":'ok'}"#, "expected a JSON value (an object, array, string, number, true, false or null), found `'`", "'"),
        (r#"{"type":"ok","value":nul}"#, "not a JSON value", "nul"),
        (r#"{"type":"ok","value":012}"#, "not a JSON number", "012"),
        (r#"{"type":"ok","value":1.}"#, "not a JSON number", "1."),
        (r#"{"type":"ok","value":"a\qb"}"#, "invalid escape", "\\q"),
        (r#"{"type":"ok","value":"\ud800x"}"#, "invalid \\u escape", "\\ud800"),
        // Cut short by the end of the input: underlined up to it.
        (r#"{"type":"ok","value":"\u9"#, "invalid \\u escape", "\\u9"),
        ("{\"type\":\"ok\",\"value\":\"a\tb\"}", "control character 0x09 in a string", "\t"),
        (r#"{"type":"ok","value":"abc}"#, "unterminated string", "\""),
        (r#"[{"type":"ok"}"#, "the input ends inside this array", "["),
        (r#"{"type":"ok","value":[1"#, "the input ends inside this array", "["),
        (r#"[{"type":"ok"}] x"#, "nothing may follow the array of ops", "x"),
    ];
    for &(text, msg, underlined) in cases {
        let e = error(text);
        assert_eq!(at(text, &e), (msg.to_string(), underlined), "{text}");
        assert!(!e.help.is_empty(), "{text}");
    }
}

#[test]
fn op_errors_match_edns() {
    /// The op, what its error must be, and the text it underlines.
    type Case = (&'static str, fn(&ErrorKind) -> bool, &'static str);
    let cases: &[Case] = &[
        (
            r#"{"type":"done","process":0}"#,
            |k| matches!(k, ErrorKind::BadField { field: "type", .. }),
            "\"done\"",
        ),
        (
            r#"{"type":"ok","index":"3"}"#,
            |k| matches!(k, ErrorKind::BadField { field: "index", .. }),
            "\"3\"",
        ),
        (
            r#"{"type":"ok","time":1.5}"#,
            |k| matches!(k, ErrorKind::BadField { field: "time", .. }),
            "1.5",
        ),
        (
            r#"{"type":"ok","process":99999999999999999999}"#,
            |k| {
                matches!(
                    k,
                    ErrorKind::BadField {
                        field: "process",
                        ..
                    }
                )
            },
            "99999999999999999999",
        ),
        (r#"{"process":0}"#, |k| *k == ErrorKind::MissingType, "{"),
        (r#"{"valid?":true}"#, |k| *k == ErrorKind::NotAHistory, "{"),
        (
            r#"{"type":"ok","type":"ok"}"#,
            |k| matches!(k, ErrorKind::DuplicateField(f) if f == "type"),
            "\"type\"",
        ),
        (
            r#"{"type":"ok","e":1,"e":2}"#,
            |k| matches!(k, ErrorKind::DuplicateField(f) if f == "e"),
            "\"e\"",
        ),
        ("[1]", |k| matches!(k, ErrorKind::NotAnOp(_)), "1"),
    ];
    for (text, kind, underlined) in cases {
        let e = error(text);
        assert!(kind(&e.kind), "{text}: {:?}", e.kind);
        assert_eq!(at(text, &e).1, *underlined, "{text}");
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let text = format!(
        "{{\"type\":\"ok\",\"value\":{}{}}}",
        "[".repeat(5000),
        "]".repeat(5000)
    );
    let e = error(&text);
    assert_eq!(
        e.kind,
        ErrorKind::Json("values nest deeper than 200 levels".into())
    );
}

#[test]
fn detection_tells_json_from_edn_by_content() {
    for json in [
        r#"{"type":"ok"}"#,
        " [ {\n \"type\": 1}]",
        "[{\"",
        "{ \"a\"",
    ] {
        assert!(looks_like_json(json.as_bytes()), "{json}");
    }
    for edn in [
        "{:type :ok}",
        "[{:type :ok}]",
        "[]",
        "",
        "[[1]]",
        "{}",
        "r(1,2,3,4)",
    ] {
        assert!(!looks_like_json(edn.as_bytes()), "{edn}");
    }
    let detect = |name: &str, ext, bytes: &str| super::super::detect(name, ext, bytes.as_bytes());
    assert_eq!(detect("h", Some("json"), "{:type :ok}"), Ok(Format::Json));
    assert_eq!(detect("h", Some("jsonl"), ""), Ok(Format::Json));
    assert_eq!(
        detect("h", None, "\u{feff}[{\"type\":\"ok\"}]"),
        Ok(Format::Json)
    );
    assert_eq!(detect("h", Some("edn"), "{\"type\":1}"), Ok(Format::Edn));
}

/// A value written both ways.
#[derive(Clone, Debug)]
enum V {
    Int(i64),
    Str(String),
    Nil,
    List(Vec<V>),
}

impl V {
    fn edn(&self, out: &mut String) {
        match self {
            V::Int(n) => out.push_str(&n.to_string()),
            V::Str(s) => edn::write_string(s, out),
            V::Nil => out.push_str("nil"),
            V::List(items) => {
                out.push('[');
                for (i, x) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(' ');
                    }
                    x.edn(out);
                }
                out.push(']');
            }
        }
    }

    /// As an op's value: elle-cli's rule makes the first string of each
    /// element a keyword when the first element is a list starting with a
    /// string.
    fn edn_value(&self, out: &mut String) {
        let V::List(items) = self else {
            return self.edn(out);
        };
        let rule =
            matches!(items.first(), Some(V::List(x)) if matches!(x.first(), Some(V::Str(_))));
        if !rule {
            return self.edn(out);
        }
        out.push('[');
        for x in items {
            match x {
                V::List(parts) => {
                    out.push('[');
                    for (i, p) in parts.iter().enumerate() {
                        if i > 0 {
                            out.push(' ');
                        }
                        match p {
                            V::Str(s) if i == 0 && valid_symbol(s) => {
                                out.push_str(&format!(":{s}"))
                            }
                            p => p.edn(out),
                        }
                    }
                    out.push(']');
                }
                x => x.edn(out),
            }
            out.push(' ');
        }
        out.push(']');
    }

    fn json(&self) -> serde_json::Value {
        match self {
            V::Int(n) => (*n).into(),
            V::Str(s) => s.as_str().into(),
            V::Nil => serde_json::Value::Null,
            V::List(items) => items.iter().map(V::json).collect(),
        }
    }
}

fn scalar() -> impl Strategy<Value = V> {
    prop_oneof![
        (0i64..20).prop_map(V::Int),
        any::<i64>().prop_map(V::Int),
        "[a-z\"\\\\é😀\n\t ]{0,4}".prop_map(V::Str),
        Just(V::Nil),
    ]
}

fn value() -> impl Strategy<Value = V> {
    scalar().prop_recursive(2, 8, 4, |inner| {
        prop::collection::vec(inner, 0..4).prop_map(V::List)
    })
}

/// A micro-op: its function and its parts after it.
fn mop() -> impl Strategy<Value = (&'static str, Vec<V>)> {
    let f = prop_oneof![Just("r"), Just("append"), Just("w")];
    (f, prop::collection::vec(value(), 1..3))
}

/// An op: its entries, each a key and a value, in order; a micro-op list
/// under `value` when `txn` is given.
#[derive(Clone, Debug)]
struct GenOp {
    ty: &'static str,
    f: &'static str,
    process: V,
    txn: Option<Vec<(&'static str, Vec<V>)>>,
    value: V,
    extra: Option<V>,
}

fn op() -> impl Strategy<Value = GenOp> {
    let ty = prop_oneof![Just("invoke"), Just("ok"), Just("fail"), Just("info")];
    let f = prop_oneof![Just("txn"), Just("read"), Just("cas")];
    let process = prop_oneof![(0i64..4).prop_map(V::Int), Just(V::Str("nemesis".into()))];
    let txn = prop::option::of(prop::collection::vec(mop(), 0..4));
    let extra = prop::option::of(value());
    (ty, f, process, txn, value(), extra).prop_map(|(ty, f, process, txn, value, extra)| GenOp {
        ty,
        f,
        process,
        txn,
        value,
        extra,
    })
}

fn write_edn(ops: &[GenOp]) -> String {
    let mut out = String::new();
    for op in ops {
        out.push_str(&format!("{{:type :{}, :f :{}, :process ", op.ty, op.f));
        op.process.edn(&mut out);
        out.push_str(", :value ");
        match &op.txn {
            Some(mops) => {
                out.push('[');
                for (f, parts) in mops {
                    out.push_str(&format!("[:{f}"));
                    for p in parts {
                        out.push(' ');
                        p.edn(&mut out);
                    }
                    out.push(']');
                }
                out.push(']');
            }
            None => op.value.edn_value(&mut out),
        }
        if let Some(x) = &op.extra {
            out.push_str(", :error ");
            x.edn(&mut out);
        }
        out.push_str("}\n");
    }
    out
}

fn write_json(ops: &[GenOp], lines: bool) -> String {
    let objects: Vec<String> = ops
        .iter()
        .map(|op| {
            let value = match &op.txn {
                Some(mops) => mops
                    .iter()
                    .map(|(f, parts)| {
                        let mut a = vec![serde_json::Value::from(*f)];
                        a.extend(parts.iter().map(V::json));
                        serde_json::Value::Array(a)
                    })
                    .collect(),
                None => op.value.json(),
            };
            let mut o = serde_json::Map::new();
            o.insert("type".into(), op.ty.into());
            o.insert("f".into(), op.f.into());
            o.insert("process".into(), op.process.json());
            o.insert("value".into(), value);
            if let Some(x) = &op.extra {
                o.insert("error".into(), x.json());
            }
            serde_json::Value::Object(o).to_string()
        })
        .collect();
    match lines {
        true => objects.join("\n"),
        false => format!("[{}]", objects.join(",\n")),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// The same ops written as EDN and as JSON (either framing) read alike.
    #[test]
    fn edn_and_json_read_alike(ops in prop::collection::vec(op(), 0..6), lines: bool) {
        let edn_text = write_edn(&ops);
        let json_text = write_json(&ops, lines);
        let e = jepsen::read_ops(&edn_text).expect("EDN reads");
        let j = read_ops(&json_text).expect("JSON reads");
        prop_assert_eq!(fingerprint(&e, &edn_text), fingerprint(&j, &json_text));
    }
}

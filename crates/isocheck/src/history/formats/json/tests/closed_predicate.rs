//! Random closed-predicate histories written as EDN and as JSON (maps as
//! objects where their keys allow it, else as `[key, value]` pairs) read
//! to the same history, or are refused alike.

use crate::history::{parse_text, Format, History, MopValue};
use proptest::prelude::*;

/// A key: an integer, or a string (`"7"` only pairs can say in JSON).
#[derive(Clone, Debug)]
enum Key {
    Int(i64),
    Str(&'static str),
}

impl Key {
    /// The key as EDN and as a JSON value alike: `7`, `"a"`.
    fn text(&self) -> String {
        match self {
            Key::Int(n) => n.to_string(),
            Key::Str(s) => format!("\"{s}\""),
        }
    }

    /// The key as a JSON object's key, when one says it.
    fn object_key(&self) -> Option<String> {
        match self {
            Key::Int(n) => Some(format!("\"{n}\"")),
            Key::Str(s) if s.parse::<f64>().is_err() => Some(format!("\"{s}\"")),
            Key::Str(_) => None,
        }
    }
}

#[derive(Clone, Debug)]
enum Pred {
    True,
    Eq(i64),
    Mod(i64, i64),
}

#[derive(Clone, Debug)]
enum Mop {
    R(Key, Option<i64>),
    W(Key, i64),
    Insert(Key, i64),
    Delete(Key),
    Rp(Pred, Option<Vec<(Key, i64)>>),
}

#[derive(Clone, Debug)]
struct Hist {
    init: Vec<(Key, i64)>,
    txns: Vec<(i64, Vec<Mop>)>,
    /// Whether JSON writes every map as pairs.
    pairs: bool,
}

fn key() -> impl Strategy<Value = Key> {
    prop_oneof![
        (0i64..4).prop_map(Key::Int),
        prop_oneof![Just("a"), Just("b"), Just("7")].prop_map(Key::Str),
    ]
}

fn rows() -> impl Strategy<Value = Vec<(Key, i64)>> {
    prop::collection::vec((key(), 0i64..12), 0..3)
}

fn mop() -> impl Strategy<Value = Mop> {
    let pred = prop_oneof![
        Just(Pred::True),
        (0i64..12).prop_map(Pred::Eq),
        (1i64..3, 0i64..2).prop_map(|(m, r)| Pred::Mod(m, r)),
    ];
    prop_oneof![
        (key(), prop::option::of(0i64..12)).prop_map(|(k, v)| Mop::R(k, v)),
        (key(), 0i64..12).prop_map(|(k, v)| Mop::W(k, v)),
        (key(), 0i64..12).prop_map(|(k, v)| Mop::Insert(k, v)),
        key().prop_map(Mop::Delete),
        (pred, prop::option::of(rows())).prop_map(|(p, r)| Mop::Rp(p, r)),
    ]
}

fn hist() -> impl Strategy<Value = Hist> {
    let txn = (0i64..3, prop::collection::vec(mop(), 1..4));
    (rows(), prop::collection::vec(txn, 0..5), any::<bool>()).prop_map(|(init, txns, pairs)| Hist {
        init,
        txns,
        pairs,
    })
}

/// How a history is written: EDN, or JSON with its maps as objects where
/// their keys allow it, or always as pairs.
#[derive(Clone, Copy)]
enum Syntax {
    Edn,
    Json { pairs: bool },
}

impl Syntax {
    /// A keyword: `:ok`, `"ok"`.
    fn word(self, name: &str) -> String {
        match self {
            Syntax::Edn => format!(":{name}"),
            Syntax::Json { .. } => format!("\"{name}\""),
        }
    }

    fn nil(self) -> String {
        match self {
            Syntax::Edn => "nil".to_string(),
            Syntax::Json { .. } => "null".to_string(),
        }
    }

    fn vector(self, items: &[String]) -> String {
        match self {
            Syntax::Edn => format!("[{}]", items.join(" ")),
            Syntax::Json { .. } => format!("[{}]", items.join(", ")),
        }
    }

    /// Rows as a map: JSON writes pairs where asked to or where an
    /// object cannot say a key.
    fn map(self, rows: &[(Key, i64)]) -> String {
        let keys: Option<Vec<String>> = match self {
            Syntax::Edn => Some(rows.iter().map(|(k, _)| k.text()).collect()),
            Syntax::Json { pairs: false } => rows.iter().map(|(k, _)| k.object_key()).collect(),
            Syntax::Json { pairs: true } => None,
        };
        let Some(keys) = keys else {
            let pairs: Vec<String> = (rows.iter())
                .map(|(k, v)| self.vector(&[k.text(), v.to_string()]))
                .collect();
            return self.vector(&pairs);
        };
        let entries: Vec<String> = (keys.iter().zip(rows))
            .map(|(k, (_, v))| self.entry(k, &v.to_string()))
            .collect();
        format!("{{{}}}", entries.join(", "))
    }

    /// A map's entry: `k v`, `k: v`.
    fn entry(self, key: &str, value: &str) -> String {
        match self {
            Syntax::Edn => format!("{key} {value}"),
            Syntax::Json { .. } => format!("{key}: {value}"),
        }
    }

    fn mop(self, m: &Mop) -> String {
        let opt = |v: &Option<i64>| v.map_or(self.nil(), |v| v.to_string());
        let (f, args) = match m {
            Mop::R(k, v) => ("r", vec![k.text(), opt(v)]),
            Mop::W(k, v) => ("w", vec![k.text(), v.to_string()]),
            Mop::Insert(k, v) => ("insert", vec![k.text(), v.to_string()]),
            Mop::Delete(k) => ("delete", vec![k.text()]),
            Mop::Rp(p, rows) => {
                let rows = rows.as_ref().map_or(self.nil(), |r| self.map(r));
                ("rp", vec![self.predicate(p), rows])
            }
        };
        self.vector(&[vec![self.word(f)], args].concat())
    }

    fn predicate(self, p: &Pred) -> String {
        match p {
            Pred::True => self.word("true"),
            Pred::Eq(v) => self.vector(&[self.word("="), v.to_string()]),
            Pred::Mod(m, r) => self.vector(&[self.word("mod"), m.to_string(), r.to_string()]),
        }
    }

    /// An op map of `ok` type.
    fn op(self, process: i64, f: &str, value: String) -> String {
        let fields = [
            ("type", self.word("ok")),
            ("process", process.to_string()),
            ("f", self.word(f)),
            ("value", value),
        ];
        let fields: Vec<String> = (fields.iter())
            .map(|(name, v)| self.entry(&self.word(name), v))
            .collect();
        format!("{{{}}}\n", fields.join(", "))
    }

    fn history(self, h: &Hist) -> String {
        let mut out = self.op(0, "init", self.map(&h.init));
        for (p, mops) in &h.txns {
            let mops: Vec<String> = mops.iter().map(|m| self.mop(m)).collect();
            out.push_str(&self.op(*p, "txn", self.vector(&mops)));
        }
        out
    }
}

/// The history's workload and micro-ops, values as canonical EDN; or what
/// refused it.
fn read(format: Format, text: &str) -> Result<Vec<String>, String> {
    let h: History =
        parse_text(format, "t", text.to_string(), None).map_err(|d| d.error.kind.to_string())?;
    let mut out = vec![format!("{:?} {} ops", h.workload, h.ops.len())];
    for m in &h.mops {
        let value = match m.value() {
            MopValue::Val(v) => h.values.display(v),
            MopValue::List { start, len } => {
                let items = h.list(start, len).iter().map(|v| h.values.display(*v));
                format!("{:?}", items.collect::<Vec<_>>())
            }
        };
        out.push(format!("{:?} {} {value}", m.kind, h.values.display(m.key)));
    }
    Ok(out)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn closed_predicate_edn_and_json_read_alike(h in hist()) {
        let edn = Syntax::Edn.history(&h);
        let json = Syntax::Json { pairs: h.pairs }.history(&h);
        prop_assert_eq!(read(Format::Edn, &edn), read(Format::Json, &json), "{}\n{}", edn, json);
    }
}

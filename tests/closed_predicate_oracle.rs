//! Closed-predicate histories against a brute-force oracle
//! (`oracle/closed_predicate.rs`): small concurrent histories of Elle's
//! generator's shape (each key mutated once: inserted, overwritten or
//! deleted), run on a simulated database where each transaction reads
//! either the state at its commit (serially) or the snapshot it was
//! invoked on (phantoms, write skew), are checked with Elle's default
//! (strict-serializable). isocheck finds the history invalid exactly when
//! the oracle finds no order that explains it; and a history whose every
//! transaction read at its commit is valid for both.

#[path = "oracle/closed_predicate.rs"]
mod oracle;

use isocheck::history::{self, Format};
use isocheck::{CheckOptions, Validity};
use oracle::{Mop, Pred, Txn};
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::fmt::Write;

/// A small deterministic random source (xorshift), seeded by proptest.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

const KEYS: i64 = 9;
const PROCESSES: u64 = 3;

/// What a transaction does, before it runs.
#[derive(Clone)]
enum Plan {
    Read(i64),
    PredRead(Pred),
    Mutate(i64),
}

struct Generated {
    init: BTreeMap<i64, i64>,
    txns: Vec<Txn>,
    edn: String,
}

fn pred(r: &mut Rng) -> Pred {
    match r.below(3) {
        0 => Pred::Eq(r.below(2) as i64),
        1 => Pred::Mod(2, r.below(2) as i64),
        _ => Pred::True,
    }
}

fn plans(r: &mut Rng, count: usize) -> Vec<Vec<Plan>> {
    let mut mutable: Vec<i64> = (0..KEYS).collect();
    for i in (1..mutable.len()).rev() {
        mutable.swap(i, r.below(i as u64 + 1) as usize);
    }
    (0..count)
        .map(|_| {
            (0..1 + r.below(4))
                .filter_map(|_| match r.below(3) {
                    0 => Some(Plan::Read(r.below(KEYS as u64) as i64)),
                    1 => Some(Plan::PredRead(pred(r))),
                    _ => mutable.pop().map(Plan::Mutate),
                })
                .collect()
        })
        .collect()
}

/// Runs the plans on a simulated database: writes apply at completion;
/// reads see the transaction's own writes over the state at completion,
/// or (`stale`) the snapshot taken at invocation.
fn generate(seed: u64, serial: bool) -> Generated {
    let mut r = Rng(seed | 1);
    let init: BTreeMap<i64, i64> = (0..KEYS)
        .filter(|k| k % 3 != 0)
        .map(|k| (k, r.below(2) as i64))
        .collect();
    let count = 4 + r.below(5) as usize;
    let plans = plans(&mut r, count);
    let mut state = init.clone();
    let mut edn = String::new();
    let init_text: Vec<String> = init.iter().map(|(k, v)| format!("{k} {v}")).collect();
    for ty in ["invoke", "ok"] {
        let _ = writeln!(
            edn,
            "{{:type :{ty}, :process 9, :f :init, :value {{{}}}}}",
            init_text.join(", ")
        );
    }
    let mut next_value = 2;
    let mut open: BTreeMap<u64, (usize, BTreeMap<i64, i64>, usize)> = BTreeMap::new();
    let mut queue: Vec<usize> = (0..plans.len()).collect();
    queue.reverse();
    let mut txns: Vec<Option<Txn>> = vec![None; plans.len()];
    let mut position = 2;
    while !queue.is_empty() || !open.is_empty() {
        let p = r.below(PROCESSES);
        match open.remove(&p) {
            Some((i, snapshot, invoked)) => {
                let stale = !serial && r.below(2) == 0;
                let base = if stale { snapshot } else { state.clone() };
                let mops = run(&plans[i], base, &mut state, &mut next_value);
                let _ = writeln!(edn, "{}", op_text("ok", p, &mops, true));
                txns[i] = Some(Txn {
                    mops,
                    invoked,
                    completed: position,
                });
            }
            None => {
                let Some(i) = queue.pop() else { continue };
                let _ = writeln!(edn, "{}", invocation_text(p));
                open.insert(p, (i, state.clone(), position));
            }
        }
        position += 1;
    }
    Generated {
        init,
        txns: txns.into_iter().flatten().collect(),
        edn,
    }
}

/// Executes one transaction: its reads on `base` under its own writes, its
/// writes on `state`.
fn run(
    plan: &[Plan],
    mut base: BTreeMap<i64, i64>,
    state: &mut BTreeMap<i64, i64>,
    next_value: &mut i64,
) -> Vec<Mop> {
    let mut mops = Vec::new();
    for p in plan {
        let m = match *p {
            Plan::Read(k) => Mop::Read(k, base.get(&k).copied()),
            Plan::PredRead(pred) => {
                let seen = (base.iter())
                    .filter(|(_, v)| pred.matches(**v))
                    .map(|(k, v)| (*k, *v));
                Mop::PredRead(pred, seen.collect())
            }
            // Elle's key types: 0 inserted, 1 overwritten, 2 deleted.
            Plan::Mutate(k) => match k % 3 {
                0 => {
                    *next_value += 1;
                    Mop::Insert(k, *next_value)
                }
                1 => {
                    *next_value += 1;
                    Mop::Write(k, *next_value)
                }
                _ => Mop::Delete(k),
            },
        };
        match m {
            Mop::Insert(k, v) | Mop::Write(k, v) => {
                base.insert(k, v);
                state.insert(k, v);
            }
            Mop::Delete(k) => {
                base.remove(&k);
                state.remove(&k);
            }
            _ => {}
        }
        mops.push(m);
    }
    mops
}

fn pred_text(p: Pred) -> String {
    match p {
        Pred::True => ":true".into(),
        Pred::Eq(x) => format!("[:= {x}]"),
        Pred::Mod(m, r) => format!("[:mod {m} {r}]"),
    }
}

fn mop_text(m: &Mop, done: bool) -> String {
    let nil = |v: Option<i64>| v.map_or("nil".to_string(), |v| v.to_string());
    match m {
        Mop::Read(k, v) if done => format!("[:r {k} {}]", nil(*v)),
        Mop::Read(k, _) => format!("[:r {k} nil]"),
        Mop::PredRead(p, seen) if done => {
            let kv: Vec<String> = seen.iter().map(|(k, v)| format!("{k} {v}")).collect();
            format!("[:rp {} {{{}}}]", pred_text(*p), kv.join(", "))
        }
        Mop::PredRead(p, _) => format!("[:rp {} nil]", pred_text(*p)),
        Mop::Insert(k, v) => format!("[:insert {k} {v}]"),
        Mop::Write(k, v) => format!("[:w {k} {v}]"),
        Mop::Delete(k) => format!("[:delete {k}]"),
    }
}

fn op_text(ty: &str, p: u64, mops: &[Mop], done: bool) -> String {
    let mops: Vec<String> = mops.iter().map(|m| mop_text(m, done)).collect();
    format!(
        "{{:type :{ty}, :process {p}, :f :txn, :value [{}]}}",
        mops.join(" ")
    )
}

/// An invocation. Jepsen records what the completion did, which the
/// check judges by; the invocation's value is left out.
fn invocation_text(p: u64) -> String {
    format!("{{:type :invoke, :process {p}, :f :txn, :value nil}}")
}

fn isocheck_validity(edn: &str) -> Validity {
    let h = history::parse_text(Format::Edn, "generated", edn.to_string(), None)
        .unwrap_or_else(|d| panic!("{d}\n{edn}"));
    let o = isocheck::check(&h, &CheckOptions::default()).expect("default options");
    o.validity()
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 300,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn invalid_exactly_when_no_order_explains_it(seed in any::<u64>()) {
        let g = generate(seed, false);
        let invalid = isocheck_validity(&g.edn) == Validity::False;
        prop_assert_eq!(invalid, !oracle::serializable(&g.init, &g.txns), "{}", g.edn);
    }

    #[test]
    fn serial_reads_are_valid(seed in any::<u64>()) {
        let g = generate(seed, true);
        prop_assert!(oracle::serializable(&g.init, &g.txns), "oracle: {}", g.edn);
        prop_assert_eq!(isocheck_validity(&g.edn), Validity::True, "{}", g.edn);
    }
}

/// The generator makes invalid histories too, so the first property is
/// not vacuous. A value a predicate read returned and a later write
/// changed without changing whether the predicate matches is an item
/// anti-dependency (Adya's predicate read is followed by item reads of what
/// matched), which Elle's inference leaves out: with it, isocheck and the
/// oracle agree on every one of these histories (without it, the oracle
/// alone found 14 of them invalid).
#[test]
fn generated_histories_are_often_invalid() {
    let (mut both, mut only_oracle, mut only_isocheck) = (0, 0, 0);
    for s in 1..300u64 {
        let g = generate(s, false);
        let iso = isocheck_validity(&g.edn) == Validity::False;
        let orc = !oracle::serializable(&g.init, &g.txns);
        both += usize::from(iso && orc);
        only_oracle += usize::from(!iso && orc);
        only_isocheck += usize::from(iso && !orc);
    }
    println!("of 299: both invalid {both}, only the oracle {only_oracle}");
    assert_eq!((only_isocheck, only_oracle), (0, 0));
    assert!(both > 10, "{both} of 299 invalid");
}

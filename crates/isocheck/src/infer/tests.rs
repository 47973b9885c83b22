//! Inference on hand-written histories: Elle's test cases (reference notes
//! §5.2, §5.3 and Elle's unit tests), with exact edges and anomaly entries.
//!
//! Transactions are named `T<i>` by their index in `History::txns`; micro-op
//! witnesses are printed as `@a/b`, the positions of the micro-ops in the
//! source and target transactions (Elle's `:a-mop-index` / `:b-mop-index`).

use super::anomaly::{Anomaly, Expected};
use super::*;
use crate::history::{parse_edn, History, MopValue, Status, TxnId, Val};

fn load(text: &str) -> History {
    parse_edn("t.edn", text).unwrap_or_else(|d| panic!("{d}"))
}

fn run_with(text: &str, opts: InferOptions) -> (History, Inference) {
    let h = load(text);
    let inf = infer(&h, &opts);
    invariants(&h, &inf, &opts);
    (h, inf)
}

fn run(text: &str) -> (History, Inference) {
    run_with(text, InferOptions::default())
}

#[test]
fn a_dependency_is_32_bytes() {
    // There are tens of millions on a large history.
    assert_eq!(std::mem::size_of::<Version>(), 4);
    assert_eq!(std::mem::size_of::<Dep>(), 32);
}

/// What every inference must satisfy.
fn invariants(h: &History, inf: &Inference, opts: &InferOptions) {
    assert_eq!(inf.in_graph.len(), h.txns.len());
    let mut seen = std::collections::HashSet::new();
    for d in &inf.deps {
        assert_ne!(d.from, d.to, "self edge {d:?}");
        assert!(seen.insert((d.from, d.to, d.rel)), "duplicate {d:?}");
        assert!(
            inf.in_graph[d.from as usize] && inf.in_graph[d.to as usize],
            "{d:?}"
        );
        for (t, m) in [(d.from, d.a_mop), (d.to, d.b_mop)] {
            assert!(
                h.txns[t as usize].mops.contains(&m),
                "witness outside txn: {d:?}"
            );
        }
    }
    // Without rw edges wanted: the same edges but those.
    let (without_rw, _) = infer_deferred(h, opts, false, false, Edges::WithoutRw, false);
    let rest: Vec<&Dep> = inf.deps.iter().filter(|d| d.rel != Rel::Rw).collect();
    assert_eq!(without_rw.deps.iter().collect::<Vec<_>>(), rest);
    // Deterministic.
    let again = infer(h, opts);
    assert_eq!(again.anomalies, inf.anomalies);
    assert_eq!(again.in_graph, inf.in_graph);
    assert_eq!(choices_by_read(inf), ambiguous_by_read(inf));
}

/// Per read of several possible writers, those its `Kind::ReadFrom`
/// constraints choose among, sorted.
fn choices_by_read(inf: &Inference) -> Vec<(u32, Vec<TxnId>)> {
    let mut by_read: std::collections::BTreeMap<u32, Vec<TxnId>> = Default::default();
    for c in inf.constraints.iter() {
        if let Some(wr) = c.to_constraint().read_from() {
            by_read.entry(wr.b_mop).or_default().push(c.a);
        }
    }
    for writers in by_read.values_mut() {
        writers.sort_unstable();
    }
    by_read.into_iter().collect()
}

/// [`Inference::ambiguous`]'s reads and writers, as [`choices_by_read`].
fn ambiguous_by_read(inf: &Inference) -> Vec<(u32, Vec<TxnId>)> {
    let mut all: Vec<(u32, Vec<TxnId>)> = (inf.ambiguous.iter())
        .map(|a| (a.mop, a.writers.clone()))
        .collect();
    all.sort_unstable();
    for (_, writers) in &mut all {
        writers.sort_unstable();
    }
    all
}

fn val(h: &History, v: Val) -> String {
    h.values.display(v)
}

fn version(h: &History, v: Version) -> String {
    match v {
        Version::Init => "init".into(),
        Version::Val(v) => val(h, v),
    }
}

fn list(h: &History, l: &[Val]) -> String {
    let items: Vec<String> = l.iter().map(|&v| val(h, v)).collect();
    format!("[{}]", items.join(" "))
}

/// The value of a micro-op as written.
fn mop_value(h: &History, i: u32) -> String {
    match h.mops[i as usize].value() {
        MopValue::Val(v) => val(h, v),
        MopValue::List { start, len } => list(h, h.list(start, len)),
    }
}

fn mop(h: &History, i: u32) -> String {
    let m = &h.mops[i as usize];
    format!("[:{} {} {}]", m.kind.name(), val(h, m.key), mop_value(h, i))
}

fn local(h: &History, t: TxnId, i: u32) -> u32 {
    i - h.txns[t as usize].mops.start
}

/// Every dependency as `T0 ww T1 :x 1->2 @0/0` (`T0 wr T1 :x 1 @0/0`), sorted.
fn edges(h: &History, inf: &Inference) -> Vec<String> {
    let mut out: Vec<String> = inf
        .deps
        .iter()
        .map(|d| {
            let at = format!("@{}/{}", local(h, d.from, d.a_mop), local(h, d.to, d.b_mop));
            let key = val(h, d.key);
            match d.rel {
                Rel::Wr => format!(
                    "T{} wr T{} {key} {} {at}",
                    d.from,
                    d.to,
                    version(h, d.value)
                ),
                r => format!(
                    "T{} {} T{} {key} {}->{} {at}",
                    d.from,
                    r.name(),
                    d.to,
                    version(h, d.value),
                    version(h, d.value2)
                ),
            }
        })
        .collect();
    out.sort();
    out
}

fn txns(ts: &[TxnId]) -> String {
    let names: Vec<String> = ts.iter().map(|t| format!("T{t}")).collect();
    names.join(" ")
}

/// Every anomaly in Elle's terms, in order.
fn anomalies(h: &History, inf: &Inference) -> Vec<String> {
    inf.anomalies
        .iter()
        .map(|a| {
            let name = a.name();
            match a {
                Anomaly::G1a {
                    reader,
                    mop: m,
                    writer,
                    element,
                }
                | Anomaly::G1b {
                    reader,
                    mop: m,
                    writer,
                    element,
                } => {
                    let e = element.map(|e| format!(" element {}", val(h, e)));
                    format!(
                        "{name} T{reader} {} writer T{writer}{}",
                        mop(h, *m),
                        e.unwrap_or_default()
                    )
                }
                Anomaly::Internal {
                    txn,
                    mop: m,
                    expected,
                }
                | Anomaly::OwnWriteUnseen {
                    txn,
                    mop: m,
                    expected,
                } => {
                    let e = match expected {
                        Expected::List {
                            prefix_known: true,
                            elems,
                        } => list(h, elems),
                        Expected::List {
                            prefix_known: false,
                            elems,
                        } => list(h, elems).replacen('[', "[... ", 1),
                        Expected::Value(v) => val(h, *v),
                    };
                    format!("{name} T{txn} {} expected {e}", mop(h, *m))
                }
                Anomaly::FutureRead {
                    txn,
                    mop: m,
                    element,
                } => {
                    format!("{name} T{txn} {} element {}", mop(h, *m), val(h, *element))
                }
                Anomaly::DirtyUpdate {
                    key,
                    values,
                    txns: ts,
                } => format!(
                    "{name} {} {} [T{} ... T{}]",
                    val(h, *key),
                    list(h, values),
                    ts[0],
                    ts[ts.len() - 1]
                ),
                Anomaly::DuplicateElements {
                    txn,
                    mop: m,
                    duplicates,
                } => {
                    let d: Vec<String> = duplicates
                        .iter()
                        .map(|(e, n)| format!("{} {n}", val(h, *e)))
                        .collect();
                    format!("{name} T{txn} {} {{{}}}", mop(h, *m), d.join(", "))
                }
                Anomaly::IncompatibleOrder { key, reads } => format!(
                    "{name} {} [{} {}]",
                    val(h, *key),
                    mop_value(h, reads[0]),
                    mop_value(h, reads[1])
                ),
                Anomaly::LostUpdate {
                    key,
                    read_mop,
                    txns: ts,
                } => format!(
                    "{name} {} {} [{}]",
                    val(h, *key),
                    mop_value(h, *read_mop),
                    txns(ts)
                ),
                Anomaly::CyclicVersions { key, scc, sources } => {
                    let vs: Vec<String> = scc.iter().map(|&v| val(h, v)).collect();
                    let ss: Vec<String> = sources.iter().map(|s| format!(":{s}")).collect();
                    format!(
                        "{name} {} #{{{}}} [{}]",
                        val(h, *key),
                        vs.join(" "),
                        ss.join(" ")
                    )
                }
                Anomaly::GarbageRead { txn, mop: m } => format!("{name} T{txn} {}", mop(h, *m)),
                Anomaly::PredicateReadMiss { txn, mop: m, .. } => {
                    format!("{name} T{txn} {}", mop(h, *m))
                }
                // The timestamp check's, never inference's.
                Anomaly::TimestampInverted { .. }
                | Anomaly::TimestampRead { .. }
                | Anomaly::TimestampLostUpdate { .. } => format!("{name} (not inference's)"),
            }
        })
        .collect()
}

/// One `:ok` completion per transaction, process `p`.
fn oks(txns: &[(u32, &str)]) -> String {
    txns.iter()
        .map(|(p, v)| format!("{{:type :ok, :process {p}, :f :txn, :value {v}}}\n"))
        .collect()
}

/// An invocation (reads set to nil) followed by its completion.
fn pair(p: u32, ty: &str, value: &str) -> String {
    let invoke = nil_reads(value);
    format!(
        "{{:type :invoke, :process {p}, :f :txn, :value {invoke}}}\n{{:type :{ty}, :process {p}, :f :txn, :value {value}}}\n"
    )
}

fn invoke(p: u32, value: &str) -> String {
    format!(
        "{{:type :invoke, :process {p}, :f :txn, :value {}}}\n",
        nil_reads(value)
    )
}

fn complete(p: u32, ty: &str, value: &str) -> String {
    format!("{{:type :{ty}, :process {p}, :f :txn, :value {value}}}\n")
}

/// A transaction with its reads' values replaced by nil.
fn nil_reads(value: &str) -> String {
    let mut out = String::new();
    for mop in value
        .trim_start_matches('[')
        .trim_end_matches(']')
        .split("] [")
    {
        let mop = mop.trim_matches(|c| c == '[' || c == ']');
        let parts: Vec<&str> = mop.splitn(3, ' ').collect();
        let v = if parts[0] == ":r" { "nil" } else { parts[2] };
        out.push_str(&format!("[{} {} {}] ", parts[0], parts[1], v));
    }
    format!("[{}]", out.trim_end())
}

fn no_anomalies(h: &History, inf: &Inference) {
    assert_eq!(anomalies(h, inf), Vec::<String>::new());
}

// ---------------------------------------------------------------- list-append

#[test]
fn la_g0_write_cycle() {
    let (h, inf) = run(&oks(&[
        (0, "[[:append :x 1] [:append :y 1]]"),
        (0, "[[:append :x 2] [:append :y 2]]"),
        (0, "[[:r :x [1 2]] [:r :y [2 1]]]"),
    ]));
    assert_eq!(
        edges(&h, &inf),
        [
            "T0 wr T2 :y 1 @1/1",
            "T0 ww T1 :x 1->2 @0/0",
            "T1 wr T2 :x 2 @0/0",
            "T1 ww T0 :y 2->1 @1/1",
        ]
    );
    no_anomalies(&h, &inf);
    assert_eq!(inf.in_graph, [true, true, true]);
}

#[test]
fn la_g1a_aborted_read() {
    let (h, inf) = run("{:process 0 :type :fail :value [[:append :x 1]]}
{:time 0 :process 0 :type :ok :f :txn :value [[:r :x [1]]]}");
    assert_eq!(
        anomalies(&h, &inf),
        ["G1a T1 [:r :x [1]] writer T0 element 1"]
    );
    assert!(inf.deps.is_empty());
    assert_eq!(inf.in_graph, [false, true]);
}

#[test]
fn la_g1a_cases_every_read_every_element() {
    // Elle's g1a-cases-test: both reads contain the failed append (which the
    // committed append of 2 follows: a dirty update too).
    let (h, inf) = run(&format!(
        "{}{{:process 0 :type :fail :value [[:append :x 1]]}}\n",
        oks(&[
            (0, "[[:r :x [1]] [:append :x 2]]"),
            (0, "[[:r :x [1 2]] [:r :y [3]]]")
        ])
    ));
    assert_eq!(
        anomalies(&h, &inf),
        [
            "G1a T0 [:r :x [1]] writer T2 element 1",
            "G1a T1 [:r :x [1 2]] writer T2 element 1",
            "dirty-update :x [1 2] [T2 ... T0]",
            "garbage-read T1 [:r :y [3]]",
        ]
    );
}

#[test]
fn la_g1b_intermediate_read() {
    let text = pair(0, "ok", "[[:append :x 1] [:append :x 2]]") + &pair(1, "ok", "[[:r :x [1]]]");
    let (h, inf) = run(&text);
    assert_eq!(
        anomalies(&h, &inf),
        ["G1b T1 [:r :x [1]] writer T0 element 1"]
    );
    // Elle's G-single-item cycle: rw x 1->2 @0/1, wr x 1 @0/0.
    assert_eq!(
        edges(&h, &inf),
        ["T0 wr T1 :x 1 @0/0", "T1 rw T0 :x 1->2 @0/1"]
    );
}

#[test]
fn la_g1b_cases() {
    // Elle's g1b-cases-test; the internal read of its own intermediate
    // append is fine.
    let (h, inf) = run(&oks(&[
        (0, "[[:r :x [1]]]"),
        (0, "[[:r :x [1 2]] [:r :y [3]]]"),
        (0, "[[:append :x 1] [:append :x 2]]"),
        (0, "[[:r :x [1 2 3]]]"),
        (0, "[[:append :z 1] [:r :z [1]] [:append :z 2]]"),
    ]));
    assert_eq!(
        anomalies(&h, &inf),
        [
            "G1b T0 [:r :x [1]] writer T2 element 1",
            "garbage-read T1 [:r :y [3]]",
            "garbage-read T3 [:r :x [1 2 3]]",
        ]
    );
}

#[test]
fn la_g1c() {
    let (h, inf) = run(&oks(&[
        (0, "[[:append :x 1] [:r :y [1]]]"),
        (0, "[[:append :x 2] [:append :y 1]]"),
        (0, "[[:r :x [1 2]] [:r :y [1]]]"),
    ]));
    assert_eq!(
        edges(&h, &inf),
        [
            "T0 ww T1 :x 1->2 @0/0",
            "T1 wr T0 :y 1 @1/1",
            // One edge per pair: Elle explains it by T2's first micro-op.
            "T1 wr T2 :x 2 @0/0",
        ]
    );
    no_anomalies(&h, &inf);
}

#[test]
fn la_g_single_and_single_append_keys() {
    // y has a single append and no read: its order is [1], so the empty read
    // of y precedes it.
    let (h, inf) = run(&oks(&[
        (0, "[[:append :x 1] [:append :y 1]]"),
        (0, "[[:append :x 2] [:r :y]]"),
        (0, "[[:r :x [1 2]]]"),
    ]));
    assert_eq!(
        edges(&h, &inf),
        [
            "T0 ww T1 :x 1->2 @0/0",
            "T1 rw T0 :y init->1 @1/1",
            "T1 wr T2 :x 2 @0/0",
        ]
    );
}

#[test]
fn la_g2_item_two_anti_dependencies() {
    let (h, inf) = run(&oks(&[
        (0, "[[:append :x 1] [:r :y]]"),
        (0, "[[:append :y 1] [:r :x]]"),
    ]));
    assert_eq!(
        edges(&h, &inf),
        ["T0 rw T1 :y init->1 @1/0", "T1 rw T0 :x init->1 @1/0"]
    );
}

#[test]
fn la_graph_tests_from_elle() {
    // "read empty, append, read": rx -> ax1 -> rx1.
    let (h, inf) = run(&oks(&[
        (0, "[[:r :x nil]]"),
        (0, "[[:append :x 1]]"),
        (0, "[[:r :x [1]]]"),
    ]));
    assert_eq!(
        edges(&h, &inf),
        ["T0 rw T1 :x init->1 @0/0", "T1 wr T2 :x 1 @0/0"]
    );
    // Adya's figure 3.
    let (h, inf) = run(&oks(&[
        (0, "[[:append :z 1] [:append :x 1] [:append :y 1]]"),
        (0, "[[:r :x [1]] [:append :y 2]]"),
        (0, "[[:r :y [1 2]] [:append :z 3]]"),
        (0, "[[:r :z [1 3]]]"),
    ]));
    assert_eq!(
        edges(&h, &inf),
        [
            "T0 wr T1 :x 1 @1/0",
            "T0 ww T1 :y 1->2 @2/1",
            "T0 ww T2 :z 1->3 @0/1",
            "T1 wr T2 :y 2 @1/0",
            "T2 wr T3 :z 3 @1/0",
        ]
    );
    // An empty read is the initial state whether written nil, [] or [:r k].
    let (h, inf) = run(&oks(&[
        (0, "[[:r :x []]]"),
        (0, "[[:r :x]]"),
        (0, "[[:append :x 1]]"),
        (0, "[[:append :x 2]]"),
    ]));
    assert_eq!(
        edges(&h, &inf),
        [
            "T0 rw T2 :x init->1 @0/0",
            "T0 rw T3 :x init->2 @0/0",
            "T1 rw T2 :x init->1 @0/0",
            "T1 rw T3 :x init->2 @0/0",
        ]
    );
}

#[test]
fn la_unobserved_appends_follow_the_last_observed_element() {
    // Elle's unobserved-write-test: ax3 and ay1, ay3 are never read.
    let text = [
        invoke(0, "[[:append :x 1] [:append :y 1]]"),
        invoke(1, "[[:append :x 2] [:append :y 2]]"),
        invoke(2, "[[:append :x 3] [:append :y 3]]"),
        invoke(3, "[[:r :x [1 2]]]"),
        invoke(4, "[[:r :y [2]]]"),
        complete(0, "ok", "[[:append :x 1] [:append :y 1]]"),
        complete(1, "ok", "[[:append :x 2] [:append :y 2]]"),
        complete(2, "ok", "[[:append :x 3] [:append :y 3]]"),
        complete(3, "ok", "[[:r :x [1 2]]]"),
        complete(4, "ok", "[[:r :y [2]]]"),
    ]
    .concat();
    let (h, inf) = run(&text);
    assert_eq!(
        edges(&h, &inf),
        [
            "T0 ww T1 :x 1->2 @0/0",
            "T1 wr T3 :x 2 @0/0",
            "T1 wr T4 :y 2 @1/0",
            "T1 ww T0 :y 2->1 @1/1",
            // ww on x and on y: Elle explains it by T2's first micro-op.
            "T1 ww T2 :x 2->3 @0/0",
            "T3 rw T2 :x 2->3 @0/0",
            "T4 rw T0 :y 2->1 @0/1",
            "T4 rw T2 :y 2->3 @0/1",
        ]
    );
    // Unobserved appends are not ordered among themselves.
    let (h, inf) = run(&oks(&[
        (0, "[[:r :x]]"),
        (0, "[[:append :x 1]]"),
        (0, "[[:append :x 2]]"),
    ]));
    assert_eq!(
        edges(&h, &inf),
        ["T0 rw T1 :x init->1 @0/0", "T0 rw T2 :x init->2 @0/0"]
    );
}

#[test]
fn la_indeterminate_transactions() {
    // Elle's "info reads": the :info append of 2 is observed, so T0 takes
    // part (T1 -ww-> T0 -wr-> T2), but its nil read of y means nothing.
    let (h, inf) = run(
        "{:type :info, :process 0, :value [[:append :x 2] [:r :y nil]]}
{:type :ok, :process 1, :value [[:append :x 1] [:append :y 1]]}
{:type :ok, :process 2, :value [[:r :x [1 2]] [:r :y [1]]]}",
    );
    assert_eq!(
        edges(&h, &inf),
        [
            "T0 wr T2 :x 2 @0/0",
            "T1 wr T2 :y 1 @1/1",
            "T1 ww T0 :x 1->2 @0/0",
        ]
    );
    assert_eq!(inf.in_graph, [true, true, true]);
    // Never observed: out of the graph (an unmatched invocation likewise),
    // and its non-empty read of x carries no information.
    let text = pair(0, "info", "[[:append :x 3] [:r :y [1]]]")
        + &invoke(1, "[[:append :x 4]]")
        + &pair(2, "ok", "[[:r :x [1]] [:append :y 1]]")
        + &pair(3, "ok", "[[:append :x 1]]");
    let (h, inf) = run(&text);
    assert_eq!(inf.in_graph, [false, false, true, true]);
    assert_eq!(edges(&h, &inf), ["T3 wr T2 :x 1 @0/0"]);
    no_anomalies(&h, &inf);
}

#[test]
fn la_lost_update() {
    let text = pair(0, "ok", "[[:append :x 0]]")
        + &pair(1, "ok", "[[:r :x [0]] [:append :x 1]]")
        + &pair(2, "ok", "[[:r :x [0]] [:append :x 2]]");
    let (h, inf) = run(&text);
    assert_eq!(anomalies(&h, &inf), ["lost-update :x [0] [T1 T2]"]);
    assert_eq!(
        edges(&h, &inf),
        [
            "T0 wr T1 :x 0 @0/0",
            "T0 wr T2 :x 0 @0/0",
            "T0 ww T1 :x 0->1 @0/1",
            "T0 ww T2 :x 0->2 @0/1",
            "T1 rw T2 :x 0->2 @0/1",
            "T2 rw T1 :x 0->1 @0/1",
        ]
    );
    // One transaction appending twice over its read is fine.
    let text = pair(0, "ok", "[[:r :x] [:append :x 1] [:append :x 2]]")
        + &pair(1, "ok", "[[:r :x [1 2]]]");
    let (h, inf) = run(&text);
    no_anomalies(&h, &inf);
    // nil and [] are different values to Elle's lost-update; an append
    // before the first read does not count, one after it does.
    let (h, inf) = run(&oks(&[
        (0, "[[:r :x nil] [:append :x 1]]"),
        (1, "[[:r :x []] [:append :x 2]]"),
        (2, "[[:append :x 3] [:r :x []] [:append :x 4]]"),
        (3, "[[:r :x []] [:r :x [5]] [:append :x 5]]"),
    ]));
    assert_eq!(
        anomalies(&h, &inf),
        [
            "internal T2 [:r :x []] expected [... 3]",
            "internal T3 [:r :x [5]] expected []",
            "own-write-unseen T2 [:r :x []] expected [... 3]",
            "future-read T3 [:r :x [5]] element 5",
            "lost-update :x [] [T1 T2 T3]",
        ]
    );
}

#[test]
fn la_incompatible_order_keeps_the_longest_read() {
    let (h, inf) = run(&oks(&[
        (0, "[[:append :x 1] [:r :y [1]]]"),
        (0, "[[:append :x 2]]"),
        (0, "[[:append :x 3] [:append :y 1]]"),
        (0, "[[:r :x [1 3]]]"),
        (0, "[[:r :x [1 2 3]]]"),
    ]));
    assert_eq!(
        anomalies(&h, &inf),
        ["incompatible-order :x [[1 3] [1 2 3]]"]
    );
    // The G1c cycle T2 -wr-> T0 -ww-> T1 -ww-> T2 is there.
    assert_eq!(
        edges(&h, &inf),
        [
            "T0 ww T1 :x 1->2 @0/0",
            "T1 ww T2 :x 2->3 @0/0",
            "T2 wr T0 :y 1 @1/1",
            "T2 wr T3 :x 3 @0/0",
            "T2 wr T4 :x 3 @0/0",
        ]
    );
}

#[test]
fn la_incompatible_order_is_the_first_violation_by_length() {
    let (h, inf) = run(&oks(&[
        (0, "[[:r :x [1 2 4]]]"),
        (0, "[[:r :x [1 2]]]"),
        (0, "[[:r :x [1 3]]]"),
        (0, "[[:r :x [1 3]]]"),
        (
            0,
            "[[:append :x 1] [:append :x 2] [:append :x 3] [:append :x 4]]",
        ),
    ]));
    assert_eq!(
        anomalies(&h, &inf),
        [
            "G1b T1 [:r :x [1 2]] writer T4 element 2",
            "G1b T2 [:r :x [1 3]] writer T4 element 3",
            "G1b T3 [:r :x [1 3]] writer T4 element 3",
            "incompatible-order :x [[1 2] [1 3]]",
            // T4 appended 1, 2, 3 and 4: no state holds 4 without 3, or 3
            // without 2.
            "garbage-read T0 [:r :x [1 2 4]]",
            "garbage-read T2 [:r :x [1 3]]",
            "garbage-read T3 [:r :x [1 3]]",
        ]
    );
}

#[test]
fn la_dirty_update() {
    let (h, inf) = run(&format!(
        "{}{}{}",
        complete(0, "fail", "[[:append :x 1]]"),
        complete(1, "ok", "[[:append :x 2]]"),
        complete(2, "ok", "[[:r :x [1 2]]]")
    ));
    assert_eq!(
        anomalies(&h, &inf),
        [
            "G1a T2 [:r :x [1 2]] writer T0 element 1",
            "dirty-update :x [1 2] [T0 ... T1]",
        ]
    );
    // Through an :info append.
    let (h, inf) = run(&format!(
        "{}{}{}{}",
        complete(0, "fail", "[[:append :x 1]]"),
        complete(1, "info", "[[:append :x 2]]"),
        complete(2, "ok", "[[:append :x 3]]"),
        complete(3, "ok", "[[:r :x [1 2 3]]]")
    ));
    assert_eq!(
        anomalies(&h, &inf),
        [
            "G1a T3 [:r :x [1 2 3]] writer T0 element 1",
            "dirty-update :x [1 2 3] [T0 ... T2]",
        ]
    );
    assert_eq!(
        edges(&h, &inf),
        ["T1 ww T2 :x 2->3 @0/0", "T2 wr T3 :x 3 @0/0"]
    );
    let Anomaly::DirtyUpdate { txns, .. } = &inf.anomalies[1] else {
        panic!("{:?}", inf.anomalies)
    };
    assert_eq!(txns, &[0, 1, 2]);
    // A failed transaction's two appends, then a committed one; the walk
    // starts over after each committed append.
    let (h, inf) = run(&format!(
        "{}{}{}{}{}",
        complete(0, "fail", "[[:append :x 1] [:append :x 2]]"),
        complete(1, "ok", "[[:append :x 3]]"),
        complete(2, "fail", "[[:append :x 4]]"),
        complete(3, "ok", "[[:append :x 5]]"),
        complete(4, "ok", "[[:r :x [1 2 3 4 5]]]")
    ));
    let dirty: Vec<String> = anomalies(&h, &inf)
        .into_iter()
        .filter(|a| a.starts_with("dirty"))
        .collect();
    assert_eq!(
        dirty,
        [
            "dirty-update :x [1 2 3] [T0 ... T1]",
            "dirty-update :x [4 5] [T2 ... T3]",
        ]
    );
    let Anomaly::DirtyUpdate { txns, .. } = &inf.anomalies[3] else {
        panic!("{:?}", inf.anomalies)
    };
    assert_eq!(txns, &[0, 0, 1]);
    // A lone failed append is nothing.
    let (h, inf) = run(&complete(0, "fail", "[[:append :x 1]]"));
    no_anomalies(&h, &inf);
    assert!(inf.deps.is_empty());
}

#[test]
fn la_duplicate_elements() {
    let (h, inf) = run(&oks(&[
        (0, "[[:append :x 1] [:r :y [1]]]"),
        (0, "[[:append :x 2] [:append :y 1]]"),
        (0, "[[:r :x [1 2 1]]]"),
        (0, "[[:r :x [1 2]]]"),
        (0, "[[:r :w [2 2 3 3 3]]]"),
    ]));
    assert_eq!(
        anomalies(&h, &inf),
        [
            "duplicate-elements T2 [:r :x [1 2 1]] {1 2}",
            "duplicate-elements T4 [:r :w [2 2 3 3 3]] {2 2, 3 3}",
            "garbage-read T4 [:r :w [2 2 3 3 3]]",
        ]
    );
    // The read ends at 1: it observes T0's append (the G1c of Elle's test),
    // and misses T1's, which follows 1 in the order [1 2].
    assert_eq!(
        edges(&h, &inf),
        [
            "T0 wr T2 :x 1 @0/0",
            "T0 ww T1 :x 1->2 @0/0",
            "T1 wr T0 :y 1 @1/1",
            "T1 wr T3 :x 2 @0/0",
            "T2 rw T1 :x 1->2 @0/0",
        ]
    );
}

#[test]
fn la_internal() {
    let (h, inf) = run(&oks(&[
        (0, "[[:append :x 1] [:append :x 2] [:append :x 4]]"),
        (0, "[[:append :x 3] [:r :x [1 2 3 4]]]"),
    ]));
    // T1's read shows its own 3 before T0's 4 (no own write last), on
    // top of T0's intermediate [1 2].
    assert_eq!(
        anomalies(&h, &inf),
        [
            "G1b T1 [:r :x [1 2 3 4]] writer T0 element 2",
            "internal T1 [:r :x [1 2 3 4]] expected [... 3]",
            "own-write-unseen T1 [:r :x [1 2 3 4]] expected [... 3]",
        ]
    );
    // The G0 Elle mentions: 2 -> 3 -> 4 on x.
    assert!(edges(&h, &inf).contains(&"T0 ww T1 :x 2->3 @1/0".to_string()));
    assert!(edges(&h, &inf).contains(&"T1 ww T0 :x 3->4 @0/2".to_string()));

    // FaunaDB: reading nil right after an append.
    let (h, inf) = run(
        "{:type :invoke, :f :txn, :value [[:append 0 6] [:r 0 nil]] :process 1, :index 20, :time 1}
{:type :ok, :f :txn, :value [[:append 0 6] [:r 0 nil]] :process 1, :index 21, :time 2}",
    );
    assert_eq!(
        anomalies(&h, &inf),
        [
            "internal T0 [:r 0 nil] expected [... 6]",
            "own-write-unseen T0 [:r 0 nil] expected [... 6]",
        ]
    );

    // Elle's internal-cases-test, one key per transaction (appends are
    // unique per key).
    let (h, inf) = run(&oks(&[
        (
            0,
            "[[:r :y [5 6]] [:append :x 3] [:r :x [1 2 3]] [:append :x 4] [:r :x [1 2 3 4]]]",
        ),
        (0, "[[:r :a [1 2]] [:append :a 3] [:r :a [1 2]]]"),
        (0, "[[:r :b [1 2]] [:append :b 3] [:r :b [0 2 3]]]"),
        (0, "[[:r :c [1 2]] [:append :c 3] [:r :c [1 2 3 4]]]"),
        (0, "[[:r :d [1 2]] [:append :d 3] [:r :d [1]]]"),
        (0, "[[:append :e 3] [:r :e [1 2 3 4]]]"),
        (0, "[[:append :f 3] [:r :f []]]"),
        (
            0,
            "[[:r :g nil] [:append :g 3] [:r :g [3]] [:r :g [3]] [:r :g nil] [:r :g [4]]]",
        ),
    ]));
    let internal: Vec<String> = anomalies(&h, &inf)
        .into_iter()
        .filter(|a| a.starts_with("internal"))
        .collect();
    assert_eq!(
        internal,
        [
            "internal T1 [:r :a [1 2]] expected [1 2 3]",
            "internal T2 [:r :b [0 2 3]] expected [1 2 3]",
            "internal T3 [:r :c [1 2 3 4]] expected [1 2 3]",
            "internal T4 [:r :d [1]] expected [1 2 3]",
            "internal T5 [:r :e [1 2 3 4]] expected [... 3]",
            "internal T6 [:r :f []] expected [... 3]",
            "internal T7 [:r :g nil] expected [3]",
        ]
    );
}

#[test]
fn la_future_read() {
    let text = pair(0, "ok", "[[:r :x [0 1 2]] [:append :x 1]]");
    let (h, inf) = run(&text);
    assert_eq!(
        anomalies(&h, &inf),
        [
            "future-read T0 [:r :x [0 1 2]] element 1",
            "garbage-read T0 [:r :x [0 1 2]]",
        ]
    );
    assert!(inf.deps.is_empty());
    let (h, inf) = run(&pair(
        0,
        "ok",
        "[[:append :x 1] [:r :x [0 1]] [:append :x 0] [:append :x 3]]",
    ));
    assert_eq!(
        anomalies(&h, &inf),
        ["future-read T0 [:r :x [0 1]] element 0"]
    );
}

#[test]
fn la_garbage_read() {
    let (h, inf) = run(&oks(&[(0, "[[:r :x [5]]]"), (0, "[[:append :x 1]]")]));
    assert_eq!(anomalies(&h, &inf), ["garbage-read T0 [:r :x [5]]"]);
}

#[test]
fn la_anomaly_order_is_by_kind_then_position() {
    let (h, inf) = run(&format!(
        "{}{}",
        oks(&[
            (0, "[[:r :y [7]]]"),
            (0, "[[:r :x [1]]]"),
            (0, "[[:append :z 1] [:append :z 2]]"),
            (0, "[[:r :z [1]]]"),
        ]),
        complete(0, "fail", "[[:append :x 1]]")
    ));
    assert_eq!(
        anomalies(&h, &inf),
        [
            "G1a T1 [:r :x [1]] writer T4 element 1",
            "G1b T3 [:r :z [1]] writer T2 element 1",
            "garbage-read T0 [:r :y [7]]",
        ]
    );
}

// ---------------------------------------------------------------- rw-register

fn wfr() -> InferOptions {
    InferOptions {
        wfr_keys: true,
        ..InferOptions::default()
    }
}

fn sequential() -> InferOptions {
    InferOptions {
        sequential_keys: true,
        ..InferOptions::default()
    }
}

fn linearizable() -> InferOptions {
    InferOptions {
        linearizable_keys: true,
        ..InferOptions::default()
    }
}

#[test]
fn rr_g1c() {
    let (h, inf) = run(&oks(&[
        (0, "[[:w :x 1] [:r :y 1]]"),
        (0, "[[:w :y 1] [:r :x 1]]"),
    ]));
    assert_eq!(
        edges(&h, &inf),
        ["T0 wr T1 :x 1 @0/1", "T1 wr T0 :y 1 @0/1"]
    );
    no_anomalies(&h, &inf);
}

#[test]
fn rr_initial_state_precedes_every_version() {
    let text = invoke(0, "[[:r :x nil] [:r :y 1]]")
        + &pair(1, "ok", "[[:w :y 1] [:w :x 2]]")
        + &complete(0, "ok", "[[:r :x nil] [:r :y 1]]");
    let (h, inf) = run(&text);
    assert_eq!(
        edges(&h, &inf),
        ["T0 rw T1 :x init->2 @0/1", "T1 wr T0 :y 1 @0/1"]
    );
    no_anomalies(&h, &inf);
}

#[test]
fn rr_wfr_keys() {
    let text = oks(&[
        (0, "[[:r :y 1] [:w :x 1] [:w :y 2]]"),
        (0, "[[:r :x 1] [:r :y 1]]"),
    ]);
    let (h, inf) = run(&text);
    assert_eq!(edges(&h, &inf), ["T0 wr T1 :x 1 @1/0"]);
    let (h, inf) = run_with(&text, wfr());
    assert_eq!(
        edges(&h, &inf),
        ["T0 wr T1 :x 1 @1/0", "T1 rw T0 :y 1->2 @1/2"]
    );
    // y = 1 was never written: isocheck says so, Elle does not.
    assert_eq!(
        anomalies(&h, &inf),
        ["garbage-read T0 [:r :y 1]", "garbage-read T1 [:r :y 1]"]
    );
}

#[test]
fn rr_cyclic_versions() {
    let text = pair(0, "ok", "[[:w :x 1]]")
        + &pair(0, "ok", "[[:w :x 2]]")
        + &pair(0, "ok", "[[:r :x 1]]");
    let (h, inf) = run_with(&text, sequential());
    assert_eq!(
        anomalies(&h, &inf),
        ["cyclic-versions :x #{1 2} [:initial-state :sequential-keys]"]
    );
    // The source is left out: only the wr edge remains.
    assert_eq!(edges(&h, &inf), ["T0 wr T2 :x 1 @0/0"]);
    let (h, inf) = run(&text);
    no_anomalies(&h, &inf);
    assert_eq!(edges(&h, &inf), ["T0 wr T2 :x 1 @0/0"]);
}

#[test]
fn rr_linearizable_keys() {
    // Elle's known false negative (issue #8): no version edge helps.
    let text = pair(0, "ok", "[[:w :x 1]]") + &pair(0, "ok", "[[:r :x 2]]");
    let (h, inf) = run_with(&text, linearizable());
    assert!(inf.deps.is_empty());
    assert_eq!(anomalies(&h, &inf), ["garbage-read T1 [:r :x 2]"]);
    let text = text + &pair(0, "ok", "[[:r :x 1]]");
    let (h, inf) = run_with(&text, linearizable());
    assert_eq!(
        anomalies(&h, &inf),
        [
            "cyclic-versions :x #{1 2} [:initial-state :linearizable-keys]",
            "garbage-read T1 [:r :x 2]",
        ]
    );
}

#[test]
fn rr_g2_item_from_realtime_versions() {
    let text = pair(0, "ok", "[[:r :x 1] [:r :y 1]]")
        + &invoke(1, "[[:r :x 1] [:w :y 2]]")
        + &pair(2, "ok", "[[:r :y 1] [:w :x 2]]")
        + &complete(1, "ok", "[[:r :x 1] [:w :y 2]]");
    let (h, inf) = run_with(&text, linearizable());
    assert_eq!(
        edges(&h, &inf),
        [
            "T0 rw T1 :y 1->2 @1/1",
            "T0 rw T2 :x 1->2 @0/1",
            "T1 rw T2 :x 1->2 @0/1",
            "T2 rw T1 :y 1->2 @0/1",
        ]
    );
}

#[test]
fn rr_realtime_versions_stop_at_the_first_toucher_of_each_path() {
    // Fork-join: 1 -> {2, 3} -> 4, and no 1 -> 4.
    let text = pair(0, "ok", "[[:r :x 1]]")
        + &invoke(1, "[[:w :x 2]]")
        + &invoke(2, "[[:w :x 3]]")
        + &complete(1, "ok", "[[:w :x 2]]")
        + &complete(2, "ok", "[[:w :x 3]]")
        + &pair(3, "ok", "[[:w :x 4]]");
    let (h, inf) = run_with(&text, linearizable());
    assert_eq!(
        edges(&h, &inf),
        [
            "T0 rw T1 :x 1->2 @0/0",
            "T0 rw T2 :x 1->3 @0/0",
            "T1 ww T3 :x 2->4 @0/0",
            "T2 ww T3 :x 3->4 @0/0",
        ]
    );
    // A path around the toucher of x reaches a later one: 1 -> 3 as well.
    let text = pair(0, "ok", "[[:r :x 1]]")
        + &invoke(1, "[[:w :x 2]]")
        + &invoke(2, "[[:w :y 1]]")
        + &complete(1, "ok", "[[:w :x 2]]")
        + &complete(2, "ok", "[[:w :y 1]]")
        + &pair(3, "ok", "[[:w :x 3]]");
    let (h, inf) = run_with(&text, linearizable());
    assert_eq!(
        edges(&h, &inf),
        [
            "T0 rw T1 :x 1->2 @0/0",
            "T0 rw T3 :x 1->3 @0/0",
            "T1 ww T3 :x 2->3 @0/0",
        ]
    );
}

#[test]
fn rr_sequential_keys_g0() {
    let text = pair(0, "ok", "[[:w :x 1] [:w :y 2]]")
        + &pair(1, "ok", "[[:w :x 2] [:w :y 1]]")
        + &pair(0, "ok", "[[:r :x 2]]")
        + &pair(1, "ok", "[[:r :y 2]]");
    let (h, inf) = run(&text);
    assert_eq!(
        edges(&h, &inf),
        ["T0 wr T3 :y 2 @1/0", "T1 wr T2 :x 2 @0/0"]
    );
    let (h, inf) = run_with(&text, sequential());
    assert_eq!(
        edges(&h, &inf),
        [
            "T0 wr T3 :y 2 @1/0",
            "T0 ww T1 :x 1->2 @0/0",
            "T1 wr T2 :x 2 @0/0",
            "T1 ww T0 :y 1->2 @1/1",
        ]
    );
    no_anomalies(&h, &inf);
}

#[test]
fn rr_lost_update() {
    let text = pair(0, "ok", "[[:r :x 0] [:w :x 1]]") + &pair(1, "ok", "[[:r :x 0] [:w :x 2]]");
    let (h, inf) = run(&text);
    assert_eq!(
        anomalies(&h, &inf),
        [
            "lost-update :x 0 [T0 T1]",
            "garbage-read T0 [:r :x 0]",
            "garbage-read T1 [:r :x 0]",
        ]
    );
    // Reads of nil count too.
    let (h, inf) = run(&oks(&[
        (0, "[[:r :x nil] [:w :x 1]]"),
        (1, "[[:r :x] [:w :x 2]]"),
    ]));
    assert_eq!(anomalies(&h, &inf), ["lost-update :x nil [T0 T1]"]);
    assert_eq!(
        edges(&h, &inf),
        ["T0 rw T1 :x init->2 @0/1", "T1 rw T0 :x init->1 @0/1"]
    );
}

#[test]
fn rr_internal() {
    let (h, inf) = run(&oks(&[
        (0, "[[:r :x 1] [:r :x 2]]"),
        (0, "[[:r :x 1] [:w :x 2] [:r :x 1]]"),
        (0, "[[:r :z 2] [:w :y 2] [:r :y 2] [:w :y 1] [:r :y 1]]"),
        (0, "[[:r :w nil] [:r :w 3]]"),
    ]));
    let internal: Vec<String> = anomalies(&h, &inf)
        .into_iter()
        .filter(|a| !a.starts_with("garbage"))
        .collect();
    assert_eq!(
        internal,
        [
            "internal T0 [:r :x 2] expected 1",
            "internal T1 [:r :x 1] expected 2",
            "internal T3 [:r :w 3] expected nil",
            "own-write-unseen T1 [:r :x 1] expected 2",
        ]
    );
}

#[test]
fn rr_g1a_g1b() {
    let (h, inf) = run(&format!(
        "{}{}",
        oks(&[(0, "[[:r :x 2]]")]),
        complete(0, "fail", "[[:w :x 2]]")
    ));
    assert_eq!(anomalies(&h, &inf), ["G1a T0 [:r :x 2] writer T1"]);
    assert!(inf.deps.is_empty());
    let (h, inf) = run(&oks(&[(0, "[[:r :x 2]]"), (0, "[[:w :x 2] [:w :x 1]]")]));
    assert_eq!(anomalies(&h, &inf), ["G1b T0 [:r :x 2] writer T1"]);
    // The read is of an intermediate version: no wr edge (as in Elle).
    assert!(inf.deps.is_empty());
    let (h, inf) = run(&oks(&[
        (0, "[[:w :x 1] [:w :x 2]]"),
        (0, "[[:r :x nil] [:r :x 2]]"),
    ]));
    // The later read shows the final version: not G1b, but it disagrees
    // with the transaction's read of nil (Elle 0.2.7 reports it too).
    assert_eq!(anomalies(&h, &inf), ["internal T1 [:r :x 2] expected nil"]);
}

#[test]
fn rr_indeterminate_transactions() {
    let text = pair(0, "info", "[[:w :x 1]]")
        + &pair(1, "info", "[[:w :x 2]]")
        + &invoke(2, "[[:w :y 1]]")
        + &pair(3, "ok", "[[:r :x 1] [:r :y 1]]");
    let (h, inf) = run(&text);
    assert_eq!(inf.in_graph, [true, false, true, true]);
    assert_eq!(
        edges(&h, &inf),
        ["T0 wr T3 :x 1 @0/0", "T2 wr T3 :y 1 @0/1"]
    );
    no_anomalies(&h, &inf);
}

#[test]
fn rr_garbage_read() {
    let (h, inf) = run(&oks(&[(0, "[[:r :x 5] [:r :y nil]]"), (0, "[[:w :x 1]]")]));
    assert_eq!(anomalies(&h, &inf), ["garbage-read T0 [:r :x 5]"]);
}

#[test]
fn rr_future_read() {
    // A read of the value the transaction writes only later, once per key.
    let (h, inf) = run(&oks(&[
        (0, "[[:r :x 1] [:r :x 1] [:w :x 1]]"),
        (0, "[[:r :y 3] [:w :y 2] [:w :y 3] [:r :z nil]]"),
    ]));
    assert_eq!(
        anomalies(&h, &inf),
        [
            "future-read T0 [:r :x 1] element 1",
            "future-read T1 [:r :y 3] element 3",
        ]
    );
    assert!(inf.deps.is_empty());
    // Reading its own earlier write is no future read; an aborted
    // transaction's reads are not judged.
    let (h, inf) = run(&format!(
        "{}{}",
        oks(&[(0, "[[:w :x 1] [:r :x 1]]")]),
        complete(1, "fail", "[[:r :y 4] [:w :y 4]]")
    ));
    no_anomalies(&h, &inf);
}

// ------------------------------------------------------ simulated databases

/// The ww/wr/rw graph has no cycle.
fn acyclic(h: &History, inf: &Inference) -> bool {
    let edges: Vec<(u32, u32)> = inf.deps.iter().map(|d| (d.from, d.to)).collect();
    let (start, succ) = super::util::csr(h.txns.len(), &edges);
    super::util::sccs(h.txns.len(), &start, &succ).is_empty()
}

fn la_simulated(seed: u64, txns: u64) -> String {
    let p = isocheck_gen::Params {
        seed,
        txns,
        ..Default::default()
    };
    let mut buf = Vec::new();
    isocheck_gen::write(&mut buf, &p).expect("generate");
    String::from_utf8(buf).expect("utf-8")
}

#[test]
fn la_serializable_database_is_clean() {
    for seed in 0..3 {
        let (h, inf) = run(&la_simulated(seed, 3000));
        no_anomalies(&h, &inf);
        assert!(acyclic(&h, &inf));
        assert!(inf.deps.len() > 3000);
        let aborted = h
            .txns
            .iter()
            .filter(|t| t.status == Status::Aborted)
            .count();
        assert_eq!(inf.in_graph.iter().filter(|&&g| !g).count(), aborted);
    }
}

/// A strictly serializable register database: each transaction takes effect
/// when it completes; some fail, some crash (`:info`, effect or not).
fn rr_simulated(seed: u64, txns: usize) -> String {
    use std::fmt::Write as _;
    let mut rng = isocheck_gen::rng::Rng::new(seed);
    let (procs, keys) = (6u64, 5usize);
    let mut state: Vec<Option<u64>> = vec![None; keys];
    let mut next = vec![0u64; keys];
    // (write?, key, value)
    let mut pending: Vec<Option<Vec<(bool, usize, u64)>>> = vec![None; procs as usize];
    let (mut out, mut invoked, mut open) = (String::new(), 0, 0);
    let line =
        |out: &mut String, ty: &str, p: u64, mops: &[(bool, usize, u64)], reads: &[Option<u64>]| {
            let _ = write!(out, "{{:type :{ty}, :process {p}, :f :txn, :value [");
            for (i, &(w, k, v)) in mops.iter().enumerate() {
                match (w, reads.get(i).copied().flatten()) {
                    (true, _) => {
                        let _ = write!(out, "[:w {k} {v}]");
                    }
                    (false, Some(r)) => {
                        let _ = write!(out, "[:r {k} {r}]");
                    }
                    (false, None) => {
                        let _ = write!(out, "[:r {k} nil]");
                    }
                }
            }
            out.push_str("]}\n");
        };
    loop {
        let more = invoked < txns;
        if !more && open == 0 {
            break;
        }
        let p = rng.below(procs);
        match pending[p as usize].take() {
            None if more => {
                let plan: Vec<(bool, usize, u64)> = (0..1 + rng.below(4))
                    .map(|_| {
                        let k = rng.below(keys as u64) as usize;
                        if rng.chance(0.5) {
                            (false, k, 0)
                        } else {
                            next[k] += 1;
                            (true, k, next[k])
                        }
                    })
                    .collect();
                line(&mut out, "invoke", p, &plan, &[]);
                pending[p as usize] = Some(plan);
                invoked += 1;
                open += 1;
            }
            None => continue,
            Some(plan) => {
                let fate = rng.below(20);
                let apply = |state: &mut Vec<Option<u64>>| -> Vec<Option<u64>> {
                    plan.iter()
                        .map(|&(w, k, v)| {
                            if w {
                                state[k] = Some(v);
                            }
                            state[k]
                        })
                        .collect()
                };
                match fate {
                    0 => line(&mut out, "fail", p, &plan, &[]),
                    1 => {
                        if rng.chance(0.5) {
                            apply(&mut state);
                        }
                        line(&mut out, "info", p, &plan, &[]);
                    }
                    _ => {
                        let reads = apply(&mut state);
                        line(&mut out, "ok", p, &plan, &reads);
                    }
                }
                open -= 1;
            }
        }
    }
    out
}

#[test]
fn rr_serializable_database_is_clean() {
    let all = InferOptions {
        wfr_keys: true,
        sequential_keys: true,
        linearizable_keys: true,
    };
    for seed in 0..3 {
        let text = rr_simulated(seed, 2000);
        for opts in [
            InferOptions::default(),
            wfr(),
            sequential(),
            linearizable(),
            all,
        ] {
            let (h, inf) = run_with(&text, opts);
            no_anomalies(&h, &inf);
            assert!(acyclic(&h, &inf), "{opts:?}");
        }
        // The extra sources add edges.
        let (_, plain) = run(&text);
        let (_, rich) = run_with(&text, all);
        assert!(rich.deps.len() > plain.deps.len());
    }
}

/// One constraint's sides, each as [`edges`] prints dependencies.
fn sides(h: &History, c: &Constraint) -> [Vec<String>; 2] {
    c.sides().map(|deps| {
        let side = Inference {
            deps: deps.to_vec(),
            ..Inference::default()
        };
        edges(h, &side)
    })
}

#[test]
fn read_modify_write_chains_are_one_side_of_a_pair() {
    // T1 read T0's x = 1 and wrote x = 2, T3 read it; T2 wrote x = 3 blind.
    // Every pair: T0/T2 and T1/T2. Chained: T0, T1 is one run, and its pair
    // with T2 orders T1's version before T2's or T2's before T0's.
    let text = "{:type :ok, :f :txn, :process 0, :value [[:w :x 1]]}
                {:type :ok, :f :txn, :process 1, :value [[:r :x 1] [:w :x 2]]}
                {:type :ok, :f :txn, :process 2, :value [[:w :x 3]]}
                {:type :ok, :f :txn, :process 3, :value [[:r :x 2]]}";
    let h = load(text);
    let every = infer(&h, &InferOptions::default());
    assert!(!every.chained);
    let pairs: Vec<(TxnId, TxnId)> = every.constraints.iter().map(|c| (c.a, c.b)).collect();
    assert_eq!(pairs, [(0, 2), (1, 2)]);
    assert_eq!(
        unchained_constraints(&h, &InferOptions::default()),
        every.constraints
    );
    let chained = infer_chained(&h, &InferOptions::default());
    assert!(chained.chained);
    assert_eq!(chained.deps, every.deps);
    assert_eq!(chained.implied, every.implied);
    let [c] = chained
        .constraints
        .to_vec()
        .try_into()
        .unwrap_or_else(|c| panic!("{c:?}"));
    assert_eq!((c.a, c.b), (0, 2));
    assert!(!c.unread && every.constraints.iter().all(|c| !c.unread));
    assert_eq!(
        sides(&h, &c),
        [
            vec!["T1 ww T2 :x 2->3 @1/0", "T3 rw T2 :x 2->3 @0/0"],
            vec!["T2 ww T0 :x 3->1 @0/0"],
        ]
    );
}

#[test]
fn two_read_modify_writes_of_one_version_are_no_chain() {
    // T1 and T2 both read x = 1 and wrote it (a lost update): neither
    // directly follows T0, so every pair stays.
    let text = "{:type :ok, :f :txn, :process 0, :value [[:w :x 1]]}
                {:type :ok, :f :txn, :process 1, :value [[:r :x 1] [:w :x 2]]}
                {:type :ok, :f :txn, :process 2, :value [[:r :x 1] [:w :x 3]]}";
    let h = load(text);
    let every = infer(&h, &InferOptions::default());
    let chained = infer_chained(&h, &InferOptions::default());
    assert!(!chained.chained);
    assert_eq!(chained.constraints, every.constraints);
}

#[test]
fn pairs_of_writes_nobody_read_are_unread() {
    // x = 1 and x = 2 nobody read: unread. y = 1 is read, y = 2 not: the
    // pair T0/T1 has both keys, so it is not; T2/T3's x pair is.
    let text = "{:type :ok, :f :txn, :process 0, :value [[:w :x 1] [:w :y 1]]}
                {:type :ok, :f :txn, :process 1, :value [[:w :x 2] [:w :y 2]]}
                {:type :ok, :f :txn, :process 2, :value [[:w :z 1]]}
                {:type :ok, :f :txn, :process 3, :value [[:w :z 2]]}
                {:type :ok, :f :txn, :process 4, :value [[:r :y 1]]}";
    let (_, inf) = run(text);
    let unread: Vec<(TxnId, TxnId, bool)> = inf
        .constraints
        .iter()
        .map(|c| (c.a, c.b, c.unread))
        .collect();
    assert_eq!(unread, [(0, 1, false), (2, 3, true)]);
}

// ------------------------------------------------------ repeated written values

#[test]
fn rw_read_of_a_value_two_writers_wrote_is_a_choice() {
    let (h, inf) = run(&oks(&[
        (0, "[[:w :x 1]]"),
        (1, "[[:w :x 1]]"),
        (2, "[[:r :x 1]]"),
    ]));
    no_anomalies(&h, &inf);
    assert_eq!(inf.ambiguous.len(), 1);
    // No certain wr edge: the writer is T0's or T1's.
    assert!(edges(&h, &inf).iter().all(|e| !e.contains(" wr ")));
    let c = &inf.constraints;
    let kinds: Vec<(Kind, TxnId, TxnId)> = c.iter().map(|p| (p.kind, p.a, p.b)).collect();
    assert_eq!(
        kinds,
        [
            (Kind::Order, 0, 1),
            (Kind::ReadFrom, 0, 2),
            (Kind::Guard, 2, 1),
            (Kind::ReadFrom, 1, 2),
            (Kind::Guard, 2, 0),
        ]
    );
    // The read took one of them; each guard's rw edge holds when the
    // reader chose its writer and that writer's version came first.
    assert_eq!(
        c.clauses.iter().collect::<Vec<_>>(),
        [
            &[(1, 1), (0, 1), (2, 0)][..],
            &[(3, 1), (0, 0), (4, 0)],
            &[(1, 0), (3, 0)]
        ]
    );
}

#[test]
fn rw_an_ambiguous_read_names_the_writers_its_choice_is_among() {
    // x = 1 by an :ok, an :info, a :fail transaction, as an intermediate
    // write, and by the reader itself after reading it: the reader chooses
    // between the first two, and reads the same version again before its
    // own write.
    let text = pair(0, "ok", "[[:w :x 1]]")
        + &invoke(1, "[[:w :x 1]]")
        + &pair(2, "fail", "[[:w :x 1]]")
        + &pair(3, "ok", "[[:w :x 1] [:w :x 2]]")
        + &pair(
            4,
            "ok",
            "[[:r :x 1] [:r :y nil] [:r :x 1] [:w :x 1] [:r :x 1]]",
        );
    let (h, inf) = run(&text);
    let reader = (0..h.txns.len() as TxnId)
        .find(|&t| h.txns[t as usize].process == 4)
        .expect("the reader");
    let info = (0..h.txns.len() as TxnId)
        .find(|&t| h.txns[t as usize].process == 1)
        .expect("the :info writer");
    let start = h.txns[reader as usize].mops.start;
    let read = AmbiguousRead {
        txn: reader,
        mop: start,
        rereads: vec![start + 2],
        writers: vec![0, info],
    };
    assert_eq!(inf.ambiguous, [read]);
    assert!(inf.in_graph[info as usize]);
}

#[test]
fn rw_read_of_a_repeated_value_only_one_writer_could_give_is_certain() {
    let text = pair(0, "ok", "[[:w :x 1]]")
        + &pair(1, "fail", "[[:w :x 1]]")
        + &pair(2, "ok", "[[:w :x 1] [:w :x 2]]")
        + &pair(3, "ok", "[[:r :x 1]]");
    let (h, inf) = run(&text);
    no_anomalies(&h, &inf);
    assert_eq!(inf.ambiguous.len(), 0);
    assert!(edges(&h, &inf).contains(&"T0 wr T3 :x 1 @0/0".to_string()));
}

#[test]
fn rw_read_no_writer_of_a_repeated_value_could_give_is_g1b_before_g1a() {
    let text = pair(0, "fail", "[[:w :x 1]]")
        + &pair(1, "ok", "[[:w :x 1] [:w :x 2]]")
        + &pair(2, "ok", "[[:r :x 1]]");
    let (h, inf) = run(&text);
    assert_eq!(inf.ambiguous.len(), 0);
    assert_eq!(anomalies(&h, &inf), ["G1b T2 [:r :x 1] writer T1"]);
    let aborted = pair(0, "fail", "[[:w :x 1]]")
        + &pair(1, "fail", "[[:w :x 1]]")
        + &pair(2, "ok", "[[:r :x 1]]");
    let (h, inf) = run(&aborted);
    assert_eq!(anomalies(&h, &inf), ["G1a T2 [:r :x 1] writer T0"]);
}

#[test]
fn rw_indeterminate_writers_a_choice_may_name_join_the_graph() {
    let text =
        invoke(0, "[[:w :x 1]]") + &pair(1, "ok", "[[:w :x 1]]") + &pair(2, "ok", "[[:r :x 1]]");
    let (_, inf) = run(&text);
    assert_eq!(inf.ambiguous.len(), 1);
    assert_eq!(inf.in_graph, [true, true, true]);
}

#[test]
fn rw_read_of_its_own_repeated_write_reads_the_earlier_one() {
    // Writing 1 again later is no future read of it.
    let (h, inf) = run(&oks(&[(0, "[[:w :x 1] [:r :x 1] [:w :x 1]]")]));
    no_anomalies(&h, &inf);
    assert_eq!(inf.ambiguous.len(), 0);
}

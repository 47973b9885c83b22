//! The axiomatic levels (`check::weak`: read atomic and causal consistency)
//! against a brute-force checker written straight from Biswas and Enea's
//! definitions — some total commit order, tried in every order, contains
//! session order and reads-from and makes every read return the
//! commit-latest write the reader sees — on thousands of small random
//! register and list-append histories; every model name the command line
//! knows against a brute force of its definition (Adya's by every version
//! order, the axiomatic ones by every commit order) or, for a name not
//! checked, never `:valid? true`; and every model name's answer on a known
//! violation: never `:valid? true`.

#[path = "weak_models/adya.rs"]
mod adya;
mod common;

use common::Rng;
use isocheck::check::lattice::Definition;
use isocheck::check::weak::{self, Level};
use isocheck::check::{self, lattice, CheckOptions, Validity};
use isocheck::history::{self, parse_edn, LoadOptions};
use proptest::prelude::*;

/// One micro-op: a read of a key (the values seen, at most one for a
/// register) or a write of a value.
#[derive(Clone, Debug)]
enum Mop {
    Read(u64, Vec<u64>),
    Write(u64, u64),
}

#[derive(Clone, Debug)]
struct Txn {
    session: u64,
    mops: Vec<Mop>,
}

const KEYS: u64 = 2;

/// A random history: 2 to 6 transactions in up to 3 sessions over two keys;
/// each writes a key at most once (values unique per key) and reads it
/// before, seeing other transactions' writes (any of them, in any order for
/// a list) or the initial version; some read a key they do not write once
/// more at the end.
fn random_history(seed: u64, lists: bool) -> Vec<Txn> {
    let mut r = Rng(seed | 1);
    let n = 2 + r.below(5);
    let sessions = 1 + r.below(3);
    let writes: Vec<Vec<bool>> = (0..n)
        .map(|t| {
            (0..KEYS)
                .map(|k| (t == 0 && k == 0) || r.below(2) == 0)
                .collect()
        })
        .collect();
    (0..n)
        .map(|t| {
            let read = |r: &mut Rng, k: u64| {
                let mut others: Vec<u64> = (0..n)
                    .filter(|&o| o != t && writes[o as usize][k as usize])
                    .map(value)
                    .collect();
                shuffle(r, &mut others);
                let len = r.below(others.len() as u64 + 1) as usize;
                others.truncate(if lists { len } else { len.min(1) });
                Mop::Read(k, others)
            };
            let mut mops = Vec::new();
            for k in 0..KEYS {
                if r.below(3) > 0 {
                    mops.push(read(&mut r, k));
                }
                if writes[t as usize][k as usize] {
                    mops.push(Mop::Write(k, value(t)));
                }
            }
            let again = r.below(KEYS);
            if r.below(3) == 0 && !writes[t as usize][again as usize] {
                mops.push(read(&mut r, again));
            }
            Txn {
                session: r.below(sessions),
                mops,
            }
        })
        .collect()
}

/// Session order and reads-from.
fn session_and_reads_from(txns: &[Txn]) -> (Rel, Rel) {
    let n = txns.len();
    let mut so = vec![vec![false; n]; n];
    let mut wr = vec![vec![false; n]; n];
    for (b, t) in txns.iter().enumerate() {
        for a in 0..b {
            so[a][b] = txns[a].session == t.session;
        }
        for m in &t.mops {
            if let Mop::Read(_, vs) = m {
                for &v in vs {
                    wr[writer(v)][b] = true;
                }
            }
        }
    }
    (so, wr)
}

/// The least visibility (`vis[a][b]`: b sees a) satisfying the level's
/// axioms: it contains `wr` (Cerone et al.'s atomic visibility), `so` for
/// read your writes (read atomic), PRAM and causal consistency, and is
/// closed under `vis ; so ⊆ vis` for monotonic reads (and PRAM), `so ; vis
/// ⊆ vis` for monotonic writes (and PRAM), `vis ; vis ⊆ vis` for causal
/// consistency, and for writes follow reads under Terry et al.'s rule: when
/// `a` read `T`'s write and `b` is `a` or later in `a`'s session, whoever
/// sees `b` sees `T`. (Read committed sees per read: see [`read_sees`].)
fn visibility(so: &Rel, wr: &Rel, level: Level) -> Rel {
    let n = so.len();
    let with_so = matches!(level, Level::ReadAtomic | Level::Pram | Level::Causal);
    let mut vis: Rel = (0..n)
        .map(|a| (0..n).map(|b| wr[a][b] || (with_so && so[a][b])).collect())
        .collect();
    let reads_on = matches!(level, Level::MonotonicReads | Level::Pram);
    let writes_on = matches!(level, Level::MonotonicWrites | Level::Pram);
    let transitive = level == Level::Causal;
    let follows = level == Level::WritesFollowReads;
    loop {
        let mut changed = false;
        for a in 0..n {
            for b in 0..n {
                if vis[a][b] {
                    continue;
                }
                let through = |c: usize| {
                    (reads_on && vis[a][c] && so[c][b])
                        || (writes_on && so[a][c] && vis[c][b])
                        || (transitive && vis[a][c] && vis[c][b])
                        || (follows
                            && wr[a][c]
                            && (0..n).any(|d| (d == c || so[c][d]) && vis[d][b]))
                };
                if (0..n).any(through) {
                    vis[a][b] = true;
                    changed = true;
                }
            }
        }
        if !changed {
            return vis;
        }
    }
}

/// The value transaction `t` writes (to any key).
fn value(t: u64) -> u64 {
    t + 1
}

fn writer(v: u64) -> usize {
    v as usize - 1
}

fn shuffle(r: &mut Rng, xs: &mut [u64]) {
    for i in (1..xs.len()).rev() {
        xs.swap(i, r.below(i as u64 + 1) as usize);
    }
}

fn edn(txns: &[Txn], lists: bool) -> String {
    let mut text = String::new();
    for (i, t) in txns.iter().enumerate() {
        let mops = |complete: bool| -> String {
            let ms: Vec<String> = t
                .mops
                .iter()
                .map(|m| match m {
                    Mop::Write(k, v) if lists => format!("[:append {k} {v}]"),
                    Mop::Write(k, v) => format!("[:w {k} {v}]"),
                    Mop::Read(k, _) if !complete => format!("[:r {k} nil]"),
                    Mop::Read(k, vs) if lists => {
                        let vs: Vec<String> = vs.iter().map(u64::to_string).collect();
                        format!("[:r {k} [{}]]", vs.join(" "))
                    }
                    Mop::Read(k, vs) => match vs.first() {
                        Some(v) => format!("[:r {k} {v}]"),
                        None => format!("[:r {k} nil]"),
                    },
                })
                .collect();
            format!("[{}]", ms.join(" "))
        };
        for (j, (ty, complete)) in [("invoke", false), ("ok", true)].into_iter().enumerate() {
            text.push_str(&format!(
                "{{:type :{ty}, :f :txn, :value {}, :process {}, :index {}}}\n",
                mops(complete),
                t.session,
                2 * i + j
            ));
        }
    }
    text
}

/// `rel[a][b]`: a relation over transactions.
type Rel = Vec<Vec<bool>>;

/// Whether `txns` satisfies `level`, by trying every commit order.
fn brute_force(txns: &[Txn], lists: bool, level: Level) -> bool {
    let n = txns.len();
    let (so, wr) = session_and_reads_from(txns);
    let direct: Rel = (0..n)
        .map(|a| (0..n).map(|b| so[a][b] || wr[a][b]).collect())
        .collect();
    let sees = visibility(&so, &wr, level);
    let writes = |t: usize, k: u64| {
        txns[t]
            .mops
            .iter()
            .any(|m| matches!(m, Mop::Write(j, _) if *j == k))
    };
    permutations(n).into_iter().any(|order| {
        let mut pos = vec![0; n];
        for (i, &t) in order.iter().enumerate() {
            pos[t] = i;
        }
        let before = |a: usize, b: usize| pos[a] < pos[b];
        let contains = (0..n).all(|a| (0..n).all(|b| !direct[a][b] || a == b || before(a, b)));
        contains
            && txns.iter().enumerate().all(|(t, txn)| {
                txn.mops.iter().enumerate().all(|(i, m)| {
                    let Mop::Read(k, vs) = m else { return true };
                    let visible = |w: usize| match level {
                        Level::ReadCommitted => read_sees(txn, i, w),
                        _ => sees[w][t],
                    };
                    let seen = (0..n).filter(|&w| w != t && visible(w) && writes(w, *k));
                    if lists {
                        let listed = vs.windows(2).all(|p| before(writer(p[0]), writer(p[1])));
                        listed && seen.clone().all(|w| vs.contains(&value(w as u64)))
                    } else {
                        match vs.first() {
                            None => seen.count() == 0,
                            Some(&v) => seen
                                .filter(|&w| w != writer(v))
                                .all(|w| before(w, writer(v))),
                        }
                    }
                })
            })
    })
}

/// Biswas and Enea's read committed: the `i`th micro-op of `txn` sees the
/// writers its earlier reads read from (`wr ; po`).
fn read_sees(txn: &Txn, i: usize, w: usize) -> bool {
    txn.mops[..i]
        .iter()
        .any(|m| matches!(m, Mop::Read(_, vs) if vs.contains(&value(w as u64))))
}

fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    let mut all = Vec::new();
    for p in permutations(n - 1) {
        for i in 0..=p.len() {
            let mut q = p.clone();
            q.insert(i, n - 1);
            all.push(q);
        }
    }
    all
}

fn holds(text: &str, level: Level) -> bool {
    let h = parse_edn("random.edn", text).expect("a valid history");
    weak::check(&h, &[level]).is_empty()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn saturation_equals_brute_force(seed in any::<u64>(), lists in any::<bool>()) {
        let txns = random_history(seed, lists);
        let text = edn(&txns, lists);
        for level in Level::ALL {
            prop_assert_eq!(
                holds(&text, level),
                brute_force(&txns, lists, level),
                "{:?}\n{}", level, text
            );
        }
    }
}

/// A model's answer: `true`, or `false` with the anomalies prohibited,
/// through the whole check (the lattice's closure included).
fn answer(h: &history::History, model: &str) -> (bool, bool) {
    let opts = CheckOptions {
        consistency_models: Some(vec![model.to_string()]),
        ..CheckOptions::default()
    };
    let a = check::analyze(h, &opts).expect("a known model");
    let v = check::verdict::verdict(&a);
    // Elle answers unknown when no transaction depends on another: every
    // order is then fine.
    let empty = v.anomaly_types().eq(["empty-transaction-graph"]);
    let inferred = a.anomalies.iter().any(|x| a.prohibited.contains(x.name()));
    (v.valid == Validity::True || empty, inferred)
}

/// The names `isocheck check --help` lists: exactly the lattice's, which
/// the property below goes through.
#[test]
fn help_lists_every_known_model() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_isocheck"))
        .args(["check", "--help"])
        .output()
        .expect("isocheck runs");
    let help = String::from_utf8(out.stdout).expect("UTF-8 help");
    let listed = help
        .split("Known models: ")
        .nth(1)
        .expect("--help lists the models");
    let listed: String = listed.split("\n\n").next().unwrap_or_default().into();
    let names: Vec<&str> = listed.split(',').map(str::trim).collect();
    assert_eq!(names, lattice::known_models());
}

/// How many version-order combinations the Adya brute force may try.
const ORDERS: usize = 2_000;

fn orders(txns: &[Txn]) -> usize {
    (0..KEYS)
        .map(|k| {
            let writers = txns
                .iter()
                .filter(|t| {
                    t.mops
                        .iter()
                        .any(|m| matches!(m, Mop::Write(j, _) if *j == k))
                })
                .count();
            (1..=writers).product::<usize>()
        })
        .product()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Every name `--help` lists (`lattice::known_models`, the list the
    /// command line reports): an axiomatic model's answer is its level's
    /// brute force, less the anomalies inference finds that it prohibits
    /// (two list reads that are not prefixes of one another are not one of
    /// them); an Adya model's is the brute force over every version order
    /// (registers); a model not checked never answers `true`.
    #[test]
    fn every_model_name_answers_by_its_definition(seed in any::<u64>(), lists in any::<bool>()) {
        let txns = random_history(seed, lists);
        let text = edn(&txns, lists);
        let h = parse_edn("random.edn", &text).expect("a valid history");
        let adya = !lists && orders(&txns) <= ORDERS;
        for model in lattice::known_models() {
            let (valid, inferred) = answer(&h, model);
            let canonical = lattice::canonical_model(model).expect("a known model");
            match lattice::definition(model).expect("a known model") {
                Definition::NotChecked(_) => prop_assert!(!valid, "{}\n{}", model, text),
                Definition::Axiomatic(level) => {
                    let holds = brute_force(&txns, lists, level);
                    prop_assert_eq!(valid, holds && !inferred, "{}\n{}", model, text);
                }
                Definition::Adya if adya => {
                    let graph = adya::graph(canonical).expect("every Adya model has a graph");
                    let holds = adya::holds(&txns, graph);
                    prop_assert_eq!(valid, holds && !inferred, "{}\n{}", model, text);
                }
                Definition::Adya => {}
            }
        }
    }
}

/// A history violating every model of the lattice: two lists show two
/// transactions' appends in opposite orders, a write cycle (G0, so not read
/// uncommitted, nor read atomic).
const VIOLATES_ALL: &str = "\
{:type :invoke, :f :txn, :value [[:append :x 1] [:append :y 1]], :process 0, :index 0}
{:type :ok, :f :txn, :value [[:append :x 1] [:append :y 1]], :process 0, :index 1}
{:type :invoke, :f :txn, :value [[:append :x 2] [:append :y 2]], :process 1, :index 2}
{:type :ok, :f :txn, :value [[:append :x 2] [:append :y 2]], :process 1, :index 3}
{:type :invoke, :f :txn, :value [[:r :x nil] [:r :y nil]], :process 2, :index 4}
{:type :ok, :f :txn, :value [[:r :x [1 2]] [:r :y [2 1]]], :process 2, :index 5}
";

#[test]
fn no_model_accepts_a_known_violation() {
    let h = parse_edn("violation.edn", VIOLATES_ALL).expect("a valid history");
    for model in lattice::known_models() {
        let opts = CheckOptions {
            consistency_models: Some(vec![model.to_string()]),
            ..CheckOptions::default()
        };
        let a = check::analyze(&h, &opts).expect("a known model");
        let v = check::verdict::verdict(&a);
        assert_ne!(v.valid, Validity::True, "{model}: {v:?}");
    }
}

/// Every row of `fixtures/weak/expected.tsv`: file, model, `:valid?` and
/// the anomaly types.
#[test]
fn weak_fixtures_have_their_expected_answers() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/weak");
    let table = std::fs::read_to_string(dir.join("expected.tsv")).expect("expected.tsv");
    let mut rows = 0;
    for line in table.lines().filter(|l| !l.starts_with('#')) {
        let c: Vec<&str> = line.split('\t').collect();
        let h = history::load(&dir.join(c[0]), &LoadOptions::default()).expect("loads");
        let opts = CheckOptions {
            consistency_models: Some(vec![c[1].to_string()]),
            ..CheckOptions::default()
        };
        let a = check::analyze(&h, &opts).expect("a known model");
        let v = check::verdict::verdict(&a);
        let types: Vec<&str> = v.anomaly_types().collect();
        assert_eq!(
            (v.valid.name(), types.join(",")),
            (c[2], c[3].to_string()),
            "{line}"
        );
        rows += 1;
    }
    assert_eq!(rows, 23 * 11);
}

/// The reports of a missed write, a cycle and a model not checked, in the
/// three formats; the EDN parses and agrees with the JSON on `:valid?`.
#[test]
fn weak_reports() {
    // Relative, as the reports name the file (tests run in the crate's root).
    let dir = std::path::Path::new("fixtures/weak");
    for (file, model) in [
        ("causality-violation.edn", "causal"),
        ("session-stale-read.edn", "read-atomic"),
        ("long-fork.edn", "prefix"),
        ("pram.edn", "PRAM"),
        ("monotonic-reads.edn", "monotonic-reads"),
    ] {
        let h = history::load(&dir.join(file), &LoadOptions::default()).expect("loads");
        let opts = CheckOptions {
            consistency_models: Some(vec![model.to_string()]),
            ..CheckOptions::default()
        };
        let o = isocheck::check(&h, &opts).expect("a known model");
        let (edn, json) = (o.edn(&h), o.json(&h));
        let forms = isocheck::history::edn::read_all(&edn).expect("the EDN parses");
        let valid = forms[0].get("valid?").expect(":valid?").canonical();
        let j: serde_json::Value = serde_json::from_str(&json).expect("the JSON parses");
        assert_eq!(
            j["valid?"].to_string().trim_matches('"'),
            valid.trim_start_matches(':')
        );
        let name = format!("weak-{}-{model}", file.trim_end_matches(".edn"));
        insta::assert_snapshot!(format!("{name}.human"), o.human(&h, false));
        insta::assert_snapshot!(format!("{name}.edn"), edn);
        insta::assert_snapshot!(format!("{name}.json"), json);
    }
}

/// Generated histories: a snapshot-isolated or serializable database is
/// causally consistent (its sessions see their own commits), also with a
/// long fork or a write skew forced in; a forced causality violation or
/// stale session read is not.
#[test]
fn generated_databases_against_causal_consistency() {
    use isocheck::gen::{self, Distribution, Fault, Kind, Level as DbLevel, Params, Shape};
    for seed in 0..300u64 {
        let mut r = Rng(seed * 2654435761 + 1);
        let kind = [Kind::ListAppend, Kind::RwRegister][r.below(2) as usize];
        let level = [DbLevel::Serializable, DbLevel::SnapshotIsolation][r.below(2) as usize];
        let fault = [
            None,
            Some(Fault::LongFork),
            Some(Fault::WriteSkew),
            Some(Fault::Causality),
            Some(Fault::StaleSessionRead),
        ][r.below(5) as usize];
        let p = Params {
            seed,
            processes: 2 + r.below(4),
            txns: 4 + r.below(40),
            max_bytes: u64::MAX,
            shape: Shape {
                kind,
                min_ops: 1,
                max_ops: 1 + r.below(4),
                read_ratio: 0.5,
                blind_writes: 0.0,
                distribution: Distribution::Uniform,
                keys: 1 + r.below(5),
                max_writes_per_key: 2 + r.below(8),
            },
            level,
            fault,
            fail_rate: 0.1,
            info_rate: 0.1,
        };
        let text = gen::to_string(&p).expect("valid parameters");
        let h = parse_edn("generated.edn", &text).expect("a valid history");
        let found: Vec<&str> = weak::check(&h, &Level::ALL)
            .iter()
            .map(|v| v.name())
            .collect();
        let rejected = matches!(fault, Some(Fault::Causality | Fault::StaleSessionRead));
        assert_eq!(!found.is_empty(), rejected, "{fault:?} {found:?}\n{text}");
    }
}

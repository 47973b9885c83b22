//! The generator against the checker, over hundreds of small seeded
//! histories (thousands in the nightly run): a history from a database at a
//! level is accepted for the level's model and every weaker one (Elle's
//! lattice); a forced fault is
//! rejected by every model that forbids it, with the anomaly Elle would name;
//! renaming keys and values or permuting processes changes no verdict.

mod common;

use isocheck::history::{commit_order, parse_edn, History};
use isocheck::internals::check::{self, lattice, CheckOptions, Validity};
use isocheck_gen::rng::Rng;
use isocheck_gen::{self as gen, Distribution, Fault, Kind, Level, Params, Shape, TimestampFault};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use proptest::test_runner::TestCaseError;
use std::collections::BTreeSet;

const KINDS: [Kind; 3] = [Kind::ListAppend, Kind::RwRegister, Kind::MiniTransactions];
const LEVELS: [Level; 5] = [
    Level::StrictSerializable,
    Level::Serializable,
    Level::SnapshotIsolation,
    Level::ReadCommitted,
    Level::ReadUncommitted,
];
const FAULTS: [Fault; 8] = [
    Fault::LostUpdate,
    Fault::WriteSkew,
    Fault::LongFork,
    Fault::Causality,
    Fault::AbortedRead,
    Fault::IntermediateRead,
    Fault::StaleSessionRead,
    Fault::Realtime,
];
const TIMESTAMP_FAULTS: [TimestampFault; 4] = [
    TimestampFault::StartAfterCommit,
    TimestampFault::StaleStart,
    TimestampFault::CommitSkew,
    TimestampFault::CommitOutOfOrder,
];
const DISTRIBUTIONS: [Distribution; 3] = [
    Distribution::Uniform,
    Distribution::Zipfian,
    Distribution::Hotspot,
];

/// A small random run; `knobs` are drawn by proptest.
fn params(seed: u64, kind: Kind, level: Level, fault: Option<Fault>) -> Params {
    let mut r = Rng::new(seed);
    let min_ops = 1 + r.below(3);
    Params {
        seed,
        processes: 2 + r.below(4),
        txns: 4 + r.below(30),
        max_bytes: u64::MAX,
        shape: Shape {
            kind,
            min_ops,
            // Mini-transactions have at most four micro-ops.
            max_ops: (min_ops + r.below(4)).min(match kind {
                Kind::MiniTransactions => 4,
                _ => u64::MAX,
            }),
            read_ratio: [0.2, 0.5, 0.8][r.below(3) as usize],
            blind_writes: if kind == Kind::RwRegister && r.chance(0.3) {
                0.3
            } else {
                0.0
            },
            duplicate_values: 0.0,
            distribution: DISTRIBUTIONS[r.below(3) as usize],
            keys: 1 + r.below(6),
            max_writes_per_key: 2 + r.below(8),
        },
        level,
        fault,
        fail_rate: [0.0, 0.1][r.below(2) as usize],
        info_rate: if unclean_crashes(kind, level) {
            0.0
        } else {
            [0.0, 0.1][r.below(2) as usize]
        },
        timestamps: false,
        timestamp_fault: None,
    }
}

/// Elle's list-append inference orders an append nobody read after the last
/// element read. At read-uncommitted, a crashed (`:info`) transaction that
/// did not commit may have had some appends read dirty and others never:
/// the inferred order then runs into it and out of it, and closes a G0 cycle
/// through it (e.g. `gen list-append --level read-uncommitted --txns 2000
/// --seed 7 --info-rate 0.05 --fail-rate 0.05 --processes 8 --keys 6 --ops
/// 1-6`). Elle would report the same; the inference is only sound for clean
/// histories, so those runs have no crashes here.
fn unclean_crashes(kind: Kind, level: Level) -> bool {
    kind == Kind::ListAppend && level == Level::ReadUncommitted
}

fn history(p: &Params) -> (String, History) {
    let text = gen::to_string(p).expect("valid parameters");
    let h = parse_edn("generated.edn", &text).unwrap_or_else(|e| panic!("{e:?}\n{text}"));
    (text, h)
}

/// A small closed-predicate history from the simulated database at
/// `level`.
fn closed_predicate(seed: u64, level: Level) -> (String, History) {
    let p = gen::predicate::Params {
        seed,
        processes: 4,
        keys: 24,
        txns: u64::MAX,
        level,
        fail_rate: 0.03,
        info_rate: 0.03,
    };
    let mut out = Vec::new();
    gen::predicate::write(&mut out, &p).expect("valid parameters");
    let text = String::from_utf8(out).expect("utf-8");
    let h = parse_edn("generated.edn", &text).unwrap_or_else(|e| panic!("{e:?}\n{text}"));
    (text, h)
}

/// Histories of `gen closed-predicate` at a level weaker than
/// serializability are not all serializable: the property above is not
/// vacuous (measured: of 100 seeds at snapshot isolation, 24 keys and 4
/// processes, 99 invalid).
#[test]
fn closed_predicate_histories_at_weak_levels_violate_serializability() {
    let invalid = (0..100u64)
        .filter(|&seed| {
            let (_, h) = closed_predicate(seed, Level::SnapshotIsolation);
            verdict(&h, "serializable").0 == Validity::False
        })
        .count();
    println!("{invalid} of 100 invalid");
    assert!(invalid >= 10, "{invalid} of 100 invalid");
}

/// `:valid?` and `:anomaly-types` for one model.
fn verdict(h: &History, model: &str) -> (Validity, Vec<&'static str>) {
    verdict_with(h, model, false)
}

/// [`verdict`], also checking the reads against the ops' timestamps.
fn verdict_with(h: &History, model: &str, check_timestamps: bool) -> (Validity, Vec<&'static str>) {
    let opts = CheckOptions {
        consistency_models: Some(vec![model.to_string()]),
        check_timestamps,
        ..CheckOptions::default()
    };
    let a = check::analyze(h, &opts).expect("known model");
    let v = check::verdict::verdict(&a);
    (v.valid, v.anomaly_types().collect())
}

/// The models `claims` imply, one per distinct set of prohibited anomalies
/// (models prohibiting the same anomalies get the same verdict), leaving out
/// those that prohibit nothing.
fn implied_models(claims: &[&str]) -> Vec<&'static str> {
    let mut seen = BTreeSet::new();
    let mut models: Vec<&'static str> = lattice::all_implied_models(claims.iter().copied())
        .into_iter()
        .filter_map(lattice::canonical_model)
        .collect();
    models.sort();
    models.dedup();
    models.retain(|m| {
        let prohibited = lattice::anomalies_prohibited_by([*m]);
        !prohibited.is_empty() && seen.insert(prohibited)
    });
    models
}

/// Valid, or unknown only because nothing depended on anything or the
/// model is not checked.
fn accepted((valid, types): &(Validity, Vec<&str>)) -> bool {
    *valid == Validity::True || (*valid == Validity::Unknown && types.iter().all(|t| undecided(t)))
}

/// A type that says why a verdict is unknown, not what is wrong.
fn undecided(anomaly_type: &str) -> bool {
    ["empty-transaction-graph", lattice::MODEL_NOT_CHECKED].contains(&anomaly_type)
}

fn assert_accepted(h: &History, text: &str, models: &[&str], what: &str) {
    for m in models {
        let v = verdict(h, m);
        assert!(accepted(&v), "{what}: {m} rejected it: {v:?}\n{text}");
    }
}

/// Models that forbid the fault, each with the anomaly the checker names
/// (a reported anomaly that implies it will do: the cycle search skips
/// types a worse one found already implies).
fn forbidding(fault: Fault) -> &'static [(&'static str, &'static str)] {
    match fault {
        Fault::LostUpdate => &[
            ("snapshot-isolation", "lost-update"),
            ("repeatable-read", "lost-update"),
            ("cursor-stability", "lost-update"),
            ("update-atomic", "lost-update"),
        ],
        Fault::WriteSkew => &[("serializable", "G2-item"), ("repeatable-read", "G2-item")],
        Fault::LongFork => &[
            ("snapshot-isolation", "G-nonadjacent-item"),
            ("serializable", "G-nonadjacent-item"),
        ],
        Fault::Causality => &[
            ("snapshot-isolation", "G-single-item"),
            ("consistent-view", "G-single-item"),
        ],
        Fault::AbortedRead => &[("read-committed", "G1a"), ("read-atomic", "G1a")],
        Fault::IntermediateRead => &[("read-committed", "G1b")],
        Fault::StaleSessionRead => &[
            ("strong-session-snapshot-isolation", "G-single-item-process"),
            ("strong-session-serializable", "G-single-item-process"),
            ("strict-serializable", "G-single-item-realtime"),
        ],
        Fault::Realtime => &[
            ("strong-snapshot-isolation", "G-single-item-realtime"),
            ("strict-serializable", "G-single-item-realtime"),
        ],
    }
}

/// The strongest models the fault leaves standing (the history must still
/// satisfy those its background level also gives).
fn tolerating(fault: Fault, kind: Kind, level: Level) -> &'static [&'static str] {
    match fault {
        // Snapshot isolation without the write-write check lets a list-append
        // read of a transaction's own appends disagree with the list that
        // ends up committed (incompatible-order), so only registers keep
        // read-committed.
        Fault::LostUpdate if kind == Kind::ListAppend && level == Level::SnapshotIsolation => &[],
        Fault::LostUpdate => &["strong-read-committed"],
        Fault::WriteSkew => &["strong-snapshot-isolation"],
        Fault::LongFork => &["strong-read-committed", "parallel-snapshot-isolation"],
        Fault::Causality => &["strong-read-committed", "read-atomic"],
        Fault::AbortedRead | Fault::IntermediateRead => &["strong-read-uncommitted"],
        Fault::StaleSessionRead => &["serializable", "snapshot-isolation"],
        Fault::Realtime => &["strong-session-serializable"],
    }
}

/// A small rw-register run whose `:ok` transactions carry the database's
/// timestamps (`gen --timestamps`).
fn stamped_history(seed: u64, level: Level, fault: Option<Fault>) -> (String, History) {
    let mut p = params(seed, Kind::RwRegister, level, fault);
    p.timestamps = true;
    history(&p)
}

/// The timestamp anomalies `--check-timestamps` at `level`'s model must
/// report for a lie: the start timestamp is judged under snapshot
/// isolation, the commit timestamp under serializability.
fn shown(fault: TimestampFault, level: Level) -> &'static [&'static str] {
    let snapshot = level == Level::SnapshotIsolation;
    match fault {
        TimestampFault::StartAfterCommit => &["timestamp-inverted"],
        TimestampFault::StaleStart => &["timestamp-snapshot-read"],
        TimestampFault::CommitSkew if snapshot => &["timestamp-snapshot-read"],
        TimestampFault::CommitSkew => &["timestamp-serial-read"],
        TimestampFault::CommitOutOfOrder if snapshot => {
            &["timestamp-lost-update", "timestamp-snapshot-read"]
        }
        TimestampFault::CommitOutOfOrder => &["timestamp-serial-read"],
    }
}

/// Every model forbidding `fault` rejects `h`, naming the fault's anomaly
/// (also with the ops' timestamps checked).
fn rejected_by_forbidding(
    h: &History,
    text: &str,
    what: &str,
    fault: Fault,
    check_timestamps: bool,
) -> Result<(), TestCaseError> {
    for &(model, expected) in forbidding(fault) {
        let (valid, found) = verdict_with(h, model, check_timestamps);
        prop_assert_eq!(
            valid,
            Validity::False,
            "{}: {} accepted it\n{}",
            what,
            model,
            text
        );
        prop_assert!(
            expected_present(&found, expected),
            "{}: {} found {:?}, not {}\n{}",
            what,
            model,
            found,
            expected,
            text
        );
    }
    Ok(())
}

/// The models `level`'s database satisfies that tolerate `fault` accept `h`.
fn accepted_by_tolerating(
    h: &History,
    text: &str,
    what: &str,
    fault: Fault,
    kind: Kind,
    level: Level,
) {
    let (strongest, _) = level.models();
    let level_models: BTreeSet<_> = implied_models(&[strongest]).into_iter().collect();
    let standing: Vec<_> = implied_models(tolerating(fault, kind, level))
        .into_iter()
        .filter(|m| level_models.contains(m))
        .collect();
    assert_accepted(h, text, &standing, what);
}

fn expected_present(found: &[&str], expected: &str) -> bool {
    found
        .iter()
        .any(|t| lattice::all_implied_anomalies([*t]).contains(expected))
}

proptest! {
    // A fixed seed: the same histories on every run, hundreds in `cargo
    // test`, more in the nightly run (`common::cases`).
    #![proptest_config(ProptestConfig {
        cases: common::cases(300, 10_000),
        rng_seed: RngSeed::Fixed(20240605),
        ..ProptestConfig::default()
    })]

    #[test]
    fn a_database_satisfies_its_level_and_every_weaker_model(
        seed in any::<u64>(),
        kind in 0..3usize,
        level in 0..5usize,
    ) {
        let (kind, level) = (KINDS[kind], LEVELS[level]);
        let (text, h) = history(&params(seed, kind, level, None));
        let (strongest, named) = level.models();
        let models = implied_models(&[strongest, named]);
        assert_accepted(&h, &text, &models, &format!("{kind:?} at {level:?}, seed {seed}"));
    }

    /// Elle's closed-predicate workload on the simulated database
    /// (`gen closed-predicate`): each level's history holds for the
    /// level's models and every weaker one, predicate dependencies
    /// included; its axiomatic models are not decided on these histories.
    #[test]
    fn a_closed_predicate_database_satisfies_its_level(seed in any::<u64>(), level in 0..5usize) {
        let level = LEVELS[level];
        let (text, h) = closed_predicate(seed, level);
        let (strongest, named) = level.models();
        let models = implied_models(&[strongest, named]);
        let what = format!("closed-predicate at {level:?}, seed {seed}");
        assert_accepted(&h, &text, &models, &what);
    }

    #[test]
    fn a_forced_fault_is_rejected_with_its_anomaly(
        seed in any::<u64>(),
        kind in 0..3usize,
        level in 0..5usize,
        fault in 0..8usize,
    ) {
        let (kind, level, fault) = (KINDS[kind], LEVELS[level], FAULTS[fault]);
        let (text, h) = history(&params(seed, kind, level, Some(fault)));
        let what = format!("{kind:?} at {level:?} with {fault:?}, seed {seed}");
        rejected_by_forbidding(&h, &text, &what, fault, false)?;
        accepted_by_tolerating(&h, &text, &what, fault, kind, level);
    }

    /// The database's own commit order (`gen --timestamps`, checked with
    /// `--transaction-order timestamps`) is knowledge the black box lacks,
    /// and true: with it, a database at a level still satisfies the level's
    /// models, and a forced fault is still rejected, with its anomaly, by
    /// every model forbidding it and accepted by those tolerating it.
    #[test]
    fn the_reported_commit_order_agrees_with_the_black_box(
        seed in any::<u64>(),
        level in 0..5usize,
        fault in 0..9usize,
    ) {
        let (level, fault) = (LEVELS[level], FAULTS.get(fault).copied());
        let (text, mut h) = stamped_history(seed, level, fault);
        // A run with no committed transaction reports no order.
        if let Ok(order) = commit_order::from_timestamps(&h) {
            h.commit_order = order;
        }
        let what = format!("rw-register at {level:?} with {fault:?} and its timestamps, seed {seed}");
        let (strongest, named) = level.models();
        let level_models = implied_models(&[strongest, named]);
        let Some(fault) = fault else {
            assert_accepted(&h, &text, &level_models, &what);
            return Ok(());
        };
        rejected_by_forbidding(&h, &text, &what, fault, false)?;
        accepted_by_tolerating(&h, &text, &what, fault, Kind::RwRegister, level);
    }

    /// `--check-timestamps` on a database's own timestamps: at its level
    /// they contradict no read; a snapshot-isolated database that lets a
    /// lost update through or forks a snapshot shows it in them too; and
    /// every model forbidding a fault still rejects it.
    #[test]
    fn a_database_s_timestamps_hold_and_its_faults_show_in_them(
        seed in any::<u64>(),
        level in 0..5usize,
        fault in 0..9usize,
    ) {
        let (level, fault) = (LEVELS[level], FAULTS.get(fault).copied());
        let (text, h) = stamped_history(seed, level, fault);
        let what = format!("rw-register at {level:?} with {fault:?}, timestamps checked, seed {seed}");
        let (strongest, named) = level.models();
        let Some(fault) = fault else {
            for m in implied_models(&[strongest, named]) {
                let v = verdict_with(&h, m, true);
                prop_assert!(accepted(&v), "{}: {} rejected it: {:?}\n{}", what, m, v, text);
            }
            return Ok(());
        };
        rejected_by_forbidding(&h, &text, &what, fault, true)?;
        let shown = match fault {
            Fault::LostUpdate => Some("timestamp-lost-update"),
            Fault::LongFork => Some("timestamp-snapshot-read"),
            _ => None,
        };
        if let (Level::SnapshotIsolation, Some(shown)) = (level, shown) {
            let (_, found) = verdict_with(&h, "snapshot-isolation", true);
            prop_assert!(found.contains(&shown), "{}: found {:?}, not {}\n{}", what, found, shown, text);
        }
    }

    /// A database whose isolation is right but whose timestamps lie (`gen
    /// --timestamp-fault`): the black box accepts the history at every
    /// model of the level, and `--check-timestamps` at the level's model
    /// rejects it with the lie's timestamp anomalies, and with nothing else.
    #[test]
    fn a_lie_in_the_timestamps_is_caught_and_the_black_box_still_accepts(
        seed in any::<u64>(),
        fault in 0..4usize,
        level in 0..5usize,
        mini in any::<bool>(),
    ) {
        let fault = TIMESTAMP_FAULTS[fault];
        let level = fault.levels()[level % fault.levels().len()];
        let kind = if mini { Kind::MiniTransactions } else { Kind::RwRegister };
        let mut p = params(seed, kind, level, None);
        p.timestamps = true;
        p.timestamp_fault = Some(fault);
        let (text, h) = history(&p);
        let what = format!("{kind:?} at {level:?} with {fault:?}, seed {seed}");
        let (_, named) = level.models();
        assert_accepted(&h, &text, &[named], &what);
        let (valid, found) = verdict_with(&h, named, true);
        prop_assert_eq!(valid, Validity::False, "{}: {} accepted it\n{}", what, named, text);
        for expected in shown(fault, level) {
            prop_assert!(found.contains(expected), "{}: found {:?}, not {}\n{}", what, found, expected, text);
        }
        prop_assert!(
            found.iter().all(|t| t.starts_with("timestamp-") || undecided(t)),
            "{}: found {:?} beside the lie\n{}", what, found, text
        );
    }

    #[test]
    fn renaming_keys_and_values_and_permuting_processes_changes_no_verdict(
        seed in any::<u64>(),
        kind in 0..3usize,
        level in 0..5usize,
        fault in 0..9usize,
    ) {
        let p = params(seed, KINDS[kind], LEVELS[level], FAULTS.get(fault).copied());
        let (text, h) = history(&p);
        let renamed = rename(&text, seed);
        let h2 = parse_edn("renamed.edn", &renamed).unwrap_or_else(|e| panic!("{e:?}\n{renamed}"));
        for model in ["strict-serializable", "serializable", "strong-session-snapshot-isolation",
                      "snapshot-isolation", "read-committed"] {
            prop_assert_eq!(
                verdict(&h, model), verdict(&h2, model),
                "{}\n{}\n{}", model, text, renamed
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: common::cases(1500, 20_000),
        rng_seed: RngSeed::Fixed(20261127),
        ..ProptestConfig::default()
    })]

    /// A violation is placed in Elle's lattice as deciding every model on
    /// every pair places it (`--every-pair`, no reductions: read committed
    /// solved rather than ordered along the known edges): the same
    /// `:valid?`, anomaly types, `:not` and `:also-not`, on generated
    /// registers and lists with a forced fault, hot keys and blind writes.
    /// Every such history violates Elle's default model, so every case is
    /// a violation; the weaker model sets may accept it.
    #[test]
    fn a_violation_is_placed_as_the_full_decision_places_it(
        seed in any::<u64>(),
        kind in 0..2usize,
        level in 0..5usize,
        fault in 0..8usize,
    ) {
        let mut p = params(seed, KINDS[kind], LEVELS[level], Some(FAULTS[fault]));
        if p.shape.kind == Kind::RwRegister && seed % 2 == 0 {
            p.shape.blind_writes = 1.0;
        }
        let (text, h) = history(&p);
        for model in PLACEMENT_MODELS {
            let full = placement(&h, model, false);
            prop_assert!(model.is_some() || full.0 == Validity::False, "accepted\n{}", text);
            prop_assert_eq!(placement(&h, model, true), full, "{:?}\n{}", model, text);
        }
    }
}

/// The model sets placements are compared under (`None`: Elle's default);
/// the axiomatic levels' violations are placed by a second pass that
/// searches only for cycles that could rule out more models.
const PLACEMENT_MODELS: [Option<&str>; 8] = [
    None,
    Some("serializable"),
    Some("snapshot-isolation"),
    Some("read-committed"),
    Some("strong-session-snapshot-isolation"),
    Some("read-atomic"),
    Some("causal"),
    Some("read-committed-be"),
];

/// `:valid?`, the anomaly types, `:not` and `:also-not`, with or without
/// the reductions (`SolveOptions::reduce`).
fn placement(h: &History, model: Option<&str>, reduce: bool) -> Placement {
    let mut opts = CheckOptions {
        consistency_models: model.map(|m| vec![m.to_string()]),
        ..CheckOptions::default()
    };
    opts.solve.reduce = reduce;
    let a = check::analyze(h, &opts).expect("known model");
    let v = check::verdict::verdict(&a);
    (
        v.valid,
        v.anomaly_types().collect(),
        v.not.into_iter().collect(),
        v.also_not.into_iter().collect(),
    )
}

type Placement = (
    Validity,
    Vec<&'static str>,
    Vec<&'static str>,
    Vec<&'static str>,
);

/// The same history with key `k` renamed `"key-k"`, value `v` renamed
/// `3v + 100`, and processes permuted (a bijection each, so the history
/// means the same).
fn rename(text: &str, seed: u64) -> String {
    let process_of = |line: &str| -> u64 {
        let rest = &line[line.find(":process ").expect(":process") + 9..];
        rest[..rest.find(',').expect("comma")]
            .parse()
            .expect("process")
    };
    let mut processes: Vec<u64> = text.lines().map(process_of).collect();
    processes.sort();
    processes.dedup();
    let mut shuffled = processes.clone();
    let mut rng = Rng::new(seed);
    for i in (1..shuffled.len()).rev() {
        shuffled.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let new_process = |p: u64| shuffled[processes.binary_search(&p).expect("seen")];
    text.lines()
        .map(|line| {
            let p = process_of(line);
            let at = line.find(":value ").expect(":value") + 7;
            let head = line[..at].replace(
                &format!(":process {p},"),
                &format!(":process {},", new_process(p)),
            );
            format!("{head}{}}}\n", rename_value(&line[at..line.len() - 1]))
        })
        .collect()
}

/// Renames the keys and values in a `:value` vector of micro-ops.
fn rename_value(value: &str) -> String {
    let spaced = value.replace('[', " [ ").replace(']', " ] ");
    let tokens: Vec<&str> = spaced.split_whitespace().collect();
    let mut out = String::from("[");
    let mut i = 1; // past the outer `[`
    while tokens[i] == "[" {
        let (f, key) = (tokens[i + 1], tokens[i + 2]);
        out.push_str(&format!("[{f} \"key-{key}\" "));
        i += 3;
        if tokens[i] == "[" {
            let end = i + tokens[i..].iter().position(|t| *t == "]").expect("]");
            let list: Vec<String> = tokens[i + 1..end].iter().map(|v| new_value(v)).collect();
            out.push_str(&format!("[{}]", list.join(" ")));
            i = end + 1;
        } else {
            out.push_str(&new_value(tokens[i]));
            i += 1;
        }
        out.push_str("] ");
        i += 1; // the micro-op's `]`
    }
    out.push(']');
    out
}

fn new_value(v: &str) -> String {
    match v.parse::<u64>() {
        Ok(n) => (3 * n + 100).to_string(),
        Err(_) => v.to_string(),
    }
}

#[test]
fn snapshot_isolation_does_not_claim_repeatable_read() {
    let models = implied_models(&["snapshot-isolation"]);
    assert!(!models.contains(&"PL-2.99"), "{models:?}");
    assert!(models.contains(&"PL-SI"));
}

#[test]
fn write_skew_is_fine_for_snapshot_isolation_but_not_serializability() {
    let p = params(
        11,
        Kind::RwRegister,
        Level::SnapshotIsolation,
        Some(Fault::WriteSkew),
    );
    let (_, h) = history(&p);
    assert!(accepted(&verdict(&h, "snapshot-isolation")));
    assert_eq!(verdict(&h, "serializable").0, Validity::False);
}

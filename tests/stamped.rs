//! The database's timestamps as a proof (`check::stamped`) against the
//! general path, on generated rw-register histories whose `:ok`
//! transactions carry the simulated database's timestamps: at every level,
//! with every forced fault and every lie in the timestamps
//! (`--timestamp-fault`), for every model the timestamps may prove, the
//! two paths give one `:valid?`, the same anomaly types, `:not` and
//! `:also-not` (with and without `--check-timestamps`); and a correct
//! database's timestamps do prove its level's models.

mod common;

use clap::ValueEnum;
use isocheck::history::{parse_edn, History};
use isocheck::internals::check::{self, CheckOptions, Path, Validity};
use isocheck_gen::{self as gen, Distribution, Fault, Kind, Level, Params, Shape, TimestampFault};
use proptest::prelude::*;
use proptest::test_runner::{RngSeed, TestCaseError};
use std::collections::BTreeSet;

/// The models timestamps can prove, by Elle's names.
const MODELS: [&str; 6] = [
    "serializable",
    "strong-session-serializable",
    "strict-serializable",
    "snapshot-isolation",
    "strong-session-snapshot-isolation",
    "strong-snapshot-isolation",
];

const LEVELS: [Level; 5] = [
    Level::StrictSerializable,
    Level::Serializable,
    Level::SnapshotIsolation,
    Level::ReadCommitted,
    Level::ReadUncommitted,
];

/// A small timestamped run.
struct Knobs {
    seed: u64,
    processes: u64,
    txns: u64,
    max_ops: u64,
    keys: u64,
    blind_writes: f64,
    fail_rate: f64,
}

fn params(k: &Knobs, level: Level, fault: Option<Fault>) -> Params {
    Params {
        seed: k.seed,
        processes: k.processes,
        txns: k.txns,
        shape: Shape {
            kind: Kind::RwRegister,
            min_ops: 1,
            max_ops: k.max_ops,
            read_ratio: 0.5,
            blind_writes: k.blind_writes,
            duplicate_values: 0.0,
            distribution: Distribution::Uniform,
            keys: k.keys,
            max_writes_per_key: 8,
        },
        level,
        fault,
        fail_rate: k.fail_rate,
        timestamps: true,
        ..Params::default()
    }
}

fn history(p: &Params) -> (String, History) {
    let text = gen::to_string(p).expect("valid parameters");
    let h = parse_edn("generated.edn", &text).unwrap_or_else(|e| panic!("{e:?}\n{text}"));
    (text, h)
}

/// What the verdict says, and which path decided.
type Decided = (
    Validity,
    Vec<&'static str>,
    BTreeSet<&'static str>,
    BTreeSet<&'static str>,
);

fn decide(h: &History, model: &str, fast: bool, check_timestamps: bool) -> (Decided, Path) {
    let opts = CheckOptions {
        consistency_models: Some(vec![model.to_string()]),
        no_fast_path: !fast,
        check_timestamps,
        ..CheckOptions::default()
    };
    let a = check::analyze(h, &opts).expect("known model");
    let v = check::verdict::verdict(&a);
    let decided = (v.valid, v.anomaly_types().collect(), v.not, v.also_not);
    (decided, a.path)
}

/// Every model the timestamps may prove gets one verdict by both paths.
fn both_paths_agree(h: &History, check_timestamps: bool, text: &str) -> Result<(), TestCaseError> {
    for model in MODELS {
        let (fast, path) = decide(h, model, true, check_timestamps);
        let (general, _) = decide(h, model, false, check_timestamps);
        prop_assert_eq!(&fast, &general, "{} ({:?} path):\n{}", model, path, text);
    }
    Ok(())
}

proptest! {
    // A fixed seed: the same histories on every run, hundreds in `cargo
    // test`, more in the nightly run (`common::cases`).
    #![proptest_config(ProptestConfig {
        cases: common::cases(200, 5_000),
        rng_seed: RngSeed::Fixed(20261127),
        ..ProptestConfig::default()
    })]

    #[test]
    fn the_timestamps_decide_as_the_general_path(
        seed in any::<u64>(),
        level in 0..5usize,
        fault in 0..12usize,
        processes in 2..6u64,
        txns in 4..40u64,
        max_ops in 1..5u64,
        keys in 1..6u64,
        blind_writes in prop::sample::select(vec![0.0, 0.3]),
        fail_rate in prop::sample::select(vec![0.0, 0.1]),
        check_timestamps in any::<bool>(),
        lie in 0..8usize,
    ) {
        let knobs = Knobs { seed, processes, txns, max_ops, keys, blind_writes, fail_rate };
        let fault = Fault::value_variants().get(fault).copied();
        let mut p = params(&knobs, LEVELS[level], fault);
        p.timestamp_fault = TimestampFault::value_variants().get(lie).copied();
        // A lie that could not show at this level is refused.
        prop_assume!(p.validate().is_ok());
        let (text, h) = history(&p);
        both_paths_agree(&h, check_timestamps, &text)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: common::cases(300, 10_000),
        rng_seed: RngSeed::Fixed(20261128),
        ..ProptestConfig::default()
    })]

    /// Timestamps no database wrote: random commit and start timestamps on
    /// a few transactions, which now and then describe an execution the
    /// reads agree with (and the model holds) and mostly do not.
    #[test]
    fn made_up_timestamps_decide_as_the_general_path(
        seed in any::<u64>(),
        level in 0..5usize,
        txns in 2..7u64,
        keys in 1..3u64,
        stamps in prop::collection::vec((0..12i64, 0..4i64), 12),
    ) {
        let knobs = Knobs {
            seed, processes: 3, txns, max_ops: 3, keys, blind_writes: 0.3, fail_rate: 0.0,
        };
        let mut p = params(&knobs, LEVELS[level], None);
        p.timestamps = false;
        let text = stamp_lines(&gen::to_string(&p).expect("valid parameters"), &stamps);
        let h = parse_edn("made-up.edn", &text).unwrap_or_else(|e| panic!("{e:?}\n{text}"));
        both_paths_agree(&h, false, &text)?;
    }
}

/// `text` with each `:ok` op stamped from `stamps` in turn: a commit
/// timestamp, and a start that many before it.
fn stamp_lines(text: &str, stamps: &[(i64, i64)]) -> String {
    let mut next = stamps.iter().cycle();
    let mut out = String::new();
    for line in text.lines() {
        match (line.contains(":type :ok"), line.strip_suffix('}')) {
            (true, Some(op)) => {
                let (commit, back) = next.next().copied().unwrap_or_default();
                let start = commit - back;
                out.push_str(&format!(
                    "{op}, :start-timestamp {start}, :commit-timestamp {commit}}}\n"
                ));
            }
            _ => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

/// Proof that the property above compares something: a correct database's
/// timestamps prove its level's models in nearly every run (a run where no
/// read saw another transaction's write is left to the general path).
#[test]
fn a_correct_database_s_timestamps_prove_its_level() {
    let cases = [
        (Level::StrictSerializable, "strict-serializable"),
        (Level::Serializable, "serializable"),
        (Level::SnapshotIsolation, "snapshot-isolation"),
    ];
    for (level, model) in cases {
        let proved = (0..40)
            .filter(|&seed| {
                let knobs = Knobs {
                    seed,
                    processes: 4,
                    txns: 30,
                    max_ops: 3,
                    keys: 3,
                    blind_writes: 0.3,
                    fail_rate: 0.1,
                };
                let (_, h) = history(&params(&knobs, level, None));
                let (decided, path) = decide(&h, model, true, false);
                assert_eq!(decided.0, Validity::True, "{model}, seed {seed}");
                matches!(path, Path::Timestamps { .. })
            })
            .count();
        assert!(
            proved >= 36,
            "{model}: the timestamps proved {proved} of 40 runs"
        );
    }
}

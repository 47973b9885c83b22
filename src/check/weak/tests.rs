//! Hand-written histories for each level: a minimal violation and a valid
//! neighbour, on registers and lists.

use super::*;
use crate::history::parse_edn;

/// A history of committed transactions, one `(process, micro-ops)` per
/// transaction, in file order.
fn history(txns: &[(u32, &str)]) -> History {
    let mut text = String::new();
    for (i, (p, mops)) in txns.iter().enumerate() {
        text.push_str(&format!(
            "{{:type :invoke, :f :txn, :value {mops}, :process {p}, :index {}}}\n\
             {{:type :ok, :f :txn, :value {mops}, :process {p}, :index {}}}\n",
            2 * i,
            2 * i + 1
        ));
    }
    parse_edn("test.edn", &text).expect("a valid history")
}

fn anomaly(txns: &[(u32, &str)], level: Level) -> Option<&'static str> {
    check(&history(txns), &[level]).map(|v| v.name())
}

const STALE_SESSION_READ: &[(u32, &str)] =
    &[(0, "[[:w :x 2]]"), (0, "[[:w :x 3]]"), (0, "[[:r :x 2]]")];

#[test]
fn a_session_reading_its_older_write_violates_both() {
    for level in Level::ALL {
        let found = anomaly(STALE_SESSION_READ, level);
        assert_eq!(found, Some(level.anomaly()), "{level:?}");
    }
    // Asked for both, the weaker names it.
    let v = check(&history(STALE_SESSION_READ), &Level::ALL).map(|v| v.name());
    assert_eq!(v, Some("fractured-read"));
    let fresh = &[(0, "[[:w :x 2]]"), (0, "[[:w :x 3]]"), (0, "[[:r :x 3]]")];
    assert_eq!(anomaly(fresh, Level::Causal), None);
}

#[test]
fn the_cycle_names_session_order_and_what_the_reader_sees() {
    let v = check(&history(STALE_SESSION_READ), &[Level::Causal]).expect("a violation");
    let Found::Cycle(steps) = v.found else {
        panic!("{v:?}")
    };
    assert_eq!(steps.len(), 2);
    assert_eq!(steps[0].why, Why::Session);
    assert!(matches!(steps[1].why, Why::Sees { reader: 2, .. }));
}

#[test]
fn fractured_reads_of_registers_and_lists() {
    let registers: &[(u32, &str)] = &[(0, "[[:w :x 1] [:w :y 1]]"), (1, "[[:r :x 1] [:r :y nil]]")];
    let lists: &[(u32, &str)] = &[
        (0, "[[:append :x 1] [:append :y 1]]"),
        (1, "[[:r :x [1]] [:r :y []]]"),
    ];
    for txns in [registers, lists] {
        assert_eq!(anomaly(txns, Level::ReadAtomic), Some("fractured-read"));
        let v = check(&history(txns), &[Level::ReadAtomic]).expect("a violation");
        assert_eq!(
            v.found,
            Found::Missed {
                reader: 1,
                mop: 3,
                writer: 0,
                seen: vec![Step {
                    from: 0,
                    to: 1,
                    why: Why::ReadFrom { mop: 2 }
                }],
            }
        );
    }
    let whole = &[(0, "[[:w :x 1] [:w :y 1]]"), (1, "[[:r :x 1] [:r :y 1]]")];
    assert_eq!(anomaly(whole, Level::Causal), None);
}

#[test]
fn a_register_overwritten_in_what_the_reader_sees() {
    // T2 reads y from T1, so sees T1's x=2; its read of x=1 must then be
    // of a later version than x=2: T0 < T1 by session, a cycle.
    let txns = &[
        (0, "[[:w :x 1]]"),
        (0, "[[:w :x 2] [:w :y 1]]"),
        (1, "[[:r :y 1] [:r :x 1]]"),
    ];
    assert_eq!(anomaly(txns, Level::ReadAtomic), Some("fractured-read"));
}

/// T0 → T1 → T2 by reads-from; T2 misses T0's write.
const CAUSALITY: &[(u32, &str)] = &[
    (0, "[[:w :x 1]]"),
    (1, "[[:r :x 1] [:w :y 1]]"),
    (2, "[[:r :y 1] [:r :x nil]]"),
];

#[test]
fn a_transitive_dependency_missed_is_causal_not_atomic() {
    assert_eq!(anomaly(CAUSALITY, Level::ReadAtomic), None);
    assert_eq!(
        anomaly(CAUSALITY, Level::Causal),
        Some("causality-violation")
    );
    let seen = &[
        (0, "[[:w :x 1]]"),
        (1, "[[:r :x 1] [:w :y 1]]"),
        (2, "[[:r :y 1] [:r :x 1]]"),
    ];
    assert_eq!(anomaly(seen, Level::Causal), None);
}

#[test]
fn monotonic_writes_and_writes_follow_reads_violations_are_causal() {
    let monotonic_writes: &[(u32, &str)] = &[
        (0, "[[:w :x 1]]"),
        (0, "[[:w :y 1]]"),
        (1, "[[:r :y 1] [:r :x nil]]"),
    ];
    let writes_follow_reads: &[(u32, &str)] = &[
        (0, "[[:w :x 1]]"),
        (1, "[[:r :x 1]]"),
        (1, "[[:w :y 1]]"),
        (2, "[[:r :y 1] [:r :x nil]]"),
    ];
    for txns in [monotonic_writes, writes_follow_reads] {
        assert_eq!(anomaly(txns, Level::ReadAtomic), None);
        assert_eq!(anomaly(txns, Level::Causal), Some("causality-violation"));
    }
}

#[test]
fn a_long_fork_is_causal() {
    let txns = &[
        (0, "[[:w :x 1]]"),
        (1, "[[:w :y 1]]"),
        (2, "[[:r :x 1] [:r :y nil]]"),
        (3, "[[:r :x nil] [:r :y 1]]"),
    ];
    assert_eq!(anomaly(txns, Level::Causal), None);
}

#[test]
fn list_order_against_session_order() {
    // T0 then T1 append in one session, a reader lists them the other way.
    let txns = &[
        (0, "[[:append :x 1]]"),
        (0, "[[:append :x 2]]"),
        (1, "[[:r :x [2 1]]]"),
    ];
    let v = check(&history(txns), &[Level::ReadAtomic]).expect("a violation");
    assert!(matches!(v.found, Found::Cycle(_)), "{v:?}");
    // A session that reads only part of what it appended earlier.
    let txns = &[
        (0, "[[:append :x 1]]"),
        (0, "[[:append :x 2]]"),
        (0, "[[:r :x [1]]]"),
    ];
    assert_eq!(anomaly(txns, Level::ReadAtomic), Some("fractured-read"));
}

#[test]
fn nothing_to_check_holds() {
    assert_eq!(check(&history(&[(0, "[[:w :x 1]]")]), &Level::ALL), None);
    assert_eq!(check(&history(STALE_SESSION_READ), &[]), None);
}

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
    names(txns, &[level]).first().copied()
}

/// The anomalies `check` names for these levels.
fn names(txns: &[(u32, &str)], levels: &[Level]) -> Vec<&'static str> {
    check(&history(txns), levels)
        .iter()
        .map(|v| v.name())
        .collect()
}

fn violation(txns: &[(u32, &str)], level: Level) -> Violation {
    check(&history(txns), &[level]).remove(0)
}

/// The reader and the writer it missed, for a missed write.
fn reader_and_missed(v: &Violation) -> Option<(TxnId, TxnId)> {
    match v.found {
        Found::Missed { reader, writer, .. } => Some((reader, writer)),
        _ => None,
    }
}

const STALE_SESSION_READ: &[(u32, &str)] =
    &[(0, "[[:w :x 2]]"), (0, "[[:w :x 3]]"), (0, "[[:r :x 2]]")];

#[test]
fn a_session_reading_its_older_write_violates_those_that_see_the_session() {
    for level in [Level::ReadAtomic, Level::Pram, Level::Causal] {
        let found = anomaly(STALE_SESSION_READ, level);
        assert_eq!(found, Some(level.anomaly()), "{level:?}");
    }
    // Monotonic reads and writes do not make a session's past visible.
    for level in [Level::MonotonicReads, Level::MonotonicWrites] {
        assert_eq!(anomaly(STALE_SESSION_READ, level), None, "{level:?}");
    }
    // Asked for all, the weakest violated names it.
    assert_eq!(names(STALE_SESSION_READ, &Level::ALL), ["fractured-read"]);
    let fresh = &[(0, "[[:w :x 2]]"), (0, "[[:w :x 3]]"), (0, "[[:r :x 3]]")];
    assert_eq!(anomaly(fresh, Level::Causal), None);
}

#[test]
fn the_cycle_names_session_order_and_what_the_reader_sees() {
    let v = violation(STALE_SESSION_READ, Level::Causal);
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
        let v = violation(txns, Level::ReadAtomic);
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
    let v = violation(txns, Level::ReadAtomic);
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
    assert_eq!(check(&history(&[(0, "[[:w :x 1]]")]), &Level::ALL), []);
    assert_eq!(check(&history(STALE_SESSION_READ), &[]), []);
}

/// A session reads x=1, then the initial x.
const MONOTONIC_READS: &[(u32, &str)] =
    &[(0, "[[:w :x 1]]"), (1, "[[:r :x 1]]"), (1, "[[:r :x nil]]")];

/// A session writes x then y; another reads y, then the initial x.
const PRAM_ONLY: &[(u32, &str)] = &[
    (0, "[[:w :x 1]]"),
    (0, "[[:w :y 1]]"),
    (1, "[[:r :y 1]]"),
    (1, "[[:r :x nil]]"),
];

#[test]
fn monotonic_reads_sees_what_the_session_read() {
    assert_eq!(
        anomaly(MONOTONIC_READS, Level::MonotonicReads),
        Some("monotonic-reads-violation")
    );
    for level in [Level::ReadAtomic, Level::MonotonicWrites] {
        assert_eq!(anomaly(MONOTONIC_READS, level), None, "{level:?}");
    }
    // PRAM and causal consistency name the weakest level violated.
    for level in [Level::Pram, Level::Causal] {
        let found = names(MONOTONIC_READS, &[Level::MonotonicReads, level]);
        assert_eq!(found, ["monotonic-reads-violation"], "{level:?}");
    }
    // A register read later overwritten in the reader's view: T3 read x=2
    // (T1), so the session's read of x=1 (T0) must be of a later version,
    // yet T0 < T1 in their session.
    let stale = &[
        (0, "[[:w :x 1]]"),
        (0, "[[:w :x 2]]"),
        (1, "[[:r :x 2]]"),
        (1, "[[:r :x 1]]"),
    ];
    let v = violation(stale, Level::MonotonicReads);
    assert!(matches!(v.found, Found::Cycle(_)), "{v:?}");
    let fresh = &[(0, "[[:w :x 1]]"), (1, "[[:r :x 1]]"), (1, "[[:r :x 1]]")];
    assert_eq!(anomaly(fresh, Level::MonotonicReads), None);
}

#[test]
fn monotonic_reads_over_lists() {
    let shrinking = &[
        (0, "[[:append :x 1]]"),
        (1, "[[:append :x 2]]"),
        (2, "[[:r :x [1 2]]]"),
        (2, "[[:r :x [2]]]"),
    ];
    let v = violation(shrinking, Level::MonotonicReads);
    assert_eq!(reader_and_missed(&v), Some((3, 0)), "{v:?}");
    let growing = &[
        (0, "[[:append :x 1]]"),
        (1, "[[:append :x 2]]"),
        (2, "[[:r :x [1]]]"),
        (2, "[[:r :x [1 2]]]"),
    ];
    assert_eq!(anomaly(growing, Level::MonotonicReads), None);
}

#[test]
fn monotonic_writes_sees_the_writers_session() {
    let txns = &[
        (0, "[[:w :x 1]]"),
        (0, "[[:w :y 1]]"),
        (1, "[[:r :y 1] [:r :x nil]]"),
    ];
    assert_eq!(
        anomaly(txns, Level::MonotonicWrites),
        Some("monotonic-writes-violation")
    );
    for level in [Level::ReadAtomic, Level::MonotonicReads] {
        assert_eq!(anomaly(txns, level), None, "{level:?}");
    }
    // The reader's own earlier transactions are not made visible by it.
    assert_eq!(anomaly(STALE_SESSION_READ, Level::MonotonicWrites), None);
}

#[test]
fn pram_joins_the_three_guarantees() {
    for level in [
        Level::ReadAtomic,
        Level::MonotonicReads,
        Level::MonotonicWrites,
    ] {
        assert_eq!(anomaly(PRAM_ONLY, level), None, "{level:?}");
    }
    assert_eq!(names(PRAM_ONLY, &Level::ALL), ["PRAM-violation"]);
    // Seen through session order, reads-from and session order again.
    let v = violation(PRAM_ONLY, Level::Pram);
    let Found::Missed { seen, .. } = v.found else {
        panic!("{v:?}")
    };
    let whys: Vec<bool> = seen.iter().map(|s| s.why == Why::Session).collect();
    assert_eq!(whys, [true, false, true]);
    // Not transitive through two reads-from steps: a causality violation
    // that is PRAM.
    assert_eq!(anomaly(CAUSALITY, Level::Pram), None);
}

#[test]
fn incomparable_levels_are_each_named() {
    // A fractured read is seen by every level: read committed (the read
    // of y comes after the read of x), monotonic reads, monotonic writes
    // and writes follow reads are each violated, and none implies another.
    let fractured = &[(0, "[[:w :x 1] [:w :y 1]]"), (1, "[[:r :x 1] [:r :y nil]]")];
    assert_eq!(
        names(fractured, &Level::ALL),
        [
            "writes-follow-reads-violation",
            "monotonic-writes-violation",
            "monotonic-reads-violation",
            "read-committed-be-violation"
        ]
    );
    // Read the other way round, read committed holds: read atomic names it.
    let fractured = &[(0, "[[:w :x 1] [:w :y 1]]"), (1, "[[:r :y nil] [:r :x 1]]")];
    assert_eq!(anomaly(fractured, Level::ReadCommitted), None);
    assert_eq!(
        names(fractured, &[Level::ReadCommitted, Level::ReadAtomic]),
        ["fractured-read"]
    );
}

#[test]
fn implication_is_a_partial_order_that_the_enum_extends() {
    for a in Level::ALL {
        assert!(Level::Causal.implies(a));
        for b in Level::ALL {
            if a.implies(b) && b.implies(a) {
                assert_eq!(a, b);
            }
            if a.implies(b) {
                assert!(a >= b, "{a:?} {b:?}");
            }
        }
    }
}

/// A session writes x=1, then x=2; another transaction reads x=2, then x=1.
const READ_BACK: &[(u32, &str)] = &[
    (0, "[[:w :x 1]]"),
    (0, "[[:w :x 2]]"),
    (1, "[[:r :x 2] [:r :x 1]]"),
];

#[test]
fn read_committed_sees_what_earlier_reads_read_from() {
    let v = violation(READ_BACK, Level::ReadCommitted);
    assert_eq!(v.name(), "read-committed-be-violation");
    let Found::Cycle(steps) = v.found else {
        panic!("{v:?}")
    };
    // Only session order orders the two writes.
    assert_eq!(steps[0].why, Why::Session);
    let apart = &[
        (0, "[[:w :x 1]]"),
        (2, "[[:w :x 2]]"),
        (1, "[[:r :x 2] [:r :x 1]]"),
    ];
    assert_eq!(anomaly(apart, Level::ReadCommitted), None);
    // A non-repeatable read forward is read committed, not read atomic.
    let forward = &[
        (0, "[[:w :x 1]]"),
        (0, "[[:w :x 2]]"),
        (1, "[[:r :x 1] [:r :x 2]]"),
    ];
    assert_eq!(anomaly(forward, Level::ReadCommitted), None);
    assert_eq!(anomaly(forward, Level::ReadAtomic), Some("fractured-read"));
    // The reader's own session is not what it sees.
    assert_eq!(anomaly(STALE_SESSION_READ, Level::ReadCommitted), None);
}

#[test]
fn read_committed_checks_reads_of_the_transactions_own_writes() {
    let registers: &[(u32, &str)] = &[(0, "[[:w :x 1] [:r :x 2]]"), (1, "[[:w :x 2]]")];
    let lists: &[(u32, &str)] = &[(0, "[[:append :x 1] [:r :x [2]]]"), (1, "[[:append :x 2]]")];
    for txns in [registers, lists] {
        let v = violation(txns, Level::ReadCommitted);
        assert_eq!(v.found, Found::OwnWrite { reader: 0, mop: 1 }, "{txns:?}");
    }
    let shown: &[(u32, &str)] = &[
        (0, "[[:append :x 1] [:r :x [2 1]]]"),
        (1, "[[:append :x 2]]"),
    ];
    assert_eq!(anomaly(shown, Level::ReadCommitted), None);
    let out_of_order: &[(u32, &str)] = &[(0, "[[:append :x 1] [:append :x 3] [:r :x [3 1]]]")];
    assert!(anomaly(out_of_order, Level::ReadCommitted).is_some());
}

#[test]
fn writes_follow_reads_sees_through_reads_from_chains() {
    // T0 → T1 (same session as T2) → T3 by reads-from; T3 misses T0.
    let later: &[(u32, &str)] = &[
        (0, "[[:w :x 1]]"),
        (1, "[[:r :x 1]]"),
        (1, "[[:w :y 1]]"),
        (2, "[[:r :y 1] [:r :x nil]]"),
    ];
    // The reading transaction's own writes follow its reads too.
    for txns in [later, CAUSALITY] {
        let v = violation(txns, Level::WritesFollowReads);
        assert_eq!(v.name(), "writes-follow-reads-violation");
        let Found::Missed { seen, .. } = v.found else {
            panic!("{v:?}")
        };
        let first = seen.first().map(|s| s.why);
        let last = seen.last().map(|s| s.why);
        assert!(matches!(first, Some(Why::ReadFrom { .. })), "{seen:?}");
        assert!(matches!(last, Some(Why::ReadFrom { .. })), "{seen:?}");
        assert_eq!(anomaly(txns, Level::Pram), None);
    }
    assert_eq!(
        names(later, &[Level::WritesFollowReads, Level::Causal]),
        ["writes-follow-reads-violation"]
    );
    // Seeing a writer is not seeing what came before it in its session.
    let monotonic_writes: &[(u32, &str)] = &[
        (0, "[[:w :x 1]]"),
        (0, "[[:w :y 1]]"),
        (1, "[[:r :y 1] [:r :x nil]]"),
    ];
    assert_eq!(anomaly(monotonic_writes, Level::WritesFollowReads), None);
    // Nor is the reader's own session's past.
    assert_eq!(anomaly(STALE_SESSION_READ, Level::WritesFollowReads), None);
    let kept: &[(u32, &str)] = &[
        (0, "[[:w :x 1]]"),
        (1, "[[:r :x 1]]"),
        (1, "[[:w :y 1]]"),
        (2, "[[:r :y 1] [:r :x 1]]"),
    ];
    assert_eq!(anomaly(kept, Level::WritesFollowReads), None);
}

#[test]
fn writes_follow_reads_over_registers_overwritten_and_lists() {
    // T3 sees T0 and T1 (T1 read T0, T2 read T1, T3 read T2), so its read
    // of x from T0 must be of a later version than T1's: T0 < T1 by
    // reads-from, a cycle.
    let overwritten: &[(u32, &str)] = &[
        (0, "[[:w :x 1]]"),
        (1, "[[:r :x 1] [:w :x 2]]"),
        (2, "[[:r :x 2] [:w :y 1]]"),
        (3, "[[:r :y 1] [:r :x 1]]"),
    ];
    let v = violation(overwritten, Level::WritesFollowReads);
    assert!(matches!(v.found, Found::Cycle(_)), "{v:?}");
    let lists: &[(u32, &str)] = &[
        (0, "[[:append :x 1]]"),
        (1, "[[:r :x [1]]]"),
        (1, "[[:append :y 1]]"),
        (2, "[[:r :y [1]] [:r :x []]]"),
    ];
    let v = violation(lists, Level::WritesFollowReads);
    assert_eq!(reader_and_missed(&v), Some((3, 0)), "{v:?}");
}

/// A session writing `x` ten times and another reading each version in
/// turn: every clock a reader or successor takes is still there, holding
/// what its transaction kept, and the rows are reused, not one per
/// transaction.
#[test]
fn clocks_are_kept_until_their_last_reader_and_reused() {
    use super::clocks::{read_by, Clocks, Users};
    let txns: Vec<(u32, String)> = (1..=10)
        .flat_map(|i| [(0, format!("[[:w :x {i}]]")), (1, format!("[[:r :x {i}]]"))])
        .collect();
    let txns: Vec<(u32, &str)> = txns.iter().map(|(p, m)| (*p, m.as_str())).collect();
    let h = history(&txns);
    let f = facts::Facts::of(&h, &[], true);
    // Transactions are in an order of session order and reads-from as written.
    let swept: Vec<TxnId> = (0..h.txns.len() as TxnId).collect();
    for users in [Users::ReadersAndSuccessor, Users::Readers] {
        let mut clocks = Clocks::new(&f, &swept, 2, users);
        for (i, &t) in swept.iter().enumerate() {
            for w in read_by(&f, t, users) {
                assert_eq!(clocks.get(w), [w, w + 1], "{t} reads {w}'s clock");
            }
            clocks.keep(t, &[t, t + 1]);
            clocks.done(&f, t, i as u32, users);
        }
        // At most the last writer, the last reader and the one being kept.
        assert!(
            clocks.rows() <= 3,
            "{} rows for 20 transactions",
            clocks.rows()
        );
    }
}

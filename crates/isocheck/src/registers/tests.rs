//! The rules of the LWT check on hand-written histories, one per rule.

use super::*;
use crate::history::{self, Workload};

fn history(text: &str) -> History {
    let h = history::parse_edn("t.edn", text).unwrap_or_else(|d| panic!("{d}"));
    assert_eq!(h.workload, Workload::CasRegister);
    h
}

fn run(text: &str) -> RegisterAnalysis {
    check(&history(text))
}

/// The value-chain check alone.
fn run_chains(text: &str) -> RegisterAnalysis {
    check_chains(&history(text))
}

/// Ops as `p type f value` lines, e.g. `0 invoke cas [1 2]`.
fn ops(lines: &str) -> String {
    lines
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|l| {
            let mut w = l.splitn(4, ' ');
            let (p, t, f, v) = (
                w.next().unwrap(),
                w.next().unwrap(),
                w.next().unwrap(),
                w.next().unwrap_or("nil"),
            );
            format!("{{:process {p}, :type :{t}, :f :{f}, :value {v}}}\n")
        })
        .collect()
}

fn valid(lines: &str) {
    let a = run(&ops(lines));
    assert_eq!(a.validity(), Validity::True, "{a:?}\n{lines}");
}

fn violation(lines: &str) -> Violation {
    let a = run(&ops(lines));
    assert_eq!(a.validity(), Validity::False, "{a:?}\n{lines}");
    assert_eq!(a.violations.len(), 1, "{a:?}");
    a.violations[0].clone()
}

/// A realtime violation's `:index`es: the completion of the op that
/// completed, the invocation of the earlier one invoked after.
fn realtime(lines: &str) -> (i64, i64) {
    let text = ops(lines);
    let h = history(&text);
    let a = check(&h);
    assert_eq!(a.validity(), Validity::False, "{a:?}\n{lines}");
    match &a.violations[..] {
        [Violation::Realtime { op, preceding, .. }] => (
            h.op(h.registers[*op as usize].op()).index,
            h.op(h.registers[*preceding as usize].invoke.unwrap()).index,
        ),
        v => panic!("{v:?}"),
    }
}

#[test]
fn valid_chain_with_concurrent_ops_and_reads() {
    valid(
        "0 invoke write 1
         0 ok write 1
         1 invoke cas [1 2]
         2 invoke read
         2 ok read 1
         3 invoke read
         1 ok cas [1 2]
         3 ok read 2
         0 invoke cas [2 3]
         2 invoke read
         2 ok read 2
         0 ok cas [2 3]
         1 invoke read
         1 ok read 3",
    );
}

#[test]
fn chain_from_nil_without_a_write() {
    valid(
        "0 invoke read
         0 ok read nil
         0 invoke cas [nil 1]
         0 ok cas [nil 1]
         1 invoke cas [1 2]
         1 ok cas [1 2]",
    );
}

#[test]
fn an_op_completing_before_an_earlier_one_in_the_chain_is_invoked() {
    // The cas from 1 completes (line 1) before the write of 1 is invoked (line 2).
    let (op, preceding) = realtime(
        "1 invoke cas [1 2]
         1 ok cas [1 2]
         0 invoke write 1
         0 ok write 1",
    );
    assert_eq!((op, preceding), (1, 2));
    // Transitively: cas 2→3 completes before the write of 1 is invoked.
    let (op, preceding) = realtime(
        "2 invoke cas [2 3]
         1 invoke cas [1 2]
         2 ok cas [2 3]
         0 invoke write 1
         0 ok write 1
         1 ok cas [1 2]",
    );
    assert_eq!((op, preceding), (2, 3));
}

#[test]
fn forks_are_not_linearizable() {
    let v = violation(
        "0 invoke write 1
         0 ok write 1
         1 invoke cas [1 2]
         2 invoke cas [1 3]
         1 ok cas [1 2]
         2 ok cas [1 3]",
    );
    assert!(matches!(v, Violation::Fork { ops: [1, 2], .. }), "{v:?}");
}

#[test]
fn an_expected_value_nobody_wrote() {
    let v = violation(
        "0 invoke write 1
         0 ok write 1
         1 invoke cas [5 6]
         1 ok cas [5 6]",
    );
    assert!(
        matches!(
            v,
            Violation::Unwritten {
                op: 1,
                failed_writer: None,
                ..
            }
        ),
        "{v:?}"
    );
    // Written by a failed op only: still unwritten, with the failed writer.
    let v = violation(
        "0 invoke write 5
         0 fail write 5
         1 invoke cas [5 6]
         1 ok cas [5 6]",
    );
    assert!(
        matches!(
            v,
            Violation::Unwritten {
                op: 1,
                failed_writer: Some(0),
                ..
            }
        ),
        "{v:?}"
    );
}

#[test]
fn cas_cycles_are_not_linearizable() {
    let v = violation(
        "0 invoke cas [1 2]
         0 ok cas [1 2]
         1 invoke cas [2 1]
         1 ok cas [2 1]",
    );
    assert!(
        matches!(&v, Violation::Cycle { ops, .. } if ops.len() == 2),
        "{v:?}"
    );
}

#[test]
fn reads_too_early_and_too_late() {
    // Read of 2 completes before the cas writing 2 is invoked.
    let (op, preceding) = realtime(
        "0 invoke write 1
         0 ok write 1
         2 invoke read
         2 ok read 2
         1 invoke cas [1 2]
         1 ok cas [1 2]",
    );
    assert_eq!((op, preceding), (3, 4));
    // Read of 1 invoked after the cas overwriting 1 completed.
    let (op, preceding) = realtime(
        "0 invoke write 1
         0 ok write 1
         1 invoke cas [1 2]
         1 ok cas [1 2]
         2 invoke read
         2 ok read 1",
    );
    assert_eq!((op, preceding), (3, 4));
    // Read of nil invoked after the first write completed.
    let (op, preceding) = realtime(
        "0 invoke write 1
         0 ok write 1
         2 invoke read
         2 ok read nil",
    );
    assert_eq!((op, preceding), (1, 2));
    // Reads of one value in either order among themselves.
    valid(
        "0 invoke write 1
         0 ok write 1
         1 invoke read
         1 ok read 1
         2 invoke read
         2 ok read 1
         3 invoke cas [1 2]
         3 ok cas [1 2]",
    );
}

#[test]
fn a_read_of_an_unwritten_value() {
    let v = violation(
        "0 invoke write 1
         0 ok write 1
         1 invoke read
         1 ok read 9",
    );
    assert!(matches!(v, Violation::Unwritten { op: 1, .. }), "{v:?}");
}

#[test]
fn info_ops_are_in_the_chain_iff_observed() {
    // Observed by a read: in the chain, never completing.
    valid(
        "0 invoke write 1
         0 ok write 1
         1 invoke cas [1 2]
         1 info cas [1 2]
         2 invoke read
         2 ok read 2",
    );
    // Observed, but the read of its value completed before it was invoked.
    let (op, preceding) = realtime(
        "0 invoke write 1
         0 ok write 1
         2 invoke read
         2 ok read 2
         1 invoke cas [1 2]
         1 info cas [1 2]",
    );
    assert_eq!((op, preceding), (3, 4));
    // Observed through a chain cas: the info cas 1→2 must have happened.
    let v = violation(
        "0 invoke write 1
         0 ok write 1
         1 invoke cas [1 2]
         1 info cas [1 2]
         3 invoke cas [1 5]
         3 ok cas [1 5]
         2 invoke cas [2 3]
         2 ok cas [2 3]",
    );
    assert!(matches!(v, Violation::Fork { .. }), "{v:?}");
    // Unobserved: left out, so no fork with the ok cas from the same value,
    // and no real-time constraint from it.
    valid(
        "0 invoke write 1
         0 ok write 1
         3 invoke cas [1 5]
         3 ok cas [1 5]
         1 invoke cas [1 2]
         1 info cas [1 2]
         4 invoke read
         4 ok read 5",
    );
    // An invocation that never completes is indeterminate too.
    valid(
        "0 invoke write 1
         0 ok write 1
         1 invoke cas [1 2]
         2 invoke read
         2 ok read 2",
    );
}

#[test]
fn failed_ops_are_ignored() {
    // The failed cas expected the value the register held throughout its
    // interval: not checked (see the module docs).
    valid(
        "0 invoke write 1
         0 ok write 1
         1 invoke cas [1 9]
         1 fail cas [1 9]
         2 invoke read
         2 ok read 1",
    );
    // A failed cas is no fork, and its value no write.
    valid(
        "0 invoke write 1
         0 ok write 1
         1 invoke cas [1 2]
         1 ok cas [1 2]
         2 invoke cas [1 3]
         2 fail cas [1 3]
         3 invoke read
         3 fail read
         3 invoke read
         3 info read",
    );
}

#[test]
fn a_cas_to_the_same_value_is_a_read() {
    valid(
        "0 invoke write 1
         0 ok write 1
         1 invoke cas [1 1]
         1 ok cas [1 1]
         2 invoke cas [1 2]
         2 ok cas [1 2]",
    );
    let (op, preceding) = realtime(
        "0 invoke write 1
         0 ok write 1
         2 invoke cas [1 2]
         2 ok cas [1 2]
         1 invoke cas [1 1]
         1 ok cas [1 1]",
    );
    assert_eq!((op, preceding), (3, 4));
}

#[test]
fn independent_keys_are_checked_apart() {
    let text = ops("0 invoke write [0 1]
         0 ok write [0 1]
         1 invoke cas [1 [5 6]]
         1 ok cas [1 [5 6]]
         0 invoke write [1 5]
         0 ok write [1 5]
         2 invoke read [0 nil]
         2 ok read [0 1]
         2 invoke cas [0 [1 2]]
         2 ok cas [0 [1 2]]");
    let h = history(&text);
    assert!(h.independent_keys);
    let a = check(&h);
    assert_eq!(a.keys, 2);
    match &a.violations[..] {
        [Violation::Realtime { key, op, preceding }] => {
            assert_eq!(h.values.display(*key), "1");
            assert_eq!((*op, *preceding), (1, 2));
        }
        v => panic!("{v:?}"),
    }
    // The same ops as one register with vector values: a different history.
    let single = history(&ops("0 invoke write [0 1]
         0 ok write [0 1]
         0 invoke cas [[0 1] 3]
         0 ok cas [[0 1] 3]"));
    assert!(!single.independent_keys);
    assert_eq!(check(&single).validity(), Validity::True);
}

#[test]
fn completion_only_ops_were_invoked_at_the_start() {
    valid(
        "1 ok cas [1 2]
         0 ok write 1",
    );
    // ...but completions still order them: the cas from 1 completed before
    // the read of 1, which precedes it, was invoked.
    let (op, preceding) = realtime(
        "0 ok write 1
         1 ok cas [1 2]
         2 invoke read
         2 ok read 1",
    );
    assert_eq!((op, preceding), (1, 2));
}

#[test]
fn blind_writes() {
    // One write after the path from nil: nil → 1, then the write of 5.
    valid(
        "0 invoke cas [nil 1]
         0 ok cas [nil 1]
         1 invoke write 5
         1 ok write 5
         2 invoke cas [5 6]
         2 ok cas [5 6]",
    );
    // Two writes: the order 7, 5 works (the read of 5 is last).
    valid(
        "0 invoke write 5
         1 invoke write 7
         1 ok write 7
         0 ok write 5
         2 invoke read
         2 ok read 5",
    );
    // Two writes, no order: each is read after the other's read completed.
    let v = violation(
        "0 invoke write 5
         0 ok write 5
         1 invoke write 7
         1 ok write 7
         2 invoke read
         2 ok read 5
         3 invoke read
         3 ok read 7
         2 invoke read
         2 ok read 5",
    );
    assert!(
        matches!(&v, Violation::NoOrder { writes, .. } if writes.len() == 2),
        "{v:?}"
    );
}

#[test]
fn outside_the_fragment_is_unknown_to_the_chains_and_searched() {
    let dup = ops("0 invoke write 1
         0 ok write 1
         1 invoke write 1
         1 info write 1");
    assert_eq!(run(&dup).validity(), Validity::True);
    let a = run_chains(&dup);
    assert_eq!(a.validity(), Validity::Unknown);
    assert!(matches!(
        a.undecided[..],
        [Undecided::DuplicateWrites { ops: [0, 1], .. }]
    ));
    let writes: String = (0..=MAX_PERMUTED)
        .map(|v| format!("{v} invoke write {}\n{v} ok write {}\n", v + 10, v + 10))
        .collect();
    assert_eq!(run(&ops(&writes)).validity(), Validity::True);
    let a = run_chains(&ops(&writes));
    assert_eq!(a.validity(), Validity::Unknown);
    assert!(
        matches!(&a.undecided[..], [Undecided::BlindWrites { writes, .. }] if writes.len() == MAX_PERMUTED + 1)
    );
    // Far more blocks than a u64 counts the orders of (25! > 2^64): still
    // undecided here, not an overflow.
    let many: String = (0..25)
        .map(|v| format!("{v} invoke write {}\n{v} ok write {}\n", v + 10, v + 10))
        .collect();
    let a = run_chains(&ops(&many));
    assert!(
        matches!(&a.undecided[..], [Undecided::BlindWrites { writes, .. }] if writes.len() == 25)
    );
    // A violation on another key makes the history invalid all the same;
    // the search then decides the first key.
    let text = ops("0 invoke write [0 1]
         0 ok write [0 1]
         1 invoke write [0 1]
         1 ok write [0 1]
         2 invoke cas [1 [3 4]]
         2 ok cas [1 [3 4]]");
    let a = run_chains(&text);
    assert_eq!(a.validity(), Validity::False);
    assert_eq!(a.anomaly_types(), vec![NONLINEARIZABLE, OUTSIDE_FRAGMENT]);
    let a = run(&text);
    assert_eq!(a.anomaly_types(), vec![NONLINEARIZABLE]);
    assert!(a.undecided.is_empty());
}

#[test]
fn permutations() {
    let mut p = vec![0, 1, 2];
    let mut n = 1;
    while next_permutation(&mut p) {
        n += 1;
    }
    assert_eq!((n, p), (6, vec![2, 1, 0]));
}

/// A mutex history's analysis (its ops as [`ops`] lines).
fn mutex(lines: &str) -> RegisterAnalysis {
    let h = history::parse_edn("t.edn", &ops(lines)).unwrap_or_else(|d| panic!("{d}"));
    assert_eq!(h.workload, Workload::Mutex);
    check(&h)
}

#[test]
fn a_mutex_is_held_by_one_acquire_at_a_time() {
    let sequential = "0 invoke acquire\n0 ok acquire\n0 invoke release\n0 ok release\n1 invoke acquire\n1 ok acquire";
    assert_eq!(mutex(sequential).validity(), Validity::True);
    // Two acquires both succeed, with no release between them.
    let twice = "0 invoke acquire\n1 invoke acquire\n0 ok acquire\n1 ok acquire";
    let a = mutex(twice);
    assert_eq!(a.validity(), Validity::False, "{a:?}");
    assert!(matches!(
        a.violations[..],
        [Violation::NoLinearization { .. }]
    ));
}

#[test]
fn a_release_of_a_free_mutex_is_a_verdict() {
    let a = mutex("1 invoke release\n1 ok release");
    let [Violation::NoLinearization {
        prefix, op, states, ..
    }] = &a.violations[..]
    else {
        panic!("{a:?}")
    };
    assert_eq!((prefix.len(), *op), (0, 0));
    assert_eq!(states.len(), 1);
    // As in Knossos's model, the mutex knows it is held, not by whom: a
    // release by another process than the one that acquired it is allowed.
    let other = "0 invoke acquire\n0 ok acquire\n1 invoke release\n1 ok release";
    assert_eq!(mutex(other).validity(), Validity::True);
}

#[test]
fn mutex_ops_that_failed_or_crashed() {
    // A failed op took no effect, whatever it was.
    let failed = "0 invoke release\n0 fail release\n1 invoke acquire\n1 ok acquire";
    assert_eq!(mutex(failed).validity(), Validity::True);
    // A crashed acquire may have taken effect (and explains a release) ...
    let took = "0 invoke acquire\n0 info acquire\n1 invoke release\n1 ok release";
    assert_eq!(mutex(took).validity(), Validity::True);
    // ... or not (and leaves the mutex free for another).
    let not = "0 invoke acquire\n0 info acquire\n1 invoke acquire\n1 ok acquire";
    assert_eq!(mutex(not).validity(), Validity::True);
    // But not both: its effect cannot free the mutex for a second acquire.
    let both = "0 invoke acquire\n0 info acquire\n1 invoke release\n1 ok release\n2 invoke acquire\n2 ok acquire\n3 invoke acquire\n3 ok acquire";
    assert_eq!(mutex(both).validity(), Validity::False);
}

#[test]
fn independent_mutexes_are_checked_apart() {
    let a = mutex("0 invoke acquire [1 nil]\n0 ok acquire [1 nil]\n1 invoke acquire [2 nil]\n1 ok acquire [2 nil]\n2 invoke release [3 nil]\n2 ok release [3 nil]");
    assert_eq!((a.keys, a.validity()), (3, Validity::False), "{a:?}");
    assert_eq!(a.violations.len(), 1);
}

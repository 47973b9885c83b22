//! Issue 32's three minimal histories, each also in list-append, with the
//! models under which each is valid (derived by hand from the
//! definitions; every other model the oracle defines is violated, and a
//! model isocheck does not check must not answer valid): the oracle must
//! give exactly these verdicts, and so must the checker, three ways.
//!
//! 1. A read of x = 1 after a read of nil in one transaction: two states
//!    read, allowed only by read committed (Adya's and Biswas and Enea's)
//!    and read uncommitted.
//! 2. A read of a write whose transaction was invoked after the reader
//!    completed and never completed: the writer committed (its value was
//!    read), after the reader in real time; only the real-time models
//!    (strict serializable, strong snapshot isolation, strong read
//!    committed) fail. Strong read uncommitted holds: it proscribes
//!    cycles of ww and real-time edges only, and the write may be taken
//!    as aborted.
//! 3. The same, in one process, with an `:info` completion: the writer
//!    follows the reader in session order too, so every model with
//!    session or real-time order fails, and so do all the axiomatic ones
//!    (their commit order contains session order and read-from), except
//!    the read-uncommitted variants.

use super::checker::{self, Way};
use super::compare;
use super::history::{History, Kind, Mop, Status, Txn};
use super::models::{self, Def};
use isocheck::Validity;

const READ_COMMITTED: &[&str] = &[
    "read-uncommitted",
    "strong-session-read-uncommitted",
    "strong-read-uncommitted",
    "read-committed",
    "strong-session-read-committed",
    "strong-read-committed",
    "read-committed-be",
];

const NOT_REAL_TIME: &[&str] = &[
    "read-uncommitted",
    "strong-session-read-uncommitted",
    "strong-read-uncommitted",
    "read-committed",
    "strong-session-read-committed",
    "repeatable-read",
    "serializable",
    "strong-session-serializable",
    "snapshot-isolation",
    "strong-session-snapshot-isolation",
    "read-committed-be",
    "read-atomic",
    "read-your-writes",
    "causal-cerone",
    "causal",
    "monotonic-reads",
    "monotonic-writes",
    "PRAM",
    "writes-follow-reads",
    "prefix",
    "parallel-snapshot-isolation",
];

const NO_ORDER: &[&str] = &[
    "read-uncommitted",
    "strong-session-read-uncommitted",
    "strong-read-uncommitted",
    "read-committed",
    "repeatable-read",
    "serializable",
    "snapshot-isolation",
];

fn txn(process: u32, status: Status, at: (usize, Option<usize>), mops: Vec<Mop>) -> Txn {
    Txn {
        process,
        status,
        invoke: at.0,
        complete: at.1,
        mops,
    }
}

fn read(k: usize, vs: &[u32]) -> Mop {
    Mop::Read(k, vs.to_vec(), true)
}

/// The three histories in `kind`, each with the models it satisfies.
fn histories(kind: Kind) -> Vec<(&'static str, History, &'static [&'static str])> {
    use Status::*;
    let h = |txns| History {
        kind,
        keys: 1,
        txns,
    };
    vec![
        (
            "1: a read after a nil read",
            h(vec![
                txn(0, Ok, (0, Some(3)), vec![read(0, &[]), read(0, &[1])]),
                txn(1, Ok, (1, Some(2)), vec![read(0, &[]), Mop::Write(0, 1)]),
            ]),
            READ_COMMITTED,
        ),
        (
            "2: an invocation never completed",
            h(vec![
                txn(0, Ok, (0, Some(1)), vec![read(0, &[1])]),
                txn(1, Open, (2, None), vec![Mop::Write(0, 1)]),
            ]),
            NOT_REAL_TIME,
        ),
        (
            "3: an :info transaction in its session",
            h(vec![
                txn(0, Ok, (0, Some(1)), vec![read(0, &[5])]),
                txn(0, Info, (2, Some(3)), vec![Mop::Write(0, 5)]),
            ]),
            NO_ORDER,
        ),
    ]
}

pub fn assert_all() {
    let mut wrong = Vec::new();
    for kind in [Kind::Register, Kind::List] {
        for (name, h, valid) in histories(kind) {
            let parsed = checker::parse(&h);
            for (m, def) in compare::models() {
                let expected = valid.contains(&m);
                if def != Def::Unchecked {
                    let oracle = models::decide(&h, def, false);
                    if oracle != Some(expected) {
                        wrong.push(format!("{kind:?} {name}: {m}: oracle {oracle:?}"));
                    }
                }
                for way in Way::ALL {
                    let a = checker::answer(&parsed, m, way);
                    let right = match def {
                        Def::Unchecked => a.valid != Validity::True,
                        _ => a.decided() == Some(expected),
                    };
                    if !right {
                        wrong.push(format!(
                            "{kind:?} {name}: {m}{}: checker {} {:?}, expected {expected}",
                            way.flag(),
                            a.valid.name(),
                            a.types
                        ));
                    }
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

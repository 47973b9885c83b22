//! dbcop's `history.bincode`: a bincode-1 (little-endian, u64 lengths)
//! serialization of dbcop's `History`.
//!
//! Layout: five u64 parameters (id, n_node, n_variable, n_transaction,
//! n_event); three strings (info, start, end); then `Vec<Session>`, a
//! session being `Vec<Transaction>`, a transaction
//! `{ events: Vec<Event>, success: bool }` and an event
//! `{ write: bool, variable: u64, value: u64, success: bool }`. Only
//! successful events happened. An implicit initial transaction writes 0 to
//! every variable. There is no timing.

use super::{Bytes, TxnOps};
use crate::history::error::HistoryError;
use crate::history::jepsen::Ops;
use crate::history::model::MopKind;
use crate::history::span::Span;

const HELP: &str =
    "dbcop histories are bincode-1 `History` values; this file is truncated, corrupt or not one";

/// Encoded sizes, to refuse counts the remaining bytes cannot hold before
/// looping over them.
const EVENT_BYTES: usize = 1 + 8 + 8 + 1;
const TXN_MIN_BYTES: usize = 8 + 1;
const SESSION_MIN_BYTES: usize = 8;

/// Reads every transaction of a dbcop history. Sessions are numbered from 0
/// in file order. Unsuccessful transactions become `:fail` ops holding their
/// successful events, so that reads of their writes can be named aborted reads.
pub fn read(bytes: &[u8]) -> Result<Ops, HistoryError> {
    let mut r = Bytes::new(bytes, "", HELP);
    for what in [
        "the history id",
        "n_node",
        "n_variable",
        "n_transaction",
        "n_event",
    ] {
        r.u64_le(what)?;
    }
    for what in ["the info string", "the start time", "the end time"] {
        string(&mut r, what)?;
    }
    let mut out = TxnOps::new();
    out.ops.mops.reserve(bytes.len() / EVENT_BYTES);
    let sessions = count(&mut r, "sessions", SESSION_MIN_BYTES)?;
    for session in 0..sessions {
        let txns = count(&mut r, "transactions", TXN_MIN_BYTES)?;
        for _ in 0..txns {
            transaction(&mut r, &mut out, session as u64)?;
        }
    }
    if r.remaining() > 0 {
        return Err(r.error(
            r.pos(),
            format!("{} bytes follow the history", r.remaining()),
        ));
    }
    Ok(out.finish_zero_initial())
}

fn transaction(r: &mut Bytes<'_>, out: &mut TxnOps, session: u64) -> Result<(), HistoryError> {
    let events = count(r, "events", EVENT_BYTES)?;
    let start = out.ops.mops.len();
    for _ in 0..events {
        let kind = if boolean(r, "an event's write flag")? {
            MopKind::Write
        } else {
            MopKind::Read
        };
        let key = r.u64_le("an event's variable")?;
        let value = r.u64_le("an event's value")?;
        if boolean(r, "an event's success flag")? {
            out.mop(kind, key, Some(value), Span::default());
        }
    }
    let committed = boolean(r, "a transaction's success flag")?;
    out.txn(start, session, committed, Span::default())
}

/// A bincode `bool`: one byte, 0 or 1.
fn boolean(r: &mut Bytes<'_>, what: &str) -> Result<bool, HistoryError> {
    let at = r.pos();
    match r.u8(what)? {
        0 => Ok(false),
        1 => Ok(true),
        b => Err(r.error(at, format!("{what} is {b}, not a boolean (0 or 1)"))),
    }
}

/// A sequence length, refused when the rest of the input cannot hold that
/// many items of at least `min_bytes` each.
fn count(r: &mut Bytes<'_>, what: &str, min_bytes: usize) -> Result<usize, HistoryError> {
    let at = r.pos();
    let n = r.u64_le("a length")?;
    let fits = usize::try_from(n)
        .ok()
        .filter(|&n| n.checked_mul(min_bytes).is_some_and(|b| b <= r.remaining()));
    fits.ok_or_else(|| {
        r.error(
            at,
            format!("{n} {what} cannot fit in the {} bytes left", r.remaining()),
        )
    })
}

/// A bincode string: u64 length, then UTF-8. Checked, then dropped: the
/// checker has no use for dbcop's metadata.
fn string(r: &mut Bytes<'_>, what: &str) -> Result<(), HistoryError> {
    let n = count(r, "bytes", 1)?;
    let at = r.pos();
    let bytes = r.take(n, what)?;
    std::str::from_utf8(bytes).map_err(|_| r.error(at, format!("{what} is not UTF-8")))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::formats::tests::{summary, Mop};

    /// Writes bincode-1 the way dbcop's serde derive does.
    #[derive(Default)]
    struct Writer(Vec<u8>);

    impl Writer {
        fn u64(&mut self, n: u64) -> &mut Self {
            self.0.extend_from_slice(&n.to_le_bytes());
            self
        }
        fn bool(&mut self, b: bool) -> &mut Self {
            self.0.push(b as u8);
            self
        }
        fn str(&mut self, s: &str) -> &mut Self {
            self.u64(s.len() as u64);
            self.0.extend_from_slice(s.as_bytes());
            self
        }
        fn header(&mut self) -> &mut Self {
            self.u64(0).u64(2).u64(3).u64(2).u64(2);
            self.str("PostgreSQL")
                .str("2022-07-22T00:00:00+00:00")
                .str("2022-07-22T00:00:01+00:00")
        }
        /// `(write, variable, value, success)` events, then the txn's success.
        fn txn(&mut self, events: &[(bool, u64, u64, bool)], success: bool) -> &mut Self {
            self.u64(events.len() as u64);
            for &(w, k, v, ok) in events {
                self.bool(w).u64(k).u64(v).bool(ok);
            }
            self.bool(success)
        }
    }

    /// Two sessions: session 0 writes x=1 then reads it; session 1 has an
    /// aborted transaction writing y=7 (and a failed event) and a committed
    /// one reading x=0 (initial) and y=0.
    fn sample() -> Vec<u8> {
        let mut w = Writer::default();
        w.header().u64(2);
        w.u64(2)
            .txn(&[(true, 1, 1, true)], true)
            .txn(&[(false, 1, 1, true)], true);
        w.u64(2)
            .txn(&[(true, 2, 7, true), (true, 3, 9, false)], false);
        w.txn(&[(false, 1, 0, true), (false, 2, 0, true)], true);
        w.0
    }

    #[test]
    fn reads_sessions_statuses_and_initial_reads() {
        let ops = read(&sample()).unwrap();
        assert!(ops.untimed);
        use Mop::{R, W};
        assert_eq!(
            summary(&ops),
            vec![
                (0, true, vec![W(1, Some(1))]),
                (0, true, vec![R(1, Some(1))]),
                (1, false, vec![W(2, Some(7))]),
                (1, true, vec![R(1, None), R(2, None)]),
            ]
        );
        assert!(ops.ops.iter().all(|o| o.span == Span::default()));
    }

    #[test]
    fn committed_zero_write_is_read_as_itself_but_aborted_is_not() {
        let mut w = Writer::default();
        w.header().u64(1).u64(3);
        w.txn(&[(true, 1, 0, true)], true)
            .txn(&[(true, 2, 0, true)], false);
        w.txn(&[(false, 1, 0, true), (false, 2, 0, true)], true);
        let ops = read(&w.0).unwrap();
        use Mop::{R, W};
        assert_eq!(
            summary(&ops),
            vec![
                (0, true, vec![W(1, Some(0))]),
                (0, false, vec![W(2, Some(0))]),
                (0, true, vec![R(1, Some(0)), R(2, None)]),
            ]
        );
    }

    #[test]
    fn every_truncation_is_an_error() {
        let bytes = sample();
        for n in 0..bytes.len() {
            assert!(read(&bytes[..n]).is_err(), "prefix of {n} bytes");
        }
    }

    #[test]
    fn trailing_bytes_are_an_error() {
        let mut bytes = sample();
        bytes.push(0);
        let e = read(&bytes).unwrap_err();
        assert!(
            e.to_string()
                .contains(&format!("at byte {}", bytes.len() - 1)),
            "{e}"
        );
    }

    #[test]
    fn bad_bools_are_errors() {
        let good = sample();
        // The first event's write flag, its success flag, and the first
        // transaction's success flag.
        let header = Writer::default().header().0.len();
        // After the header: the session count, session 0's txn count, the txn's event count.
        let events_at = header + 3 * 8;
        for at in [events_at, events_at + 17, events_at + 18] {
            let mut bytes = good.clone();
            assert!(bytes[at] <= 1);
            bytes[at] = 2;
            let e = read(&bytes).unwrap_err();
            assert!(e.to_string().contains("not a boolean"), "{e}");
        }
    }

    #[test]
    fn huge_counts_are_refused_before_allocating() {
        let mut w = Writer::default();
        w.header().u64(u64::MAX);
        assert!(read(&w.0).is_err());
        let mut w = Writer::default();
        w.header().u64(1).u64(1).u64(1 << 60);
        assert!(read(&w.0).is_err());
        let mut w = Writer::default();
        w.u64(0).u64(0).u64(0).u64(0).u64(0).u64(u64::MAX);
        assert!(read(&w.0).is_err());
    }

    #[test]
    fn invalid_utf8_string_is_an_error() {
        let mut w = Writer::default();
        w.u64(0).u64(0).u64(0).u64(0).u64(0).u64(1);
        w.0.push(0xff);
        w.str("").str("").u64(0);
        assert!(read(&w.0).unwrap_err().to_string().contains("UTF-8"));
    }

    #[test]
    fn fixture_builds() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../fixtures/formats/small.bincode"
        );
        let bytes = std::fs::read(path).unwrap();
        assert_eq!(
            bytes,
            sample(),
            "fixtures/formats/small.bincode is sample()"
        );
        crate::history::formats::tests::build_ok("small.bincode", read(&bytes).unwrap());
    }

    proptest::proptest! {
        #[test]
        fn mutated_input_never_panics(edits in proptest::collection::vec((0usize..400, 0u8..=255), 0..8)) {
            let mut bytes = sample();
            for (at, b) in edits {
                let at = at % bytes.len();
                bytes[at] = b;
            }
            if let Ok(ops) = read(&bytes) {
                summary(&ops);
            }
        }
    }
}

//! Cobra's client logs: a directory with one `T<n>.log` per client (other
//! files, such as `.debug` and `.error`, are ignored).
//!
//! Each log is a big-endian record stream: `S` txn (start), `W` write-id key
//! value, `R` writer-txn write-id key value, `C` txn (commit). Write ids
//! are unique, so a write's id is its value, for writes and reads alike;
//! the logged value itself is a hash we ignore. Reads of the initial version
//! name magic ids instead of a writer. Aborted transactions are not logged,
//! and every started transaction must commit. We follow PolySI's
//! `CobraHistoryLoader`, except that we refuse logs it would read
//! inconsistently (see [`read_dir`]).
//!
//! VeriStrong's variant (its `fig5` and `fig13` benchmark logs) names no
//! writer: every write carries the write id `UNIVERSAL`, every read of a
//! written version names `UNIVERSAL` as writer and write, and the logged
//! value is what identifies the version, as VeriStrong reads it. Logs that
//! mix the two ways are refused: a value and a write id could collide.

use super::{format_error, Bytes, NumHash, TxnOps};
use crate::history::error::HistoryError;
use crate::history::jepsen::Ops;
use crate::history::model::MopKind;
use crate::history::span::Span;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

const HELP: &str =
    "Cobra client logs are streams of S (start), W (write), R (read) and C (commit) \
                    records; aborted transactions are not logged";

/// Writer ids of reads that saw no logged write (Cobra's `VeriConstants`).
const INIT_TXN_ID: u64 = 0xbebe_ebee;
const INIT_WRITE_ID: u64 = 0xbebe_ebee;
/// A read of a key that does not exist yet: also the initial version.
const NULL_ID: u64 = 0xdead_beef;
/// Write ids of the garbage collector's flag key, written by a client that
/// logs nothing; such reads keep the id as their value, so, as in PolySI,
/// they read a write the history does not hold.
const GC_WID_TRUE: u64 = 0x2333_2333;
const GC_WID_FALSE: u64 = 0x6666_6666;
/// VeriStrong's writer and write id of a version known by its value alone.
const UNIVERSAL_ID: u64 = 0xabdd_efee;

/// Reads every transaction of a directory of Cobra logs. Sessions are the
/// `.log` files, numbered from 0 in the order of the number in their names
/// (`T1`, `T2`, ..., `T10`); names without one come last, by name.
///
/// Where PolySI would quietly carry on, this refuses: a transaction started
/// twice, or before the previous one committed, a commit naming another
/// transaction, a micro-op outside a transaction, and a read naming as its
/// writer a transaction other than the one that logged the write.
pub fn read_dir(dir: &Path) -> Result<Ops, HistoryError> {
    let files = log_files(dir)?;
    let mut out = TxnOps::new();
    let mut seen = Seen::default();
    for (session, path) in files.iter().enumerate() {
        let bytes = std::fs::read(path).map_err(|e| HistoryError::io(path, &e))?;
        let file = format!(" of {}", file_name(path));
        read_log(
            Bytes::new(&bytes, &file, HELP),
            &mut out,
            &mut seen,
            session,
        )?;
    }
    seen.check_writers(&files)?;
    Ok(out.finish())
}

/// The client logs of `dir`, in session order.
fn log_files(dir: &Path) -> Result<Vec<PathBuf>, HistoryError> {
    let io = |e: std::io::Error| HistoryError::io(dir, &e);
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let path = entry.map_err(io)?.path();
        if path.extension().is_some_and(|e| e == "log") && path.is_file() {
            files.push(path);
        }
    }
    files.sort_by_cached_key(|p| {
        let n = client_number(p);
        (n.is_none(), n, p.clone())
    });
    if files.is_empty() {
        let msg = format!("{} holds no .log files", dir.display());
        return Err(format_error(
            msg,
            "a Cobra history is a directory of T<n>.log client logs; a Jepsen run \
             directory holds a history.edn, and a Jepsen store has run directories below it \
             (`isocheck recheck STORE`)",
        ));
    }
    Ok(files)
}

/// `T12.log` → 12.
fn client_number(path: &Path) -> Option<u64> {
    path.file_stem()?.to_str()?.strip_prefix('T')?.parse().ok()
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// What the logs read so far have shown, across files.
#[derive(Default)]
struct Seen {
    txns: HashSet<u64, NumHash>,
    /// `(key, write id)` → the transaction that logged the write.
    writer_of: HashMap<(u64, u64), u64, NumHash>,
    /// Reads of logged writes, checked against `writer_of` once every
    /// file is read (the write may sit in a later file).
    reads: Vec<NamedWriter>,
    /// Whether versions are known by write id (Cobra) or by value
    /// (VeriStrong's `UNIVERSAL` records), as the first record that says
    /// showed, and where.
    by_value: Option<(bool, usize, usize)>,
}

/// A read's claim that transaction `txn` wrote `write` to `key`.
struct NamedWriter {
    key: u64,
    write: u64,
    txn: u64,
    file: usize,
    at: usize,
}

impl Seen {
    fn check_writers(&self, files: &[PathBuf]) -> Result<(), HistoryError> {
        for read in &self.reads {
            let Some(&writer) = self.writer_of.get(&(read.key, read.write)) else {
                continue;
            };
            if writer != read.txn {
                let file = files
                    .get(read.file)
                    .map(|p| file_name(p))
                    .unwrap_or_default();
                let msg = format!(
                    "the read at byte {} of {file} names transaction {:#x} as the writer of \
                     write {:#x}, but transaction {writer:#x} logged that write",
                    read.at, read.txn, read.write
                );
                return Err(format_error(
                    msg,
                    "the logs contradict each other; they may be corrupt",
                ));
            }
        }
        Ok(())
    }
}

/// The transaction being read: its id, where its micro-ops start in
/// `ops.mops`, and the byte of its `S` record.
struct Open {
    id: u64,
    start: usize,
    at: usize,
}

/// Reads one client's log: the transactions of one session.
struct LogReader<'a, 'o> {
    r: Bytes<'a>,
    out: &'o mut TxnOps,
    seen: &'o mut Seen,
    session: usize,
    open: Option<Open>,
}

fn read_log(
    r: Bytes<'_>,
    out: &mut TxnOps,
    seen: &mut Seen,
    session: usize,
) -> Result<(), HistoryError> {
    let mut log = LogReader {
        r,
        out,
        seen,
        session,
        open: None,
    };
    while log.r.remaining() > 0 {
        let at = log.r.pos();
        match log.r.u8("a record type")? {
            b'S' => log.start(at)?,
            b'C' => log.commit(at)?,
            b'W' => log.write(at)?,
            b'R' => log.read(at)?,
            t => {
                return Err(log
                    .r
                    .error(at, format!("unknown record type {}", show_byte(t))));
            }
        }
    }
    match log.open {
        Some(t) => Err(log.r.error(
            t.at,
            format!("transaction {:#x} starts here but never commits", t.id),
        )),
        None => Ok(()),
    }
}

impl LogReader<'_, '_> {
    /// `S` txn: a fresh transaction, with none still running.
    fn start(&mut self, at: usize) -> Result<(), HistoryError> {
        let id = self.r.u64_be("a transaction id")?;
        if let Some(t) = &self.open {
            let msg = format!(
                "transaction {id:#x} starts before transaction {:#x} (at byte {}) commits",
                t.id, t.at
            );
            return Err(self.r.error(at, msg));
        }
        if !self.seen.txns.insert(id) {
            return Err(self
                .r
                .error(at, format!("transaction {id:#x} starts a second time")));
        }
        self.open = Some(Open {
            id,
            start: self.out.ops.mops.len(),
            at,
        });
        Ok(())
    }

    /// `C` txn: the running transaction commits.
    fn commit(&mut self, at: usize) -> Result<(), HistoryError> {
        let id = self.r.u64_be("a transaction id")?;
        let Some(txn) = self.open.take().filter(|t| t.id == id) else {
            return Err(self.r.error(
                at,
                format!("commit of transaction {id:#x}, which is not running"),
            ));
        };
        self.out
            .txn(txn.start, self.session as u64, true, Span::default())
    }

    /// `W` write-id key value.
    fn write(&mut self, at: usize) -> Result<(), HistoryError> {
        let txn = self.running(at)?;
        let (write, key) = (self.r.u64_be("a write id")?, self.r.u64_be("a key")?);
        let value = self.r.u64_be("a value")?;
        let version = self.version(write, value, at)?;
        self.seen.writer_of.insert((key, version), txn);
        self.out
            .mop(MopKind::Write, key, Some(version), Span::default());
        Ok(())
    }

    /// The version a record at `at` names by `write` id and `logged`
    /// value: the value where the write id is VeriStrong's `UNIVERSAL`.
    fn version(&mut self, write: u64, logged: u64, at: usize) -> Result<u64, HistoryError> {
        let by_value = write == UNIVERSAL_ID;
        self.known_by(by_value, at)?;
        Ok(if by_value { logged } else { write })
    }

    /// Records that versions are known by value (`by_value`) or by write
    /// id, as the record at `at` shows; an error where an earlier record
    /// showed the other.
    fn known_by(&mut self, by_value: bool, at: usize) -> Result<(), HistoryError> {
        let (first, file, first_at) =
            *self
                .seen
                .by_value
                .get_or_insert((by_value, self.session, at));
        if first == by_value {
            return Ok(());
        }
        let (this, other) = match by_value {
            true => ("by its value (VeriStrong's 0xabddefee)", "by write id"),
            false => ("by write id", "by value (VeriStrong's 0xabddefee)"),
        };
        let msg = format!(
            "this record knows a version {this}, but the record at byte {first_at} of the log \
             numbered {file} (in session order) knows one {other}"
        );
        Err(self.r.error(at, msg))
    }

    /// `R` writer-txn write-id key value.
    fn read(&mut self, at: usize) -> Result<(), HistoryError> {
        self.running(at)?;
        let (txn, write) = (
            self.r.u64_be("a writer transaction id")?,
            self.r.u64_be("a write id")?,
        );
        let key = self.r.u64_be("a key")?;
        let logged = self.r.u64_be("a value")?;
        if txn == UNIVERSAL_ID {
            // VeriStrong's: the version the value names, whoever wrote it.
            let version = self.version(write, logged, at)?;
            self.out
                .mop(MopKind::Read, key, Some(version), Span::default());
            return Ok(());
        }
        let Some(value) = read_value(txn, write) else {
            let msg = format!(
                "a read names the reserved writer {txn:#x} with write id {write:#x}, which is \
                 neither the initial version nor the GC flag"
            );
            return Err(self.r.error(at, msg));
        };
        if !reserved_writer(txn) {
            let (file, seen) = (self.session, &mut self.seen.reads);
            seen.push(NamedWriter {
                key,
                write,
                txn,
                file,
                at,
            });
        }
        self.out.mop(MopKind::Read, key, value, Span::default());
        Ok(())
    }

    /// The running transaction's id, for a micro-op record at `at`.
    fn running(&self, at: usize) -> Result<u64, HistoryError> {
        self.open
            .as_ref()
            .map(|t| t.id)
            .ok_or_else(|| self.r.error(at, "a micro-op outside any transaction"))
    }
}

/// Whether a read's writer id is one of the reserved ones, not a transaction.
fn reserved_writer(txn: u64) -> bool {
    txn == INIT_TXN_ID || txn == NULL_ID
}

/// The value a read saw, given the writer it names: `Some(Some(write id))`,
/// or `Some(None)` for the initial version. `None` for a reserved writer id
/// with a write id PolySI does not accept either.
fn read_value(txn: u64, write: u64) -> Option<Option<u64>> {
    if !reserved_writer(txn) {
        return Some(Some(write));
    }
    if write == INIT_WRITE_ID || write == NULL_ID {
        return Some(None);
    }
    (txn == INIT_TXN_ID && (write == GC_WID_TRUE || write == GC_WID_FALSE)).then_some(Some(write))
}

fn show_byte(b: u8) -> String {
    match b.is_ascii_graphic() {
        true => format!("'{}'", b as char),
        false => format!("{b:#04x}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::formats::tests::{summary, Mop};

    /// Writes Cobra records.
    #[derive(Default)]
    struct Log(Vec<u8>);

    impl Log {
        fn rec(mut self, tag: u8, fields: &[u64]) -> Self {
            self.0.push(tag);
            for f in fields {
                self.0.extend_from_slice(&f.to_be_bytes());
            }
            self
        }
        fn s(self, txn: u64) -> Self {
            self.rec(b'S', &[txn])
        }
        fn c(self, txn: u64) -> Self {
            self.rec(b'C', &[txn])
        }
        fn w(self, write: u64, key: u64) -> Self {
            self.rec(b'W', &[write, key, 0x5eed])
        }
        fn r(self, txn: u64, write: u64, key: u64) -> Self {
            self.rec(b'R', &[txn, write, key, 0x5eed])
        }
    }

    /// A fresh directory holding `files`, removed on drop.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(name: &str, files: &[(&str, &[u8])]) -> TempDir {
            let dir =
                std::env::temp_dir().join(format!("isocheck-cobra-{}-{name}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            for (file, bytes) in files {
                std::fs::write(dir.join(file), bytes).unwrap();
            }
            TempDir(dir)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/formats/cobra");

    /// The logs of `fixtures/formats/cobra`: T1 writes key 7 and reads it
    /// back; T2 reads key 7 from T1, key 8 initial (INIT) and key 9 missing
    /// (NULL); T10 reads the GC flag; T1.debug is not a log.
    fn fixture_logs() -> [(&'static str, Vec<u8>); 4] {
        let t1 = Log::default()
            .s(100)
            .w(1000, 7)
            .c(100)
            .s(101)
            .r(100, 1000, 7)
            .c(101);
        let t2 = Log::default()
            .s(200)
            .r(100, 1000, 7)
            .r(INIT_TXN_ID, INIT_WRITE_ID, 8);
        let t2 = t2.r(NULL_ID, NULL_ID, 9).w(2000, 8).c(200);
        let t10 = Log::default().s(300).r(INIT_TXN_ID, GC_WID_TRUE, 5).c(300);
        [
            ("T1.log", t1.0),
            ("T2.log", t2.0),
            ("T10.log", t10.0),
            ("T1.debug", b"not a log".to_vec()),
        ]
    }

    #[test]
    fn fixture_matches_its_recipe() {
        for (name, bytes) in fixture_logs() {
            let on_disk = std::fs::read(Path::new(FIXTURE).join(name)).unwrap();
            assert_eq!(on_disk, bytes, "fixtures/formats/cobra/{name}");
        }
    }

    #[test]
    fn reads_sessions_in_numeric_order_and_initial_reads() {
        let ops = read_dir(Path::new(FIXTURE)).unwrap();
        assert!(ops.untimed);
        use Mop::{R, W};
        assert_eq!(
            summary(&ops),
            vec![
                (0, true, vec![W(7, Some(1000))]),
                (0, true, vec![R(7, Some(1000))]),
                (
                    1,
                    true,
                    vec![R(7, Some(1000)), R(8, None), R(9, None), W(8, Some(2000))]
                ),
                (2, true, vec![R(5, Some(GC_WID_TRUE))]),
            ]
        );
        crate::history::formats::tests::build_ok("cobra", ops);
    }

    fn error_of(name: &str, log: &Log) -> String {
        let dir = TempDir::new(name, &[("T1.log", &log.0)]);
        read_dir(&dir.0).unwrap_err().to_string()
    }

    #[test]
    fn uncommitted_txn_is_an_error() {
        let e = error_of("uncommitted", &Log::default().s(1).c(1).s(2).w(5, 5));
        assert!(
            e.contains("never commits") && e.contains("at byte 18 of T1.log"),
            "{e}"
        );
    }

    #[test]
    fn malformed_logs_are_errors() {
        let cases: [(&str, Log, &str); 8] = [
            (
                "abort",
                Log::default().s(1).rec(b'A', &[1]),
                "unknown record type 'A'",
            ),
            ("nested", Log::default().s(1).s(2), "starts before"),
            ("twice", Log::default().s(1).c(1).s(1), "second time"),
            ("commit-other", Log::default().s(1).c(2), "not running"),
            ("outside", Log::default().w(1, 1), "outside any transaction"),
            (
                "null-writer",
                Log::default().s(1).r(NULL_ID, 5, 5),
                "the reserved writer",
            ),
            (
                "gc-null",
                Log::default().s(1).r(NULL_ID, GC_WID_FALSE, 5),
                "the reserved writer",
            ),
            (
                "truncated",
                Log::default().s(1).rec(b'W', &[1, 2]),
                "input ends inside a value",
            ),
        ];
        for (name, log, want) in cases {
            let e = error_of(name, &log);
            assert!(e.contains(want), "{name}: {e}");
        }
    }

    #[test]
    fn every_truncation_is_an_error_or_a_shorter_history() {
        let bytes = &fixture_logs()[1].1;
        for n in 0..bytes.len() {
            let dir = TempDir::new(&format!("trunc-{n}"), &[("T1.log", &bytes[..n])]);
            // Only the empty log is whole.
            assert_eq!(read_dir(&dir.0).is_ok(), n == 0, "prefix of {n} bytes");
        }
    }

    #[test]
    fn read_naming_the_wrong_writer_is_an_error() {
        let t1 = Log::default().s(1).r(3, 30, 7).c(1);
        let t2 = Log::default().s(2).w(30, 7).c(2);
        let dir = TempDir::new("wrong-writer", &[("T1.log", &t1.0), ("T2.log", &t2.0)]);
        let e = read_dir(&dir.0).unwrap_err().to_string();
        assert!(
            e.contains("at byte 9 of T1.log") && e.contains("transaction 0x2 logged"),
            "{e}"
        );
    }

    #[test]
    fn veristrong_s_records_know_versions_by_value() {
        let u = UNIVERSAL_ID;
        let t1 = Log::default().s(1).rec(b'W', &[u, 7, 70]).c(1);
        let t2 = Log::default()
            .s(2)
            .rec(b'R', &[u, u, 7, 70])
            .r(INIT_TXN_ID, INIT_WRITE_ID, 8)
            .c(2);
        let dir = TempDir::new("universal", &[("T1.log", &t1.0), ("T2.log", &t2.0)]);
        let ops = read_dir(&dir.0).unwrap();
        use Mop::{R, W};
        assert_eq!(
            summary(&ops),
            vec![
                (0, true, vec![W(7, Some(70))]),
                (1, true, vec![R(7, Some(70)), R(8, None)]),
            ]
        );
        crate::history::formats::tests::build_ok("cobra-universal", ops);
    }

    #[test]
    fn versions_known_both_by_value_and_by_write_id_are_an_error() {
        let u = UNIVERSAL_ID;
        let t1 = Log::default().s(1).w(30, 7).c(1);
        let t2 = Log::default().s(2).rec(b'R', &[u, u, 7, 30]).c(2);
        let dir = TempDir::new("mixed", &[("T1.log", &t1.0), ("T2.log", &t2.0)]);
        let e = read_dir(&dir.0).unwrap_err().to_string();
        assert!(
            e.contains("at byte 9 of T2.log") && e.contains("by write id"),
            "{e}"
        );
    }

    #[test]
    fn directory_without_logs_is_an_error() {
        let dir = TempDir::new("empty", &[("T1.debug", b"")]);
        assert!(read_dir(&dir.0).is_err());
        assert!(read_dir(Path::new("/nonexistent/isocheck")).is_err());
    }

    proptest::proptest! {
        /// Record streams of S, C, W, R and stray bytes over a few ids
        /// (2 standing for INIT, 3 for NULL, 4 for UNIVERSAL) never panic
        /// the reader, and
        /// whatever it accepts has the promised shape.
        #[test]
        fn record_streams_never_panic(recs in proptest::collection::vec((0u8..5, 0u64..5, 0u64..5), 0..12)) {
            let id = |n| [1, 10, INIT_TXN_ID, NULL_ID, UNIVERSAL_ID][n as usize];
            let log = recs.iter().fold(Log::default(), |log, &(tag, a, b)| match tag {
                0 => log.s(a),
                1 => log.c(a),
                2 => log.w(id(a), b),
                3 => log.r(id(a), id(b), b),
                _ => log.rec(b'C', &[]),
            });
            let mut out = TxnOps::new();
            let ok = read_log(Bytes::new(&log.0, "", HELP), &mut out, &mut Seen::default(), 0).is_ok();
            if ok {
                summary(&out.finish());
            }
        }
    }
}

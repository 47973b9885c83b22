//! Shared test helpers for the format readers, and the corpus test: every
//! published PolySI/IsoVista history in `../shared/corpus` loads, with the
//! counts other sources give, and builds.

use super::{cobra, dbcop, polysi};
use crate::history::build::build;
use crate::history::jepsen::Ops;
use crate::history::model::{
    History, MopKind, MopValue, OpType, OpValue, Process, Workload, WorkloadSource,
};
use crate::history::source::SourceFile;
use crate::history::value::Val;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// A micro-op with plain numbers; `None` is the initial version (nil).
#[derive(Debug, PartialEq, Eq)]
pub enum Mop {
    R(u64, Option<u64>),
    W(u64, Option<u64>),
}

fn number(ops: &Ops, v: Val) -> Option<u64> {
    (!v.is_nil()).then(|| ops.values.display(v).parse().expect("an integer"))
}

/// `(session, committed, micro-ops)` per op, checking the shape every
/// reader promises: completion-only `:txn` ops indexed by position, their
/// micro-ops contiguous and in op order.
pub fn summary(ops: &Ops) -> Vec<(i64, bool, Vec<Mop>)> {
    let mut next = 0;
    let mut out = Vec::new();
    for (i, op) in ops.ops.iter().enumerate() {
        assert_eq!(op.index, i as i64);
        assert_eq!(ops.values.display(op.f), ":txn");
        let OpValue::Txn { start, len } = op.value else {
            panic!("op {i} is not a transaction")
        };
        assert_eq!(start, next, "micro-ops of op {i} are contiguous");
        next = start + len;
        let Process::Client(session) = op.process else {
            panic!("op {i} has no client")
        };
        let committed = match op.ty {
            OpType::Ok => true,
            OpType::Fail => false,
            t => panic!("op {i} is {t:?}"),
        };
        let mops = ops.mops[start as usize..next as usize]
            .iter()
            .map(|m| {
                let MopValue::Val(v) = m.value() else {
                    panic!("a list value")
                };
                let (k, v) = (number(ops, m.key).expect("a key"), number(ops, v));
                match m.kind {
                    MopKind::Read => Mop::R(k, v),
                    MopKind::Write => Mop::W(k, v),
                    other => panic!("a {} micro-op", other.name()),
                }
            })
            .collect();
        out.push((session, committed, mops));
    }
    assert_eq!(
        next as usize,
        ops.mops.len(),
        "every micro-op belongs to an op"
    );
    out
}

/// Builds `ops` into a history, which must succeed and be a register
/// history: detected from its writes, or fixed by the format when it has none.
pub fn build_ok(name: &str, ops: Ops) -> History {
    let writes = ops.mops.iter().any(|m| m.kind == MopKind::Write);
    let h = build(SourceFile::new(name, ""), ops, None).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(!h.has_realtime, "{name}");
    assert_eq!(h.workload, Workload::RwRegister, "{name}");
    let source = if writes {
        WorkloadSource::Detected
    } else {
        WorkloadSource::Format
    };
    assert_eq!(h.workload_source, source, "{name}");
    h
}

/// Counts of a loaded history.
#[derive(Debug, Default, PartialEq, Eq)]
struct Counts {
    sessions: usize,
    txns: usize,
    committed: usize,
    reads: usize,
    writes: usize,
}

fn counts(ops: &Ops) -> Counts {
    let sessions: HashSet<_> = ops.ops.iter().map(|o| o.process).collect();
    let kind = |k| ops.mops.iter().filter(|m| m.kind == k).count();
    Counts {
        sessions: sessions.len(),
        txns: ops.ops.len(),
        committed: ops.ops.iter().filter(|o| o.ty == OpType::Ok).count(),
        reads: kind(MopKind::Read),
        writes: kind(MopKind::Write),
    }
}

/// The integration tests' skip helper, so that a missing corpus is skipped
/// (and fails under `CI=true`) the same way here; only the corpus is used.
#[allow(dead_code)]
pub(crate) mod skip {
    include!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/common/skip.rs"
    ));
}

use skip::corpus_dir as corpus;

/// The directories of `dir`, sorted.
fn subdirs(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    v.sort();
    v
}

fn name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

/// Header of a dbcop file: (n_node, n_transaction per session, n_event per txn).
fn dbcop_header(bytes: &[u8]) -> (usize, usize, usize) {
    let u = |i: usize| u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().unwrap()) as usize;
    (u(1), u(3), u(4))
}

fn check_dbcop(path: &Path, expect: impl FnOnce(&Counts, (usize, usize, usize))) {
    let bytes = std::fs::read(path).unwrap();
    let ops = dbcop::read(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let c = counts(&ops);
    expect(&c, dbcop_header(&bytes));
    build_ok(&path.display().to_string(), ops);
}

/// PostgreSQL histories: every transaction commits and every event succeeds,
/// so the header's sizes give every count.
fn check_valid_dbcop(path: &Path) {
    check_dbcop(path, |c, (nodes, txns, events)| {
        assert_eq!(
            (c.sessions, c.txns, c.committed),
            (nodes, nodes * txns, nodes * txns),
            "{}",
            path.display()
        );
        assert_eq!(
            c.reads + c.writes,
            nodes * txns * events,
            "{}",
            path.display()
        );
    });
}

#[test]
fn corpus_dbcop() {
    let Some(corpus) = corpus() else { return };
    let polysi = corpus.join("PolySIHistories");
    let fig7 = subdirs(&polysi.join("fig7"));
    assert_eq!(fig7.len(), 31);
    for dir in fig7 {
        // The directory name says sessions_txns_ops_...: the header must agree.
        let dims: Vec<usize> = name(&dir)
            .split('_')
            .take(3)
            .map(|n| n.parse().unwrap())
            .collect();
        let path = dir.join("hist-00000/history.bincode");
        assert_eq!(
            dbcop_header(&std::fs::read(&path).unwrap()),
            (dims[0], dims[1], dims[2])
        );
        check_valid_dbcop(&path);
    }
    // peers.md §2.1: this one touches 9516 distinct keys.
    let path = polysi.join("fig7/20_100_15_10000_0.5_uniform/hist-00000/history.bincode");
    let ops = dbcop::read(&std::fs::read(path).unwrap()).unwrap();
    assert_eq!(
        ops.mops.iter().map(|m| m.key).collect::<HashSet<_>>().len(),
        9516
    );
    for mix in ["0.3", "0.5", "0.95"] {
        let path = polysi.join(format!(
            "fig8_9_10/25_400_8_10000_{mix}_uniform/hist-00000/history.bincode"
        ));
        check_valid_dbcop(&path);
        check_dbcop(&path, |c, _| {
            assert_eq!(
                (c.sessions, c.txns, c.reads + c.writes),
                (25, 10_000, 80_000)
            )
        });
    }
    // Dgraph: 10 sessions of 80 transactions of 20 events, 480 committed.
    check_dbcop(&polysi.join("violations/dgraph/history.bincode"), |c, _| {
        assert_eq!(
            (c.sessions, c.txns, c.committed, c.reads + c.writes),
            (10, 800, 480, 16_000)
        );
    });
}

/// Counts of a PolySI text file by plain string splitting.
fn text_counts(text: &str) -> Counts {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let field = |l: &str, i: usize| {
        l.trim_end_matches(')')
            .split(',')
            .nth(i)
            .unwrap()
            .to_owned()
    };
    let distinct = |i| {
        lines
            .iter()
            .map(|l| field(l, i))
            .collect::<HashSet<_>>()
            .len()
    };
    let reads = lines.iter().filter(|l| l.starts_with('r')).count();
    let txns = distinct(3);
    Counts {
        sessions: distinct(2),
        txns,
        committed: txns,
        reads,
        writes: lines.len() - reads,
    }
}

#[test]
fn corpus_text() {
    let Some(corpus) = corpus() else { return };
    let violations = corpus.join("PolySIHistories/violations");
    // (file, micro-ops, sessions, transactions) from peers.md §2.1.
    for (file, mops, sessions, txns) in [
        ("galera/galera.txt", 14, 2, 7),
        ("yugabyte/yugabyte.txt", 200, 2, 20),
    ] {
        let path = violations.join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let c = counts(&polysi::read(&text).unwrap());
        assert_eq!(
            (c.reads + c.writes, c.sessions, c.txns, c.committed),
            (mops, sessions, txns, txns),
            "{file}"
        );
        assert_eq!(c, text_counts(&text), "{file}");
        build_ok(file, polysi::read(&text).unwrap());
    }
    // (file, micro-ops, sessions, transactions) from peers.md §2.5, where
    // given; dgraph_si.txt is the Dgraph bincode's 480 committed
    // transactions plus an explicit initial one in a session of its own.
    let bugs = corpus.join("IsoVista/history/bugs");
    for (file, mops, sessions, txns) in [
        ("dgraph_si.txt", 10_600, Some(11), 481),
        ("pg_ser_bug.txt", 50, None, 21),
        ("yugabyte_tcc.txt", 220, None, 21),
    ] {
        let text = std::fs::read_to_string(bugs.join(file)).unwrap();
        let ops = polysi::read(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
        let c = counts(&ops);
        assert_eq!((c.reads + c.writes, c.txns), (mops, txns), "{file}");
        assert!(sessions.is_none_or(|s| s == c.sessions), "{file}");
        assert_eq!(c, text_counts(&text), "{file}");
        build_ok(file, ops);
    }
}

/// Counts of a Cobra log directory by walking records by their sizes alone.
fn cobra_counts(dir: &Path) -> Counts {
    let mut c = Counts::default();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "log") {
            continue;
        }
        c.sessions += 1;
        let bytes = std::fs::read(&path).unwrap();
        let mut i = 0;
        while i < bytes.len() {
            let (size, count) = match bytes[i] {
                b'S' => (8, None),
                b'C' => (8, Some(&mut c.txns)),
                b'W' => (24, Some(&mut c.writes)),
                b'R' => (32, Some(&mut c.reads)),
                b => panic!("record {b} in {}", path.display()),
            };
            count.into_iter().for_each(|n| *n += 1);
            i += 1 + size;
        }
    }
    c.committed = c.txns;
    c
}

#[test]
fn corpus_cobra() {
    let Some(corpus) = corpus() else { return };
    let fig = corpus.join("PolySIHistories/fig8_9_10");
    // (benchmark, sessions, txns, reads, writes) from peers.md §2.1 (twitter's
    // reads and writes are not given there).
    for (bench, sessions, txns, rw) in [
        ("rubis", 24, 9358, Some((35_770, 11_257))),
        ("tpcc", 24, 13_870, Some((256_711, 63_506))),
        ("twitter", 25, 9571, None),
    ] {
        let dir = fig.join(format!("{bench}-10000/hist-00000"));
        let ops = cobra::read_dir(&dir).unwrap_or_else(|e| panic!("{bench}: {e}"));
        let c = counts(&ops);
        assert_eq!(
            (c.sessions, c.txns, c.committed),
            (sessions, txns, txns),
            "{bench}"
        );
        if let Some(rw) = rw {
            assert_eq!((c.reads, c.writes), rw, "{bench}");
        }
        assert_eq!(c, cobra_counts(&dir), "{bench}");
        build_ok(bench, ops);
    }
}

/// Detection works on the bytes already read (a pipe cannot be read twice):
/// the extension first, then the first bytes after a byte order mark.
#[test]
fn detects_from_extension_then_first_bytes() {
    use crate::history::Format;
    let detect = |ext, bytes: &[u8]| super::detect("x", ext, bytes).ok();
    assert_eq!(detect(Some("bincode"), b"{"), Some(Format::Dbcop));
    assert_eq!(detect(Some("edn"), b"r(1,2,3,4)"), Some(Format::Edn));
    assert_eq!(detect(None, b"\n {:type :ok}"), Some(Format::Edn));
    assert_eq!(
        detect(None, "\u{FEFF}[{:type :ok}]".as_bytes()),
        Some(Format::Edn)
    );
    assert_eq!(
        detect(None, "\u{FEFF}r(1,2,3,4)".as_bytes()),
        Some(Format::Polysi)
    );
    assert_eq!(detect(None, b"w(1,2,3,4)"), Some(Format::Polysi));
    assert_eq!(detect(None, b""), Some(Format::Edn));
    assert_eq!(detect(Some("txt"), b"\x00\x01"), None);
}

/// A byte order mark before a PolySI history is skipped; spans stay
/// offsets into the file.
#[test]
fn polysi_skips_a_byte_order_mark() {
    let ops = polysi::read("\u{FEFF}w(1,1,0,0)\nr(1,1,1,1)\n").expect("reads");
    assert_eq!(ops.mops.len(), 2);
    assert_eq!(ops.mops[0].span.start(), 3);
}

/// The work a hash table does is in its collisions: ids that are multiples
/// of 2^32 (Cobra's and dbcop's ids are free 64-bit numbers) must spread
/// over the low bits `HashMap` picks buckets by. The unseeded multiply
/// before put every one of them in bucket 0 (one distinct index), which made
/// loading 200k such transactions quadratic.
#[test]
fn hostile_ids_spread_over_buckets() {
    use std::hash::BuildHasher;
    const N: u64 = 1 << 16;
    let mask = 2 * N - 1; // the buckets of a table holding N entries
    let buckets = |hashes: Vec<u64>| {
        hashes
            .iter()
            .map(|h| h & mask)
            .collect::<HashSet<u64>>()
            .len()
    };
    let s = super::NumHash::default();
    let ids = buckets((1..=N).map(|k| s.hash_one(k << 32)).collect());
    let pairs = buckets((1..=N).map(|k| s.hash_one((k << 32, k << 40))).collect());
    let shifted = buckets((1..=N).map(|k| s.hash_one(k << 48)).collect());
    // Random hashes fill 1 - e^(-1/2) of the 2N buckets: about 51,600.
    for (what, n) in [("ids", ids), ("pairs", pairs), ("<< 48", shifted)] {
        assert!(n > 45_000, "{what}: {N} hostile ids in only {n} buckets");
    }
}

//! `isocheck stats`: a summary of what a history holds.

use crate::history::{Format, History, MopKind, RegisterF, Status};
use std::collections::HashSet;

/// Counts of ops by `:type`.
#[derive(Debug, Default, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ByType {
    /// `:invoke` ops.
    pub invoke: usize,
    /// `:ok` ops.
    pub ok: usize,
    /// `:fail` ops.
    pub fail: usize,
    /// `:info` ops.
    pub info: usize,
}

/// Counts of transactions by status.
#[derive(Debug, Default, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ByStatus {
    /// Every transaction.
    pub total: usize,
    /// Completed `:ok`.
    pub committed: usize,
    /// Completed `:fail`.
    pub aborted: usize,
    /// Completed `:info`, or never completed.
    pub indeterminate: usize,
}

/// Counts of micro-ops by function.
#[derive(Debug, Default, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ByMop {
    /// Reads (`:r`).
    pub read: usize,
    /// Appends (`:append`).
    pub append: usize,
    /// Writes (`:w`).
    pub write: usize,
}

/// Transactions by what their micro-ops do.
#[derive(Debug, Default, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ByShape {
    /// Only reads.
    pub read_only: usize,
    /// Only writes (or appends).
    pub write_only: usize,
    /// Reads and writes.
    pub read_modify_write: usize,
    /// No micro-op at all.
    pub empty: usize,
}

/// The register ops of a cas-register or mutex history, by function and
/// outcome.
#[derive(Debug, Default, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Registers {
    /// `jepsen.independent` keys, or one register.
    pub independent: bool,
    /// Keys (registers).
    pub keys: usize,
    /// Every register op.
    pub total: usize,
    /// `:read` ops.
    pub read: usize,
    /// `:write` ops.
    pub write: usize,
    /// `:cas` ops.
    pub cas: usize,
    /// Mutex ops (a mutex history has nothing else).
    #[serde(skip_serializing_if = "is_zero")]
    pub acquire: usize,
    /// Mutex `:release` ops.
    #[serde(skip_serializing_if = "is_zero")]
    pub release: usize,
    /// Completed `:ok`.
    pub ok: usize,
    /// Completed `:fail`.
    pub fail: usize,
    /// Completed `:info`, or never completed.
    pub indeterminate: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

fn registers(h: &History) -> Option<Registers> {
    use crate::history::Workload;
    if !matches!(h.workload, Workload::CasRegister | Workload::Mutex) {
        return None;
    }
    let mut r = Registers {
        independent: h.independent_keys,
        keys: h
            .registers
            .iter()
            .map(|o| o.key)
            .collect::<HashSet<_>>()
            .len(),
        total: h.registers.len(),
        ..Registers::default()
    };
    for o in &h.registers {
        match o.f {
            RegisterF::Read => r.read += 1,
            RegisterF::Write => r.write += 1,
            RegisterF::Cas => r.cas += 1,
            RegisterF::Acquire => r.acquire += 1,
            RegisterF::Release => r.release += 1,
        }
        match o.status {
            Status::Committed => r.ok += 1,
            Status::Aborted => r.fail += 1,
            Status::Indeterminate => r.indeterminate += 1,
        }
    }
    Some(r)
}

/// A summary of a history.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Stats {
    /// The file's name, as given.
    pub file: String,
    /// The input format's name.
    pub format: &'static str,
    /// The file's size.
    pub bytes: u64,
    /// The workload's name.
    pub workload: &'static str,
    /// How the workload was decided.
    pub workload_source: crate::history::model::WorkloadSource,
    /// Every op.
    pub ops: usize,
    /// Ops by `:type`.
    pub ops_by_type: ByType,
    /// Ops of client processes.
    pub client_ops: usize,
    /// Ops of the nemesis (and other non-client processes).
    pub nemesis_ops: usize,
    /// Client processes.
    pub sessions: usize,
    /// Transactions by status.
    pub transactions: ByStatus,
    /// Client ops that are not transactions.
    pub other_client_ops: usize,
    /// Register ops of a cas-register (lightweight transaction) history.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub registers: Option<Registers>,
    /// Micro-ops by function.
    pub micro_ops: ByMop,
    /// Keys the transactions touch.
    pub keys: usize,
    /// Transactions by shape.
    pub shapes: ByShape,
    /// Whether every committed and indeterminate transaction is a
    /// mini-transaction (the fast path's histories).
    pub mini_transactions: bool,
    /// Else the first that is not, and why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_mini: Option<String>,
    /// Seconds spent reading the file.
    pub parse_seconds: f64,
    /// Reading speed.
    pub mb_per_second: f64,
}

impl Stats {
    /// The summary of `h`, read from a file of `bytes` bytes in `format` in
    /// `parse_seconds`.
    pub fn of(h: &History, format: Format, bytes: u64, parse_seconds: f64) -> Stats {
        let mut s = Stats {
            file: h.source.name().to_string(),
            format: format.name(),
            bytes,
            workload: h.workload.name(),
            workload_source: h.workload_source,
            ops: h.ops.len(),
            ops_by_type: by_type(h),
            client_ops: h.ops.iter().filter(|o| o.is_client()).count(),
            nemesis_ops: 0,
            sessions: h
                .txns
                .iter()
                .map(|t| t.process)
                .collect::<HashSet<_>>()
                .len(),
            transactions: by_status(h),
            other_client_ops: h.other_client_ops.len(),
            registers: registers(h),
            micro_ops: ByMop::default(),
            keys: 0,
            shapes: ByShape::default(),
            mini_transactions: false,
            not_mini: None,
            parse_seconds,
            mb_per_second: if parse_seconds > 0.0 {
                bytes as f64 / 1e6 / parse_seconds
            } else {
                0.0
            },
        };
        s.nemesis_ops = s.ops - s.client_ops;
        count_mops(h, &mut s);
        match crate::infer::mini::shape(h) {
            Ok(()) => s.mini_transactions = !h.txns.is_empty(),
            Err((t, why)) => {
                let op = h.op(h.txn(t).op());
                s.not_mini = Some(format!("index {}: {}", op.index, why.describe()));
            }
        }
        s
    }
}

fn by_type(h: &History) -> ByType {
    let mut t = ByType::default();
    for op in &h.ops {
        match op.ty {
            crate::history::OpType::Invoke => t.invoke += 1,
            crate::history::OpType::Ok => t.ok += 1,
            crate::history::OpType::Fail => t.fail += 1,
            crate::history::OpType::Info => t.info += 1,
        }
    }
    t
}

fn by_status(h: &History) -> ByStatus {
    let mut s = ByStatus {
        total: h.txns.len(),
        ..ByStatus::default()
    };
    for t in &h.txns {
        match t.status {
            Status::Committed => s.committed += 1,
            Status::Aborted => s.aborted += 1,
            Status::Indeterminate => s.indeterminate += 1,
        }
    }
    s
}

fn count_mops(h: &History, s: &mut Stats) {
    let mut keys = HashSet::new();
    for t in &h.txns {
        let (mut reads, mut writes) = (false, false);
        for m in h.mops_of(t) {
            keys.insert(m.key);
            match m.kind {
                MopKind::Read | MopKind::PredRead => s.micro_ops.read += 1,
                MopKind::Append => s.micro_ops.append += 1,
                // Closed-predicate's writes count as writes.
                MopKind::Write | MopKind::Insert | MopKind::Delete | MopKind::Init => {
                    s.micro_ops.write += 1
                }
            }
            let read = matches!(m.kind, MopKind::Read | MopKind::PredRead);
            reads |= read;
            writes |= !read;
        }
        match (reads, writes) {
            (true, true) => s.shapes.read_modify_write += 1,
            (true, false) => s.shapes.read_only += 1,
            (false, true) => s.shapes.write_only += 1,
            (false, false) => s.shapes.empty += 1,
        }
    }
    s.keys = keys.len();
}

/// The human table for one history.
pub fn render(s: &Stats) -> String {
    let mut rows: Vec<(&str, String)> = vec![
        // A file name is the one text here from outside: its control
        // characters escaped, as every report's.
        ("file", crate::report::excerpt::escape(&s.file).into_owned()),
        ("format", s.format.to_string()),
        ("size", format!("{} bytes", s.bytes)),
        ("workload", format!("{} ({})", s.workload, source_word(s))),
        (
            "ops",
            format!(
                "{} ({} invoke, {} ok, {} fail, {} info)",
                s.ops,
                s.ops_by_type.invoke,
                s.ops_by_type.ok,
                s.ops_by_type.fail,
                s.ops_by_type.info
            ),
        ),
        ("client ops", s.client_ops.to_string()),
        ("nemesis/other ops", s.nemesis_ops.to_string()),
        ("sessions", s.sessions.to_string()),
        (
            "transactions",
            format!(
                "{} ({} committed, {} aborted, {} indeterminate)",
                s.transactions.total,
                s.transactions.committed,
                s.transactions.aborted,
                s.transactions.indeterminate
            ),
        ),
        ("non-txn client ops", s.other_client_ops.to_string()),
        (
            "micro-ops",
            format!(
                "{} ({} r, {} append, {} w)",
                s.micro_ops.read + s.micro_ops.append + s.micro_ops.write,
                s.micro_ops.read,
                s.micro_ops.append,
                s.micro_ops.write
            ),
        ),
        ("keys", s.keys.to_string()),
        (
            "mini-transactions",
            match &s.not_mini {
                _ if s.mini_transactions => "yes (the fast path applies)".to_string(),
                Some(why) => format!("no ({why})"),
                None => "no".to_string(),
            },
        ),
        (
            "txn shapes",
            format!(
                "{} read-only, {} write-only, {} read-modify-write, {} empty",
                s.shapes.read_only, s.shapes.write_only, s.shapes.read_modify_write, s.shapes.empty
            ),
        ),
        (
            "parse",
            format!("{:.3} s ({:.1} MB/s)", s.parse_seconds, s.mb_per_second),
        ),
    ];
    if let Some(r) = &s.registers {
        let mutex = r.acquire + r.release > 0;
        let keys = match (r.independent, mutex) {
            (true, _) => format!("{} keys (jepsen.independent)", r.keys),
            (false, false) => "one register".to_string(),
            (false, true) => "one mutex".to_string(),
        };
        let ops = match mutex {
            false => format!(
                "{} lightweight transactions on {keys}: {} read, {} write, {} cas",
                r.total, r.read, r.write, r.cas
            ),
            true => format!(
                "{} mutex ops on {keys}: {} acquire, {} release",
                r.total, r.acquire, r.release
            ),
        };
        let outcomes = format!(
            "{} ok, {} fail, {} indeterminate",
            r.ok, r.fail, r.indeterminate
        );
        let name = if mutex { "mutex ops" } else { "register ops" };
        rows.insert(4, (name, format!("{ops}; {outcomes}")));
    }
    let width = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    rows.iter()
        .map(|(k, v)| format!("{k:<width$}  {v}\n"))
        .collect()
}

fn source_word(s: &Stats) -> &'static str {
    use crate::history::model::WorkloadSource;
    match s.workload_source {
        WorkloadSource::Flag => "from --workload",
        WorkloadSource::Format => "registers, by input format",
        WorkloadSource::Detected => "detected",
        WorkloadSource::Assumed => "assumed: no writes or non-empty reads",
    }
}

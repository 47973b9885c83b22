//! The other published history formats, read into the same [`Ops`] arenas as
//! Jepsen EDN: Jepsen ops written as JSON (elle-cli's form, [`json`]), and
//! Chronos's timestamped JSON, PolySI's text format, dbcop's bincode and
//! Cobra's client logs, whose transactions become completion-only
//! `:ok`/`:fail` ops, one process per session, so pairing and everything
//! after treat them like EDN.
//!
//! This module owns what the three readers share: `TxnOps`, which turns a
//! transaction into an op (and the "a read of 0 is the initial version"
//! rule), and `Bytes`, a bounds-checked cursor over binary input.

pub mod chronos;
pub mod cobra;
pub mod dbcop;
pub mod json;
pub mod polysi;
#[cfg(test)]
pub(crate) mod tests;

use super::edn::lex::without_bom;
use super::error::{ErrorKind, HistoryError};
use super::jepsen::Ops;
use super::model::{MicroOp, MopKind, MopValue, Op, OpType, OpValue, Process};
use super::span::Span;
use super::value::Val;
use super::Format;
use std::collections::{HashMap, HashSet};
use std::hash::Hasher;

/// Guesses the format of the file `name` from its extension and first
/// bytes (after a byte order mark). Directories are Cobra's, decided
/// before the bytes are read.
pub fn detect(name: &str, extension: Option<&str>, bytes: &[u8]) -> Result<Format, HistoryError> {
    match extension {
        Some("bincode") => return Ok(Format::Dbcop),
        Some("edn") => return Ok(Format::Edn),
        Some("json" | "jsonl" | "ndjson") => return Ok(json_format(bytes)),
        _ => {}
    }
    let head = without_bom(&bytes[..bytes.len().min(256)]);
    if json::looks_like_json(head) {
        return Ok(json_format(bytes));
    }
    let first = head
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .map(|i| &head[i..]);
    match first {
        Some([b'{' | b'[' | b'(' | b';' | b'#', ..]) => Ok(Format::Edn),
        Some([b'r' | b'w', b'(', ..]) => Ok(Format::Polysi),
        None => Ok(Format::Edn),
        Some(_) => Err(HistoryError::new(
            ErrorKind::Format(format!("cannot tell the format of {name}")),
            "name it with --input-format edn|json|chronos|polysi|dbcop|cobra",
        )),
    }
}

/// Chronos's array of transactions, or else Jepsen ops as JSON.
fn json_format(bytes: &[u8]) -> Format {
    match chronos::looks_like_chronos(&bytes[..bytes.len().min(256)]) {
        true => Format::Chronos,
        false => Format::Json,
    }
}

/// Collects the transactions of a history whose transactions arrive whole
/// (no invocations, no timing) into [`Ops`]: one completion-only `:txn` op per
/// transaction, its micro-ops contiguous in `ops.mops`.
pub(crate) struct TxnOps {
    pub ops: Ops,
    txn_f: Val,
    /// Numbers too big to be inline, already interned: Cobra's keys and
    /// write ids are 64-bit hashes, each seen many times, and interning
    /// goes through their decimal text.
    big: HashMap<u64, Val, NumHash>,
}

impl TxnOps {
    pub fn new() -> Self {
        let mut ops = Ops {
            untimed: true,
            complete_log: true,
            format_workload: Some(crate::history::Workload::RwRegister),
            ..Ops::default()
        };
        let txn_f = ops.values.intern_canonical(":txn");
        TxnOps {
            ops,
            txn_f,
            big: HashMap::default(),
        }
    }

    /// Adds a micro-op to the transaction being collected; a `value` of
    /// `None` stands for the initial version of the key.
    pub fn mop(&mut self, kind: MopKind, key: u64, value: Option<u64>, span: Span) {
        let key = self.uint(key);
        let value = value.map_or(Val::NIL, |v| self.uint(v));
        self.ops
            .mops
            .push(MicroOp::new(kind, key, MopValue::Val(value), span));
    }

    /// Adds a list read that returned `values` (Chronos's list format).
    pub fn read_list(&mut self, key: u64, values: &[u64], span: Span) {
        let key = self.uint(key);
        let start = self.ops.elems.len();
        for &v in values {
            let v = self.uint(v);
            self.ops.elems.push(v);
        }
        // Past `u32`, `history::build` refuses the history.
        let (start, len) = (start as u32, values.len() as u32);
        let value = MopValue::List { start, len };
        self.ops
            .mops
            .push(MicroOp::new(MopKind::Read, key, value, span));
    }

    fn uint(&mut self, n: u64) -> Val {
        match Val::small_int(n) {
            Some(v) => v,
            None => *self.big.entry(n).or_insert_with(|| self.ops.values.uint(n)),
        }
    }

    /// Ends the transaction whose micro-ops were added since `ops.mops` held
    /// `start` of them: it becomes an `:ok` (committed) or `:fail` op of the
    /// session's process.
    pub fn txn(
        &mut self,
        start: usize,
        session: u64,
        committed: bool,
        span: Span,
    ) -> Result<(), HistoryError> {
        let process = i64::try_from(session).map_err(|_| {
            format_error(
                format!("session {session} is too large"),
                "session ids must be below 2^63",
            )
        })?;
        let too_big = || {
            format_error(
                "the history has more than 2^32 micro-ops",
                "split the history",
            )
        };
        let len = self.ops.mops.len().checked_sub(start).ok_or_else(too_big)?;
        let (start, len) = (
            u32::try_from(start).map_err(|_| too_big())?,
            u32::try_from(len).map_err(|_| too_big())?,
        );
        start.checked_add(len).ok_or_else(too_big)?;
        let ty = if committed { OpType::Ok } else { OpType::Fail };
        let mut op = Op::new(self.ops.ops.len() as i64, ty, span);
        op.process = Process::Client(process);
        op.f = self.txn_f;
        op.value = OpValue::Txn { start, len };
        self.ops.ops.push(op);
        Ok(())
    }

    /// The collected ops, for formats whose implicit initial transaction
    /// writes 0 to every key (PolySI text, dbcop): a read of 0 is a read of
    /// that initial version, [`Val::NIL`], unless a committed transaction of
    /// the file writes 0 to the key itself (some files spell the initial
    /// transaction out), in which case it is a read of that write. Writes
    /// of aborted transactions do not count: the implicit initial 0 is the
    /// likelier source of the value.
    pub fn finish_zero_initial(mut self) -> Ops {
        let zero = MopValue::Val(self.ops.values.uint(0));
        let ops = &mut self.ops;
        let is_zero = |m: &MicroOp, kind| m.kind == kind && m.value() == zero;
        let written: HashSet<Val> = ops
            .ops
            .iter()
            .filter(|op| op.ty == OpType::Ok)
            .filter_map(Op::txn_mops)
            .flat_map(|r| &ops.mops[r.start as usize..r.end as usize])
            .filter(|m| is_zero(m, MopKind::Write))
            .map(|m| m.key)
            .collect();
        for m in &mut ops.mops {
            if is_zero(m, MopKind::Read) && !written.contains(&m.key) {
                *m = MicroOp::new(MopKind::Read, m.key, MopValue::Val(Val::NIL), m.span);
            }
        }
        self.ops
    }

    /// The collected ops, for formats that mark reads of the initial version
    /// themselves (Cobra).
    pub fn finish(self) -> Ops {
        self.ops
    }
}

/// A [`ErrorKind::Format`] error.
pub(crate) fn format_error(msg: impl Into<String>, help: &str) -> HistoryError {
    HistoryError::new(ErrorKind::Format(msg.into()), help)
}

/// A cursor over a binary history that never reads past the end: running out
/// of bytes is an error naming the byte offset and what was expected.
pub(crate) struct Bytes<'a> {
    data: &'a [u8],
    pos: usize,
    /// Where the bytes come from, for messages: `""` or `" of T1.log"`.
    file: &'a str,
    help: &'static str,
}

impl<'a> Bytes<'a> {
    pub fn new(data: &'a [u8], file: &'a str, help: &'static str) -> Self {
        Bytes {
            data,
            pos: 0,
            file,
            help,
        }
    }

    pub fn pos(&self) -> usize {
        self.pos
    }

    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    /// An error about the input at byte `at`.
    pub fn error(&self, at: usize, msg: impl std::fmt::Display) -> HistoryError {
        format_error(format!("{msg}, at byte {at}{}", self.file), self.help)
    }

    pub fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], HistoryError> {
        if n > self.remaining() {
            let msg = format!(
                "the input ends inside {what} ({} of {n} bytes left)",
                self.remaining()
            );
            return Err(self.error(self.pos, msg));
        }
        let bytes = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(bytes)
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], HistoryError> {
        let mut a = [0; N];
        a.copy_from_slice(self.take(N, what)?);
        Ok(a)
    }

    pub fn u8(&mut self, what: &str) -> Result<u8, HistoryError> {
        Ok(self.array::<1>(what)?[0])
    }

    pub fn u64_le(&mut self, what: &str) -> Result<u64, HistoryError> {
        self.array(what).map(u64::from_le_bytes)
    }

    pub fn u64_be(&mut self, what: &str) -> Result<u64, HistoryError> {
        self.array(what).map(u64::from_be_bytes)
    }
}

/// The hasher of maps keyed by 64-bit ids (or pairs of them). The readers
/// look up every key, write id and transaction id of a history, and SipHash
/// was a fifth of Cobra's load time; this is MurmurHash3's 64-bit finalizer
/// instead, seeded per map so that ids cannot be chosen to collide. (An
/// unseeded multiply kept the low bits, by which `HashMap` picks a bucket,
/// of ids that are multiples of 2^32 at zero: loading 200k such
/// transactions was quadratic.)
#[derive(Clone, Copy)]
pub(crate) struct NumHash {
    seed: u64,
}

impl Default for NumHash {
    fn default() -> Self {
        use std::hash::BuildHasher;
        // std's per-process random keys, drawn through SipHash.
        let seed = std::collections::hash_map::RandomState::new().hash_one(0x5eed_u64);
        NumHash { seed }
    }
}

impl std::hash::BuildHasher for NumHash {
    type Hasher = NumHasher;

    fn build_hasher(&self) -> NumHasher {
        NumHasher(self.seed)
    }
}

/// The hash so far; each `u64` is xored in and mixed so that every input
/// bit reaches every bit of the hash (the low ones above all).
pub(crate) struct NumHasher(u64);

impl Hasher for NumHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        let mut x = self.0 ^ n;
        x ^= x >> 33;
        x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
        x ^= x >> 33;
        x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        self.0 = x ^ (x >> 33);
    }
}

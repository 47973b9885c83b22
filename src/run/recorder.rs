//! The history as the clients record it: one writer behind a lock, so the
//! order of the lines is the order in which clients saw their invocations
//! and completions (an invocation is written before its transaction begins,
//! a completion after its commit returns), which is the real-time order the
//! checker reads from the file. `:time` is nanoseconds since the run began.

use crate::gen::edn::{HistoryWriter, OpType, Reads};
use crate::gen::workload::{Kind, Mop};
use std::io::{self, Write};
use std::sync::Mutex;
use std::time::Instant;

/// Completions by type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub invoked: u64,
    pub ok: u64,
    pub failed: u64,
    pub info: u64,
    pub nemesis: u64,
}

pub struct Recorder<W: Write> {
    start: Instant,
    inner: Mutex<Inner<W>>,
}

struct Inner<W: Write> {
    out: HistoryWriter<W>,
    counts: Counts,
    /// The first write that failed; every later op is dropped and the run
    /// stops.
    failed: Option<io::Error>,
}

/// A completion that is not `:ok`: `:fail` or `:info`, the error's name
/// and its message.
pub type Failure<'a> = (OpType, &'a str, &'a str);

impl<W: Write> Recorder<W> {
    pub fn new(out: W, kind: Kind) -> Recorder<W> {
        Recorder {
            start: Instant::now(),
            inner: Mutex::new(Inner {
                out: HistoryWriter::new(out, kind),
                counts: Counts::default(),
                failed: None,
            }),
        }
    }

    /// Runs `write` on the writer with the time now, unless an earlier
    /// write failed; false once one has.
    fn with(&self, write: impl FnOnce(&mut Inner<W>, u64) -> io::Result<()>) -> bool {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if inner.failed.is_some() {
            return false;
        }
        let time = self.start.elapsed().as_nanos() as u64;
        if let Err(e) = write(&mut inner, time) {
            inner.failed = Some(e);
            return false;
        }
        true
    }

    /// Writes an invocation; false if the history can no longer be written.
    pub fn invoke(&self, process: u64, mops: &[Mop]) -> bool {
        self.with(|inner, time| {
            inner.counts.invoked += 1;
            inner.out.op(OpType::Invoke, time, process, mops, None)
        })
    }

    /// Writes an `:ok` completion with what the reads returned.
    pub fn ok(&self, process: u64, mops: &[Mop], reads: &Reads) -> bool {
        self.with(|inner, time| {
            inner.counts.ok += 1;
            inner.out.op(OpType::Ok, time, process, mops, Some(reads))
        })
    }

    /// Writes a `:fail` or `:info` completion with its `:error`.
    pub fn failed(&self, process: u64, mops: &[Mop], (ty, name, message): Failure) -> bool {
        self.with(|inner, time| {
            match ty {
                OpType::Info => inner.counts.info += 1,
                _ => inner.counts.failed += 1,
            }
            let error = Some((name, message));
            inner
                .out
                .op_with_error(ty, time, process, mops, None, error)
        })
    }

    /// Writes a register op (the cas-register workload): its invocation,
    /// or a completion, `:ok`, `:fail` or `:info` with its `:error`.
    pub fn register(
        &self,
        (ty, process): (OpType, u64),
        (f, value): (&str, &str),
        error: Option<(&str, &str)>,
    ) -> bool {
        self.with(|inner, time| {
            let c = &mut inner.counts;
            match ty {
                OpType::Invoke => c.invoked += 1,
                OpType::Ok => c.ok += 1,
                OpType::Info => c.info += 1,
                OpType::Fail => c.failed += 1,
            }
            inner.out.register_op((ty, time, process), f, value, error)
        })
    }

    /// Writes a nemesis op (`:info`, as Jepsen's nemesis ops are).
    pub fn nemesis(&self, f: &str, value: Option<&str>) -> bool {
        self.with(|inner, time| {
            inner.counts.nemesis += 1;
            inner.out.nemesis(OpType::Info, time, f, value)
        })
    }

    /// The counts so far.
    pub fn counts(&self) -> Counts {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).counts
    }

    /// Flushes the history; the first error any write met, if one did.
    pub fn finish(self) -> io::Result<Counts> {
        let inner = self.inner.into_inner().unwrap_or_else(|e| e.into_inner());
        if let Some(e) = inner.failed {
            return Err(e);
        }
        inner.out.finish()?;
        Ok(inner.counts)
    }
}

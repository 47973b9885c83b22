//! The history as the clients record it: one writer behind a lock, so the
//! order of the lines is the order in which clients saw their invocations
//! and completions (an invocation is written before its transaction begins,
//! a completion after its commit returns), which is the real-time order the
//! checker reads from the file. `:time` is nanoseconds since the run began.
//!
//! The recorder remembers every invocation not yet completed, so that a run
//! which gives up on its clients (a server that stopped answering, Ctrl-C)
//! can [`Recorder::close`] the history with an `:info` completion for each,
//! as Jepsen records an op whose outcome is unknown; after that, whatever
//! an abandoned client still reports is dropped.

use isocheck_gen::edn::{HistoryWriter, OpType, Reads};
use isocheck_gen::workload::{Kind, Mop};
use std::collections::BTreeMap;
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
    /// Of `info`: ops still under way when the run gave up on them.
    pub abandoned: u64,
    /// Of `ok`: transactions recorded with their `:commit-timestamp`.
    pub stamped: u64,
}

pub struct Recorder<W: Write> {
    start: Instant,
    inner: Mutex<Inner<W>>,
}

struct Inner<W: Write> {
    out: HistoryWriter<W>,
    counts: Counts,
    /// Invocations without their completion yet, by process.
    open: BTreeMap<u64, Open>,
    /// A nemesis op begun and not yet ended.
    nemesis: Option<String>,
    state: State,
}

/// An invocation not yet completed: what its `:info` completion repeats.
enum Open {
    Txn(Vec<Mop>),
    Register { f: String, value: String },
}

enum State {
    Writing,
    /// The first write that failed; every later op is dropped and the run
    /// stops.
    Failed(io::Error),
    /// [`Recorder::close`] wrote the end of the history.
    Closed,
}

/// Why ops still under way are given up: the `:error` of their `:info`
/// completions, a keyword name and a message.
pub type Abandon<'a> = (&'a str, &'a str);

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
                open: BTreeMap::new(),
                nemesis: None,
                state: State::Writing,
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner<W>> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Nanoseconds since the run began.
    fn now(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }

    /// Runs `write` on the writer with the time now, unless an earlier
    /// write failed or the history was closed; false then.
    fn with(&self, write: impl FnOnce(&mut Inner<W>, u64) -> io::Result<()>) -> bool {
        let mut inner = self.lock();
        if !matches!(inner.state, State::Writing) {
            return false;
        }
        if let Err(e) = write(&mut inner, self.now()) {
            inner.state = State::Failed(e);
            return false;
        }
        true
    }

    /// Writes an invocation; false if the history can no longer be written.
    pub fn invoke(&self, process: u64, mops: &[Mop]) -> bool {
        self.with(|inner, time| {
            inner.counts.invoked += 1;
            inner.open.insert(process, Open::Txn(mops.to_vec()));
            inner.out.op(OpType::Invoke, time, process, mops, None)
        })
    }

    /// Writes an `:ok` completion with what the reads returned, and its
    /// commit's place in the database's commit order, if known
    /// (`:commit-timestamp`).
    pub fn ok(&self, process: u64, mops: &[Mop], reads: &Reads, commit: Option<u64>) -> bool {
        self.with(|inner, time| {
            inner.counts.ok += 1;
            inner.open.remove(&process);
            if let Some(commit) = commit {
                inner.counts.stamped += 1;
                inner.out.stamp_next(None, commit);
            }
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
            inner.open.remove(&process);
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
            if ty == OpType::Invoke {
                let (f, value) = (f.to_string(), value.to_string());
                inner.open.insert(process, Open::Register { f, value });
            } else {
                inner.open.remove(&process);
            }
            inner.out.register_op((ty, time, process), f, value, error)
        })
    }

    /// Writes a nemesis op (`:info`, as Jepsen's nemesis ops are): its
    /// beginning (`value` nil) or its outcome.
    pub fn nemesis(&self, f: &str, value: Option<&str>) -> bool {
        self.with(|inner, time| {
            inner.counts.nemesis += 1;
            inner.nemesis = value.is_none().then(|| f.to_string());
            inner.out.nemesis(OpType::Info, time, f, value)
        })
    }

    /// The counts so far.
    pub fn counts(&self) -> Counts {
        self.lock().counts
    }

    /// Writes what is buffered, so the file holds every op so far.
    pub fn flush(&self) -> bool {
        self.with(|inner, _| inner.out.flush())
    }

    /// Ends the history: an `:info` completion (with `why` as its
    /// `:error`) for every invocation still open, and an outcome for a
    /// nemesis op begun and not ended; then flushes it. Later writes are
    /// dropped. The first error any write met, if one did.
    pub fn close(&self, (name, message): Abandon) -> io::Result<Counts> {
        let mut inner = self.lock();
        let time = self.now();
        match std::mem::replace(&mut inner.state, State::Closed) {
            State::Writing => {}
            State::Failed(e) => return Err(e),
            State::Closed => return Err(io::Error::other("the history was already closed")),
        }
        let inner = &mut *inner;
        let error = Some((name, message));
        for (process, open) in std::mem::take(&mut inner.open) {
            inner.counts.info += 1;
            inner.counts.abandoned += 1;
            match open {
                Open::Txn(mops) => {
                    let out = &mut inner.out;
                    out.op_with_error(OpType::Info, time, process, &mops, None, error)?
                }
                Open::Register { f, value } => {
                    let op = (OpType::Info, time, process);
                    inner.out.register_op(op, &f, &value, error)?
                }
            }
        }
        if let Some(f) = inner.nemesis.take() {
            inner.counts.nemesis += 1;
            let outcome = format!("{name}: {message}");
            inner.out.nemesis(OpType::Info, time, &f, Some(&outcome))?;
        }
        inner.out.flush()?;
        Ok(inner.counts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closing_completes_what_is_open_and_drops_later_writes() {
        let mut out = Vec::new();
        let recorder = Recorder::new(&mut out, Kind::RwRegister);
        let mops = [Mop::Write(1, 2)];
        assert!(recorder.invoke(0, &mops));
        assert!(recorder.invoke(1, &mops));
        assert!(recorder.ok(1, &mops, &Reads::default(), Some(17)));
        assert!(recorder.register((OpType::Invoke, 2), ("read", "[3 nil]"), None));
        assert!(recorder.nemesis("pause", None));
        let counts = recorder.close(("timeout", "gone")).unwrap();
        assert_eq!((counts.invoked, counts.ok, counts.info), (3, 1, 2));
        assert_eq!((counts.abandoned, counts.nemesis), (2, 2));
        assert_eq!(counts.stamped, 1);
        // An abandoned client that comes back is not recorded.
        assert!(!recorder.ok(0, &mops, &Reads::default(), None));
        assert!(recorder.close(("timeout", "again")).is_err());
        drop(recorder);
        let history = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = history.lines().collect();
        assert_eq!(lines.len(), 8, "{history}");
        assert!(lines[2].ends_with(":commit-timestamp 17}"), "{}", lines[2]);
        assert!(lines[5].contains(":type :info, :process 0, :f :txn, :value [[:w 1 2]]"));
        assert!(
            lines[5].ends_with(":error [:timeout \"gone\"]}"),
            "{}",
            lines[5]
        );
        assert!(lines[6].contains(":process 2, :f :read, :value [3 nil], :error [:timeout"));
        assert!(lines[7].contains(":f :pause, :value \"timeout: gone\""));
    }
}

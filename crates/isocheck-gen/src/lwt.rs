//! A lightweight-transaction workload (Jepsen's cas-register) against a
//! linearizable in-memory register per key: each key is inserted once with a
//! blind `:write`, then read and compare-and-set to fresh values (unique per
//! key). Every op takes effect at one instant between its invocation and
//! completion lines, so the history is linearizable. A cas whose expected
//! value (the one current when it was invoked) changed meanwhile fails; some
//! ops crash (`:info`), before or after taking effect, and their process is
//! replaced as in Jepsen. With more than one key, values are
//! `jepsen.independent` `[key value]` tuples.
//!
//! With `values`, ops are Jepsen's etcd cas-register mix instead: reads,
//! writes of a value drawn from `0..values` and cas from one drawn value to
//! another, so values repeat (and most cas fail) as in Jepsen's tests.
//!
//! A `fault` is forced as `gen`'s transactional faults are: at a random
//! point, with every client idle, a short script on one register, with
//! values of its own that nothing else writes, so that no linearization
//! exists whatever the rest does ([`LWT_FAULTS`]; the others need
//! transactions over several keys and are refused).

use super::rng::Rng;
use super::Fault;
use std::io::{self, Write};

/// Workload parameters.
#[derive(Clone, Debug)]
pub struct Params {
    pub seed: u64,
    /// Concurrent client processes.
    pub processes: u64,
    /// Keys (registers); more than one writes `[key value]` tuples.
    pub keys: u64,
    /// Ops to invoke...
    pub ops: u64,
    /// ...or stop once this many bytes are written, whichever comes first.
    pub max_bytes: u64,
    pub read_ratio: f64,
    /// Chance that an op crashes (`:info`).
    pub info_rate: f64,
    /// Draw written and expected values from `0..values` (repeating them).
    pub values: Option<u64>,
    /// Force one violation of linearizability (one of [`LWT_FAULTS`]).
    pub fault: Option<Fault>,
}

/// The faults a register can show: two cas from one value both succeeding
/// (`lost-update`), a read of a failed write (`aborted-read`), and a read
/// of a value overwritten before it began, by the writer's own process
/// (`stale-session-read`) or another (`realtime`).
pub const LWT_FAULTS: [Fault; 4] = [
    Fault::LostUpdate,
    Fault::AbortedRead,
    Fault::StaleSessionRead,
    Fault::Realtime,
];

/// The largest `values`: a fault's script writes values above them, which
/// must not overflow.
pub const MAX_VALUES: u64 = u32::MAX as u64;

/// Clients a fault's script uses.
const SCRIPT_PROCESSES: u64 = 2;

impl Default for Params {
    fn default() -> Self {
        Params {
            seed: 0,
            processes: 10,
            keys: 1,
            ops: 1000,
            max_bytes: u64::MAX,
            read_ratio: 0.4,
            info_rate: 0.01,
            values: None,
            fault: None,
        }
    }
}

impl Params {
    /// Why these parameters make no run, if they do not.
    pub fn validate(&self) -> Result<(), String> {
        let (procs, keys) = (1..=super::MAX_PROCESSES, 1..=super::MAX_KEYS);
        if self.values.is_some_and(|n| !(1..=MAX_VALUES).contains(&n)) {
            return Err(format!("values must be from 1 to {MAX_VALUES}"));
        }
        if !procs.contains(&self.processes) || !keys.contains(&self.keys) {
            return Err(format!(
                "processes must be from 1 to {} and keys from 1 to {}",
                procs.end(),
                keys.end()
            ));
        }
        match self.fault {
            Some(f) if !LWT_FAULTS.contains(&f) => Err(format!(
                "lwt cannot inject {}: it needs transactions of several micro-ops, and a \
                 register op is one read, write or compare-and-set; lwt injects {}",
                fault_name(f),
                LWT_FAULTS.map(fault_name).join(", ")
            )),
            Some(_) if self.processes < SCRIPT_PROCESSES => Err(format!(
                "a fault needs at least {SCRIPT_PROCESSES} processes"
            )),
            _ => Ok(()),
        }
    }
}

/// A fault's name on the command line.
fn fault_name(f: Fault) -> String {
    use clap::ValueEnum;
    f.to_possible_value()
        .map_or_else(|| format!("{f:?}"), |v| v.get_name().to_string())
}

#[derive(Clone, Copy)]
enum F {
    Read,
    Write(u64),
    Cas(Option<u64>, u64),
}

#[derive(Clone, Copy)]
struct InFlight {
    key: u64,
    f: F,
    /// Once applied: whether it succeeded, and what a read returned.
    applied: Option<(bool, Option<u64>)>,
}

struct Writer<W: Write> {
    out: W,
    index: u64,
    bytes: u64,
    independent: bool,
}

fn value(v: Option<u64>) -> String {
    v.map_or("nil".to_string(), |v| v.to_string())
}

impl<W: Write> Writer<W> {
    fn line(
        &mut self,
        ty: &str,
        process: u64,
        key: u64,
        f: F,
        read: Option<u64>,
    ) -> io::Result<()> {
        let (name, v) = match f {
            F::Read => ("read", value(read)),
            F::Write(v) => ("write", v.to_string()),
            F::Cas(old, new) => ("cas", format!("[{} {new}]", value(old))),
        };
        let v = if self.independent {
            format!("[{key} {v}]")
        } else {
            v
        };
        let s = format!(
            "{{:index {}, :time {}, :type :{ty}, :process {process}, :f :{name}, :value {v}}}\n",
            self.index,
            self.index.saturating_mul(1000)
        );
        self.index += 1;
        self.bytes += s.len() as u64;
        self.out.write_all(s.as_bytes())
    }
}

/// An op of the repeated-values mix: a read, else a write or a cas (even
/// odds) of values drawn from `0..n`.
fn drawn(rng: &mut Rng, n: u64, read_ratio: f64) -> F {
    if rng.chance(read_ratio) {
        F::Read
    } else if rng.below(2) == 0 {
        F::Write(rng.below(n))
    } else {
        F::Cas(Some(rng.below(n)), rng.below(n))
    }
}

/// The simulation: the registers, the clients and what they have in flight.
struct Sim<'a, W: Write> {
    p: &'a Params,
    rng: Rng,
    w: Writer<W>,
    state: Vec<Option<u64>>,
    inserted: Vec<bool>,
    next: Vec<u64>,
    /// Each client's current process (a crashed one is replaced).
    process: Vec<u64>,
    flight: Vec<Option<InFlight>>,
    invoked: u64,
    open: usize,
}

/// Writes a history; returns the number of ops invoked (a fault's script's
/// not counted).
pub fn write<W: Write>(out: W, p: &Params) -> io::Result<u64> {
    p.validate()
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    let keys = p.keys.max(1) as usize;
    let procs = p.processes.max(1) as usize;
    let mut sim = Sim {
        p,
        rng: Rng::new(p.seed),
        w: Writer {
            out: io::BufWriter::new(out),
            index: 0,
            bytes: 0,
            independent: keys > 1,
        },
        state: vec![None; keys],
        inserted: vec![false; keys],
        next: vec![0; keys],
        process: (0..procs as u64).collect(),
        flight: vec![None; procs],
        invoked: 0,
        open: 0,
    };
    // As `gen`'s transactions: the script runs once the clients are idle
    // after the chosen op, or at the end when the size limit comes first.
    let mut fault = p.fault.map(|f| (f, sim.rng.below(p.ops.saturating_add(1))));
    loop {
        let more = sim.invoked < p.ops && sim.w.bytes < p.max_bytes;
        let due = fault.filter(|&(_, at)| !more || sim.invoked >= at);
        if let Some((f, _)) = due {
            if sim.open == 0 {
                sim.force(f)?;
                fault = None;
                continue;
            }
        }
        if !more && sim.open == 0 && fault.is_none() {
            break;
        }
        sim.step(more && due.is_none())?;
    }
    sim.w.out.flush()?;
    Ok(sim.invoked)
}

impl<W: Write> Sim<'_, W> {
    /// One client, drawn at random, invokes an op (when `invoke`), or
    /// moves its op in flight on: takes effect, completes or crashes.
    fn step(&mut self, invoke: bool) -> io::Result<()> {
        let procs = self.flight.len();
        let i = self.rng.below(procs as u64) as usize;
        match self.flight[i] {
            None if invoke => self.invoke(i),
            None => Ok(()),
            Some(op) => self.progress(i, op),
        }
    }

    fn invoke(&mut self, i: usize) -> io::Result<()> {
        let keys = self.state.len() as u64;
        let key = self.rng.below(keys) as usize;
        let f = if let Some(n) = self.p.values {
            drawn(&mut self.rng, n, self.p.read_ratio)
        } else if !self.inserted[key] {
            self.inserted[key] = true;
            self.next[key] += 1;
            F::Write(self.next[key])
        } else if self.rng.chance(self.p.read_ratio) {
            F::Read
        } else {
            self.next[key] += 1;
            F::Cas(self.state[key], self.next[key])
        };
        self.w
            .line("invoke", self.process[i], key as u64, f, None)?;
        self.flight[i] = Some(InFlight {
            key: key as u64,
            f,
            applied: None,
        });
        self.invoked += 1;
        self.open += 1;
        Ok(())
    }

    fn progress(&mut self, i: usize, mut op: InFlight) -> io::Result<()> {
        let key = op.key as usize;
        let crash = self.rng.chance(self.p.info_rate);
        match op.applied {
            // Crashing before taking effect.
            None if crash => {
                self.w.line("info", self.process[i], op.key, op.f, None)?;
                self.end(i, true);
            }
            None => {
                op.applied = Some(self.apply(key, op.f));
                self.flight[i] = Some(op);
            }
            Some((ok, read)) => {
                let ty = match (crash, ok) {
                    (true, _) => "info",
                    (false, true) => "ok",
                    (false, false) => "fail",
                };
                let read = read.filter(|_| !crash);
                self.w.line(ty, self.process[i], op.key, op.f, read)?;
                self.end(i, crash);
            }
        }
        Ok(())
    }

    /// The op's effect on the register: whether it succeeded, and what a
    /// read returned.
    fn apply(&mut self, key: usize, f: F) -> (bool, Option<u64>) {
        match f {
            F::Read => (true, self.state[key]),
            F::Write(v) => {
                self.state[key] = Some(v);
                (true, None)
            }
            F::Cas(old, new) => {
                let ok = self.state[key] == old;
                if ok {
                    self.state[key] = Some(new);
                }
                (ok, None)
            }
        }
    }

    /// Client `i`'s op is over; a crashed client's process is replaced.
    fn end(&mut self, i: usize, crashed: bool) {
        self.flight[i] = None;
        self.open -= 1;
        if crashed {
            self.process[i] += self.flight.len() as u64;
        }
    }

    /// A value for `key` nobody has written: the next of the key's fresh
    /// values, above the drawn ones with `values`.
    fn fresh(&mut self, key: usize) -> u64 {
        self.next[key] += 1;
        self.next[key].saturating_add(self.p.values.unwrap_or(0))
    }

    /// Runs fault `f`'s script on a random register, every client idle;
    /// the register is left as the script's writes leave it.
    fn force(&mut self, f: Fault) -> io::Result<()> {
        let key = self.rng.below(self.state.len() as u64) as usize;
        let (a, b) = (self.fresh(key), self.fresh(key));
        let [p0, p1] = [self.process[0], self.process[1]];
        let k = key as u64;
        match f {
            Fault::AbortedRead => {
                // A failed write did not happen, yet its value is read.
                self.w.line("invoke", p0, k, F::Write(a), None)?;
                self.w.line("fail", p0, k, F::Write(a), None)?;
                self.w.line("invoke", p1, k, F::Read, None)?;
                self.w.line("ok", p1, k, F::Read, Some(a))?;
            }
            Fault::LostUpdate => {
                // Two cas from `a` both succeed: `a` is written once.
                let c = self.fresh(key);
                self.w.line("invoke", p0, k, F::Write(a), None)?;
                self.w.line("ok", p0, k, F::Write(a), None)?;
                self.w.line("invoke", p0, k, F::Cas(Some(a), b), None)?;
                self.w.line("invoke", p1, k, F::Cas(Some(a), c), None)?;
                self.w.line("ok", p0, k, F::Cas(Some(a), b), None)?;
                self.w.line("ok", p1, k, F::Cas(Some(a), c), None)?;
                self.state[key] = Some(c);
                self.inserted[key] = true;
            }
            Fault::StaleSessionRead | Fault::Realtime => {
                // `a` is overwritten by `b` before the read begins, yet read.
                let reader = if f == Fault::Realtime { p1 } else { p0 };
                for v in [a, b] {
                    self.w.line("invoke", p0, k, F::Write(v), None)?;
                    self.w.line("ok", p0, k, F::Write(v), None)?;
                }
                self.w.line("invoke", reader, k, F::Read, None)?;
                self.w.line("ok", reader, k, F::Read, Some(a))?;
                self.state[key] = Some(b);
                self.inserted[key] = true;
            }
            // `validate` refuses the others.
            _ => return Err(io::Error::new(io::ErrorKind::InvalidInput, fault_name(f))),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histories_read_as_cas_registers() {
        for keys in [1, 3] {
            let mut out = Vec::new();
            let p = Params {
                keys,
                ops: 300,
                info_rate: 0.05,
                ..Params::default()
            };
            assert_eq!(write(&mut out, &p).unwrap(), 300);
            let text = String::from_utf8(out).unwrap();
            let h = isocheck::history::parse_edn("g.edn", &text).unwrap_or_else(|d| panic!("{d}"));
            assert_eq!(h.workload, isocheck::history::Workload::CasRegister);
            assert_eq!(h.independent_keys, keys > 1);
            assert_eq!(h.registers.len(), 300);
            let a = isocheck::check(&h, &Default::default()).expect("no model options");
            assert_eq!(a.validity(), isocheck::Validity::True, "{a:?}");
        }
    }

    fn validity(p: &Params) -> isocheck::Validity {
        let mut out = Vec::new();
        write(&mut out, p).expect("written");
        let text = String::from_utf8(out).expect("UTF-8");
        let h = isocheck::history::parse_edn("g.edn", &text).unwrap_or_else(|d| panic!("{d}"));
        let outcome = isocheck::check(&h, &Default::default()).expect("no model options");
        outcome.validity()
    }

    /// Each fault lwt injects makes the history not linearizable, whatever
    /// the rest does (crashed ops, repeated values, several registers, a
    /// size limit ending the run first); the same run without it is.
    #[test]
    fn every_lwt_fault_is_a_violation() {
        use isocheck::Validity;
        for fault in LWT_FAULTS {
            for seed in 0..12 {
                for (keys, values, max_bytes) in [
                    (1, None, u64::MAX),
                    (3, None, 2_000),
                    (1, Some(4), u64::MAX),
                ] {
                    let mut p = Params {
                        seed,
                        keys,
                        values,
                        max_bytes,
                        ops: 150,
                        processes: 4,
                        info_rate: 0.08,
                        ..Params::default()
                    };
                    assert_eq!(validity(&p), Validity::True, "{p:?}");
                    p.fault = Some(fault);
                    assert_eq!(validity(&p), Validity::False, "{p:?}");
                }
            }
        }
    }

    #[test]
    fn faults_lwt_cannot_inject_are_refused() {
        for f in [
            Fault::WriteSkew,
            Fault::LongFork,
            Fault::Causality,
            Fault::IntermediateRead,
        ] {
            let p = Params {
                fault: Some(f),
                ..Params::default()
            };
            let e = p.validate().expect_err("refused");
            assert!(
                e.contains(&fault_name(f)) && e.contains("lwt injects lost-update"),
                "{e}"
            );
            assert!(write(Vec::new(), &p).is_err());
        }
        let one = Params {
            fault: Some(Fault::Realtime),
            processes: 1,
            ..Params::default()
        };
        assert!(one.validate().is_err());
    }
}

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

use super::rng::Rng;
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
}

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
        }
    }
}

impl Params {
    /// Why these parameters make no run, if they do not.
    pub fn validate(&self) -> Result<(), String> {
        let (procs, keys) = (1..=super::MAX_PROCESSES, 1..=super::MAX_KEYS);
        if self.values == Some(0) {
            return Err("values must be at least 1".to_string());
        }
        if !procs.contains(&self.processes) || !keys.contains(&self.keys) {
            return Err(format!(
                "processes must be from 1 to {} and keys from 1 to {}",
                procs.end(),
                keys.end()
            ));
        }
        Ok(())
    }
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
            self.index * 1000
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

/// Writes a history; returns the number of ops invoked.
pub fn write<W: Write>(out: W, p: &Params) -> io::Result<u64> {
    p.validate()
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    let mut rng = Rng::new(p.seed);
    let keys = p.keys.max(1) as usize;
    let mut w = Writer {
        out: io::BufWriter::new(out),
        index: 0,
        bytes: 0,
        independent: keys > 1,
    };
    let mut state: Vec<Option<u64>> = vec![None; keys];
    let mut inserted = vec![false; keys];
    let mut next = vec![0u64; keys];
    let procs = p.processes.max(1) as usize;
    let mut process: Vec<u64> = (0..procs as u64).collect();
    let mut flight: Vec<Option<InFlight>> = vec![None; procs];
    let (mut invoked, mut open) = (0u64, 0usize);
    while (invoked < p.ops && w.bytes < p.max_bytes) || open > 0 {
        let i = rng.below(procs as u64) as usize;
        match flight[i] {
            None if invoked < p.ops && w.bytes < p.max_bytes => {
                let key = rng.below(keys as u64) as usize;
                let f = if let Some(n) = p.values {
                    drawn(&mut rng, n, p.read_ratio)
                } else if !inserted[key] {
                    inserted[key] = true;
                    next[key] += 1;
                    F::Write(next[key])
                } else if rng.chance(p.read_ratio) {
                    F::Read
                } else {
                    next[key] += 1;
                    F::Cas(state[key], next[key])
                };
                w.line("invoke", process[i], key as u64, f, None)?;
                flight[i] = Some(InFlight {
                    key: key as u64,
                    f,
                    applied: None,
                });
                invoked += 1;
                open += 1;
            }
            None => {}
            Some(mut op) => {
                let key = op.key as usize;
                let crash = rng.chance(p.info_rate);
                match op.applied {
                    // Crashing before taking effect.
                    None if crash => {
                        w.line("info", process[i], op.key, op.f, None)?;
                        flight[i] = None;
                        open -= 1;
                        process[i] += procs as u64;
                    }
                    None => {
                        op.applied = Some(match op.f {
                            F::Read => (true, state[key]),
                            F::Write(v) => {
                                state[key] = Some(v);
                                (true, None)
                            }
                            F::Cas(old, new) => {
                                let ok = state[key] == old;
                                if ok {
                                    state[key] = Some(new);
                                }
                                (ok, None)
                            }
                        });
                        flight[i] = Some(op);
                    }
                    Some((ok, read)) => {
                        let ty = match (crash, ok) {
                            (true, _) => "info",
                            (false, true) => "ok",
                            (false, false) => "fail",
                        };
                        w.line(ty, process[i], op.key, op.f, read.filter(|_| !crash))?;
                        flight[i] = None;
                        open -= 1;
                        if crash {
                            process[i] += procs as u64;
                        }
                    }
                }
            }
        }
    }
    w.out.flush()?;
    Ok(invoked)
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
            let h = crate::history::parse_edn("g.edn", &text).unwrap_or_else(|d| panic!("{d}"));
            assert_eq!(h.workload, crate::history::Workload::CasRegister);
            assert_eq!(h.independent_keys, keys > 1);
            assert_eq!(h.registers.len(), 300);
            let a = crate::check::lwt::check(&h);
            assert_eq!(a.validity(), crate::check::Validity::True, "{a:?}");
        }
    }
}

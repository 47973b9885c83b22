//! The streaming register check (issue 37): a cas-register (or mutex)
//! history's ops taken once, in order, each key's linearizability decided
//! by the offline check (`registers`) on the ops the stream holds of it,
//! in memory bounded by a window of ops per key.
//!
//! What it owns: pairing each client's invocation with its completion into
//! a [`RegisterOp`] (the whole-file reader's `history::register` read, the
//! history's form — one register, or `jepsen.independent` tuples — fixed by
//! the first op with a value), holding each key's ops, and deciding when a
//! key's ops can be let go. What it decides is the offline check's
//! decision ([`registers::check_ops`]: the value chain, then the search),
//! never a second implementation of it.
//!
//! # The window: ops per key
//!
//! Linearizability is local, so each key is held and retired on its own:
//! a window of ops per key (`window`) bounds each key's held ops, and the
//! live keys are those touched in the last `window` ops of the stream (a
//! total over keys would let one busy key evict the rest). Once a key holds
//! `window` ops and no write or cas of it is pending, it is *cut*: its held
//! ops are decided; a violation is reported then (a violation among ops
//! none of which is pending is one of the whole history: every later op is
//! invoked after they all completed, so it can only come after them; a
//! pending read constrains no other op). If they are
//! linearizable and the value chain alone decides them with one order (the
//! values it writes unique, at most one blind write), the register's value
//! after them is known; the key starts afresh from a write of that value
//! at the cut, and the rest is let go. That is exact: every later op comes
//! after the cut in any linearization, so the rest of the key is
//! linearizable iff it is from that value. Two things are remembered:
//! - `:info` ops the chain left out (no op observed their value) may take
//!   effect later. One that is a cas from the value left at the cut is
//!   carried over, as it stands: taking effect right after the cut is
//!   taking effect after every op before it (none observed it). Any other
//!   may take effect only once its expected value is written again (or,
//!   a blind write, at any time), unobserved (which changes nothing the
//!   check sees) or observed: a later `:ok` op that observes its value,
//!   or that of an `:info` or pending cas from it (transitively), makes
//!   the key's answer unknown (`Unknown`, with the op), not a verdict the
//!   `:info` op let go could change.
//! - A value written before the cut and observed after it, by no new
//!   write, is rightly unwritten: the chain overwrote it, and only a later
//!   write could bring it back. But a read pending at the cut is carried
//!   over: it may have run while such a value was current, so when it
//!   returns one (not the value at the cut, nor one written since) the
//!   key's answer is unknown, with the read.
//!
//! A key whose ops the chain cannot follow past a cut (a value written
//! twice, several blind writes — every mutex, whose two states repeat)
//! when it holds the window, or that has a write or cas pending until it
//! holds twice the window, is decided as held (a violation is still one of
//! the whole history, pending ops taken as `:info`), and else its answer
//! is unknown with the op that overflowed it. Memory: at most twice the
//! window of ops for each key touched in the last window of ops (or with
//! an op pending); for every other key, the value it holds (with the
//! `:info` ops carried and the values remembered), or its outcome.
//!
//! A key untouched for `window` ops, with none pending, is cut, keeping
//! only the value it holds; one that cannot be cut retires whole: its
//! held ops are decided (reported if a violation) and let go, the key kept
//! only as its outcome. A later `:ok` op on a retired key that was not a
//! violation makes its answer unknown; `:fail` ops and reads that did not
//! complete `:ok` carry nothing, and an `:info` write or cas no later op
//! can observe (its key is retired) changes nothing.
//!
//! # When a violation is reported
//!
//! At the `:ok` op that shows it, what the value chain decides whatever
//! comes after (a later op is invoked after this one completed, so it
//! cannot come before it): an `unwritten` value, that no op held writes
//! (none invoked so far, or one that failed; with a window, a value
//! overwritten before a cut, which only a new write could bring back),
//! and a `fork`, a second cas from a value no more than one op wrote. The
//! key is then done with. Anything else (real time, cycles, blind writes'
//! orders, the search) is found when the key's held ops are decided: as
//! it is cut or retired, or at the end. So with an unbounded window
//! (`u64::MAX`), where nothing is cut or retired, the verdict is the
//! offline one and so are the violations of every key decided at the end;
//! a key found at an op is named as the ops so far show it (a read whose
//! writer is invoked after it completed is `unwritten` there, `realtime`
//! to the whole history's chain; the verdict is the same). Not yet: real
//! time violations at the op that shows them.

use super::{About, Finding, Unknown};
use crate::history::error::{ErrorKind, HistoryError};
use crate::history::jepsen::streaming::StreamedOp;
use crate::history::register::{key_values, mutex_states, value_shape, Shape};
use crate::history::value::ValueTable;
use crate::history::{OpType, OpValue, Process, RegisterF, RegisterOp, Status, Val, Workload};
use crate::infer::util::{FxMap, FxSet};
use crate::registers::{self, RegId, Violation};
use std::collections::VecDeque;

/// A violation of linearizability on one key, as the offline check names
/// it (`Violation::name`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegisterFinding {
    /// `realtime`, `fork`, `unwritten`, `cycle`, `no-order` or
    /// `no-linearization`.
    pub name: &'static str,
    /// The key, as the history writes it (`nil` for a single register).
    pub key: String,
    /// The `:index`es of the ops the violation names (each op's
    /// completion's, else its invocation's), in the violation's order.
    pub ops: Vec<i64>,
    /// The op taken when it was found (`None`: at the end).
    pub at: Option<i64>,
}

impl RegisterFinding {
    /// The finding as every stream's findings are printed.
    pub fn finding(self) -> Finding {
        Finding {
            name: self.name.to_string(),
            at: self.at.unwrap_or(i64::MIN),
            what: About::Key {
                key: self.key,
                ops: self.ops,
            },
        }
    }
}

/// What a finished register stream says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RegisterEnding {
    /// Findings not yet taken by [`RegisterStream::drain`].
    pub findings: Vec<RegisterFinding>,
    /// Keys whose answer is unknown, each with why and the op.
    pub unknown: Vec<Unknown>,
    /// Keys seen.
    pub keys: u64,
    /// Times a key was cut or retired on the way.
    pub retired: u64,
}

/// The streaming register check: [`RegisterStream::op`] per op, findings
/// taken as they come ([`RegisterStream::drain`]), the rest at
/// [`RegisterStream::finish`].
pub struct RegisterStream {
    window: u64,
    /// The values of the ops' keys and registers, interned here (the
    /// stream's own table holds `:f` only for us).
    values: ValueTable,
    /// Whether values are `[key value]` tuples, once an op with a value
    /// said so.
    independent: Option<bool>,
    workload: Option<Workload>,
    /// The mutex's (free, held) states, interned.
    mutex: (Val, Val),
    /// Ops taken, and so the position of the next (real time).
    taken: u32,
    /// Each client's invocation under way.
    open: FxMap<i64, Open>,
    live: FxMap<Val, Key>,
    /// Keys let go, and whether a violation was found on them.
    retired: FxMap<Val, Outcome>,
    /// (position, key) of each touch, oldest first, to retire idle keys.
    touches: VecDeque<(u32, Val)>,
    findings: Vec<RegisterFinding>,
    unknown: Vec<Unknown>,
    retirements: u64,
}

/// What became of a key that is no longer held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    /// Linearizable as far as it was held.
    Decided,
    Violated,
    Unknown,
}

/// Why a key is let go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Retire {
    /// Untouched for the window (as this op was taken).
    Idle(i64),
    /// Held past the window, uncut: this op overflowed it (its answer is
    /// unknown unless a violation is found).
    Overflow(i64),
    /// The stream ended.
    End,
}

/// An invocation waiting for its completion.
struct Open {
    f: RegisterF,
    shape: Shape,
    /// Its slot in its key's held ops (`None`: the key is not held).
    at: Option<(Val, usize)>,
}

/// A key's held ops since its last cut.
struct Key {
    ops: Vec<RegisterOp>,
    /// The `:index` each held op is reported by.
    index: Vec<i64>,
    /// Held ops still pending.
    pending: usize,
    /// Of those, the writes and cas (which block a cut).
    writing: usize,
    /// The last cut, and the value the register held there.
    cut: Option<(u32, Val)>,
    /// The last op that touched it.
    touched: u32,
    /// Values of `:info` ops let go unobserved.
    unobserved: FxSet<Val>,
    /// How many held ops, not failed, write each value.
    writers: FxMap<Val, u32>,
    /// The first `:ok` cas from each value (its `:index`).
    expecting: FxMap<Val, i64>,
}

impl RegisterStream {
    /// A check whose keys hold at most `window` ops (`u64::MAX`: all).
    pub fn new(window: u64) -> RegisterStream {
        let mut values = ValueTable::default();
        let mutex = mutex_states(&mut values);
        RegisterStream {
            window: window.max(1),
            values,
            independent: None,
            workload: None,
            mutex,
            taken: 0,
            open: FxMap::default(),
            live: FxMap::default(),
            retired: FxMap::default(),
            touches: VecDeque::new(),
            findings: Vec::new(),
            unknown: Vec::new(),
            retirements: 0,
        }
    }

    /// Takes the next op (`stream`: the table of the stream's values, for
    /// its `:f`). An error when the op is not a register op of the
    /// history's workload and form, or a process invokes twice.
    pub fn op(&mut self, op: &StreamedOp, stream: &ValueTable) -> Result<(), HistoryError> {
        let pos = self.taken;
        self.taken = self.taken.checked_add(1).ok_or_else(|| too_long(op))?;
        let Process::Client(process) = op.op.process else {
            return Ok(());
        };
        let f = register_f(&stream.text(op.op.f)).ok_or_else(|| not_register(op))?;
        self.workload_of(f, op)?;
        let shape = self.shape(op)?;
        match (op.op.ty, self.open.remove(&process)) {
            (OpType::Invoke, Some(_)) => Err(double_invoke(process, op)),
            (OpType::Invoke, None) => {
                let open = self.invoke(f, shape, pos, op)?;
                self.open.insert(process, open);
                self.retire_idle(pos, op.op.index);
                Ok(())
            }
            (ty, open) => {
                // The completion's `:f`, as the whole-file reader takes it.
                let open = match open {
                    Some(open) => Open { f, ..open },
                    None => Open {
                        f,
                        shape: Shape::Nil,
                        at: None,
                    },
                };
                self.complete(open, shape, ty, pos, op)
            }
        }
    }

    /// The violations found since the last call.
    pub fn drain(&mut self) -> Vec<RegisterFinding> {
        std::mem::take(&mut self.findings)
    }

    /// Times a key was cut or retired so far.
    pub fn retired(&self) -> u64 {
        self.retirements
    }

    /// The first key whose answer became unknown, if any.
    pub fn unknown(&self) -> Option<&Unknown> {
        self.unknown.first()
    }

    /// Decides every key still held (pending ops taken as `:info`).
    pub fn finish(mut self) -> RegisterEnding {
        let keys: Vec<Val> = self.live.keys().copied().collect();
        for key in keys {
            self.retire(key, Retire::End);
        }
        RegisterEnding {
            findings: self.findings,
            unknown: self.unknown,
            keys: self.retired.len() as u64,
            retired: self.retirements,
        }
    }

    /// Fixes the workload at the first op; a later op of the other one is
    /// refused, as the whole-file reader refuses it.
    fn workload_of(&mut self, f: RegisterF, op: &StreamedOp) -> Result<(), HistoryError> {
        let w = match f {
            RegisterF::Acquire | RegisterF::Release => Workload::Mutex,
            _ => Workload::CasRegister,
        };
        match *self.workload.get_or_insert(w) == w {
            true => Ok(()),
            false => Err(not_register(op)),
        }
    }

    /// The shape of the op's value, interned here.
    fn shape(&mut self, op: &StreamedOp) -> Result<Shape, HistoryError> {
        let OpValue::Other(span) = op.op.value else {
            return Ok(Shape::Nil);
        };
        let text = op.text_of(span).unwrap_or("");
        value_shape(&mut self.values, text, false)
            .map_err(|e| HistoryError::from(e.shifted(span.start())))
    }

    /// Holds an invocation in its key, when the form names its key.
    fn invoke(
        &mut self,
        f: RegisterF,
        shape: Shape,
        pos: u32,
        op: &StreamedOp,
    ) -> Result<Open, HistoryError> {
        let independent = self.form(f, shape, op)?;
        let (free, held) = self.mutex;
        // Its status and value come with its completion; the key is the
        // invocation's (a read's `[k nil]` names it).
        let Some((key, value, new)) = key_values(
            &mut self.values,
            independent,
            f,
            (shape, shape),
            Status::Indeterminate,
            (free, held),
        )
        .or_else(|| (f == RegisterF::Read).then_some((Val::NIL, Val::NIL, Val::NIL))) else {
            return Err(bad_value(op));
        };
        let key = match (independent, shape) {
            (true, Shape::Pair(k, _) | Shape::Tuple(k, ..)) => k,
            _ => key,
        };
        let o = RegisterOp {
            invoke: Some(pos),
            completion: None,
            key,
            value,
            new,
            f,
            status: Status::Indeterminate,
        };
        let at = self.hold(o, op.op.index, pos);
        Ok(Open { f, shape, at })
    }

    /// Whether values are tuples: fixed by the first op with a value (as
    /// the whole-file reader decides it for the whole history); an op that
    /// does not fit a tuple form fixed before is refused.
    fn form(&mut self, f: RegisterF, shape: Shape, op: &StreamedOp) -> Result<bool, HistoryError> {
        let tuple = match (f, shape) {
            (_, Shape::Nil) => return Ok(self.independent.unwrap_or(false)),
            (RegisterF::Cas, s) => matches!(s, Shape::Tuple(..)),
            (_, s) => matches!(s, Shape::Pair(..) | Shape::Tuple(..)),
        };
        match *self.independent.get_or_insert(tuple) {
            true if !tuple => Err(mixed_form(op)),
            independent => Ok(independent),
        }
    }

    /// Holds `o` in its key (made live unless retired), and returns its
    /// slot; `None` when the key is not held.
    fn hold(&mut self, o: RegisterOp, index: i64, pos: u32) -> Option<(Val, usize)> {
        if self.retired.contains_key(&o.key) {
            return None;
        }
        let key = o.key;
        let k = self.live.entry(key).or_insert_with(|| Key {
            ops: Vec::new(),
            index: Vec::new(),
            pending: 0,
            writing: 0,
            cut: None,
            touched: pos,
            unobserved: FxSet::default(),
            writers: FxMap::default(),
            expecting: FxMap::default(),
        });
        if let Some(v) = registers::written(&o).filter(|_| o.status != Status::Aborted) {
            *k.writers.entry(v).or_default() += 1;
        }
        let pending = o.completion.is_none();
        k.pending += usize::from(pending);
        k.writing += usize::from(pending && o.f != RegisterF::Read);
        k.touched = pos;
        k.ops.push(o);
        k.index.push(index);
        let slot = k.ops.len() - 1;
        self.touch(pos, key);
        Some((key, slot))
    }

    /// Completes an op (one without invocation was invoked at the start of
    /// time, as the whole-file reader has it).
    fn complete(
        &mut self,
        open: Open,
        shape: Shape,
        ty: OpType,
        pos: u32,
        op: &StreamedOp,
    ) -> Result<(), HistoryError> {
        let status = match ty {
            OpType::Ok => Status::Committed,
            OpType::Fail => Status::Aborted,
            _ => Status::Indeterminate,
        };
        let judged = match shape {
            Shape::Nil => open.shape,
            s => s,
        };
        let independent = self.form(open.f, judged, op)?;
        let Some((key, value, new)) = key_values(
            &mut self.values,
            independent,
            open.f,
            (judged, open.shape),
            status,
            self.mutex,
        ) else {
            return Err(bad_value(op));
        };
        let o = RegisterOp {
            invoke: open.at.map(|_| pos),
            completion: Some(pos),
            key,
            value,
            new,
            f: open.f,
            status,
        };
        match open.at {
            Some((k, slot)) if k == key => self.fill(key, slot, o, op.op.index),
            Some(_) => return Err(other_key(op)),
            None => self.unheld(o, op.op.index, pos),
        }
        self.maybe_cut(key, op.op.index);
        self.retire_idle(pos, op.op.index);
        Ok(())
    }

    /// Fills a held invocation's slot with its completion.
    fn fill(&mut self, key: Val, slot: usize, o: RegisterOp, index: i64) {
        let Some(k) = self.live.get_mut(&key) else {
            return;
        };
        let Some(held) = k.ops.get_mut(slot) else {
            return;
        };
        let invoke = held.invoke;
        let writes = registers::written(held);
        *held = RegisterOp { invoke, ..o };
        if let Some(v) = writes.filter(|_| o.status == Status::Aborted) {
            k.writers.entry(v).and_modify(|n| *n = n.saturating_sub(1));
        }
        k.index[slot] = index;
        k.pending = k.pending.saturating_sub(1);
        if o.f != RegisterF::Read {
            k.writing = k.writing.saturating_sub(1);
        }
        k.touched = o.completion.unwrap_or(k.touched);
        let touched = k.touched;
        let carried = k.cut.filter(|&(at, _)| invoke.is_some_and(|i| i < at));
        self.touch(touched, key);
        if let Some((_, head)) = carried {
            self.carried_read(key, &o, head, index);
        }
        self.observes_unobserved(key, &o, index);
        self.early(key, &o, index);
    }

    /// What the value chain decides at an `:ok` op already, whatever comes
    /// after (every later op is invoked after this one completed, so it
    /// cannot come before it): a value no op held writes (nor one let go
    /// unobserved: that is unknown, found before), written before a cut
    /// or never; a second cas from a value written at most once.
    fn early(&mut self, key: Val, o: &RegisterOp, index: i64) {
        if self.workload != Some(Workload::CasRegister) || o.status != Status::Committed {
            return;
        }
        let Some(k) = self.live.get_mut(&key) else {
            return;
        };
        let Some(v) = registers::observed(o) else {
            return;
        };
        let writers = k.writers.get(&v).copied().unwrap_or(0);
        let found = if !v.is_nil() && writers == 0 {
            Some(("unwritten", vec![index]))
        } else if registers::written(o).is_none() {
            None
        } else {
            match k.expecting.get(&v) {
                Some(&first) if writers <= u32::from(!v.is_nil()) => {
                    Some(("fork", vec![first, index]))
                }
                Some(_) => None,
                None => {
                    k.expecting.insert(v, index);
                    None
                }
            }
        };
        if let Some((name, ops)) = found {
            let finding = RegisterFinding {
                name,
                key: self.values.display(key),
                ops,
                at: Some(index),
            };
            self.findings.push(finding);
            self.live.remove(&key);
            self.retired.insert(key, Outcome::Violated);
        }
    }

    /// A read carried over a cut, invoked before it: right where the chain
    /// after the cut places it (it read the value left at the cut, or one
    /// written after), unknown when it read a value written before the
    /// cut only, which may have been current while it ran.
    fn carried_read(&mut self, key: Val, o: &RegisterOp, head: Val, index: i64) {
        let Some(k) = self.live.get(&key) else {
            return;
        };
        if o.status != Status::Committed || o.f != RegisterF::Read || o.value == head {
            return;
        }
        let written_since = k
            .ops
            .iter()
            .any(|w| w.status != Status::Aborted && registers::written(w) == Some(o.value));
        if !written_since {
            let reason = format!(
                "a read invoked before key {} was cut returned {}, written before the cut only: \
                 the window let go of when it was current",
                self.values.display(key),
                self.values.display(o.value)
            );
            self.give_up(key, "retired", reason, index);
        }
    }

    /// Notes that `key` was touched at `pos`, for [`Self::retire_idle`]
    /// (nothing to note when nothing retires).
    fn touch(&mut self, pos: u32, key: Val) {
        if self.window != u64::MAX {
            self.touches.push_back((pos, key));
        }
    }

    /// A completion without a held invocation: with no invocation at all,
    /// held as invoked at the start of time; on a retired key, unknown
    /// when it could matter.
    fn unheld(&mut self, o: RegisterOp, index: i64, pos: u32) {
        let Some(&outcome) = self.retired.get(&o.key) else {
            let o = RegisterOp { invoke: None, ..o };
            let cut = self.live.get(&o.key).is_some_and(|k| k.cut.is_some());
            if cut && o.status != Status::Aborted {
                // It may have run before the cut, among the ops let go.
                let reason = format!(
                    "an op without invocation on key {}, which the window cut before",
                    self.values.display(o.key)
                );
                self.give_up(o.key, "retired", reason, index);
                return;
            }
            self.hold(o, index, pos);
            self.observes_unobserved(o.key, &o, index);
            self.early(o.key, &o, index);
            return;
        };
        if outcome == Outcome::Decided && o.status == Status::Committed {
            let reason = format!(
                "an :ok op on key {} after the key was retired (untouched for the window, \
                 its ops decided and let go)",
                self.values.display(o.key)
            );
            self.give_up(o.key, "retired", reason, index);
        }
    }

    /// An `:ok` op observing the value of an `:info` op let go unobserved
    /// at a cut: that op may have taken effect, and is gone.
    fn observes_unobserved(&mut self, key: Val, o: &RegisterOp, index: i64) {
        let seen = self
            .live
            .get(&key)
            .is_some_and(|k| registers::observed(o).is_some_and(|v| k.unobserved.contains(&v)));
        if seen {
            self.gone_observed(key, o.value, index);
        }
    }

    /// Makes a key unknown: an op observed `value`, of an `:info` op let go.
    fn gone_observed(&mut self, key: Val, value: Val, index: i64) {
        let reason = format!(
            "an op observed {} on key {}, the value of an :info op the window let go \
             unobserved",
            self.values.display(value),
            self.values.display(key)
        );
        self.give_up(key, "retired", reason, index);
    }

    /// Before a key's held ops are decided: whether an `:ok` one observes
    /// the value of an `:info` op let go, or of an `:info` or pending cas
    /// from such a value (which can take effect only after the one let go
    /// did), however the ops came; if so the key is given up.
    fn gives_up_on_gone(&mut self, key: Val) -> bool {
        let Some(k) = self.live.get_mut(&key) else {
            return false;
        };
        loop {
            let before = k.unobserved.len();
            for o in &k.ops {
                let maybe = o.status == Status::Indeterminate && o.f == RegisterF::Cas;
                if maybe && k.unobserved.contains(&o.value) {
                    k.unobserved.extend(registers::written(o));
                }
            }
            if k.unobserved.len() == before {
                break;
            }
        }
        let seen = k.ops.iter().zip(&k.index).find_map(|(o, &i)| {
            let v = registers::observed(o)?;
            k.unobserved.contains(&v).then_some((v, i))
        });
        if let Some((v, i)) = seen {
            self.gone_observed(key, v, i);
        }
        seen.is_some()
    }

    /// Cuts a key that holds a window of ops, no write or cas pending;
    /// gives it up at twice the window when it cannot be cut.
    fn maybe_cut(&mut self, key: Val, index: i64) {
        let Some(k) = self.live.get(&key) else {
            return;
        };
        let (held, writing) = (k.ops.len() as u64, k.writing);
        if held < self.window {
            return;
        }
        if writing == 0 && self.cut(key) {
            return;
        }
        if writing > 0 && held < self.window.saturating_mul(2) {
            return;
        }
        self.retire(key, Retire::Overflow(index));
    }

    /// Decides a key's held ops (no write or cas pending) and, when
    /// linearizable with one order the chain alone gives, starts it afresh
    /// from the value they leave, with the reads still pending carried
    /// over. False when it cannot be cut that way.
    fn cut(&mut self, key: Val) -> bool {
        let workload = self.workload.unwrap_or(Workload::CasRegister);
        let Some(k) = self.live.get_mut(&key) else {
            return false;
        };
        if workload == Workload::Mutex {
            return false;
        }
        if !k.unobserved.is_empty() && self.gives_up_on_gone(key) {
            return true;
        }
        let Some(k) = self.live.get_mut(&key) else {
            return false;
        };
        if k.cut
            .is_some_and(|(at, _)| k.ops.len() == 1 && k.touched == at)
        {
            return true; // nothing since the last cut
        }
        let chains = registers::check_chains_of(&k.ops);
        if !chains.violations.is_empty() || !chains.undecided.is_empty() {
            return false;
        }
        let Some((last, left_out)) = registers::chain_end(&k.ops) else {
            return false;
        };
        let pos = k.touched;
        let head = last.map(|i| {
            let w = &k.ops[i as usize];
            let o = RegisterOp {
                invoke: Some(pos),
                completion: Some(pos),
                key,
                value: registers::chain_value(w),
                new: Val::NIL,
                f: RegisterF::Write,
                status: Status::Committed,
            };
            (o, k.index[i as usize])
        });
        let value = head.map_or(Val::NIL, |(o, _)| o.value);
        k.cut = Some((pos, value));
        // An `:info` cas from the value left may still take effect right
        // after the cut: it is carried over. Any other may take effect
        // only once its expected value is written again (its value is
        // remembered, an op observing it unknown).
        let mut carried = vec![false; k.ops.len()];
        for i in left_out {
            let o = &k.ops[i as usize];
            match o.f == RegisterF::Cas && o.value == value {
                true => carried[i as usize] = true,
                false => k.unobserved.extend(registers::written(o)),
            }
        }
        let ops = std::mem::take(&mut k.ops);
        let index = std::mem::take(&mut k.index);
        if let Some((o, index)) = head {
            k.ops.push(o);
            k.index.push(index);
        }
        // The pending reads move to the new slots their invocations' now
        // point to.
        let mut moved = FxMap::default();
        for (slot, (o, i)) in ops.into_iter().zip(index).enumerate() {
            if carried[slot] || o.completion.is_none() {
                moved.insert(slot, k.ops.len());
                k.ops.push(o);
                k.index.push(i);
            }
        }
        k.expecting.clear();
        k.writers.clear();
        for v in k.ops.iter().filter_map(registers::written) {
            *k.writers.entry(v).or_default() += 1;
        }
        let open = self.open.values_mut().filter_map(|o| o.at.as_mut());
        for (_, slot) in open.filter(|(k, _)| *k == key) {
            *slot = moved.get(slot).copied().unwrap_or(usize::MAX);
        }
        self.retirements += 1;
        true
    }

    /// Retires the keys untouched for the window (none of their ops
    /// pending), as of position `pos`.
    fn retire_idle(&mut self, pos: u32, index: i64) {
        while let Some(&(at, key)) = self.touches.front() {
            if u64::from(pos.saturating_sub(at)) < self.window {
                break;
            }
            self.touches.pop_front();
            let idle = self
                .live
                .get(&key)
                .is_some_and(|k| k.touched == at && k.pending == 0);
            // Cut, an idle key keeps only the value it holds (as retired
            // ones keep their outcome); one that cannot be cut retires.
            if idle && !self.cut(key) {
                self.retire(key, Retire::Idle(index));
            }
        }
    }

    /// Decides a key's held ops and lets them go.
    fn retire(&mut self, key: Val, why: Retire) {
        if self.gives_up_on_gone(key) {
            return;
        }
        let Some(k) = self.live.remove(&key) else {
            return;
        };
        let workload = self.workload.unwrap_or(Workload::CasRegister);
        let analysis = registers::check_ops(workload, &k.ops);
        self.retired.insert(key, Outcome::Decided);
        if why != Retire::End {
            self.retirements += 1;
        }
        for v in &analysis.violations {
            let finding = RegisterFinding {
                name: v.name(),
                key: self.values.display(key),
                ops: violation_ops(v)
                    .into_iter()
                    .filter_map(|i| k.index.get(i as usize).copied())
                    .collect(),
                at: match why {
                    Retire::Idle(op) | Retire::Overflow(op) => Some(op),
                    Retire::End => None,
                },
            };
            self.findings.push(finding);
        }
        if !analysis.violations.is_empty() {
            self.retired.insert(key, Outcome::Violated);
        } else if let Some(u) = analysis.undecided.first() {
            let op = registers_op(u, &k.index);
            let reason = format!(
                "key {} undecided ({}): the search stopped",
                self.values.display(key),
                u.name()
            );
            self.give_up(key, registers::OUTSIDE_FRAGMENT, reason, op);
        } else if let Retire::Overflow(op) = why {
            let reason = format!(
                "key {} held more ops than the window ({}), with values the chain cannot \
                 follow past them or an op always pending",
                self.values.display(key),
                self.window
            );
            self.give_up(key, "retired", reason, op);
        }
    }

    /// Makes a key's answer unknown (once), and lets it go: the window let
    /// go of what an op needs (`retired`), or the search stopped at a
    /// limit (`outside-fragment`, as the offline check says).
    fn give_up(&mut self, key: Val, keyword: &'static str, reason: String, op: i64) {
        self.live.remove(&key);
        let before = self.retired.insert(key, Outcome::Unknown);
        if matches!(before, Some(Outcome::Violated)) {
            self.retired.insert(key, Outcome::Violated);
        } else if before != Some(Outcome::Unknown) {
            self.unknown.push(Unknown {
                keyword,
                reason,
                op,
            });
        }
    }
}

/// The held ops a violation names.
fn violation_ops(v: &Violation) -> Vec<RegId> {
    match v {
        Violation::Realtime { op, preceding, .. } => vec![*op, *preceding],
        Violation::Fork { ops, .. } => ops.to_vec(),
        Violation::Unwritten { op, .. } => vec![*op],
        Violation::Cycle { ops, .. } => ops.clone(),
        Violation::NoOrder { writes, .. } => writes.clone(),
        Violation::NoLinearization { op, .. } => vec![*op],
    }
}

/// The `:index` of the first op an undecided key names.
fn registers_op(u: &registers::Undecided, index: &[i64]) -> i64 {
    let first = match u {
        registers::Undecided::DuplicateWrites { ops, .. } => ops.first(),
        registers::Undecided::BlindWrites { writes, .. } => writes.first(),
    };
    first
        .and_then(|&i| index.get(i as usize).copied())
        .unwrap_or(-1)
}

/// The register op an `:f` names.
fn register_f(f: &str) -> Option<RegisterF> {
    Some(match f {
        ":read" => RegisterF::Read,
        ":write" => RegisterF::Write,
        ":cas" => RegisterF::Cas,
        ":acquire" => RegisterF::Acquire,
        ":release" => RegisterF::Release,
        _ => return None,
    })
}

fn not_register(op: &StreamedOp) -> HistoryError {
    HistoryError::new(
        ErrorKind::RegisterOp("this op is not a register op of the history's workload".into()),
        "a cas-register history holds :read, :write and :cas ops only, a mutex history \
         :acquire and :release",
    )
    .at(op.op.span, "this op")
}

fn bad_value(op: &StreamedOp) -> HistoryError {
    HistoryError::new(
        ErrorKind::RegisterOp("this op's value does not fit the history's form".into()),
        "a register op's value is a value ([old new] for :cas), or with jepsen.independent \
         a [key value] tuple ([key [old new]] for :cas)",
    )
    .at(op.op.span, "this op")
}

fn mixed_form(op: &StreamedOp) -> HistoryError {
    HistoryError::new(
        ErrorKind::RegisterOp(
            "this op's value is not a [key value] tuple, as the ops before it were".into(),
        ),
        "the streaming check fixes the form at the first op with a value; check a history \
         that mixes the forms whole",
    )
    .at(op.op.span, "this op")
}

fn other_key(op: &StreamedOp) -> HistoryError {
    HistoryError::new(
        ErrorKind::RegisterOp("this completion names another key than its invocation".into()),
        "the streaming check holds an op in its invocation's key",
    )
    .at(op.op.span, "this op")
}

fn double_invoke(process: i64, op: &StreamedOp) -> HistoryError {
    HistoryError::new(
        ErrorKind::DoubleInvoke { process },
        crate::history::build::ONE_OP_AT_A_TIME,
    )
    .at(op.op.span, "second invocation")
}

fn too_long(op: &StreamedOp) -> HistoryError {
    HistoryError::new(
        ErrorKind::RegisterOp("more ops than the streaming check counts (2^32)".into()),
        "check a shorter history",
    )
    .at(op.op.span, "this op")
}

//! Elle's closed-predicate ops (`elle.closed-predicate`): telling the
//! workload from its ops, and reading what the typed Jepsen reader leaves
//! as opaque values (the `:init` op's map, transactions with `:insert`,
//! `:delete` or predicate reads `:rp`) into the shared arenas as micro-ops,
//! so that pairing and everything after treat them as transactions. Also
//! the workload's rule on writes. Reading only: what the ops mean is
//! `infer::closed_predicate`'s business.
//!
//! A JSON history's values are read as `formats::json` turns them into EDN
//! (its module comment says the shapes), then as EDN's: one meaning, the
//! same refusals, spans into the JSON.

use super::edn::{self, Kind, Node, Problem, SyntaxError};
use super::error::{ErrorKind, HistoryError};
use super::formats::json;
use super::jepsen::Ops;
use super::model::{MicroOp, MopKind, MopValue, OpType, OpValue, Txn};
use super::span::Span;
use super::value::Val;
use std::collections::{HashMap, HashSet};

/// Elle's name for a key's version before its first write.
pub const UNBORN: &str = ":elle/unborn";
/// Elle's name for a key's version after a delete.
pub const DEAD: &str = ":elle/dead";

/// The help texts of the reader's refusals, in the input's own syntax.
struct Help {
    /// What every closed-predicate micro-op looks like.
    mops: &'static str,
    init: &'static str,
    predicate: &'static str,
    rows: &'static str,
}

const EDN_HELP: Help = Help {
    mops: "a closed-predicate micro-op is [:r k v], [:w k v], [:insert k v], [:delete k] or [:rp pred {k v, ...}]",
    init: "an :init op's value is a map of each key to its initial value, e.g. {:x 0, :y 1}",
    predicate: "a predicate is :true, [:= v] or [:mod m r] (integers, m not zero)",
    rows: "a predicate read [:rp pred {k v, ...}] returns a map of each key it matched to its value",
};

const JSON_HELP: Help = Help {
    mops: "a closed-predicate micro-op is [\"r\", k, v], [\"w\", k, v], [\"insert\", k, v], [\"delete\", k] or [\"rp\", pred, {\"k\": v, ...}]",
    init: "an \"init\" op's value maps each key to its initial value: {\"1\": 0, \"2\": 5}, or pairs [[1, 0], [2, 5]]",
    predicate: "a predicate is \"true\", [\"=\", v] or [\"mod\", m, r] (integers, m not zero)",
    rows: "a predicate read [\"rp\", pred, rows] returns each key it matched with its value: {\"1\": 0}, or pairs [[1, 0]]",
};

/// Whether the history is a closed-predicate one: `flagged` (given with
/// `--workload`), or a client op has `:f :init`, or a `:txn` op's value has
/// an `:insert`, `:delete` or `:rp` micro-op. When it is, every `:init` op
/// and every `:txn` op the typed reader left opaque is read into micro-ops;
/// when it is not, nothing changes.
pub(super) fn read(ops: &mut Ops, text: &str, flagged: bool) -> Result<bool, HistoryError> {
    let init = ops.values.lookup(":init");
    let txn = ops.values.lookup(":txn");
    let candidates: Vec<(usize, bool)> = (ops.ops.iter().enumerate())
        .filter(|(_, o)| o.process.client().is_some())
        .filter_map(|(i, o)| match (Some(o.f) == init, o.value) {
            (true, _) => Some((i, true)),
            (false, OpValue::Other(_)) if Some(o.f) == txn => Some((i, false)),
            _ => None,
        })
        .collect();
    let detected = flagged
        || candidates
            .iter()
            .any(|&(i, is_init)| is_init || has_predicate_mops(text, ops.json, ops.ops[i].value));
    if !detected {
        return Ok(false);
    }
    ops.values.intern_canonical(UNBORN);
    ops.values.intern_canonical(DEAD);
    for (n, &(i, is_init)) in candidates.iter().enumerate() {
        crate::limits::tick_of(n, candidates.len(), crate::progress::Unit::Ops);
        let (start, len) = match ops.ops[i].value {
            OpValue::Nil => (ops.mops.len() as u32, 0),
            OpValue::Other(span) => Reader { ops, text }.op_value(span, is_init)?,
            // Read by the typed reader already.
            _ => continue,
        };
        ops.ops[i].value = OpValue::Txn { start, len };
    }
    Ok(true)
}

/// Whether an opaque value reads as a vector with an `:insert`, `:delete`
/// or `:rp` micro-op: what no other workload writes.
fn has_predicate_mops(text: &str, json: bool, value: OpValue) -> bool {
    let OpValue::Other(span) = value else {
        return false;
    };
    let text = span.text_from(text);
    match json {
        true => json::with_node(text, json::Context::Value, predicate_mops_in).unwrap_or(false),
        false => edn::read_first(text).is_ok_and(|node| predicate_mops_in(&node)),
    }
}

fn predicate_mops_in(node: &Node<'_>) -> bool {
    let (Kind::Vector(mops) | Kind::List(mops)) = &node.untagged().kind else {
        return false;
    };
    mops.iter().any(|m| {
        let f = match &m.untagged().kind {
            Kind::Vector(items) => items.first().map(|f| &f.kind),
            _ => None,
        };
        matches!(f, Some(Kind::Keyword("insert" | "delete" | "rp")))
    })
}

/// Reads one op's value into the arenas.
struct Reader<'o> {
    ops: &'o mut Ops,
    text: &'o str,
}

impl Reader<'_> {
    /// The micro-ops of the value at `span` (an `:init` map when
    /// `is_init`, else a transaction), pushed onto the arena: where they
    /// start and how many.
    fn op_value(&mut self, span: Span, is_init: bool) -> Result<(u32, u32), HistoryError> {
        let (base, text) = (span.start(), span.text_from(self.text));
        if !self.ops.json {
            let node = edn::read_first(text).map_err(|e| e.shifted(base))?;
            return self.node_value(&node, base, is_init);
        }
        let cx = match is_init {
            true => json::Context::Rows,
            false => json::Context::Value,
        };
        // The JSON reader read this value once already.
        let read = json::with_node(text, cx, |node| self.node_value(node, base, is_init));
        read.unwrap_or_else(|| {
            Err(bad(
                span,
                "this value does not read as JSON",
                self.help().mops,
            ))
        })
    }

    fn help(&self) -> &'static Help {
        match self.ops.json {
            true => &JSON_HELP,
            false => &EDN_HELP,
        }
    }

    /// [`Self::op_value`] of the value read as `node`.
    fn node_value(
        &mut self,
        node: &Node<'_>,
        base: usize,
        is_init: bool,
    ) -> Result<(u32, u32), HistoryError> {
        let start = self.ops.mops.len();
        match (&node.untagged().kind, is_init) {
            (Kind::Map(entries), true) => {
                self.unique_keys(entries, base)?;
                for (k, v) in entries {
                    let (key, value) = (self.val(k, base)?, self.val(v, base)?);
                    let at = Span::new(base + k.span.start(), base + v.span.end());
                    let m = MicroOp::new(MopKind::Init, key, MopValue::Val(value), at);
                    self.ops.mops.push(m);
                }
            }
            (Kind::Vector(mops) | Kind::List(mops), false) => {
                for m in mops {
                    let m = self.mop(m, base)?;
                    self.ops.mops.push(m);
                }
            }
            (_, true) => {
                return Err(bad(
                    span_of(node, base),
                    "an :init op's value must be a map",
                    self.help().init,
                ))
            }
            (_, false) => {
                return Err(bad(
                    span_of(node, base),
                    "a :txn op's value must be a vector of micro-ops",
                    self.help().mops,
                ))
            }
        }
        // Past `u32`, `history::build` refuses the history.
        Ok((start as u32, (self.ops.mops.len() - start) as u32))
    }

    /// One micro-op.
    fn mop(&mut self, node: &Node<'_>, base: usize) -> Result<MicroOp, HistoryError> {
        let at = span_of(node, base);
        let help = self.help();
        let not_mop = || bad(at, "this is not a closed-predicate micro-op", help.mops);
        let Kind::Vector(items) = &node.untagged().kind else {
            return Err(not_mop());
        };
        let kind = match items.first().map(|f| &f.kind) {
            Some(Kind::Keyword("r")) => MopKind::Read,
            Some(Kind::Keyword("w")) => MopKind::Write,
            Some(Kind::Keyword("insert")) => MopKind::Insert,
            Some(Kind::Keyword("delete")) => MopKind::Delete,
            Some(Kind::Keyword("rp")) => MopKind::PredRead,
            _ => return Err(not_mop()),
        };
        let (Some(key), value) = (items.get(1), items.get(2)) else {
            return Err(not_mop());
        };
        let arity_ok = match kind {
            MopKind::Write | MopKind::Insert => items.len() == 3,
            _ => items.len() <= 3,
        };
        if !arity_ok {
            return Err(not_mop());
        }
        let value = match (kind, value) {
            (MopKind::PredRead, _) => {
                check_predicate(key, base, help)?;
                self.pred_reads(value, base)?
            }
            (MopKind::Delete, _) | (_, None) => MopValue::Val(Val::NIL),
            (_, Some(v)) => MopValue::Val(self.val(v, base)?),
        };
        let key = self.val(key, base)?;
        Ok(MicroOp::new(kind, key, value, at))
    }

    /// What a predicate read returned: `nil` (not known yet), or a map of
    /// key to value, kept as `k v` pairs in the elements arena.
    fn pred_reads(
        &mut self,
        node: Option<&Node<'_>>,
        base: usize,
    ) -> Result<MopValue, HistoryError> {
        let entries = match node.map(|n| &n.untagged().kind) {
            None | Some(Kind::Nil) => return Ok(MopValue::Val(Val::NIL)),
            Some(Kind::Map(entries)) => {
                self.unique_keys(entries, base)?;
                entries
            }
            Some(_) => {
                return Err(bad(
                    node.map_or(Span::new(base, base), |n| span_of(n, base)),
                    "a predicate read returns a map",
                    self.help().rows,
                ))
            }
        };
        let start = self.ops.elems.len() as u32;
        for (k, v) in entries {
            let (k, v) = (self.val(k, base)?, self.val(v, base)?);
            self.ops.elems.extend([k, v]);
        }
        let len = self.ops.elems.len() as u32 - start;
        Ok(MopValue::List { start, len })
    }

    /// A JSON map's keys, each once: EDN's reader refuses a map that names
    /// a key twice, and a JSON object or pairs may name one twice.
    fn unique_keys(
        &self,
        entries: &[(Node<'_>, Node<'_>)],
        base: usize,
    ) -> Result<(), HistoryError> {
        if !self.ops.json {
            return Ok(());
        }
        let mut seen = HashSet::new();
        match entries.iter().find(|(k, _)| !seen.insert(k.canonical())) {
            Some((k, _)) => Err(SyntaxError {
                span: span_of(k, base),
                problem: Problem::DuplicateKey(k.canonical()),
            }
            .into()),
            None => Ok(()),
        }
    }

    /// The value of `node`, read from the text at `base`.
    fn val(&mut self, node: &Node<'_>, base: usize) -> Result<Val, HistoryError> {
        let v = self.ops.values.node(node);
        v.map_err(|e| e.shifted(base).into())
    }
}

/// Elle's predicates: `:true`, `[:= v]` and `[:mod m r]` (integers, `m`
/// not zero). Elle evaluates no other.
fn check_predicate(node: &Node<'_>, base: usize, help: &Help) -> Result<(), HistoryError> {
    let int = |n: &Node<'_>| n.integer().flatten();
    let ok = match &node.untagged().kind {
        Kind::Keyword("true") => true,
        Kind::Vector(items) => match items.iter().map(|n| &n.kind).collect::<Vec<_>>()[..] {
            [Kind::Keyword("="), _] => true,
            [Kind::Keyword("mod"), _, _] => {
                matches!((int(&items[1]), int(&items[2])), (Some(m), Some(_)) if m != 0)
            }
            _ => false,
        },
        _ => false,
    };
    match ok {
        true => Ok(()),
        false => Err(bad(
            span_of(node, base),
            "not a predicate Elle evaluates",
            help.predicate,
        )),
    }
}

fn span_of(node: &Node<'_>, base: usize) -> Span {
    Span::new(base + node.span.start(), base + node.span.end())
}

fn bad(at: Span, problem: &str, help: &str) -> HistoryError {
    HistoryError::new(ErrorKind::PredicateOp(problem.to_string()), help).at(at, "here")
}

/// Elle's rule (`ext-writes`): among the transactions that may have
/// happened (`:ok` or `:info`), each key is set to each value by one
/// transaction's last write of it at most, a delete setting it to
/// `:elle/dead`; versions are named by value.
pub(super) fn check_unique_writes(ops: &Ops, txns: &[Txn]) -> Result<(), HistoryError> {
    let dead = ops.values.lookup(DEAD).unwrap_or(Val::NIL);
    let mut writers: HashMap<(Val, Val), u32> = HashMap::new();
    let possible = |t: &&Txn| {
        t.completion
            .is_some_and(|c| matches!(ops.ops[c as usize].ty, OpType::Ok | OpType::Info))
    };
    for t in txns.iter().filter(possible) {
        for i in external_writes(&ops.mops, t.mops.clone()) {
            let m = &ops.mops[i as usize];
            let value = match (m.kind, m.value()) {
                (MopKind::Delete, _) => dead,
                (_, MopValue::Val(v)) => v,
                (_, MopValue::List { .. }) => continue,
            };
            if let Some(first) = writers.insert((m.key, value), i) {
                return Err(duplicate(ops, &ops.mops[first as usize], m, value));
            }
        }
    }
    Ok(())
}

/// The micro-ops among `range` that set a key last in their transaction
/// (its external writes), in their order.
pub fn external_writes(mops: &[MicroOp], range: std::ops::Range<u32>) -> Vec<u32> {
    let mut keys = HashSet::new();
    let mut out: Vec<u32> = range
        .rev()
        .filter(|&i| {
            let m = &mops[i as usize];
            let write = matches!(
                m.kind,
                MopKind::Write | MopKind::Insert | MopKind::Delete | MopKind::Init
            );
            write && keys.insert(m.key)
        })
        .collect();
    out.reverse();
    out
}

fn duplicate(ops: &Ops, first: &MicroOp, again: &MicroOp, value: Val) -> HistoryError {
    HistoryError::new(
        ErrorKind::DuplicateWrite {
            kind: "write of",
            key: ops.values.display(again.key),
            value: ops.values.display(value),
        },
        "closed-predicate names each key's versions by value: a key is set to each value, \
         and deleted, by one transaction at most",
    )
    .at(again.span, "written again here")
    .at(first.span, "first written here")
}

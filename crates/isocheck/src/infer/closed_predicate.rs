//! Inference for Elle's closed-predicate workload (`elle.closed-predicate`).
//!
//! The `:init` op fixes the universe of keys, and every write names its
//! version, so each key's versions are known, in the order their writes
//! completed (Elle's `all-versions`: a key first written after `:init`
//! starts unborn; a delete makes it dead). A predicate read returns the
//! keys it matched; of a key it did not return, its version set (Elle's
//! `VSet(P)`) held a version the predicate does not match, so when only
//! one of the key's versions does not match, that is the one it selected
//! (`version-sets`). When every version matches, the read missed a key it
//! must have seen: `:predicate-read-miss`.
//!
//! Owns the edges of Elle's `ww-graph`, `wr-graph` and `rw-graph` for the
//! workload: item ww, wr and rw; predicate write-reads (a [`Rel::Wr`]
//! whose reading micro-op is the predicate read) when no item wr orders
//! the pair; predicate anti-dependencies ([`Rel::Rwp`]) from a predicate
//! read to the writer of every later version that changes whether the
//! predicate matches; and, beyond Elle, item anti-dependencies from a
//! predicate read to the writer of the version after each row it returned
//! where the predicate still matches that version (Adya's predicate read
//! is followed by item reads of what matched). Where Elle knowingly differs from its own docstrings,
//! this follows Elle's code, which its tests pin, with one exception: Elle's
//! `ww-graph` matches `:write`, which no closed-predicate micro-op is, so
//! it draws no ww edge for `:w`; here `:w` orders versions like `:insert`
//! (one edge more, never one less: no cycle Elle finds is lost).

use super::anomaly::Anomaly;
use super::util::{FxMap, FxSet};
use super::Inference;
use crate::graph::{Dep, Rel, Version};
use crate::history::edn::{self, Kind};
use crate::history::predicate::{external_writes, DEAD, UNBORN};
use crate::history::{History, MicroOp, MopKind, MopValue, OpType, Status, TxnId, Val};
use crate::limits;

/// Infers the dependencies and the predicate-read misses of a
/// closed-predicate history.
pub fn infer(h: &History) -> Inference {
    let u = Universe::new(h);
    let mut edges = Edges::default();
    let ok: Vec<TxnId> = (u.possible.iter().copied())
        .filter(|&t| h.txn(t).status == Status::Committed)
        .collect();
    for &t in &u.possible {
        limits::tick();
        u.ww(h, t, &mut edges);
    }
    for &t in &ok {
        limits::tick();
        u.wr(h, t, &mut edges);
    }
    // Elle's explainer names a pair by an item read when it can.
    for &t in &ok {
        limits::tick();
        u.wrp(h, t, &mut edges);
    }
    for &t in &ok {
        limits::tick();
        u.rw(h, t, &mut edges);
    }
    let anomalies = (ok.iter())
        .flat_map(|&t| {
            limits::tick();
            u.misses(h, t)
        })
        .collect();
    let mut in_graph = vec![false; h.txns.len()];
    for d in &edges.deps {
        in_graph[d.from as usize] = true;
        in_graph[d.to as usize] = true;
    }
    Inference {
        deps: edges.deps,
        anomalies,
        in_graph,
        ..Inference::default()
    }
}

/// Elle's predicates (the reader refuses any other).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pred {
    /// `:true`: every live version.
    True,
    /// `[:= v]`: versions equal to `v`.
    Eq(Val),
    /// `[:mod m r]`: integer versions `x` with `(mod x m) = r`, Clojure's
    /// `mod` (floored).
    Mod(i64, i64),
}

impl Pred {
    /// The predicate written as `v` (canonical EDN); `None` if it is none
    /// of Elle's, which the reader does not let through.
    fn parse(h: &History, v: Val) -> Option<Pred> {
        let text = h.values.text(v);
        let node = edn::read_first(&text).ok()?;
        match &node.kind {
            Kind::Keyword("true") => Some(Pred::True),
            Kind::Vector(items) => match &items[..] {
                [op, x] if op.kind == Kind::Keyword("=") => Some(Pred::Eq(
                    h.values.lookup(&x.canonical()).or_else(|| int_val(x))?,
                )),
                [op, m, r] if op.kind == Kind::Keyword("mod") => {
                    Some(Pred::Mod(m.integer()??, r.integer()??))
                }
                _ => None,
            },
            _ => None,
        }
    }
}

/// A small integer's value (interned inline, so not found by text).
fn int_val(n: &edn::Node<'_>) -> Option<Val> {
    let i = u64::try_from(n.integer()??).ok()?;
    Val::small_int(i)
}

/// What the history says of every key's versions and their writers.
struct Universe {
    /// Transactions that may have happened (`:ok` or `:info`, Elle's
    /// `h/possible`), in the order they completed.
    possible: Vec<TxnId>,
    /// Keys in the order they first appear.
    keys: Vec<Val>,
    /// Each key's versions, in version order (Elle's `all-versions`).
    versions: FxMap<Val, Vec<Val>>,
    /// The transaction and micro-op that wrote each (key, version) as an
    /// external write (Elle's `ext-writes`).
    writers: FxMap<(Val, Val), (TxnId, u32)>,
    preds: FxMap<Val, Option<Pred>>,
    unborn: Val,
    dead: Val,
}

impl Universe {
    fn new(h: &History) -> Universe {
        let mut possible: Vec<(u32, TxnId)> = (h.txns.iter().enumerate())
            .filter_map(|(t, txn)| {
                let c = txn.completion?;
                matches!(h.op(c).ty, OpType::Ok | OpType::Info).then_some((c, t as TxnId))
            })
            .collect();
        possible.sort_unstable();
        let mut u = Universe {
            possible: possible.into_iter().map(|(_, t)| t).collect(),
            keys: Vec::new(),
            versions: FxMap::default(),
            writers: FxMap::default(),
            preds: FxMap::default(),
            unborn: h.values.lookup(UNBORN).unwrap_or(Val::NIL),
            dead: h.values.lookup(DEAD).unwrap_or(Val::NIL),
        };
        for i in 0..u.possible.len() {
            u.add_versions(h, u.possible[i]);
        }
        for mop in h.mops.iter().filter(|m| m.kind == MopKind::PredRead) {
            u.preds
                .entry(mop.key)
                .or_insert_with(|| Pred::parse(h, mop.key));
        }
        u
    }

    /// Adds a transaction's versions and external writes. An `:init` op
    /// replaces every version known, as Elle's does (it comes first).
    fn add_versions(&mut self, h: &History, t: TxnId) {
        let range = h.txn(t).mops.clone();
        let mops = h.mops_of(h.txn(t));
        if mops.first().is_some_and(|m| m.kind == MopKind::Init) {
            self.keys.clear();
            self.versions.clear();
        }
        for m in mops {
            let (k, v) = (m.key, self.written(m));
            match m.kind {
                MopKind::Init => {
                    self.keys.push(k);
                    self.versions.insert(k, vec![v]);
                }
                MopKind::Insert | MopKind::Write | MopKind::Delete => {
                    if !self.versions.contains_key(&k) {
                        self.keys.push(k);
                    }
                    let unborn = self.unborn;
                    self.versions
                        .entry(k)
                        .or_insert_with(|| vec![unborn])
                        .push(v);
                }
                MopKind::Read | MopKind::PredRead | MopKind::Append => {}
            }
        }
        for i in external_writes(&h.mops, range) {
            let m = &h.mops[i as usize];
            // The reader refused a (key, version) written twice.
            self.writers
                .entry((m.key, self.written(m)))
                .or_insert((t, i));
        }
    }

    /// The version a write micro-op installs.
    fn written(&self, m: &MicroOp) -> Val {
        match (m.kind, m.value()) {
            (MopKind::Delete, _) => self.dead,
            (_, MopValue::Val(v)) => v,
            (_, MopValue::List { .. }) => Val::NIL,
        }
    }

    fn versions(&self, k: Val) -> &[Val] {
        self.versions.get(&k).map_or(&[], Vec::as_slice)
    }

    /// Elle's `resolve-version`: a `nil` read is the unborn version, or the
    /// dead one when the key was deleted and never unborn; `nil` when it
    /// could be either.
    fn resolve(&self, k: Val, v: Val) -> Val {
        if !v.is_nil() {
            return v;
        }
        let vs = self.versions(k);
        let unborn = vs.first() == Some(&self.unborn);
        let dead = vs.last() == Some(&self.dead);
        match (unborn, dead) {
            (true, true) => Val::NIL,
            (false, true) => self.dead,
            _ => self.unborn,
        }
    }

    /// Elle's `eval-pred`: unborn and dead versions match nothing; `:mod`
    /// matches integers only (Elle fails on any other value).
    fn matches(&self, h: &History, pred: Val, v: Val) -> bool {
        if v == self.unborn || v == self.dead {
            return false;
        }
        match self.preds.get(&pred).copied().flatten() {
            Some(Pred::True) => true,
            Some(Pred::Eq(x)) => x == v,
            Some(Pred::Mod(m, r)) => integer(h, v).and_then(|x| floor_mod(x, m)) == Some(r),
            None => false,
        }
    }

    /// Elle's `version-after`: the version after `v`. After unborn, the
    /// first version but unborn; after `nil` (a read that could be unborn
    /// or dead), the first version, as Elle's search starts from `nil`.
    fn version_after(&self, k: Val, v: Val) -> Option<Val> {
        let vs = self.versions(k);
        if v == self.unborn {
            return match vs {
                [first, second, ..] if *first == self.unborn => Some(*second),
                [first, ..] if *first != self.unborn => Some(*first),
                _ => None,
            };
        }
        let mut prev = Val::NIL;
        for &x in vs {
            if prev == v {
                return Some(x);
            }
            prev = x;
        }
        None
    }

    /// Elle's `versions-after`: every version after the first `v` of the
    /// key's versions. Elle's code ignores its special case for unborn, so
    /// a key that `:init` created (no unborn version) has none after
    /// unborn.
    fn versions_after(&self, k: Val, v: Val) -> &[Val] {
        let vs = self.versions(k);
        let n = vs.len().saturating_sub(1);
        match vs[..n].iter().position(|&x| x == v) {
            Some(i) => &vs[i + 1..],
            None => &[],
        }
    }

    /// Elle's `version-before`: the version before the first `v`.
    fn version_before(&self, k: Val, v: Val) -> Option<Val> {
        let vs = self.versions(k);
        let i = vs.iter().position(|&x| x == v)?;
        i.checked_sub(1).map(|j| vs[j])
    }

    /// The versions a predicate read's version set is known to hold: those
    /// it returned, and for each other key the one version the predicate
    /// does not match (unborn when it matches every version).
    fn version_set(&self, h: &History, m: &MicroOp) -> Vec<(Val, Val)> {
        let mut vset = returned(h, m);
        let seen: FxSet<Val> = vset.iter().map(|&(k, _)| k).collect();
        for &k in self.keys.iter().filter(|k| !seen.contains(k)) {
            limits::tick();
            let mut others = (self.versions(k).iter()).filter(|&&x| !self.matches(h, m.key, x));
            match (others.next(), others.next()) {
                (None, _) => vset.push((k, self.unborn)),
                (Some(&x), None) => vset.push((k, x)),
                (Some(_), Some(_)) => {}
            }
        }
        vset
    }

    /// The writer of a version, when another transaction than `t`.
    fn writer(&self, k: Val, v: Val, t: TxnId) -> Option<(TxnId, u32)> {
        self.writers.get(&(k, v)).copied().filter(|&(w, _)| w != t)
    }

    /// ww: each write of `t` follows the version before it.
    fn ww(&self, h: &History, t: TxnId, edges: &mut Edges) {
        let range = h.txn(t).mops.clone();
        for (i, m) in range.zip(h.mops_of(h.txn(t))) {
            if !matches!(m.kind, MopKind::Insert | MopKind::Write | MopKind::Delete) {
                continue;
            }
            let v2 = self.written(m);
            let Some(v) = self.version_before(m.key, v2) else {
                continue;
            };
            if let Some((w, wm)) = self.writer(m.key, v, t) {
                edges.add(Rel::Ww, (w, wm), (t, i), m.key, v, v2);
            }
        }
    }

    /// wr: item reads of `t` follow the writer of what they read.
    fn wr(&self, h: &History, t: TxnId, edges: &mut Edges) {
        for (i, m) in self.mops(h, t, MopKind::Read) {
            let v = self.resolve(m.key, scalar(m));
            if let Some((w, wm)) = self.writer(m.key, v, t) {
                edges.add(Rel::Wr, (w, wm), (t, i), m.key, v, v);
            }
        }
    }

    /// wrp: predicate reads of `t` follow the writers of their version set.
    fn wrp(&self, h: &History, t: TxnId, edges: &mut Edges) {
        for (i, m) in self.mops(h, t, MopKind::PredRead) {
            for (k, v) in self.version_set(h, m) {
                if let Some((w, wm)) = self.writer(k, v, t) {
                    edges.add(Rel::Wr, (w, wm), (t, i), k, v, v);
                }
            }
        }
    }

    /// rw and rwp: the writers of the version after an item read, and of
    /// every later version that changes whether a predicate read matches.
    fn rw(&self, h: &History, t: TxnId, edges: &mut Edges) {
        for (i, m) in self.mops(h, t, MopKind::Read) {
            let v = self.resolve(m.key, scalar(m));
            let Some(v2) = self.version_after(m.key, v) else {
                continue;
            };
            if let Some((w, wm)) = self.writer(m.key, v2, t) {
                edges.add(Rel::Rw, (t, i), (w, wm), m.key, v, v2);
            }
        }
        for (i, m) in self.mops(h, t, MopKind::PredRead) {
            for (k, v) in self.version_set(h, m) {
                let matched = self.matches(h, m.key, v);
                for &v2 in self.versions_after(k, v) {
                    if self.matches(h, m.key, v2) == matched {
                        continue;
                    }
                    if let Some((w, wm)) = self.writer(k, v2, t) {
                        edges.add(Rel::Rwp, (t, i), (w, wm), k, v, v2);
                    }
                }
            }
            // A row the read returned was also read as an item (Adya's
            // predicate read is followed by item reads of what matched):
            // the next version's writer overwrote what it saw, even where
            // the predicate still matches it, which Elle counts as no
            // anti-dependency.
            for (k, v) in returned(h, m) {
                let v = self.resolve(k, v);
                let Some(v2) = self.version_after(k, v) else {
                    continue;
                };
                let unmatched = !self.matches(h, m.key, v2);
                if let (false, Some((w, wm))) = (unmatched, self.writer(k, v2, t)) {
                    edges.add(Rel::Rw, (t, i), (w, wm), k, v, v2);
                }
            }
        }
    }

    /// `:predicate-read-miss`: keys a predicate read of `t` did not return
    /// although the predicate matches every version they ever had.
    fn misses(&self, h: &History, t: TxnId) -> Vec<Anomaly> {
        let mut out = Vec::new();
        for (i, m) in self.mops(h, t, MopKind::PredRead) {
            let seen: FxSet<Val> = returned(h, m).into_iter().map(|(k, _)| k).collect();
            for &k in self.keys.iter().filter(|k| !seen.contains(k)) {
                limits::tick();
                let vs = self.versions(k);
                if vs.iter().all(|&v| self.matches(h, m.key, v)) {
                    out.push(Anomaly::PredicateReadMiss {
                        txn: t,
                        mop: i,
                        key: k,
                        versions: vs.to_vec(),
                    });
                }
            }
        }
        out
    }

    /// The micro-ops of `t` of this kind, with their indices.
    fn mops<'h>(
        &self,
        h: &'h History,
        t: TxnId,
        kind: MopKind,
    ) -> impl Iterator<Item = (u32, &'h MicroOp)> + 'h {
        let range = h.txn(t).mops.clone();
        range
            .zip(h.mops_of(h.txn(t)))
            .filter(move |(_, m)| m.kind == kind)
    }
}

/// The keys and values a predicate read returned, in its order.
fn returned(h: &History, m: &MicroOp) -> Vec<(Val, Val)> {
    match m.value() {
        MopValue::List { start, len } => (h.list(start, len).chunks_exact(2))
            .map(|kv| (kv[0], kv[1]))
            .collect(),
        MopValue::Val(_) => Vec::new(),
    }
}

fn scalar(m: &MicroOp) -> Val {
    match m.value() {
        MopValue::Val(v) => v,
        MopValue::List { .. } => Val::NIL,
    }
}

/// The integer a value is, if it is one.
fn integer(h: &History, v: Val) -> Option<i64> {
    match v.as_small_int() {
        Some(n) => Some(i64::from(n)),
        None => h.values.text(v).parse().ok(),
    }
}

/// Clojure's `mod`: the remainder with the divisor's sign.
fn floor_mod(x: i64, m: i64) -> Option<i64> {
    let r = x.checked_rem(m)?;
    match r != 0 && (r < 0) != (m < 0) {
        true => r.checked_add(m),
        false => Some(r),
    }
}

/// The dependencies found, one per (from, to, relation): the first found
/// explains the pair.
#[derive(Default)]
struct Edges {
    deps: Vec<Dep>,
    seen: FxSet<(TxnId, TxnId, Rel)>,
}

impl Edges {
    /// `from`'s micro-op to `to`'s, on `key` from version `v` to `v2`.
    fn add(&mut self, rel: Rel, from: (TxnId, u32), to: (TxnId, u32), key: Val, v: Val, v2: Val) {
        if from.0 == to.0 || !self.seen.insert((from.0, to.0, rel)) {
            return;
        }
        self.deps.push(Dep {
            from: from.0,
            to: to.0,
            rel,
            key,
            value: Version::Val(v),
            value2: Version::Val(v2),
            a_mop: from.1,
            b_mop: to.1,
        });
    }
}

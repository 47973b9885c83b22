//! Wing & Gong's search for a linearization, with Lowe's memoisation, as
//! Porcupine does it: the calls and returns of a history in one linked list
//! in real-time order; an op is linearized by lifting its call and return
//! out of the list when the sequential specification allows it, and the
//! search backtracks when it meets the return of an op not yet linearized.
//! A (linearized set, state) pair already explored is never explored again.
//!
//! Optional ops (`:info`: they may take effect at any time after their
//! invocation, or never) return at +∞, so the search succeeds once only
//! their returns are left. The linearized set is kept in a canonical,
//! compact form instead of a bitset of every op: the ops invoked up to the
//! last linearized one (`h`), the required ops among them still open (at
//! most one per process), and the optional ones still open counted by
//! *kind* — optional ops of one kind have the same effect in every state,
//! and once an op invoked after them is linearized both can be linearized
//! at any later point, so they are interchangeable.
//!
//! Which optional ops are still open multiplies the sets: an invalid
//! history with fifty crashed ops has more sets before its violation than
//! any search can list. So [`search`] first solves a *relaxation* in which
//! an optional op may take effect any number of times: its sets are the
//! required ops' alone (optional ops are never used up), as few as in a
//! history without crashes, and of each kind of optional op only the
//! earliest invoked is kept (it stands for the others). Every
//! linearization is one of the relaxation, so when the relaxation has none
//! the history has none either; when the relaxation's linearization can
//! take each use of a kind from a different op of that kind (the earliest
//! left, within real time) it is a linearization. Only otherwise does the
//! exact search run. A violation's states are then those of the
//! relaxation's prefixes: every real prefix ends in one of them.

use crate::infer::util::{FxHasher, FxMap};
use crate::limits;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::hash::BuildHasherDefault;

/// One op of the history, as the search sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Call {
    /// Position of the invocation (-1: before the history starts).
    pub invoke: i64,
    /// Position of the completion; `None` for an op that may take effect at
    /// any time after its invocation, or never.
    pub complete: Option<i64>,
    /// Ops of equal kinds have equal preconditions and effects in every state.
    pub kind: u32,
    /// The op never changes the state (a read): the search linearizes it as
    /// soon as it can take effect, without trying other orders.
    pub pure: bool,
}

/// Why no linearization exists, as Knossos and Porcupine say it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Counterexample<O = usize, S = u32> {
    /// The longest linearizable prefix, in linearization order: every op
    /// that completed before `op` did, and some concurrent ones.
    pub prefix: Vec<O>,
    /// The op no linearizable prefix can be extended with before it completes.
    pub op: O,
    /// The states reachable there (after every prefix the search met at
    /// `op`'s completion), sorted.
    pub states: Vec<S>,
}

/// A list entry: an op's call or return, at a position in real time.
#[derive(Clone, Copy)]
struct Entry {
    op: u32,
    ret: bool,
    time: i64,
}

const NONE: u32 = u32::MAX;

/// How many failed sets of one first part a new set is compared with (the
/// latest; comparing with fewer only prunes less).
const COVER_CHECKS: usize = 256;

/// The calls and returns not yet lifted, as a doubly linked list between
/// two sentinels; lifting and restoring in stack order (dancing links).
struct List {
    entries: Vec<Entry>,
    next: Vec<u32>,
    prev: Vec<u32>,
    /// Entry of each op's call and return.
    call: Vec<u32>,
    ret: Vec<u32>,
}

impl List {
    fn new(calls: &[Call]) -> List {
        let mut entries: Vec<Entry> = Vec::with_capacity(2 * calls.len());
        for (i, c) in calls.iter().enumerate() {
            let op = i as u32;
            entries.push(Entry {
                op,
                ret: false,
                time: c.invoke,
            });
            entries.push(Entry {
                op,
                ret: true,
                time: c.complete.unwrap_or(i64::MAX),
            });
        }
        // A call before a return at the same position; ops in rank order.
        entries.sort_by_key(|e| (e.time, e.ret, e.op));
        let n = entries.len() as u32;
        let (mut call, mut ret) = (vec![0; calls.len()], vec![0; calls.len()]);
        for (at, e) in entries.iter().enumerate() {
            match e.ret {
                true => ret[e.op as usize] = at as u32,
                false => call[e.op as usize] = at as u32,
            }
        }
        // Sentinels: head is n, tail n + 1.
        let (mut next, mut prev) = (vec![NONE; n as usize + 2], vec![NONE; n as usize + 2]);
        let chain: Vec<u32> = std::iter::once(n).chain(0..n).chain([n + 1]).collect();
        for w in chain.windows(2) {
            next[w[0] as usize] = w[1];
            prev[w[1] as usize] = w[0];
        }
        List {
            entries,
            next,
            prev,
            call,
            ret,
        }
    }

    fn head(&self) -> u32 {
        self.entries.len() as u32
    }

    fn unlink(&mut self, e: u32) {
        let (p, n) = (self.prev[e as usize], self.next[e as usize]);
        self.next[p as usize] = n;
        self.prev[n as usize] = p;
    }

    fn relink(&mut self, e: u32) {
        let (p, n) = (self.prev[e as usize], self.next[e as usize]);
        self.next[p as usize] = e;
        self.prev[n as usize] = e;
    }

    fn lift(&mut self, op: u32) {
        self.unlink(self.call[op as usize]);
        self.unlink(self.ret[op as usize]);
    }

    fn unlift(&mut self, op: u32) {
        self.relink(self.ret[op as usize]);
        self.relink(self.call[op as usize]);
    }
}

/// The linearized set in canonical form (see the module docs). Ops are
/// ranks: positions in invocation order.
struct Canon {
    /// One past the last linearized rank.
    h: u32,
    /// Required ranks below `h` not linearized.
    open: BTreeSet<u32>,
    /// Optional ranks below `h` not linearized, counted by kind.
    optional: BTreeMap<u32, u32>,
    /// Kind of each rank, `None` for a required op.
    kinds: Vec<Option<u32>>,
}

impl Canon {
    fn open(&mut self, op: u32) {
        match self.kinds[op as usize] {
            None => {
                self.open.insert(op);
            }
            Some(k) => *self.optional.entry(k).or_default() += 1,
        }
    }

    fn close(&mut self, op: u32) {
        match self.kinds[op as usize] {
            None => {
                self.open.remove(&op);
            }
            Some(k) => {
                if let Some(c) = self.optional.get_mut(&k) {
                    *c -= 1;
                    if *c == 0 {
                        self.optional.remove(&k);
                    }
                }
            }
        }
    }

    /// Linearizes `op`; returns what [`Canon::undo`] needs.
    fn apply(&mut self, op: u32) -> u32 {
        let old = self.h;
        if op >= self.h {
            for j in self.h..op {
                self.open(j);
            }
            self.h = op + 1;
        } else {
            self.close(op);
        }
        old
    }

    fn undo(&mut self, op: u32, old: u32) {
        if op >= old {
            for j in old..op {
                self.close(j);
            }
            self.h = old;
        } else {
            self.open(op);
        }
    }

    /// The memo key of this set with `state`; returns the length of its
    /// first part (state, `h`, the open required ops), after which come
    /// the open optional ops as (kind, count) pairs, sorted by kind.
    fn key(&self, state: u32, out: &mut Vec<u32>) -> usize {
        out.clear();
        out.extend([state, self.h, self.open.len() as u32]);
        out.extend(self.open.iter().copied());
        let base = out.len();
        for (&k, &c) in &self.optional {
            out.extend([k, c]);
        }
        base
    }
}

/// Whether the open optional ops `more` include `fewer` (both (kind, count)
/// pairs sorted by kind).
fn covers(more: &[u32], fewer: &[u32]) -> bool {
    let mut m = more.chunks_exact(2).peekable();
    fewer.chunks_exact(2).all(|f| {
        while m.peek().is_some_and(|x| x[0] < f[0]) {
            m.next();
        }
        m.peek().is_some_and(|x| x[0] == f[0] && x[1] >= f[1])
    })
}

/// The longest linearizable prefix seen at the latest completion the search
/// could not get past; copies of the stack are amortised by remembering how
/// much of it the last copy still shares.
struct Frontier {
    time: i64,
    op: u32,
    prefix: Vec<u32>,
    /// Whether `prefix` is a real prefix: in the relaxation, one that uses
    /// no optional op twice (no prefix is when none such was met).
    genuine: bool,
    /// Length of the stack's prefix equal to `prefix`'s.
    shared: usize,
    states: BTreeSet<u32>,
}

impl Frontier {
    fn popped(&mut self, depth: usize) {
        self.shared = self.shared.min(depth);
    }

    /// The search met `op`'s completion at `time` with `stack` linearized
    /// (`genuine` when it uses no optional op twice).
    fn blocked(&mut self, time: i64, op: u32, stack: &[Frame], state: u32, genuine: bool) {
        if time < self.time {
            return;
        }
        let newer = time > self.time;
        if newer {
            self.time = time;
            self.op = op;
            self.states.clear();
            self.genuine = false;
        }
        self.states.insert(state);
        let longer = stack.len() > self.prefix.len();
        if genuine && (newer || !self.genuine || longer) {
            self.prefix.truncate(self.shared);
            self.prefix
                .extend(stack[self.shared..].iter().map(|f| f.op));
            self.shared = stack.len();
            self.genuine = true;
        }
    }
}

/// One linearized op: what undoing it restores.
struct Frame {
    op: u32,
    state: u32,
    h: u32,
    /// Linearized as the only choice at its node (a pure op, see [`Search::pure_call`]).
    forced: bool,
    /// The candidates of the node it was chosen at: `cands[base..end]`,
    /// the next to try at `next`.
    base: u32,
    end: u32,
    next: u32,
}

/// What entering a node found.
enum Node {
    /// Only optional ops are left: a linearization.
    Done,
    /// Candidates to try.
    Open,
    /// A pure op led to a set already explored.
    Dead,
}

/// The search's position: the stack of linearized ops, the candidates of
/// the nodes on it, and the memo.
struct Search<'a, F> {
    calls: &'a [Call],
    step: F,
    /// The relaxation: optional ops are never used up (see the module docs).
    relaxed: bool,
    /// How often each op is on the stack (optional ops of the relaxation
    /// more than once), and how many are on it more than once.
    uses: Vec<u32>,
    repeats: usize,
    list: List,
    canon: Canon,
    /// Memo sets are hashed with `FxHasher`: SipHash took a fifth of the
    /// search's time on 50 open ops.
    seen: HashSet<Box<[u32]>, BuildHasherDefault<FxHasher>>,
    /// Sets that failed, by their first part: the open optional ops of each.
    /// A set with the same first part and no more optional ops open fails
    /// too (whatever it could do, the failed one could), so it is pruned.
    failed: FxMap<Box<[u32]>, Vec<Box<[u32]>>>,
    key: Vec<u32>,
    stack: Vec<Frame>,
    frontier: Frontier,
    state: u32,
    /// Candidates of every node on the stack, then the current node's.
    cands: Vec<u32>,
    base: u32,
    next: u32,
}

impl<F: Fn(u32, u32) -> Option<u32>> Search<'_, F> {
    /// Whether linearizing `op` uses it up: always, except an optional op
    /// in the relaxation.
    fn used_up(&self, op: u32) -> bool {
        !self.relaxed || self.calls[op as usize].complete.is_some()
    }

    /// The entries callable now: calls before the first return left.
    fn window(&self) -> impl Iterator<Item = Entry> + '_ {
        let mut cur = self.list.next[self.list.head() as usize];
        std::iter::from_fn(move || {
            let e = *self.list.entries.get(cur as usize)?;
            cur = self.list.next[cur as usize];
            (!e.ret).then_some(e)
        })
    }

    /// The first return left, if a required op's (none: only optional ops
    /// are left).
    fn blocking(&self) -> Option<Entry> {
        let mut cur = self.list.next[self.list.head() as usize];
        while let Some(&e) = self.list.entries.get(cur as usize) {
            if e.ret {
                return (e.time != i64::MAX).then_some(e);
            }
            cur = self.list.next[cur as usize];
        }
        None
    }

    /// A required pure op callable now whose step holds. Linearizing it
    /// first loses nothing: it changes no state wherever it is placed, and
    /// no op still open completed before it was invoked, so any
    /// linearization of the rest can have it moved to the front.
    fn pure_call(&self) -> Option<u32> {
        self.window().map(|e| e.op).find(|&op| {
            let c = &self.calls[op as usize];
            c.pure && c.complete.is_some() && (self.step)(self.state, op) == Some(self.state)
        })
    }

    /// Linearizes `op` if its (set, state) is new and no failed set
    /// covers it; whether it did.
    fn try_linearize(&mut self, op: u32, next: u32, forced: bool) -> bool {
        let used_up = self.used_up(op);
        let h = match used_up {
            true => self.canon.apply(op),
            false => self.canon.h,
        };
        let base = self.canon.key(next, &mut self.key);
        if self.seen.contains(self.key.as_slice()) || self.covered(base) {
            if used_up {
                self.canon.undo(op, h);
            }
            return false;
        }
        self.seen.insert(self.key.as_slice().into());
        self.stack.push(Frame {
            op,
            state: self.state,
            h,
            forced,
            base: self.base,
            end: self.cands.len() as u32,
            next: self.next,
        });
        if used_up {
            self.list.lift(op);
        }
        self.count_use(op, 1);
        self.state = next;
        self.base = self.cands.len() as u32;
        self.next = self.base;
        true
    }

    /// Counts `op` onto (`1`) or off (`-1`) the stack.
    fn count_use(&mut self, op: u32, by: i32) {
        let uses = &mut self.uses[op as usize];
        let before = *uses > 1;
        *uses = uses.wrapping_add_signed(by);
        match (before, *uses > 1) {
            (false, true) => self.repeats += 1,
            (true, false) => self.repeats -= 1,
            _ => {}
        }
    }

    /// Whether a failed set with the key's first part had at least its
    /// optional ops open (the most recent [`COVER_CHECKS`] of them looked at).
    fn covered(&self, base: usize) -> bool {
        let (first, optional) = self.key.split_at(base);
        self.failed.get(first).is_some_and(|sets| {
            sets.iter()
                .rev()
                .take(COVER_CHECKS)
                .any(|more| covers(more, optional))
        })
    }

    /// Records the current set as failed.
    fn fail(&mut self) {
        let base = self.canon.key(self.state, &mut self.key);
        let (first, optional) = self.key.split_at(base);
        if optional.is_empty() {
            return; // the exact memo has it
        }
        match self.failed.get_mut(first) {
            // Kept an antichain: a set covered by another says nothing more.
            Some(sets) if sets.iter().any(|more| covers(more, optional)) => {}
            Some(sets) => {
                sets.retain(|fewer| !covers(optional, fewer));
                sets.push(optional.into());
            }
            None => {
                self.failed.insert(first.into(), vec![optional.into()]);
            }
        }
    }

    /// Enters the node just reached: linearizes the pure ops that can go
    /// first, then lists the candidates. Of ops of one kind (equal effects)
    /// callable now only the one completing first is a candidate: any
    /// linearization placing another here can swap the two.
    fn enter(&mut self) -> Node {
        while let Some(op) = self.pure_call() {
            if !self.try_linearize(op, self.state, true) {
                return Node::Dead;
            }
        }
        if self.blocking().is_none() {
            // Only optional ops are left: they need not take effect.
            return Node::Done;
        }
        let base = self.base as usize;
        let window: Vec<Entry> = self.window().collect();
        for e in window {
            if (self.step)(self.state, e.op).is_none() {
                continue;
            }
            let c = &self.calls[e.op as usize];
            let done = c.complete.unwrap_or(i64::MAX);
            let same = self.cands[base..]
                .iter()
                .position(|&o| self.calls[o as usize].kind == c.kind);
            match same {
                None => self.cands.push(e.op),
                Some(j)
                    if done
                        < self.calls[self.cands[base + j] as usize]
                            .complete
                            .unwrap_or(i64::MAX) =>
                {
                    self.cands[base + j] = e.op;
                }
                Some(_) => {}
            }
        }
        // Required ops first: sets that keep optional ops open come first,
        // and cover those that used them.
        let calls = self.calls;
        self.cands[base..].sort_by_key(|&o| calls[o as usize].complete.is_none());
        Node::Open
    }

    /// Undoes linearized ops up to the last node with a choice left;
    /// false when there is none.
    fn backtrack(&mut self) -> bool {
        while let Some(f) = self.stack.pop() {
            self.fail();
            self.frontier.popped(self.stack.len());
            self.count_use(f.op, -1);
            if self.used_up(f.op) {
                self.canon.undo(f.op, f.h);
                self.list.unlift(f.op);
            }
            self.state = f.state;
            self.cands.truncate(f.end as usize);
            self.base = f.base;
            self.next = f.next;
            if !f.forced {
                return true;
            }
        }
        false
    }
}

/// Searches for a linearization of `calls` from `init`; `step(state, op)`
/// is the sequential specification (`None`: `op` cannot take effect in
/// `state`). The relaxation first, then, where it does not decide, the
/// exact search (see the module docs). Polls the limits.
pub fn search(
    calls: &[Call],
    init: u32,
    step: impl Fn(u32, usize) -> Option<u32>,
) -> Result<(), Counterexample> {
    let ids: Vec<usize> = (0..calls.len()).collect();
    solve(calls, &ids, init, &step).map(|_| ())
}

/// A linearization of `calls` (positions in it, in order) or a
/// counterexample; `calls[i]` is op `ids[i]` of `step`.
fn solve<S: Fn(u32, usize) -> Option<u32>>(
    calls: &[Call],
    ids: &[usize],
    init: u32,
    step: &S,
) -> Result<Vec<usize>, Counterexample> {
    let exact = || run(calls, ids, init, step, false).map_err(|(c, _)| c);
    if calls.iter().all(|c| c.complete.is_some()) {
        // Nothing optional: the relaxation is the exact search.
        return exact();
    }
    match run(calls, ids, init, step, true) {
        Ok(order) => match realize(calls, &order) {
            Some(order) => Ok(order),
            // It needs a crashed op twice: the exact search says whether
            // another linearization does not.
            None => exact(),
        },
        Err((c, true)) => Err(c),
        Err((c, false)) => Err(real_prefix(calls, ids, init, step, c)),
    }
}

/// The relaxation has no linearization, so neither has the history, and no
/// prefix passes `c.op`; but each prefix that reached it used a crashed op
/// twice. A real one is a linearization of the ops invoked before `c.op`
/// completed, without it, those completing later made optional; when there
/// is none the violation comes earlier, and that is the counterexample.
fn real_prefix<S: Fn(u32, usize) -> Option<u32>>(
    calls: &[Call],
    ids: &[usize],
    init: u32,
    step: &S,
    c: Counterexample,
) -> Counterexample {
    let end = calls[c.op].complete.unwrap_or(i64::MAX);
    let keep: Vec<usize> = (0..calls.len())
        .filter(|&i| i != c.op && calls[i].invoke < end)
        .collect();
    let sub: Vec<Call> = keep
        .iter()
        .map(|&i| Call {
            complete: calls[i].complete.filter(|&t| t < end),
            ..calls[i]
        })
        .collect();
    let sub_ids: Vec<usize> = keep.iter().map(|&i| ids[i]).collect();
    let local = |c: Counterexample| Counterexample {
        prefix: c.prefix.iter().map(|&i| keep[i]).collect(),
        op: keep[c.op],
        states: c.states,
    };
    match solve(&sub, &sub_ids, init, step) {
        Ok(order) => Counterexample {
            prefix: order.iter().map(|&i| keep[i]).collect(),
            ..c
        },
        Err(earlier) => local(earlier),
    }
}

/// The relaxation's linearization `order` as a real one: each use of an
/// optional op after the first taken by the earliest invoked op of its kind
/// not yet used (the relaxation keeps one op of each kind, the earliest),
/// if there are enough and the result respects real time.
fn realize(calls: &[Call], order: &[usize]) -> Option<Vec<usize>> {
    let mut optional: Vec<usize> = (0..calls.len())
        .filter(|&i| calls[i].complete.is_none())
        .collect();
    optional.sort_by_key(|&i| calls[i].invoke);
    let mut spare: HashMap<u32, std::collections::VecDeque<usize>> = HashMap::new();
    for i in optional {
        spare.entry(calls[i].kind).or_default().push_back(i);
    }
    let real = order
        .iter()
        .map(|&i| match calls[i].complete {
            Some(_) => Some(i),
            None => spare.get_mut(&calls[i].kind)?.pop_front(),
        })
        .collect::<Option<Vec<usize>>>()?;
    // No op may complete before an op placed ahead of it was invoked.
    let mut first_completion = i64::MAX;
    for &i in real.iter().rev() {
        if first_completion < calls[i].invoke {
            return None;
        }
        first_completion = first_completion.min(calls[i].complete.unwrap_or(i64::MAX));
    }
    Some(real)
}

/// One search, exact or the relaxation: a linearization (positions in
/// `calls`, in order; in the relaxation an optional op may come more than
/// once) or a counterexample with whether its prefix is genuine (always,
/// in the exact search).
fn run(
    calls: &[Call],
    ids: &[usize],
    init: u32,
    step: &impl Fn(u32, usize) -> Option<u32>,
    relaxed: bool,
) -> Result<Vec<usize>, (Counterexample, bool)> {
    // Ranks: invocation order, ties by position in `calls`.
    let mut order: Vec<usize> = (0..calls.len()).collect();
    order.sort_by_key(|&i| calls[i].invoke);
    let ranked: Vec<Call> = order.iter().map(|&i| calls[i]).collect();
    let canon = Canon {
        h: 0,
        open: BTreeSet::new(),
        optional: BTreeMap::new(),
        kinds: ranked
            .iter()
            .map(|c| c.complete.is_none().then_some(c.kind))
            .collect(),
    };
    let mut s = Search {
        calls: &ranked,
        step: |state, op: u32| step(state, ids[order[op as usize]]),
        relaxed,
        uses: vec![0; ranked.len()],
        repeats: 0,
        list: List::new(&ranked),
        canon,
        seen: HashSet::default(),
        failed: FxMap::default(),
        key: Vec::new(),
        stack: Vec::new(),
        frontier: Frontier {
            time: i64::MIN,
            op: 0,
            prefix: Vec::new(),
            genuine: false,
            shared: 0,
            states: BTreeSet::new(),
        },
        state: init,
        cands: Vec::new(),
        base: 0,
        next: 0,
    };
    if relaxed {
        // Optional ops of one kind are interchangeable and, in the
        // relaxation, never used up: the earliest invoked stands for all.
        let mut kinds = HashSet::new();
        for (r, c) in ranked.iter().enumerate() {
            if c.complete.is_none() && !kinds.insert(c.kind) {
                s.list.lift(r as u32);
            }
        }
    }
    let mut node = s.enter();
    loop {
        limits::tick();
        match node {
            Node::Done => return Ok(s.stack.iter().map(|f| order[f.op as usize]).collect()),
            Node::Open if (s.next as usize) < s.cands.len() => {
                let op = s.cands[s.next as usize];
                s.next += 1;
                if let Some(next) = (s.step)(s.state, op) {
                    if s.try_linearize(op, next, false) {
                        node = s.enter();
                    }
                }
                continue;
            }
            Node::Open => {
                // Every candidate failed: the required op completing first
                // cannot be linearized after this prefix.
                if let Some(e) = s.blocking() {
                    let genuine = s.repeats == 0;
                    s.frontier.blocked(e.time, e.op, &s.stack, s.state, genuine);
                }
            }
            Node::Dead => {}
        }
        if !s.backtrack() {
            break;
        }
        node = Node::Open;
    }
    let f = s.frontier;
    let c = Counterexample {
        prefix: f.prefix.iter().map(|&r| order[r as usize]).collect(),
        op: order[f.op as usize],
        states: f.states.into_iter().collect(),
    };
    Err((c, f.genuine || !relaxed))
}

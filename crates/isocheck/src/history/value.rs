//! Keys and values of micro-ops: opaque EDN values compared by equality.
//!
//! A [`Val`] is four bytes. Non-negative integers below 2^31 — nearly every key
//! and value Jepsen generates — are stored inline and cost no lookup; anything
//! else (negative or big integers, keywords, strings, collections) is interned
//! in a [`ValueTable`] by its canonical EDN text, so that values Clojure's `=`
//! considers equal (`1` and `1N`, `10M` and `1E1M`, `0.0` and `-0.0`, two
//! spellings of one `#inst`, `[1 2]` and `(1 2)`, maps in any key order) get
//! the same `Val`, and values it tells apart (`1`, `1.0`, `1M`) do not. This
//! is the one place keys, values, list elements and the checkers' elements
//! and accounts get their identity; `##NaN`, equal to nothing, is refused.

use crate::history::edn::{Kind, Node, Problem, SyntaxError};
use std::collections::HashMap;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::num::NonZeroU32;

/// An interned EDN value. See the module docs for the encoding.
///
/// The number ([`Val::raw`]) is stored complemented: no value is
/// `u32::MAX`, so its complement 0 is a niche, and an `Option<Val>` (or an
/// `graph::Version`, of which there are millions) is four bytes too.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Val(NonZeroU32);

const INTERNED: u32 = 1 << 31;

impl Val {
    /// `nil`: the initial version of a register, the empty list of a list-append key.
    pub const NIL: Val = Val::from_raw(INTERNED);

    /// The inline form of a small non-negative integer, if it has one.
    #[inline]
    pub fn small_int(n: u64) -> Option<Val> {
        (n < INTERNED as u64).then(|| Val::from_raw(n as u32))
    }

    /// The integer this value holds inline, if any.
    #[inline]
    pub fn as_small_int(self) -> Option<u32> {
        let raw = self.raw();
        (raw & INTERNED == 0).then_some(raw)
    }

    /// Whether this is `nil`.
    pub fn is_nil(self) -> bool {
        self == Val::NIL
    }

    /// A dense number for this value, usable as an index by callers that keep
    /// per-value tables. Never `u32::MAX`.
    #[inline]
    pub const fn raw(self) -> u32 {
        !self.0.get()
    }

    /// The value of a number [`Val::raw`] gave.
    #[inline]
    pub(crate) const fn from_raw(raw: u32) -> Val {
        match NonZeroU32::new(!raw) {
            Some(bits) => Val(bits),
            None => panic!("u32::MAX is no value's number"),
        }
    }
}

impl Hash for Val {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.raw().hash(state);
    }
}

impl PartialOrd for Val {
    fn partial_cmp(&self, other: &Val) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// By number: small integers in their order, then interned values in the
/// order they were first read.
impl Ord for Val {
    fn cmp(&self, other: &Val) -> std::cmp::Ordering {
        self.raw().cmp(&other.raw())
    }
}

impl fmt::Debug for Val {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.as_small_int() {
            Some(n) => write!(f, "{n}"),
            None => write!(f, "#{}", self.raw() & !INTERNED),
        }
    }
}

/// The interning table behind every [`Val`] that is not a small integer.
#[derive(Debug, Clone)]
pub struct ValueTable {
    canon: Vec<Box<str>>,
    index: HashMap<Box<str>, u32>,
    /// How many values it holds at most: [`MAX_INTERNED`] but in tests.
    limit: u32,
    /// A value was refused for want of numbers (see [`ValueTable::overflowed`]).
    overflowed: bool,
}

/// The most values a table interns: their numbers are below 2^31, and the
/// last one, `u32::MAX` once stored, is no value's.
const MAX_INTERNED: u32 = INTERNED - 1;

impl Default for ValueTable {
    fn default() -> Self {
        let mut t = ValueTable {
            canon: Vec::new(),
            index: HashMap::new(),
            limit: MAX_INTERNED,
            overflowed: false,
        };
        let nil = t.intern_canonical("nil");
        debug_assert_eq!(nil, Val::NIL);
        t
    }
}

impl ValueTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Interns a value given by its canonical EDN text (see
    /// [`crate::history::edn::Node::canonical`]). Integers must be given through
    /// [`ValueTable::int`] so that small ones stay inline.
    pub fn intern_canonical(&mut self, canon: &str) -> Val {
        if let Some(&i) = self.index.get(canon) {
            return Val::from_raw(i | INTERNED);
        }
        // Below the limit, so within `u32` and never `u32::MAX`.
        let i = self.canon.len() as u32;
        if i >= self.limit {
            // Out of numbers (a history of more than 2^31 - 1 distinct
            // values, over 100 GB of them): the value gets a stand-in, and
            // `history::build` refuses the history before anything is
            // decided on values.
            self.overflowed = true;
            return Val::NIL;
        }
        let boxed: Box<str> = canon.into();
        self.canon.push(boxed.clone());
        self.index.insert(boxed, i);
        Val::from_raw(i | INTERNED)
    }

    /// The value of this canonical EDN text, if interned (integers apart,
    /// which [`ValueTable::int`] keeps inline).
    pub fn lookup(&self, canon: &str) -> Option<Val> {
        self.index.get(canon).map(|&i| Val::from_raw(i | INTERNED))
    }

    /// Interns every value of `other`, in its order: how `other`'s values
    /// are numbered here. Interned in that order, the values new here get
    /// the numbers they would have had had `other`'s text been read after
    /// this table's.
    pub fn absorb(&mut self, other: &ValueTable) -> Renumbering {
        let numbers = other
            .canon
            .iter()
            .map(|c| self.intern_canonical(c))
            .collect();
        self.overflowed |= other.overflowed;
        Renumbering(numbers)
    }

    /// Whether a value was refused because the table was full: every value
    /// interned since then stands for `nil`, and the history must be
    /// refused.
    pub fn overflowed(&self) -> bool {
        self.overflowed
    }

    /// Every interned value's canonical text, in number order.
    #[cfg(test)]
    pub(crate) fn canonical_texts(&self) -> &[Box<str>] {
        &self.canon
    }

    /// Holds at most `limit` values from now on, to reach the limit in tests.
    #[cfg(test)]
    pub(crate) fn limit_to(&mut self, limit: u32) {
        self.limit = limit;
    }

    /// The value of a 64-bit integer.
    pub fn int(&mut self, n: i64) -> Val {
        match u64::try_from(n).ok().and_then(Val::small_int) {
            Some(v) => v,
            None => self.intern_canonical(&n.to_string()),
        }
    }

    /// The value of an unsigned 64-bit integer (binary formats use these).
    #[inline]
    pub fn uint(&mut self, n: u64) -> Val {
        match Val::small_int(n) {
            Some(v) => v,
            None => self.big_uint(n),
        }
    }

    #[cold]
    fn big_uint(&mut self, n: u64) -> Val {
        self.intern_canonical(&n.to_string())
    }

    /// The value of an EDN node read by the generic reader; an error (in
    /// the node's coordinates) when it holds a `##NaN`, which Clojure's `=`
    /// equates with nothing, itself included ([`Node::nan`]).
    pub fn node(&mut self, n: &Node<'_>) -> Result<Val, SyntaxError> {
        if let Some(span) = n.nan() {
            let problem = Problem::NotComparable("##NaN".into());
            return Err(SyntaxError { span, problem });
        }
        Ok(match (&n.kind, n.integer()) {
            (Kind::Nil, _) => Val::NIL,
            (_, Some(Some(i))) => self.int(i),
            _ => self.intern_canonical(&n.canonical()),
        })
    }

    /// The value of a sequence of values: what a list read becomes when the
    /// workload treats it as an opaque register value.
    pub fn list(&mut self, items: &[Val]) -> Val {
        let mut s = String::from("[");
        for (i, v) in items.iter().enumerate() {
            if i > 0 {
                s.push(' ');
            }
            self.write_canonical(*v, &mut s);
        }
        s.push(']');
        self.intern_canonical(&s)
    }

    /// Appends the canonical EDN text of `v` to `out`.
    pub fn write_canonical(&self, v: Val, out: &mut String) {
        use std::fmt::Write;
        match v.as_small_int() {
            Some(n) => {
                let _ = write!(out, "{n}");
            }
            None => out.push_str(&self.canon[(v.raw() & !INTERNED) as usize]),
        }
    }

    /// [`ValueTable::display`] borrowed from the table when `v` is interned,
    /// so that a report can show the start of a long value without copying
    /// all of it.
    pub fn text(&self, v: Val) -> std::borrow::Cow<'_, str> {
        match v.as_small_int() {
            Some(n) => n.to_string().into(),
            None => self.canon[(v.raw() & !INTERNED) as usize].as_ref().into(),
        }
    }

    /// The canonical EDN text of `v`, e.g. `3`, `:x`, `"s"`, `[:anti 5]`.
    pub fn display(&self, v: Val) -> String {
        let mut s = String::new();
        self.write_canonical(v, &mut s);
        s
    }

    /// How many values are interned (not counting inline integers).
    pub fn len(&self) -> usize {
        self.canon.len()
    }

    /// Whether no value has been interned.
    pub fn is_empty(&self) -> bool {
        self.canon.is_empty()
    }

    /// Where the table is: what [`ValueTable::rewind`] goes back to.
    pub(crate) fn mark(&self) -> (usize, bool) {
        (self.canon.len(), self.overflowed)
    }

    /// Forgets the values interned since `mark`: those of a form read too
    /// early (a stream's buffer ended inside it), read again later.
    pub(crate) fn rewind(&mut self, mark: (usize, bool)) {
        let (len, overflowed) = mark;
        for canon in self.canon.drain(len.min(self.canon.len())..) {
            self.index.remove(&canon);
        }
        self.overflowed = overflowed;
    }
}

/// Another table's values as numbered in this one ([`ValueTable::absorb`]).
pub struct Renumbering(Vec<Val>);

impl Renumbering {
    /// `v` of the other table, in this one (small integers are the same).
    #[inline]
    pub fn apply(&self, v: Val) -> Val {
        match v.as_small_int() {
            Some(_) => v,
            None => self
                .0
                .get((v.raw() & !INTERNED) as usize)
                .copied()
                .unwrap_or(Val::NIL),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_ints_are_inline_and_others_interned() {
        let mut t = ValueTable::new();
        assert_eq!(t.int(5).as_small_int(), Some(5));
        assert_eq!(t.int(-5), t.intern_canonical("-5"));
        assert_eq!(t.int(i64::MAX), t.uint(i64::MAX as u64));
        assert_ne!(t.int(-5), t.int(5));
        let m5 = t.int(-5);
        assert_eq!(t.display(m5), "-5");
        assert_eq!(t.display(Val::NIL), "nil");
    }

    #[test]
    fn list_values_are_canonical() {
        let mut t = ValueTable::new();
        let x = t.intern_canonical(":x");
        let l = t.list(&[Val::small_int(1).unwrap(), x]);
        assert_eq!(t.display(l), "[1 :x]");
        assert_eq!(l, t.intern_canonical("[1 :x]"));
    }

    #[test]
    fn a_full_table_refuses_new_values_and_says_so() {
        // `nil` is the first value.
        let mut t = ValueTable::new();
        t.limit_to(3);
        let (x, y) = (t.intern_canonical(":x"), t.intern_canonical(":y"));
        assert!(!t.overflowed());
        assert_eq!(t.intern_canonical(":z"), Val::NIL);
        assert!(t.overflowed());
        assert_eq!((t.intern_canonical(":x"), t.intern_canonical(":y")), (x, y));
        assert_eq!(t.len(), 3);
    }

    #[test]
    fn values_order_by_number_and_leave_a_niche() {
        let mut t = ValueTable::new();
        let (one, two, x) = (t.int(1), t.int(2), t.intern_canonical(":x"));
        assert!(one < two && two < Val::NIL && Val::NIL < x);
        assert_eq!(Val::from_raw(x.raw()), x);
        assert_eq!(std::mem::size_of::<Option<Val>>(), 4);
    }
}

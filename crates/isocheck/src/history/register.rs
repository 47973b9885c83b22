//! Register ops: Jepsen's (and Knossos's) `:read`, `:write` and `:cas` on one
//! register, or on many keys with `jepsen.independent` `[key value]` tuples;
//! and Knossos's mutex ops, `:acquire` and `:release`, each held as a
//! compare-and-set between the interned states `:free` and `:held`.
//! Reading only: each invocation/completion pair becomes a [`RegisterOp`]
//! with its key and values; what they mean is `registers`'s business.
//!
//! The form is decided once per history: it is independent when every
//! non-nil value of every register op is a two-element vector (or list) and
//! every `:cas` value is `[key [old new]]`; otherwise every value is one
//! register's (`:cas` `[old new]`).

use super::edn::{self, Kind, Node, SyntaxError};
use super::error::{ErrorKind, HistoryError};
use super::formats::json;
use super::jepsen::Ops;
use super::model::{OpId, OpType, OpValue, RegisterF, RegisterOp, Status, Workload};
use super::value::{Val, ValueTable};

/// An invocation and its completion, either possibly absent.
pub(super) type Pair = (Option<OpId>, Option<OpId>);

/// The interned `:f` keywords of register and mutex ops.
struct Fs([Val; 5]);

impl Fs {
    fn new(values: &mut ValueTable) -> Fs {
        let names = [":read", ":write", ":cas", ":acquire", ":release"];
        Fs(names.map(|k| values.intern_canonical(k)))
    }

    fn of(&self, f: Val) -> Option<RegisterF> {
        const FS: [RegisterF; 5] = [
            RegisterF::Read,
            RegisterF::Write,
            RegisterF::Cas,
            RegisterF::Acquire,
            RegisterF::Release,
        ];
        self.0.iter().position(|&x| x == f).map(|i| FS[i])
    }
}

/// The register or mutex op `f` names, by the stream's `values` (which
/// need not hold the names yet).
pub(crate) fn register_f(values: &ValueTable, f: Val) -> Option<RegisterF> {
    const NAMED: [(RegisterF, &str); 5] = [
        (RegisterF::Read, ":read"),
        (RegisterF::Write, ":write"),
        (RegisterF::Cas, ":cas"),
        (RegisterF::Acquire, ":acquire"),
        (RegisterF::Release, ":release"),
    ];
    (NAMED.iter()).find_map(|&(r, k)| (values.lookup(k) == Some(f)).then_some(r))
}

/// The workload whose ops include `f`.
fn workload_of(f: RegisterF) -> Workload {
    match f {
        RegisterF::Acquire | RegisterF::Release => Workload::Mutex,
        _ => Workload::CasRegister,
    }
}

/// The mutex's two states, interned: (free, held).
pub(crate) fn mutex_states(values: &mut ValueTable) -> (Val, Val) {
    (
        values.intern_canonical(":free"),
        values.intern_canonical(":held"),
    )
}

/// The `:f` of a pair: the completion's, else the invocation's.
fn f_of(ops: &Ops, fs: &Fs, (inv, comp): Pair) -> Option<RegisterF> {
    let op = |id: OpId| &ops.ops[id as usize];
    comp.or(inv).and_then(|id| fs.of(op(id).f))
}

/// The workload of the client pairs (a history without transactions) when
/// they are register or mutex ops: every one a `:read`, `:write` or `:cas`,
/// at least one a write or cas (cas-register); or every one an `:acquire`
/// or `:release` (mutex).
pub(super) fn detect(ops: &mut Ops, pairs: &[Pair]) -> Option<Workload> {
    let fs = Fs::new(&mut ops.values);
    let (mut found, mut writes) = (None, false);
    for &p in pairs {
        let f = f_of(ops, &fs, p)?;
        let w = workload_of(f);
        if found.is_some_and(|x| x != w) {
            return None;
        }
        found = Some(w);
        writes |= f != RegisterF::Read;
    }
    found.filter(|_| writes)
}

/// The shape of an op's `:value`, its parts interned.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Shape {
    Nil,
    /// Not a two-element vector.
    Value(Val),
    /// `[x y]`, `y` not a two-element vector.
    Pair(Val, Val),
    /// `[x [a b]]`.
    Tuple(Val, Val, Val),
}

fn two<'n, 'a>(n: &'n Node<'a>) -> Option<[&'n Node<'a>; 2]> {
    match &n.untagged().kind {
        Kind::Vector(items) | Kind::List(items) if items.len() == 2 => Some([&items[0], &items[1]]),
        _ => None,
    }
}

/// The shape of an op's value, read from its text: EDN, or JSON when `json`.
fn shape(
    values: &mut ValueTable,
    text: &str,
    json: bool,
    value: OpValue,
) -> Result<Shape, HistoryError> {
    let OpValue::Other(span) = value else {
        return Ok(Shape::Nil);
    };
    // The value is read from its front: a clipped span would cut it short.
    value_shape(values, span.text_from(text), json).map_err(|e| e.shifted(span.start()).into())
}

/// The shape of a value's text (`slice`, from the value's first byte), read
/// as EDN, or JSON when `json`.
pub(crate) fn value_shape(
    values: &mut ValueTable,
    slice: &str,
    json: bool,
) -> Result<Shape, SyntaxError> {
    // Small integers, the common case, without the generic reader; not
    // `017`, which EDN reads as octal 15.
    let octal = slice.len() > 1 && slice.starts_with('0');
    if let Some(n) = slice.parse::<u64>().ok().filter(|_| !octal) {
        return Ok(Shape::Value(values.uint(n)));
    }
    match json {
        true => json::with_node(slice, json::Context::Value, |n| node_shape(values, n))
            .unwrap_or(Ok(Shape::Nil)),
        false => edn::read_first(slice).and_then(|node| node_shape(values, &node)),
    }
}

fn node_shape(values: &mut ValueTable, node: &Node<'_>) -> Result<Shape, SyntaxError> {
    Ok(match two(node) {
        None => Shape::Value(values.node(node)?),
        Some([x, y]) => {
            let x = values.node(x)?;
            match two(y) {
                Some([a, b]) => Shape::Tuple(x, values.node(a)?, values.node(b)?),
                None => Shape::Pair(x, values.node(y)?),
            }
        }
    })
}

/// Reads the ops of `pairs`, all of them ops of `workload` (cas-register or
/// mutex, see [`detect`]); returns them and whether the history is
/// independent.
pub(super) fn read(
    ops: &mut Ops,
    text: &str,
    pairs: &[Pair],
    workload: Workload,
) -> Result<(Vec<RegisterOp>, bool), HistoryError> {
    let fs = Fs::new(&mut ops.values);
    let (free, held) = mutex_states(&mut ops.values);
    // (f, shape of the value judged by, the other op's shape)
    let mut shapes = Vec::with_capacity(pairs.len());
    for &(inv, comp) in pairs {
        let f = f_of(ops, &fs, (inv, comp))
            .filter(|&f| workload_of(f) == workload)
            .ok_or_else(|| not_register(ops, inv, comp, workload))?;
        let mut get = |id: Option<OpId>| match id {
            Some(i) => shape(&mut ops.values, text, ops.json, ops.ops[i as usize].value),
            None => Ok(Shape::Nil),
        };
        let (si, sc) = (get(inv)?, get(comp)?);
        let judged = match sc {
            Shape::Nil => si,
            s => s,
        };
        shapes.push((f, judged, si));
    }
    let independent = shapes.iter().any(|(_, s, _)| !matches!(s, Shape::Nil))
        && shapes.iter().all(|&(f, s, i)| {
            let ok = |s: Shape| match (f, s) {
                (_, Shape::Nil) => true,
                (RegisterF::Cas, s) => matches!(s, Shape::Tuple(..)),
                (_, s) => matches!(s, Shape::Pair(..) | Shape::Tuple(..)),
            };
            ok(s) && ok(i)
        });
    let mut out = Vec::with_capacity(pairs.len());
    for (&(invoke, completion), &(f, s, si)) in pairs.iter().zip(&shapes) {
        let status = match completion.map(|c| ops.ops[c as usize].ty) {
            Some(OpType::Ok) => Status::Committed,
            Some(OpType::Fail) => Status::Aborted,
            _ => Status::Indeterminate,
        };
        let Some((key, value, new)) = key_values(
            &mut ops.values,
            independent,
            f,
            (s, si),
            status,
            (free, held),
        ) else {
            return Err(bad_value(ops, invoke, completion, f, independent));
        };
        out.push(RegisterOp {
            invoke,
            completion,
            key,
            value,
            new,
            f,
            status,
        });
    }
    Ok((out, independent))
}

/// An op's key, value and new value (see [`RegisterOp`]) from the shape of
/// its value (the completion's, else the invocation's) and its invocation's
/// shape, in the history's form (`independent`); `None` when the value does
/// not fit the form. `mutex`: the interned (free, held) states.
pub(crate) fn key_values(
    v: &mut ValueTable,
    independent: bool,
    f: RegisterF,
    (s, si): (Shape, Shape),
    status: Status,
    (free, held): (Val, Val),
) -> Option<(Val, Val, Val)> {
    let whole = |v: &mut ValueTable, s: Shape| match s {
        Shape::Nil => Val::NIL,
        Shape::Value(x) => x,
        Shape::Pair(x, y) => v.list(&[x, y]),
        Shape::Tuple(x, a, b) => {
            let ab = v.list(&[a, b]);
            v.list(&[x, ab])
        }
    };
    let (key, value, new) = match (independent, f, s) {
        (true, _, Shape::Nil) => {
            // An indeterminate or failed read without a value: its key
            // from the invocation, if it names one.
            let key = match si {
                Shape::Pair(k, _) | Shape::Tuple(k, ..) => k,
                _ => Val::NIL,
            };
            if status == Status::Committed || f != RegisterF::Read {
                return None;
            }
            (key, Val::NIL, Val::NIL)
        }
        (true, RegisterF::Cas, Shape::Tuple(k, a, b)) => (k, a, b),
        (true, _, Shape::Pair(k, x)) => (k, x, Val::NIL),
        (true, _, Shape::Tuple(k, a, b)) => (k, v.list(&[a, b]), Val::NIL),
        (false, RegisterF::Cas, Shape::Pair(a, b)) => (Val::NIL, a, b),
        (false, RegisterF::Cas, Shape::Tuple(a, x, y)) => (Val::NIL, a, v.list(&[x, y])),
        (false, RegisterF::Cas, _) => return None,
        (false, _, s) => (Val::NIL, whole(v, s), Val::NIL),
        (true, _, _) => return None,
    };
    Some(match f {
        RegisterF::Acquire => (key, free, held),
        RegisterF::Release => (key, held, free),
        _ => (key, value, new),
    })
}

fn not_register(
    ops: &Ops,
    inv: Option<OpId>,
    comp: Option<OpId>,
    workload: Workload,
) -> HistoryError {
    let id = comp.or(inv).unwrap_or(0);
    let (what, help) = match workload {
        Workload::Mutex => (
            "this op is not a mutex op",
            "a mutex history holds :acquire and :release ops only",
        ),
        _ => (
            "this op is not a register op",
            "a cas-register history holds :read, :write and :cas ops only",
        ),
    };
    HistoryError::new(ErrorKind::RegisterOp(what.into()), help)
        .at(ops.ops[id as usize].span, "this op")
}

fn bad_value(
    ops: &Ops,
    inv: Option<OpId>,
    comp: Option<OpId>,
    f: RegisterF,
    independent: bool,
) -> HistoryError {
    let id = comp.or(inv).unwrap_or(0);
    let expected = match (f, independent) {
        (RegisterF::Cas, false) => "[old new]",
        (RegisterF::Cas, true) => "[key [old new]]",
        (_, true) => "[key value]",
        (_, false) => "a value",
    };
    let form = if independent {
        "the history's values are jepsen.independent [key value] tuples"
    } else {
        "the history's values are one register's"
    };
    HistoryError::new(
        ErrorKind::RegisterOp(format!(
            "the value of a :{} op must be {expected}",
            f.name()
        )),
        format!("{form}, so a :{} op's value is {expected}", f.name()),
    )
    .at(ops.ops[id as usize].span, "this op")
}

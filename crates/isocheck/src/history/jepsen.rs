//! The typed reader of Jepsen `history.edn` files: op maps straight into the
//! model's arenas, without building a generic tree for the common parts.
//!
//! Accepted framings: one op map per top-level form (what `jepsen.store`
//! writes), or a single top-level vector or list of op maps. Maps may be
//! tagged (`#jepsen.history.Op{...}`), keys come in any order, unknown keys
//! are kept as extras. Transactions (`:value` a vector of `[f k v]` micro-ops
//! with `f` one of `:r`, `:append`, `:w`) are read by a fast path; any other
//! value goes through the generic reader (`edn::lex::Reader::value`).
//! `read_op` reads one op at a time for `jepsen/streaming.rs`.

use super::edn::lex::{is_delim, token, valid_symbol, without_bom, In, PResult, Reader};
use super::edn::{EdnError, Kind, Node, Problem, SyntaxError};
use super::error::{ErrorKind, HistoryError};
use super::model::{MicroOp, MopKind, MopValue, Op, OpType, OpValue, Process};
use super::span::Span;
use super::value::{Val, ValueTable};
use nom::Err;
use std::sync::atomic::{AtomicBool, Ordering};

/// The ops of a file and the arenas they point into.
#[derive(Debug, Default)]
pub struct Ops {
    /// Every op, in file order.
    pub ops: Vec<Op>,
    /// The micro-ops of the transactions, in file order.
    pub mops: Vec<crate::history::model::MicroOp>,
    /// The elements of read lists.
    pub elems: Vec<Val>,
    /// `(key span, value span)` of op keys beyond those Jepsen defines.
    pub extras: Vec<(Span, Span)>,
    /// The values, interned.
    pub values: ValueTable,
    /// True for formats that record no timing (dbcop, Cobra, PolySI text):
    /// positions in `ops` then say nothing about real time.
    pub untimed: bool,
    /// True for formats that log every committed transaction of the
    /// database (dbcop, Cobra, PolySI text): a read of a value no log holds
    /// then has no writer at all.
    pub complete_log: bool,
    /// The workload the input format implies, if it implies one.
    pub format_workload: Option<crate::history::model::Workload>,
    /// True for JSON histories: spans point into JSON text, which
    /// `formats::json` reads back as EDN values.
    pub json: bool,
    /// True when an op's text is not an op map (Chronos's transaction
    /// objects): reports rebuild it ([`History::rebuilt_ops`]).
    ///
    /// [`History::rebuilt_ops`]: crate::history::History::rebuilt_ops
    pub rebuilt_ops: bool,
    /// Each op's timestamps, for formats that carry them beside the ops
    /// (Chronos); empty for the others, whose ops carry them as extra keys.
    pub stamps: Vec<Option<crate::history::commit_order::Stamp>>,
}

impl Ops {
    /// Ops, micro-ops, read elements and extra keys: what
    /// [`crate::history::model::MAX_ITEMS`] bounds.
    pub fn items(&self) -> usize {
        self.ops.len() + self.mops.len() + self.elems.len() + self.extras.len()
    }
}

pub(super) mod split;
pub mod streaming;

/// Reads every op of a Jepsen EDN history: a large one on every core (see
/// `jepsen/split.rs`), with the same ops and errors as one thread reading it.
pub fn read_ops(text: &str) -> Result<Ops, HistoryError> {
    let threads = crate::limits::threads_for(text.len(), split::PARALLEL_FROM);
    split::read_ops(text, threads)
}

/// Reads every op on this thread.
fn read_sequential(text: &str) -> Result<Ops, HistoryError> {
    let mut r = OpReader::new(text, None, text.len());
    match r.top() {
        Ok(()) => Ok(r.out),
        Err(e) => Err(e.into_error(r.r.full)),
    }
}

/// The bracket that closes a history framed as one vector or list of ops,
/// when its first form (at `i`) opens one.
pub(super) fn vector_close(i: In<'_>) -> Option<u8> {
    match i.first() {
        Some(b'[') => Some(b']'),
        Some(b'(') => Some(b')'),
        _ => None,
    }
}

/// What is wrong with a vector of ops that is never closed (the error is
/// its opening bracket).
pub(super) const UNCLOSED_VECTOR: Problem = Problem::Eof("the closing bracket");

/// The error of a form after the vector of ops.
pub(super) fn after_vector(rest: In<'_>) -> Err<EdnError<'_>> {
    Err::Failure(EdnError::unexpected(
        rest,
        "nothing after the vector of ops",
    ))
}

/// One op map read from the front of a part of a history.
pub(super) struct OneOp {
    /// The op (its micro-ops, read lists and extra keys are in the arenas).
    pub op: Op,
    /// Where the op's form ends in the part.
    pub end: usize,
    /// Whether the op has `:index` (its position stands in for it otherwise).
    pub indexed: bool,
}

/// Reads the op at the front of `text` (a part of a history, its first
/// byte what the history's offset 0 is to the spans), at nesting `depth`
/// (1 inside a vector of ops), into `out`'s arenas, which it hands back:
/// what [`read_ops`] reads there, for a reader that holds one form at a
/// time (`jepsen/streaming.rs`).
pub(super) fn read_op(text: &str, depth: usize, out: Ops) -> (Ops, Result<OneOp, HistoryError>) {
    let mut r = OpReader::with(text, None, out);
    // At the end of `text` (the caller's mistake): no op.
    let none = || {
        ReadErr::Nom(Err::Failure(EdnError::new(
            &[],
            0,
            Problem::Eof("an op map"),
        )))
    };
    let read = match r.r.full {
        [] => Err(none()),
        i => r.op(i, depth).map(|rest| r.r.pos(rest)),
    };
    let read = match read.map(|end| (end, r.out.ops.pop())) {
        Ok((end, Some(op))) => Ok(OneOp {
            op,
            end,
            indexed: r.unindexed.is_empty(),
        }),
        // Never: an op read is an op pushed.
        Ok((_, None)) => Err(none().into_error(r.r.full)),
        Err(e) => Err(e.into_error(r.r.full)),
    };
    (r.out, read)
}

enum ReadErr<'a> {
    Nom(Err<EdnError<'a>>),
    Op(Box<HistoryError>),
}

impl ReadErr<'_> {
    /// The error, its spans offsets in `full` (the text read).
    fn into_error(self, full: &[u8]) -> HistoryError {
        match self {
            ReadErr::Nom(e) => SyntaxError::from_nom(full, e).into(),
            ReadErr::Op(e) => *e,
        }
    }
}

impl<'a> From<Err<EdnError<'a>>> for ReadErr<'a> {
    fn from(e: Err<EdnError<'a>>) -> Self {
        ReadErr::Nom(e)
    }
}

impl From<HistoryError> for ReadErr<'_> {
    fn from(e: HistoryError) -> Self {
        ReadErr::Op(Box::new(e))
    }
}

/// The keys of an op that the model reads itself.
#[derive(Clone, Copy)]
enum Field {
    Type,
    Process,
    Index,
    Time,
    F,
    Value,
}

/// The fields in the order of [`OP_KEYS`].
const FIELDS: [Field; 6] = [
    Field::Type,
    Field::Process,
    Field::Index,
    Field::Time,
    Field::F,
    Field::Value,
];

impl Field {
    fn bit(self) -> u8 {
        1 << self as u8
    }
}

struct OpReader<'a> {
    r: Reader<'a>,
    out: Ops,
    /// The last `:f` read and its value: nearly every op has the same one.
    last_f: (&'a [u8], Val),
    /// A helper thread's reader ([`split`]) stops when this is set, and
    /// leaves the limits' polls to the check's own thread; `None` for that
    /// thread's reader.
    stop: Option<&'a AtomicBool>,
    /// The ops without `:index`, by position in `out.ops`: their index is
    /// their position, which moves when a piece is appended to another.
    unindexed: Vec<usize>,
}

/// A non-negative integer of at most 18 digits followed by a delimiter:
/// the common case, read without the generic number parser.
#[inline]
fn fast_uint(i: In<'_>) -> Option<(In<'_>, u64)> {
    let mut n: u64 = 0;
    let mut k = 0;
    while k < i.len() && k < 19 && i[k].is_ascii_digit() {
        n = n * 10 + (i[k] - b'0') as u64;
        k += 1;
    }
    let ends = k == i.len() || is_delim(i[k]);
    (k > 0 && k < 19 && ends && (k == 1 || i[0] != b'0')).then(|| (&i[k..], n))
}

fn not_txn<'a, T>(i: In<'a>, what: &'static str) -> PResult<'a, T> {
    Err(Err::Error(EdnError::unexpected(i, what)))
}

impl<'a> OpReader<'a> {
    /// A reader of `text`, its arenas sized for `bytes` of it.
    fn new(text: &'a str, stop: Option<&'a AtomicBool>, bytes: usize) -> Self {
        let mut out = Ops::default();
        out.ops.reserve(bytes / 128);
        out.mops.reserve(bytes / 48);
        OpReader::with(text, stop, out)
    }

    /// A reader of `text` into `out`'s arenas and values.
    fn with(text: &'a str, stop: Option<&'a AtomicBool>, out: Ops) -> Self {
        OpReader {
            r: Reader::new(text),
            out,
            last_f: (&[], Val::NIL),
            stop,
            unindexed: Vec::new(),
        }
    }

    fn top(&mut self) -> Result<(), ReadErr<'a>> {
        let (i, ()) = self.r.skip_ws(without_bom(self.r.full), 0)?;
        let Some(close) = vector_close(i) else {
            return self.forms(i);
        };
        let open = i;
        let mut i = &i[1..];
        loop {
            (i, ()) = self.r.skip_ws(i, 1)?;
            match i.first() {
                None => Err(Err::Failure(EdnError::new(open, 1, UNCLOSED_VECTOR)))?,
                Some(&c) if c == close => break,
                Some(_) => i = self.op(i, 1)?,
            }
        }
        let (rest, ()) = self.r.skip_ws(&i[1..], 0)?;
        if !rest.is_empty() {
            Err(after_vector(rest))?;
        }
        Ok(())
    }

    /// Op maps, one per top-level form, to the end of `i` (or until told
    /// to stop).
    fn forms(&mut self, mut i: In<'a>) -> Result<(), ReadErr<'a>> {
        while !i.is_empty() {
            if self.stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
                break;
            }
            i = self.op(i, 0)?;
            (i, ()) = self.r.skip_ws(i, 0)?;
        }
        Ok(())
    }

    /// One op: an optionally tagged map.
    fn op(&mut self, i: In<'a>, depth: usize) -> Result<In<'a>, ReadErr<'a>> {
        let mut body = i;
        if i[0] == b'#' && i.get(1).is_some_and(u8::is_ascii_alphabetic) {
            let (rest, tag) = token(&i[1..])?;
            if !self.r.str_of(tag).is_ok_and(valid_symbol) {
                let name = String::from_utf8_lossy(tag).into_owned();
                Err(Err::Failure(EdnError::new(
                    i,
                    tag.len() + 1,
                    Problem::InvalidTag(name),
                )))?;
            }
            body = self.r.skip_ws(rest, depth)?.0;
        }
        if body.first() == Some(&b'{') {
            return self.op_map(i, body, depth);
        }
        let (_, node) = self.r.value(i, depth)?;
        let err = HistoryError::new(
            ErrorKind::NotAnOp(describe(&node)),
            "a history holds one op map per line, like {:type :ok, :process 0, :value [...]}",
        );
        Err(err.at(node.span, "not an op map").into())
    }

    fn op_map(&mut self, start: In<'a>, i: In<'a>, depth: usize) -> Result<In<'a>, ReadErr<'a>> {
        let d = depth + 1;
        let mut op = Op::new(self.out.ops.len() as i64, OpType::Info, Span::default());
        let (mut ty, mut seen) = (None, 0u8);
        let extras_start = self.out.extras.len();
        let mut i = &i[1..];
        loop {
            (i, ()) = self.r.skip_ws(i, d)?;
            match i.first() {
                Some(b'}') => break,
                None => Err(Err::Failure(EdnError::new(start, 1, Problem::Eof("`}`"))))?,
                Some(_) => {}
            }
            let key_at = i;
            // Any other keyword or key is an extra: known_keyword matches every op key.
            let (rest, field) = match i[0] {
                b':' => match known_keyword(i, &OP_KEYS) {
                    Some((rest, n)) => (rest, Some(FIELDS[n])),
                    None => (self.r.keyword_bytes(i)?.0, None),
                },
                _ => (self.r.value(i, d)?.0, None),
            };
            let key_span = self.r.span(key_at, rest);
            let (rest, ()) = self.r.skip_ws(rest, d)?;
            if matches!(rest.first(), None | Some(b'}')) {
                Err(Err::Failure(EdnError::new(
                    key_at,
                    key_span.len(),
                    Problem::OddMap,
                )))?;
            }
            if let Some(f) = field {
                if seen & f.bit() != 0 {
                    let name = OP_KEYS[f as usize];
                    let name = String::from_utf8_lossy(name).into_owned();
                    let e = HistoryError::new(
                        ErrorKind::DuplicateField(name),
                        "each key may appear once in an op",
                    );
                    Err(e.at(key_span, "again here"))?;
                }
                seen |= f.bit();
            }
            i = match field {
                Some(Field::Type) => {
                    let (rest, t) = self.op_type(rest, d)?;
                    ty = Some(t);
                    rest
                }
                Some(Field::Process) => {
                    let (rest, p) = self.process(rest, d)?;
                    op.process = p;
                    rest
                }
                Some(Field::Index) => {
                    let (rest, n) = self.int_field(rest, "index", "an integer", d)?;
                    op.index = n;
                    rest
                }
                Some(Field::Time) => {
                    let (rest, n) = self.int_field(rest, "time", "an integer (nanoseconds)", d)?;
                    op.set_time(n);
                    rest
                }
                Some(Field::F) => {
                    let (rest, f) = self.f(rest, d)?;
                    op.f = f;
                    rest
                }
                Some(Field::Value) => {
                    let (rest, v) = self.op_value(rest, d)?;
                    op.value = v;
                    rest
                }
                None => self.extra(key_span, extras_start, rest, d)?,
            };
        }
        let end = &i[1..];
        op.span = self.r.span(start, end);
        op.extras_start = extras_start as u32;
        op.extras_len = (self.out.extras.len() - extras_start) as u32;
        op.ty = match ty {
            Some(t) => t,
            None => return Err(self.missing_type(&op).into()),
        };
        let read = op.span.end();
        if seen & Field::Index.bit() == 0 {
            self.unindexed.push(self.out.ops.len());
        }
        self.out.ops.push(op);
        if self.stop.is_none() {
            crate::limits::tick_read(self.out.ops.len(), read);
        }
        Ok(end)
    }

    fn missing_type(&self, op: &Op) -> HistoryError {
        let is_results = self.out.extras[op.extras_range()]
            .iter()
            .any(|(k, _)| &self.r.full[k.start()..k.end()] == b":valid?");
        let (kind, help) = match is_results {
            true => (
                ErrorKind::NotAHistory,
                "this looks like a results.edn; pass the history.edn beside it",
            ),
            false => (
                ErrorKind::MissingType,
                "every op needs :type, one of :invoke, :ok, :fail, :info",
            ),
        };
        let head = Span::new(op.span.start(), op.span.start() + 1);
        HistoryError::new(kind, help).at(head, "this op")
    }

    /// An unknown key: validated, kept by span, refused when it repeats an
    /// earlier key of the op (by value, as Clojure compares keys).
    fn extra(
        &mut self,
        key: Span,
        from: usize,
        i: In<'a>,
        d: usize,
    ) -> Result<In<'a>, ReadErr<'a>> {
        let (rest, node) = self.r.value(i, d)?;
        let canon = self.key_canonical(key, d)?;
        for k in self.out.extras[from..]
            .iter()
            .map(|(k, _)| *k)
            .collect::<Vec<_>>()
        {
            if self.key_canonical(k, d)? == canon {
                let name =
                    String::from_utf8_lossy(&self.r.full[key.start()..key.end()]).into_owned();
                let e = HistoryError::new(
                    ErrorKind::DuplicateField(name.trim_start_matches(':').into()),
                    "each key may appear once in an op",
                );
                return Err(e.at(key, "again here").into());
            }
        }
        self.out.extras.push((key, node.span));
        Ok(rest)
    }

    /// The canonical text of an op key already read once.
    fn key_canonical(&self, key: Span, d: usize) -> Result<String, ReadErr<'a>> {
        let (_, node) = self.r.value(&self.r.full[key.start()..], d)?;
        Ok(node.canonical())
    }

    fn bad_field(
        &self,
        node: &Node<'_>,
        field: &'static str,
        expected: &'static str,
    ) -> HistoryError {
        HistoryError::new(
            ErrorKind::BadField { field, expected },
            format!("found {}", describe(node)),
        )
        .at(node.span, "here")
    }

    fn op_type(&mut self, i: In<'a>, d: usize) -> Result<(In<'a>, OpType), ReadErr<'a>> {
        const TYPES: [OpType; 4] = [OpType::Invoke, OpType::Ok, OpType::Fail, OpType::Info];
        if let Some((rest, n)) = known_keyword(i, &OP_TYPES) {
            return Ok((rest, TYPES[n]));
        }
        let (_, node) = self.r.value(i, d)?;
        Err(self
            .bad_field(&node, "type", "one of :invoke, :ok, :fail, :info")
            .into())
    }

    /// `:f`: usually the same keyword op after op, so the last one is cached.
    fn f(&mut self, i: In<'a>, d: usize) -> PResult<'a, Val> {
        let (rest, v) = match i[0] {
            b':' => {
                let (rest, _) = self.r.keyword_bytes(i)?;
                let text = &i[..i.len() - rest.len()];
                if text == self.last_f.0 {
                    return Ok((rest, self.last_f.1));
                }
                let name = self.r.str_of(text)?;
                (rest, self.out.values.intern_canonical(name))
            }
            _ => self.val(i, d)?,
        };
        self.last_f = (&i[..i.len() - rest.len()], v);
        Ok((rest, v))
    }

    fn process(&mut self, i: In<'a>, d: usize) -> Result<(In<'a>, Process), ReadErr<'a>> {
        if let Some((rest, n)) = fast_uint(i) {
            return Ok((rest, Process::Client(n as i64)));
        }
        let (rest, node) = self.r.value(i, d)?;
        // Jepsen's client-op? is Clojure's integer?, which 5N satisfies too;
        // so an integer beyond i64 is a client process this model cannot
        // hold, not a nemesis, and the history is refused.
        let p = match node.integer() {
            Some(Some(n)) => Process::Client(n),
            Some(None) => {
                let expected = "an integer within 64 bits (or a non-integer such as :nemesis)";
                return Err(self.bad_field(&node, "process", expected).into());
            }
            None => Process::Other(self.out.values.node(&node).map_err(HistoryError::from)?),
        };
        Ok((rest, p))
    }

    fn int_field(
        &mut self,
        i: In<'a>,
        field: &'static str,
        expected: &'static str,
        d: usize,
    ) -> Result<(In<'a>, i64), ReadErr<'a>> {
        if let Some((rest, n)) = fast_uint(i) {
            return Ok((rest, n as i64));
        }
        let (rest, node) = self.r.value(i, d)?;
        match node.kind {
            Kind::Int(n) => Ok((rest, n)),
            _ => Err(self.bad_field(&node, field, expected).into()),
        }
    }

    /// A key or value: small integers and `nil` without the generic reader.
    #[inline]
    fn val(&mut self, i: In<'a>, d: usize) -> PResult<'a, Val> {
        if let Some((rest, n)) = fast_uint(i) {
            return Ok((rest, self.out.values.uint(n)));
        }
        if i.starts_with(b"nil") && i.get(3).is_none_or(|&b| is_delim(b)) {
            return Ok((&i[3..], Val::NIL));
        }
        let (rest, node) = self.r.value(i, d)?;
        match self.out.values.node(&node) {
            Ok(v) => Ok((rest, v)),
            Err(e) => {
                let at = &self.r.full[e.span.start()..];
                Err(Err::Failure(EdnError::new(at, e.span.len(), e.problem)))
            }
        }
    }

    fn op_value(&mut self, i: In<'a>, d: usize) -> PResult<'a, OpValue> {
        if matches!(i.first(), Some(b'[' | b'(')) {
            let (mops, elems) = (self.out.mops.len(), self.out.elems.len());
            match self.txn(i, d) {
                Ok((rest, (start, len))) => return Ok((rest, OpValue::Txn { start, len })),
                Err(Err::Error(_)) => {
                    self.out.mops.truncate(mops);
                    self.out.elems.truncate(elems);
                }
                Err(e) => return Err(e),
            }
        }
        let (rest, node) = self.r.value(i, d)?;
        let v = match node.kind {
            Kind::Nil => OpValue::Nil,
            _ => OpValue::Other(node.span),
        };
        Ok((rest, v))
    }

    /// A vector of micro-ops. `Err::Error` means "not a transaction".
    fn txn(&mut self, i: In<'a>, d: usize) -> PResult<'a, (u32, u32)> {
        let close = if i[0] == b'[' { b']' } else { b')' };
        let start = self.out.mops.len();
        let mut i = &i[1..];
        loop {
            (i, ()) = self.r.skip_ws(i, d + 1)?;
            match i.first() {
                Some(&c) if c == close => {
                    let len = self.out.mops.len() - start;
                    return Ok((&i[1..], (start as u32, len as u32)));
                }
                Some(b'[') => i = self.mop(i, d + 1)?.0,
                _ => return not_txn(i, "a micro-op"),
            }
        }
    }

    /// `[:r k v]`, `[:r k]`, `[:append k v]`, `[:w k v]`.
    fn mop(&mut self, open: In<'a>, d: usize) -> PResult<'a, In<'a>> {
        let (i, ()) = self.r.skip_ws(&open[1..], d + 1)?;
        if i.first() != Some(&b':') {
            return not_txn(i, "a micro-op function");
        }
        const KINDS: [MopKind; 3] = [MopKind::Read, MopKind::Append, MopKind::Write];
        let Some((rest, n)) = known_keyword(i, &MOP_FUNCTIONS) else {
            self.r.keyword_bytes(i)?;
            return not_txn(i, ":r, :append or :w");
        };
        let kind = KINDS[n];
        let (i, ()) = self.r.skip_ws(rest, d + 1)?;
        if matches!(i.first(), None | Some(b']')) {
            return not_txn(i, "a key");
        }
        let (rest, key) = self.val(i, d + 1)?;
        let (mut i, ()) = self.r.skip_ws(rest, d + 1)?;
        let value = match i.first() {
            Some(b']') => MopValue::Val(Val::NIL),
            Some(b'[' | b'(') if kind == MopKind::Read => {
                let (rest, v) = self.read_list(i, d + 1)?;
                i = self.r.skip_ws(rest, d + 1)?.0;
                v
            }
            _ => {
                let (rest, v) = self.val(i, d + 1)?;
                i = self.r.skip_ws(rest, d + 1)?.0;
                MopValue::Val(v)
            }
        };
        if i.first() != Some(&b']') {
            return not_txn(i, "`]` closing the micro-op");
        }
        let rest = &i[1..];
        self.out
            .mops
            .push(MicroOp::new(kind, key, value, self.r.span(open, rest)));
        Ok((rest, rest))
    }

    fn read_list(&mut self, open: In<'a>, d: usize) -> PResult<'a, MopValue> {
        let close = if open[0] == b'[' { b']' } else { b')' };
        let start = self.out.elems.len();
        let mut i = &open[1..];
        loop {
            (i, ()) = self.r.skip_ws(i, d + 1)?;
            if let Some((rest, n)) = fast_uint(i) {
                let v = self.out.values.uint(n);
                self.out.elems.push(v);
                i = rest;
                continue;
            }
            match i.first() {
                Some(&c) if c == close => break,
                None => {
                    return Err(Err::Failure(EdnError::new(
                        open,
                        1,
                        Problem::Eof("the end of the list"),
                    )))
                }
                Some(_) => {
                    let (rest, v) = self.val(i, d + 1)?;
                    self.out.elems.push(v);
                    i = rest;
                }
            }
        }
        let len = (self.out.elems.len() - start) as u32;
        Ok((
            &i[1..],
            MopValue::List {
                start: start as u32,
                len,
            },
        ))
    }
}

/// Which of `names` the keyword at `i` is, matched without the general
/// keyword scan: the op keys, types and micro-op functions Jepsen writes on
/// every line. `None` unless `i` starts with `:` (so `Afail` and `"ok"` are
/// not `:fail` and `:ok`) and the name ends at a delimiter.
#[inline]
fn known_keyword<'i>(i: In<'i>, names: &[&'static [u8]]) -> Option<(In<'i>, usize)> {
    let body = i.strip_prefix(b":")?;
    let ends = |n: usize| body.get(n).is_none_or(|&b| is_delim(b));
    let n = names
        .iter()
        .position(|k| body.starts_with(k) && ends(k.len()))?;
    Some((&body[names[n].len()..], n))
}

const OP_KEYS: [&[u8]; 6] = [b"type", b"process", b"index", b"time", b"f", b"value"];
const OP_TYPES: [&[u8]; 4] = [b"invoke", b"ok", b"fail", b"info"];
const MOP_FUNCTIONS: [&[u8]; 3] = [b"r", b"append", b"w"];

/// How to name a value in a message: its kind and a short excerpt.
pub fn describe(node: &Node<'_>) -> String {
    let what = match &node.kind {
        Kind::Nil => return "nil".into(),
        Kind::Bool(_) => "a boolean",
        Kind::Int(_) | Kind::BigInt(_) => "an integer",
        Kind::Float(_) | Kind::BigDec(_) | Kind::Ratio(_) => "a number",
        Kind::Str(_) => "a string",
        Kind::Char(_) => "a character",
        Kind::Keyword(_) => "a keyword",
        Kind::Symbol(_) => "a symbol",
        Kind::List(_) => "a list",
        Kind::Vector(_) => "a vector",
        Kind::Map(_) => "a map",
        Kind::Set(_) => "a set",
        Kind::Tagged(..) => "a tagged value",
    };
    let mut text = node.canonical();
    if text.chars().count() > 40 {
        text = text.chars().take(37).collect::<String>() + "...";
    }
    format!("{what} {text}")
}

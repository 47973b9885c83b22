//! Reading a Jepsen EDN history one op at a time, from any reader (a file,
//! standard input, a FIFO, a file Jepsen is still writing), holding a
//! bounded buffer: the ground of checking a history as it streams by
//! (issue 37).
//!
//! The stream buffers the input from the start of the form it reads next.
//! Each op is read by the whole-file reader's own op reader
//! (`read_op`), so its fields, micro-ops, values and spans
//! (offsets in the whole input) are those [`super::read_ops`] gives; the
//! framings are the same (op maps one after another, or one vector or list
//! of them). Where a form ends is not known before it is read, so:
//!
//! - an op map that reads is final: its `}` ends it, whatever follows;
//! - whitespace (with comments and discards) before a form is final once
//!   two bytes of the form follow it (`#` alone may open a discard);
//! - an error may come from the buffer ending inside the form, so it is
//!   final only at the input's end; until then more is read and the form
//!   read again, the buffer twice as long between two reads (or the input
//!   idle), so that a long form costs linear time.
//!
//! A form longer than the limit ([`StreamOptions::max_form`]) is an error,
//! [`ErrorKind::FormTooLarge`]: the buffer never holds much more. So is a
//! malformed form followed by more than the limit before the input ends: it
//! is reported as too large, not with its own diagnostic.
//!
//! A thread of its own opens and reads the input (`history/stream.rs`), and
//! the stream polls the limits ([`crate::limits`]) while it waits for bytes.
//! Following a growing file, that thread reads again at the file's end
//! until the caller's flag says the history is complete; a form half
//! written is read once the rest arrives.

use super::{after_vector, read_op, vector_close, OneOp, Ops, UNCLOSED_VECTOR};
use crate::history::edn::lex::{without_bom, Reader};
use crate::history::edn::SyntaxError;
use crate::history::error::{ErrorKind, HistoryError};
use crate::history::model::{MicroOp, MopValue, Op, OpValue};
use crate::history::span::Span;
use crate::history::stream::{spawn_reader, Chunks, WAIT};
use crate::history::value::{Val, ValueTable};
use std::io::{self, Read};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::sync::{Arc, OnceLock};

/// The longest form a stream holds by default: a read of a few million
/// elements.
pub const MAX_FORM: usize = 64 << 20;

/// How an [`OpStream`] reads.
#[derive(Clone, Debug)]
pub struct StreamOptions {
    /// Follow a growing input: at its end, wait for more until the flag is
    /// set, then read what is left and end. `None`: end at the input's end.
    pub follow: Option<Arc<AtomicBool>>,
    /// The longest form (with the whitespace before it) the stream holds,
    /// in bytes.
    pub max_form: usize,
}

impl Default for StreamOptions {
    fn default() -> Self {
        StreamOptions {
            follow: None,
            max_form: MAX_FORM,
        }
    }
}

/// One op of a streamed history, with what its fields point to.
#[derive(Clone, Debug)]
pub struct StreamedOp {
    /// The op as the whole-file reader reads it, but that its arena
    /// positions (`OpValue::Txn`'s start, `extras_start`, read lists'
    /// starts) count in this op's own vectors below.
    pub op: Op,
    /// Its micro-ops, when its value is a transaction.
    pub mops: Vec<MicroOp>,
    /// The elements of its micro-ops' read lists.
    pub elems: Vec<Val>,
    /// `(key span, value span)` of its extra keys.
    pub extras: Vec<(Span, Span)>,
    /// The op's text (its span's bytes), to read a value back by span.
    pub text: Box<str>,
}

impl StreamedOp {
    /// The text of `span`, when it lies in this op.
    pub fn text_of(&self, span: Span) -> Option<&str> {
        let start = span.start().checked_sub(self.op.span.start())?;
        self.text.get(start..start.checked_add(span.len())?)
    }

    /// The micro-ops of its transaction (none when its value is not one).
    pub fn txn(&self) -> &[MicroOp] {
        match self.op.value {
            OpValue::Txn { start, len } => {
                let (start, len) = (start as usize, len as usize);
                self.mops.get(start..start + len).unwrap_or(&[])
            }
            _ => &[],
        }
    }

    /// The commit timestamp the op carries (`:commit-timestamp`, or
    /// `:txn-info {:commit_ts …}`), if any.
    pub fn commit_stamp(&self) -> Result<Option<i64>, HistoryError> {
        let text = |span: Span| self.text_of(span).unwrap_or("");
        let extras = self.extras.iter().map(|&(k, v)| (text(k), text(v)));
        match crate::history::commit_order::stamp_of(extras, false) {
            Ok(stamp) => Ok(stamp.map(|s| s.commit)),
            Err(key) => Err(crate::history::commit_order::timestamp_error(
                key,
                self.op.span,
            )),
        }
    }

    /// The elements a read micro-op of this op read (none for a scalar).
    pub fn read_list(&self, mop: &MicroOp) -> &[Val] {
        match mop.value() {
            MopValue::List { start, len } => {
                let (start, len) = (start as usize, len as usize);
                self.elems.get(start..start + len).unwrap_or(&[])
            }
            MopValue::Val(_) => &[],
        }
    }

    /// Appends the op to a whole history's arenas, its positions moved
    /// past what they hold: ops appended in stream order are what
    /// [`super::read_ops`] reads (with values from [`OpStream::values`]).
    /// `None` when the arenas would outgrow their `u32` positions.
    pub fn append_to(self, ops: &mut Ops) -> Option<()> {
        let base = |len: usize, more: usize| {
            u32::try_from(len.checked_add(more)?).ok()?;
            u32::try_from(len).ok()
        };
        let mops_base = base(ops.mops.len(), self.mops.len())?;
        let elems_base = base(ops.elems.len(), self.elems.len())?;
        let extras_base = base(ops.extras.len(), self.extras.len())?;
        let mut op = self.op;
        if let OpValue::Txn { start, len } = op.value {
            op.value = OpValue::Txn {
                start: start + mops_base,
                len,
            };
        }
        op.extras_start += extras_base;
        ops.ops.push(op);
        ops.mops
            .extend(self.mops.into_iter().map(|m| match m.value() {
                MopValue::List { start, len } => {
                    let list = MopValue::List {
                        start: start + elems_base,
                        len,
                    };
                    MicroOp::new(m.kind, m.key, list, m.span)
                }
                MopValue::Val(_) => m,
            }));
        ops.elems.extend(self.elems);
        ops.extras.extend(self.extras);
        Some(())
    }
}

/// Where the stream is in the history's framing.
#[derive(Clone, Copy, Debug)]
enum Framing {
    /// Before the first form: a byte-order mark may come, and the framing
    /// is not known yet.
    Start,
    /// Op maps one after another.
    Forms,
    /// Inside one vector or list of ops: its closing bracket, and the
    /// offset of its opening one.
    Vector { close: u8, open: usize },
    /// After the vector of ops: nothing but whitespace may come.
    After,
}

/// What one step over the buffer gives.
enum Step {
    /// An op.
    Op(Box<StreamedOp>),
    /// Bytes before a form (whitespace, a bracket) that are read.
    Skip(usize),
    /// The buffer holds too little to say: read more.
    More,
    /// The history ends here.
    End,
    /// The history is malformed here.
    Error(HistoryError),
}

/// The ops of a Jepsen EDN history, one at a time; see the module's doc.
pub struct OpStream {
    input: Input,
    forms: Forms,
    max_form: usize,
    /// Ended (the last item was given).
    finished: bool,
    /// Set when the stream is dropped, so that a reader following the
    /// input stops.
    dropped: Arc<AtomicBool>,
}

/// The input as UTF-8 text, held from the start of the next form.
struct Input {
    /// The chunks of the input; `None` once it ended.
    chunks: Option<Chunks>,
    /// The input's name, for a read error.
    name: String,
    /// The text held, from the offset `base` of the input; its first
    /// `done` bytes are read.
    text: String,
    base: usize,
    done: usize,
    /// The bytes of a character that a chunk cut, completed by the next.
    partial: Vec<u8>,
    /// The offset of a byte that is not UTF-8: nothing after it is kept.
    not_utf8: Option<usize>,
    /// A read error, to give once the text before it is read.
    failed: Option<io::Error>,
}

/// Where the history's forms are, and the arenas they are read into.
struct Forms {
    framing: Framing,
    /// The arenas one op is read into, and the values of every op so far;
    /// `None` only while an op is read.
    scratch: Option<Ops>,
    /// Ops read so far.
    ops: usize,
}

impl OpStream {
    /// The ops of the input `open` opens (on the stream's reading thread:
    /// opening a FIFO blocks until a writer opens it); `name` names it in
    /// a read error.
    pub fn new<R: Read>(
        name: &str,
        open: impl FnOnce() -> io::Result<R> + Send + 'static,
        options: StreamOptions,
    ) -> OpStream {
        let dropped = Arc::new(AtomicBool::new(false));
        let follow = {
            let (flag, dropped) = (options.follow.clone(), dropped.clone());
            move || {
                flag.as_ref().is_some_and(|f| !f.load(Ordering::Relaxed))
                    && !dropped.load(Ordering::Relaxed)
            }
        };
        let (chunks, failed) = match spawn_reader(open, follow) {
            Ok(chunks) => (Some(chunks), None),
            Err(e) => (None, Some(e)),
        };
        let input = Input {
            chunks,
            name: name.to_string(),
            text: String::new(),
            base: 0,
            done: 0,
            partial: Vec::new(),
            not_utf8: None,
            failed,
        };
        let forms = Forms {
            framing: Framing::Start,
            scratch: Some(Ops::default()),
            ops: 0,
        };
        OpStream {
            input,
            forms,
            max_form: options.max_form,
            finished: false,
            dropped,
        }
    }

    /// The values of the ops given so far: every `Val` of a streamed op is
    /// one of this table's (the numbers [`super::read_ops`] gives).
    pub fn values(&self) -> &ValueTable {
        // Only a limit unwinding out of a read leaves no arenas; the
        // stream is done with then.
        static NONE: OnceLock<ValueTable> = OnceLock::new();
        match &self.forms.scratch {
            Some(s) => &s.values,
            None => NONE.get_or_init(ValueTable::default),
        }
    }

    /// How many ops the stream has given.
    pub fn ops_read(&self) -> usize {
        self.forms.ops
    }

    /// What the text held gives next.
    fn step(&mut self) -> Step {
        let input = &mut self.input;
        let ended = input.chunks.is_none() && input.not_utf8.is_none() && input.failed.is_none();
        let window = input.text.get(input.done..).unwrap_or("");
        let offset = input.base + input.done;
        match self.forms.step(window, offset, ended) {
            Step::More | Step::End if input.failed.is_some() => input.read_error(),
            Step::More => match input.not_utf8 {
                Some(at) => Step::Error(crate::history::not_utf8(at)),
                None => Step::More,
            },
            step => step,
        }
    }

    /// The error of a form that outgrew the limit, at its start.
    fn too_large(&self) -> HistoryError {
        let at = self.input.base + self.input.done;
        let e = HistoryError::new(
            ErrorKind::FormTooLarge {
                limit: self.max_form,
            },
            "a history is op maps of moderate size; raise the streaming reader's limit for larger ones",
        );
        e.at(Span::new(at, at + 1), "this form")
    }
}

impl Forms {
    /// What `window` (the unread text, at `offset` of the input; all of it
    /// when `ended`) gives next.
    fn step(&mut self, window: &str, offset: usize, ended: bool) -> Step {
        match self.framing {
            Framing::Start => self.start(window, offset, ended),
            Framing::Forms => self.form(window, offset, ended, 0),
            Framing::Vector { .. } => self.form(window, offset, ended, 1),
            Framing::After => after(window, offset, ended),
        }
    }

    /// Before the first form: a byte-order mark, whitespace, and the
    /// framing's bracket when the history is one vector or list of ops.
    fn start(&mut self, window: &str, offset: usize, ended: bool) -> Step {
        // A byte-order mark is 3 bytes.
        if window.len() < 3 && !ended {
            return Step::More;
        }
        let r = Reader::new(window);
        let from = without_bom(r.full);
        let rest = match before_form(&r, from, offset, ended, 0) {
            Ok(rest) => rest,
            Err(step) => return step,
        };
        let at = r.pos(rest);
        self.framing = match vector_close(rest) {
            Some(close) => Framing::Vector {
                close,
                open: offset + at,
            },
            None => Framing::Forms,
        };
        match self.framing {
            Framing::Vector { .. } => Step::Skip(at + 1),
            _ => Step::Skip(at),
        }
    }

    /// The whitespace before a form, or the form: an op, or the vector's
    /// closing bracket; `depth` is 1 inside a vector of ops.
    fn form(&mut self, window: &str, offset: usize, ended: bool, depth: usize) -> Step {
        let r = Reader::new(window);
        let rest = match before_form(&r, r.full, offset, ended, depth) {
            Ok(rest) => rest,
            Err(Step::End) => return self.end_of_forms(),
            Err(step) => return step,
        };
        match (r.pos(rest), self.framing) {
            (0, Framing::Vector { close, .. }) if rest.first() == Some(&close) => {
                self.framing = Framing::After;
                Step::Skip(1)
            }
            (0, _) => self.op(window, offset, ended, depth),
            (at, _) => Step::Skip(at),
        }
    }

    /// The end of the input where a form could start: the history's end,
    /// or a vector of ops never closed.
    fn end_of_forms(&self) -> Step {
        match self.framing {
            Framing::Vector { open, .. } => Step::Error(
                SyntaxError {
                    span: Span::new(open, open + 1),
                    problem: UNCLOSED_VECTOR,
                }
                .into(),
            ),
            _ => Step::End,
        }
    }

    /// The op at the start of `window`.
    fn op(&mut self, window: &str, offset: usize, ended: bool, depth: usize) -> Step {
        let Some(scratch) = self.scratch.take() else {
            return Step::End;
        };
        let mark = scratch.values.mark();
        let (mut scratch, read) = read_op(window, depth, scratch);
        let step = match read {
            Ok(one) => {
                let text = window.get(..one.end).unwrap_or_default();
                Step::Op(Box::new(place(&mut scratch, one, text, offset, self.ops)))
            }
            Err(e) if ended => Step::Error(e.shifted(offset)),
            Err(_) => {
                // Read again once more is held: as if never read.
                scratch.values.rewind(mark);
                scratch.mops.clear();
                scratch.elems.clear();
                scratch.extras.clear();
                Step::More
            }
        };
        self.scratch = Some(scratch);
        step
    }
}

impl Input {
    /// The read error that ended the input, once.
    fn read_error(&mut self) -> Step {
        match self.failed.take() {
            Some(e) => Step::Error(HistoryError::io(Path::new(&self.name), &e)),
            None => Step::End,
        }
    }

    /// Unread bytes held.
    fn held(&self) -> usize {
        self.text.len() - self.done
    }

    /// Reads until the unread text is `want` bytes long, the input has
    /// been idle for a while after giving some, or it ends; polls the
    /// limits while it waits.
    fn fill(&mut self, want: usize) {
        self.text.drain(..self.done);
        self.base += self.done;
        self.done = 0;
        let mut got = false;
        while let Some(chunks) = &self.chunks {
            match chunks.recv_timeout(WAIT) {
                Ok(Ok(chunk)) => {
                    got = true;
                    self.take(&chunk);
                    if self.text.len() >= want || self.not_utf8.is_some() {
                        return;
                    }
                }
                Ok(Err(e)) => {
                    self.failed = Some(e);
                    self.chunks = None;
                }
                Err(RecvTimeoutError::Timeout) if got => return,
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => self.ended(),
            }
            let read = self.base + self.text.len() + self.partial.len();
            crate::limits::streaming(read as u64);
        }
    }

    /// Appends a chunk's UTF-8 text; a character it cuts waits for the
    /// next chunk, and a byte that is not UTF-8 ends the reading.
    fn take(&mut self, chunk: &[u8]) {
        let joined;
        let bytes = match self.partial.is_empty() {
            true => chunk,
            false => {
                joined = [std::mem::take(&mut self.partial).as_slice(), chunk].concat();
                &joined
            }
        };
        let (valid, e) = match std::str::from_utf8(bytes) {
            Ok(text) => (text, None),
            Err(e) => {
                let valid = std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default();
                (valid, Some(e))
            }
        };
        let at = self.base + self.text.len() + valid.len();
        self.text.push_str(valid);
        match e {
            Some(e) if e.error_len().is_some() => self.stop_reading(at),
            Some(_) => self.partial = bytes[valid.len()..].to_vec(),
            None => {}
        }
    }

    /// The input ended: a character it cut is not UTF-8.
    fn ended(&mut self) {
        self.chunks = None;
        if !self.partial.is_empty() {
            let at = self.base + self.text.len();
            self.stop_reading(at);
        }
    }

    /// Nothing from `at` on is read: the byte there is not UTF-8.
    fn stop_reading(&mut self, at: usize) {
        self.not_utf8 = Some(at);
        self.chunks = None;
    }
}

/// The whitespace, comments and discards at `from` skipped, at nesting
/// `depth`: where the next form starts, when that is certain. `Err` with
/// the step to take otherwise: `End` when the input ends there, `More`
/// when the buffer ends there (or a lone `#` might open a discard), an
/// error once the input has ended.
fn before_form<'a>(
    r: &Reader<'a>,
    from: &'a [u8],
    offset: usize,
    ended: bool,
    depth: usize,
) -> Result<&'a [u8], Step> {
    match r.skip_ws(from, depth) {
        Ok((rest, ())) if rest.is_empty() && ended => Err(Step::End),
        Ok((rest, ())) if rest.len() < 2 && !ended => Err(Step::More),
        Ok((rest, ())) => Ok(rest),
        Err(e) if ended => Err(syntax_error(r, e, offset)),
        Err(_) => Err(Step::More),
    }
}

/// The op `one` just read into `scratch`'s arenas (which it empties,
/// keeping their room for the next), from `text` at `offset` of the input,
/// the `position`th op.
fn place(scratch: &mut Ops, one: OneOp, text: &str, offset: usize, position: usize) -> StreamedOp {
    let OneOp {
        mut op, indexed, ..
    } = one;
    op.span = op.span.shifted(offset);
    if let OpValue::Other(span) = op.value {
        op.value = OpValue::Other(span.shifted(offset));
    }
    if !indexed {
        op.index = i64::try_from(position).unwrap_or(i64::MAX);
    }
    let mops = scratch.mops.drain(..).map(|mut m| {
        m.span = m.span.shifted(offset);
        m
    });
    let extras = scratch.extras.drain(..);
    let shift = |(k, v): (Span, Span)| (k.shifted(offset), v.shifted(offset));
    StreamedOp {
        op,
        mops: mops.collect(),
        elems: scratch.elems.drain(..).collect(),
        extras: extras.map(shift).collect(),
        text: text.into(),
    }
}

/// After the vector of ops: whitespace to the end.
fn after(window: &str, offset: usize, ended: bool) -> Step {
    let r = Reader::new(window);
    match before_form(&r, r.full, offset, ended, 0) {
        // Not before the end: a byte that is not UTF-8 comes first.
        Ok(rest) if ended => syntax_error(&r, after_vector(rest), offset),
        Ok(_) => Step::More,
        Err(step) => step,
    }
}

/// A syntax error of the text `r` reads, placed at `offset` of the input.
fn syntax_error(
    r: &Reader<'_>,
    e: nom::Err<crate::history::edn::EdnError<'_>>,
    offset: usize,
) -> Step {
    Step::Error(HistoryError::from(SyntaxError::from_nom(r.full, e)).shifted(offset))
}

impl Iterator for OpStream {
    type Item = Result<StreamedOp, HistoryError>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.finished {
            match self.step() {
                Step::Op(op) => {
                    self.input.done += op.text.len();
                    self.forms.ops += 1;
                    crate::limits::tick_read(self.forms.ops, op.op.span.end());
                    return Some(Ok(*op));
                }
                Step::Skip(n) => self.input.done += n,
                Step::More if self.input.held() >= self.max_form => {
                    self.finished = true;
                    return Some(Err(self.too_large()));
                }
                Step::More => {
                    let held = self.input.held();
                    let want = held.saturating_mul(2).clamp(held + 1, self.max_form);
                    self.input.fill(want);
                }
                Step::End => self.finished = true,
                Step::Error(e) => {
                    self.finished = true;
                    return Some(Err(e));
                }
            }
        }
        None
    }
}

impl Drop for OpStream {
    fn drop(&mut self) {
        self.dropped.store(true, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests;

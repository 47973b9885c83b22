//! Writing the history: one Jepsen op map per line, in `jepsen.history`'s
//! key order (`:index :time :type :process :f :value`), through a large
//! buffer, counting bytes so a run can stop at a size.

use super::workload::{Kind, Mop, Value};
pub use isocheck::history::OpType;
use std::io::{self, BufWriter, Write};

/// What a transaction's reads returned: per micro-op, a range of `values`
/// (empty for writes, and for a register read of nil).
#[derive(Default, Debug)]
pub struct Reads {
    pub values: Vec<Value>,
    pub spans: Vec<(u32, u32)>,
}

impl Reads {
    pub fn clear(&mut self) {
        self.values.clear();
        self.spans.clear();
    }

    fn of(&self, mop: usize) -> &[Value] {
        let (a, b) = self.spans.get(mop).copied().unwrap_or((0, 0));
        &self.values[a as usize..b as usize]
    }
}

pub struct HistoryWriter<W: Write> {
    out: BufWriter<W>,
    kind: Kind,
    line: Vec<u8>,
    index: u64,
    bytes: u64,
    /// Timestamps for the next op ([`HistoryWriter::stamp_next`]).
    stamp: Option<(Option<u64>, u64)>,
}

impl<W: Write> HistoryWriter<W> {
    pub fn new(out: W, kind: Kind) -> HistoryWriter<W> {
        HistoryWriter {
            out: BufWriter::with_capacity(1 << 20, out),
            kind,
            line: Vec::with_capacity(1 << 10),
            index: 0,
            bytes: 0,
            stamp: None,
        }
    }

    /// Bytes written so far.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Ops written so far.
    pub fn ops(&self) -> u64 {
        self.index
    }

    /// Writes one op; `reads` fills in the reads of an `:ok` completion,
    /// `None` leaves them nil (invocations, `:fail` and `:info`).
    pub fn op(
        &mut self,
        ty: OpType,
        time: u64,
        process: u64,
        mops: &[Mop],
        reads: Option<&Reads>,
    ) -> io::Result<()> {
        self.op_with_error(ty, time, process, mops, reads, None)
    }

    /// [`HistoryWriter::op`] with Jepsen's `:error` after the value: a
    /// keyword naming the error and the database's message,
    /// `[:name "message"]`.
    pub fn op_with_error(
        &mut self,
        ty: OpType,
        time: u64,
        process: u64,
        mops: &[Mop],
        reads: Option<&Reads>,
        error: Option<(&str, &str)>,
    ) -> io::Result<()> {
        let kind = self.kind;
        let l = self.start_line(ty, time);
        push_u64(l, process);
        l.extend_from_slice(b", :f :txn, :value [");
        for (i, &m) in mops.iter().enumerate() {
            if i > 0 {
                l.push(b' ');
            }
            push_mop(l, kind, m, reads.map(|r| r.of(i)));
        }
        l.push(b']');
        push_error(l, error);
        if let Some((start, commit)) = self.stamp.take() {
            push_stamp(&mut self.line, start, commit);
        }
        self.end_line()
    }

    /// Gives the next transaction op the database's timestamps, as
    /// MongoDB's Jepsen tests record them: `:start-timestamp` (the
    /// snapshot, when the transaction read from one) and
    /// `:commit-timestamp`.
    pub fn stamp_next(&mut self, start: Option<u64>, commit: u64) {
        self.stamp = Some((start, commit));
    }

    /// A register op of Jepsen's cas-register workload: `f` (`read`,
    /// `write`, `cas`) and its value as EDN text (`[key value]`,
    /// `[key [old new]]`), with `:error` as in
    /// [`HistoryWriter::op_with_error`].
    pub fn register_op(
        &mut self,
        (ty, time, process): (OpType, u64, u64),
        f: &str,
        value: &str,
        error: Option<(&str, &str)>,
    ) -> io::Result<()> {
        let l = self.start_line(ty, time);
        push_u64(l, process);
        l.extend_from_slice(b", :f :");
        l.extend_from_slice(f.as_bytes());
        l.extend_from_slice(b", :value ");
        l.extend_from_slice(value.as_bytes());
        push_error(l, error);
        self.end_line()
    }

    /// A nemesis op, as Jepsen writes them: `:process :nemesis`, `f` a
    /// keyword name and `value` a string (or nil).
    pub fn nemesis(
        &mut self,
        ty: OpType,
        time: u64,
        f: &str,
        value: Option<&str>,
    ) -> io::Result<()> {
        let l = self.start_line(ty, time);
        l.extend_from_slice(b":nemesis, :f :");
        l.extend_from_slice(f.as_bytes());
        l.extend_from_slice(b", :value ");
        match value {
            Some(v) => push_string(l, v),
            None => l.extend_from_slice(b"nil"),
        }
        self.end_line()
    }

    /// Starts a line with the keys every op has, up to `:process `.
    fn start_line(&mut self, ty: OpType, time: u64) -> &mut Vec<u8> {
        let l = &mut self.line;
        l.clear();
        l.extend_from_slice(b"{:index ");
        push_u64(l, self.index);
        l.extend_from_slice(b", :time ");
        push_u64(l, time);
        l.extend_from_slice(b", :type ");
        l.push(b':');
        l.extend_from_slice(ty.name().as_bytes());
        l.extend_from_slice(b", :process ");
        l
    }

    fn end_line(&mut self) -> io::Result<()> {
        self.line.extend_from_slice(b"}\n");
        self.out.write_all(&self.line)?;
        self.bytes += self.line.len() as u64;
        self.index += 1;
        Ok(())
    }

    /// Writes what is buffered, so that the file holds every op so far.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    pub fn finish(mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// `[:r k v]`, `[:append k v]` or `[:w k v]`; `read` is what the read saw,
/// `None` for nil.
fn push_mop(l: &mut Vec<u8>, kind: Kind, m: Mop, read: Option<&[Value]>) {
    match m {
        Mop::Write(k, v) => {
            l.extend_from_slice(if kind.is_list() {
                b"[:append "
            } else {
                b"[:w "
            });
            push_u64(l, k);
            l.push(b' ');
            push_u64(l, v);
        }
        Mop::Read(k) => {
            l.extend_from_slice(b"[:r ");
            push_u64(l, k);
            l.push(b' ');
            match read {
                None => l.extend_from_slice(b"nil"),
                Some(vs) if kind.is_list() => {
                    l.push(b'[');
                    for (j, &v) in vs.iter().enumerate() {
                        if j > 0 {
                            l.push(b' ');
                        }
                        push_u64(l, v);
                    }
                    l.push(b']');
                }
                Some([.., v]) => push_u64(l, *v),
                Some([]) => l.extend_from_slice(b"nil"),
            }
        }
    }
    l.push(b']');
}

/// `, :error [:name "message"]`, or nothing.
fn push_stamp(l: &mut Vec<u8>, start: Option<u64>, commit: u64) {
    if let Some(start) = start {
        l.extend_from_slice(b", :start-timestamp ");
        push_u64(l, start);
    }
    l.extend_from_slice(b", :commit-timestamp ");
    push_u64(l, commit);
}

fn push_error(l: &mut Vec<u8>, error: Option<(&str, &str)>) {
    if let Some((name, message)) = error {
        l.extend_from_slice(b", :error [:");
        l.extend_from_slice(name.as_bytes());
        l.push(b' ');
        push_string(l, message);
        l.push(b']');
    }
}

/// An EDN string literal: quotes, backslashes and control characters
/// escaped.
pub fn push_string(l: &mut Vec<u8>, s: &str) {
    l.push(b'"');
    for c in s.chars() {
        match c {
            '"' => l.extend_from_slice(b"\\\""),
            '\\' => l.extend_from_slice(b"\\\\"),
            '\n' => l.extend_from_slice(b"\\n"),
            '\t' => l.extend_from_slice(b"\\t"),
            '\r' => l.extend_from_slice(b"\\r"),
            c if c.is_control() => l.extend_from_slice(format!("\\u{:04x}", c as u32).as_bytes()),
            c => l.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
        }
    }
    l.push(b'"');
}

fn push_u64(l: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    l.extend_from_slice(&digits[i..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(kind: Kind, ty: OpType, mops: &[Mop], reads: Option<&Reads>) -> String {
        let mut buf = Vec::new();
        let mut w = HistoryWriter::new(&mut buf, kind);
        w.op(ty, 12, 3, mops, reads).unwrap();
        w.finish().unwrap();
        String::from_utf8(buf).unwrap()
    }

    #[test]
    fn lines_look_like_jepsen_s() {
        let mops = [Mop::Write(1, 10), Mop::Read(4), Mop::Read(5)];
        let reads = Reads {
            values: vec![7, 8],
            spans: vec![(0, 0), (0, 2), (2, 2)],
        };
        assert_eq!(
            line(Kind::ListAppend, OpType::Ok, &mops, Some(&reads)),
            "{:index 0, :time 12, :type :ok, :process 3, :f :txn, :value [[:append 1 10] [:r 4 [7 8]] [:r 5 []]]}\n"
        );
        assert_eq!(
            line(Kind::RwRegister, OpType::Ok, &mops, Some(&reads)),
            "{:index 0, :time 12, :type :ok, :process 3, :f :txn, :value [[:w 1 10] [:r 4 8] [:r 5 nil]]}\n"
        );
        assert_eq!(
            line(Kind::RwRegister, OpType::Invoke, &mops, None),
            "{:index 0, :time 12, :type :invoke, :process 3, :f :txn, :value [[:w 1 10] [:r 4 nil] [:r 5 nil]]}\n"
        );
    }

    #[test]
    fn errors_and_nemesis_ops_read_back() {
        let mut buf = Vec::new();
        let mut w = HistoryWriter::new(&mut buf, Kind::ListAppend);
        let mops = [Mop::Write(1, 10)];
        w.op(OpType::Invoke, 1, 0, &mops, None).unwrap();
        w.nemesis(OpType::Info, 2, "kill", None).unwrap();
        let message = "quote \" backslash \\ tab\t bell\u{7} é";
        let error = Some(("serialization-failure", message));
        w.op_with_error(OpType::Fail, 3, 0, &mops, None, error)
            .unwrap();
        w.nemesis(OpType::Info, 4, "kill", Some("killed")).unwrap();
        w.finish().unwrap();
        let text = String::from_utf8(buf).unwrap();
        assert!(text.contains(", :error [:serialization-failure \"quote \\\" backslash"));
        let h = isocheck::history::parse_edn("h.edn", &text).expect("reads back");
        assert_eq!(h.ops.len(), 4);
        assert_eq!(h.txns.len(), 1);
        let forms = isocheck::history::edn::read_all(&text).unwrap();
        let error = forms[2].get("error").expect(":error");
        let isocheck::history::edn::Kind::Vector(items) = &error.kind else {
            panic!("{error:?}");
        };
        assert!(
            matches!(&items[1].kind, isocheck::history::edn::Kind::Str(s) if s.as_ref() == message)
        );
    }

    #[test]
    fn integers_print_in_full() {
        let mut l = Vec::new();
        for n in [0, 9, 10, 1234567890, u64::MAX] {
            l.clear();
            push_u64(&mut l, n);
            assert_eq!(String::from_utf8(l.clone()).unwrap(), n.to_string());
        }
    }
}

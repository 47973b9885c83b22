//! A list-append workload against a strictly serializable in-memory database.
//!
//! Like Jepsen's append workload: each transaction is 1..=`max_txn_len`
//! micro-ops on a small pool of active keys; a key is retired after
//! `max_writes_per_key` appends, so lists stay short and new keys keep coming.
//! A transaction takes effect atomically at the moment it completes, which
//! lies between its invocation and completion lines: the history is strictly
//! serializable. Some transactions fail (and take no effect).

use super::rng::Rng;
use std::io::{self, Write};

/// Workload parameters.
#[derive(Clone, Debug)]
pub struct Params {
    pub seed: u64,
    /// Concurrent client processes.
    pub processes: u64,
    /// Stop invoking after this many transactions...
    pub txns: u64,
    /// ...or once this many bytes are written, whichever comes first.
    pub max_bytes: u64,
    pub max_txn_len: u64,
    pub active_keys: u64,
    pub max_writes_per_key: u64,
    pub read_ratio: f64,
    pub fail_rate: f64,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            seed: 0,
            processes: 10,
            txns: 1000,
            max_bytes: u64::MAX,
            max_txn_len: 4,
            active_keys: 10,
            max_writes_per_key: 32,
            read_ratio: 0.5,
            fail_rate: 0.03,
        }
    }
}

#[derive(Clone, Copy)]
enum Mop {
    Read(u64),
    Append(u64, u64),
}

struct Db {
    lists: Vec<Vec<u64>>,
    active: Vec<u64>,
    writes: Vec<u64>,
}

impl Db {
    fn new(active_keys: u64) -> Db {
        let n = active_keys as usize;
        Db {
            lists: vec![Vec::new(); n],
            active: (0..active_keys).collect(),
            writes: vec![0; n],
        }
    }

    fn plan(&mut self, rng: &mut Rng, p: &Params) -> Vec<Mop> {
        let len = 1 + rng.below(p.max_txn_len);
        (0..len)
            .map(|_| {
                let slot = rng.below(self.active.len() as u64) as usize;
                let key = self.active[slot];
                if rng.chance(p.read_ratio) {
                    return Mop::Read(key);
                }
                self.writes[key as usize] += 1;
                let value = self.writes[key as usize];
                if value >= p.max_writes_per_key {
                    self.active[slot] = self.lists.len() as u64;
                    self.lists.push(Vec::new());
                    self.writes.push(0);
                }
                Mop::Append(key, value)
            })
            .collect()
    }
}

/// Counts bytes on their way to the writer.
struct Counting<W> {
    inner: W,
    bytes: u64,
}

impl<W: Write> Write for Counting<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Writes a history; returns the number of transactions invoked.
pub fn write<W: Write>(out: W, p: &Params) -> io::Result<u64> {
    let mut out = Counting {
        inner: io::BufWriter::with_capacity(1 << 20, out),
        bytes: 0,
    };
    let mut rng = Rng::new(p.seed);
    let mut db = Db::new(p.active_keys.max(1));
    let mut pending: Vec<Option<Vec<Mop>>> = vec![None; p.processes.max(1) as usize];
    let (mut index, mut time, mut invoked, mut open) = (0u64, 0u64, 0u64, 0u64);
    let mut buf = String::new();
    loop {
        let more = invoked < p.txns && out.bytes < p.max_bytes;
        if !more && open == 0 {
            break;
        }
        let proc_ = rng.below(pending.len() as u64) as usize;
        time += 1 + rng.below(1_000_000);
        buf.clear();
        match pending[proc_].take() {
            None if more => {
                let mops = db.plan(&mut rng, p);
                op_line(&mut buf, index, time, "invoke", proc_, &mops, None);
                pending[proc_] = Some(mops);
                invoked += 1;
                open += 1;
            }
            None => continue,
            Some(mops) => {
                let lists = (!rng.chance(p.fail_rate)).then(|| apply(&mut db, &mops));
                let ty = if lists.is_some() { "ok" } else { "fail" };
                op_line(&mut buf, index, time, ty, proc_, &mops, lists.as_deref());
                open -= 1;
            }
        }
        out.write_all(buf.as_bytes())?;
        index += 1;
    }
    out.flush()?;
    Ok(invoked)
}

/// Applies a transaction atomically; returns what each read saw.
fn apply(db: &mut Db, mops: &[Mop]) -> Vec<Option<Vec<u64>>> {
    mops.iter()
        .map(|m| match *m {
            Mop::Read(k) => Some(db.lists[k as usize].clone()),
            Mop::Append(k, v) => {
                db.lists[k as usize].push(v);
                None
            }
        })
        .collect()
}

fn op_line(
    buf: &mut String,
    index: u64,
    time: u64,
    ty: &str,
    process: usize,
    mops: &[Mop],
    reads: Option<&[Option<Vec<u64>>]>,
) {
    use std::fmt::Write as _;
    let _ = write!(
        buf,
        "{{:index {index}, :time {time}, :type :{ty}, :process {process}, :f :txn, :value ["
    );
    for (i, m) in mops.iter().enumerate() {
        if i > 0 {
            buf.push(' ');
        }
        match *m {
            Mop::Append(k, v) => {
                let _ = write!(buf, "[:append {k} {v}]");
            }
            Mop::Read(k) => match reads.and_then(|r| r[i].as_ref()) {
                None => {
                    let _ = write!(buf, "[:r {k} nil]");
                }
                Some(list) => {
                    let _ = write!(buf, "[:r {k} [");
                    for (j, e) in list.iter().enumerate() {
                        let sep = if j > 0 { " " } else { "" };
                        let _ = write!(buf, "{sep}{e}");
                    }
                    buf.push_str("]]");
                }
            },
        }
    }
    buf.push_str("]}\n");
}

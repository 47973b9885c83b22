//! What the clients ask for: the micro-ops of each transaction, over keys
//! drawn from a distribution, with values unique per key.
//!
//! list-append keeps a pool of `keys` active keys and retires a key after
//! `max_writes_per_key` appends (as Jepsen's generator does), so lists stay
//! short however long the run; rw-register and mini-transactions use a fixed
//! set of `keys` keys. Keys beyond those are handed out fresh by
//! [`Workload::fresh_key`] (the forced fault scenarios use them).

use super::rng::Rng;
use std::collections::VecDeque;

pub type Key = u64;
pub type Value = u64;

/// One micro-op as planned: a read of a key or a write (an append in
/// list-append) of a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mop {
    Read(Key),
    Write(Key, Value),
}

impl Mop {
    pub fn key(self) -> Key {
        match self {
            Mop::Read(k) | Mop::Write(k, _) => k,
        }
    }
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `[:append k v]` and `[:r k [..]]`.
    ListAppend,
    /// `[:w k v]` and `[:r k v]`.
    RwRegister,
    /// rw-register transactions of at most four micro-ops, at most two reads
    /// and two writes, each write preceded by a read of its key.
    MiniTransactions,
}

impl Kind {
    /// Whether reads return the whole list of appended values.
    pub fn is_list(self) -> bool {
        self == Kind::ListAppend
    }
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Distribution {
    Uniform,
    /// Zipf with exponent 1: key `i` drawn in proportion to `1 / (i + 1)`.
    Zipfian,
    /// 80% of the micro-ops on 20% of the keys.
    Hotspot,
}

/// The shape of the transactions.
#[derive(Clone, Debug)]
pub struct Shape {
    pub kind: Kind,
    /// Micro-ops per transaction, drawn uniformly from `min_ops..=max_ops`.
    pub min_ops: u64,
    pub max_ops: u64,
    pub read_ratio: f64,
    /// rw-register: the fraction of writes not preceded by a read of their key.
    pub blind_writes: f64,
    pub distribution: Distribution,
    /// Keys (list-append: active keys at any time).
    pub keys: u64,
    /// list-append: appends to a key before it is retired.
    pub max_writes_per_key: u64,
}

/// Draws indices `0..n` from a [`Distribution`].
enum Picker {
    Uniform(u64),
    Zipf(Vec<f64>),
    Hotspot { hot: u64, n: u64 },
}

impl Picker {
    fn new(d: Distribution, n: u64) -> Picker {
        match d {
            Distribution::Uniform => Picker::Uniform(n),
            Distribution::Zipfian => {
                let mut sum = 0.0;
                let cdf = (0..n)
                    .map(|i| {
                        sum += 1.0 / (i + 1) as f64;
                        sum
                    })
                    .collect::<Vec<_>>();
                Picker::Zipf(cdf.iter().map(|c| c / sum).collect())
            }
            Distribution::Hotspot => Picker::Hotspot {
                hot: (n / 5).max(1),
                n,
            },
        }
    }

    fn pick(&self, rng: &mut Rng) -> usize {
        match self {
            Picker::Uniform(n) => rng.below(*n) as usize,
            Picker::Zipf(cdf) => {
                let u = rng.unit();
                cdf.partition_point(|&c| c <= u).min(cdf.len() - 1)
            }
            &Picker::Hotspot { hot, n } => {
                if hot == n || rng.chance(0.8) {
                    rng.below(hot) as usize
                } else {
                    (hot + rng.below(n - hot)) as usize
                }
            }
        }
    }
}

/// The client side of a run: plans transactions and hands out values.
pub struct Workload {
    shape: Shape,
    picker: Picker,
    /// The keys the picker's indices stand for.
    slots: Vec<Key>,
    /// Per key, the values handed out so far (the next value is one more).
    written: Vec<u64>,
    /// Keys retired from the pool, with the serial number of the last plan
    /// that could have used them, oldest first.
    retired: VecDeque<(Key, u64)>,
    /// Plans made so far.
    serial: u64,
}

impl Workload {
    pub fn new(shape: Shape) -> Workload {
        let n = shape.keys.max(1);
        Workload {
            picker: Picker::new(shape.distribution, n),
            slots: (0..n).collect(),
            written: vec![0; n as usize],
            retired: VecDeque::new(),
            serial: 0,
            shape,
        }
    }

    pub fn kind(&self) -> Kind {
        self.shape.kind
    }

    /// The serial number the next plan will get.
    pub fn next_serial(&self) -> u64 {
        self.serial
    }

    /// A key no transaction has used.
    pub fn fresh_key(&mut self) -> Key {
        self.written.push(0);
        self.written.len() as Key - 1
    }

    /// A value never written to `key` before.
    pub fn next_value(&mut self, key: Key) -> Value {
        let w = &mut self.written[key as usize];
        *w += 1;
        *w
    }

    /// Retired keys that no transaction planned at or after `oldest_open`
    /// (the serial of the oldest running plan) can touch; the database may
    /// forget them.
    pub fn take_dead_keys(&mut self, oldest_open: u64, dead: &mut Vec<Key>) {
        while let Some(&(key, serial)) = self.retired.front() {
            if serial >= oldest_open {
                break;
            }
            dead.push(key);
            self.retired.pop_front();
        }
    }

    /// The micro-ops of the next transaction.
    pub fn plan(&mut self, rng: &mut Rng) -> Vec<Mop> {
        let len = self.shape.min_ops + rng.below(self.shape.max_ops - self.shape.min_ops + 1);
        let mops = match self.shape.kind {
            Kind::ListAppend => self.plan_appends(rng, len),
            Kind::RwRegister => self.plan_registers(rng, len),
            Kind::MiniTransactions => self.plan_mini(rng),
        };
        self.serial += 1;
        mops
    }

    fn pick_key(&self, rng: &mut Rng) -> (usize, Key) {
        let slot = self.picker.pick(rng);
        (slot, self.slots[slot])
    }

    fn plan_appends(&mut self, rng: &mut Rng, len: u64) -> Vec<Mop> {
        (0..len)
            .map(|_| {
                let (slot, key) = self.pick_key(rng);
                if rng.chance(self.shape.read_ratio) {
                    return Mop::Read(key);
                }
                let value = self.next_value(key);
                if value >= self.shape.max_writes_per_key {
                    self.slots[slot] = self.fresh_key();
                    self.retired.push_back((key, self.serial));
                }
                Mop::Write(key, value)
            })
            .collect()
    }

    /// Writes follow a read of their key (which counts toward `len`) unless
    /// they are blind; with one micro-op left, a write goes to a key already
    /// read, or becomes a read.
    fn plan_registers(&mut self, rng: &mut Rng, len: u64) -> Vec<Mop> {
        let len = len as usize;
        let mut mops = Vec::with_capacity(len + 1);
        while mops.len() < len {
            let (_, mut key) = self.pick_key(rng);
            if rng.chance(self.shape.read_ratio) {
                mops.push(Mop::Read(key));
                continue;
            }
            let read = |k: Key, mops: &[Mop]| mops.contains(&Mop::Read(k));
            if !read(key, &mops) && !rng.chance(self.shape.blind_writes) {
                if mops.len() + 1 < len {
                    mops.push(Mop::Read(key));
                } else if let Some(&Mop::Read(k)) = mops.iter().find(|m| matches!(m, Mop::Read(_)))
                {
                    key = k;
                } else {
                    mops.push(Mop::Read(key));
                    continue;
                }
            }
            mops.push(Mop::Write(key, self.next_value(key)));
        }
        mops
    }

    /// One or two keys (at most `max_ops / 2` rounded up); each is read, then
    /// written with probability `1 - read_ratio`; the per-key sequences are
    /// interleaved at random.
    fn plan_mini(&mut self, rng: &mut Rng) -> Vec<Mop> {
        let max = self.shape.max_ops.min(4);
        let two = max >= 3 && self.slots.len() >= 2 && rng.chance(0.5);
        let (_, first) = self.pick_key(rng);
        let mut keys = vec![first];
        while two && keys.len() < 2 {
            let (_, k) = self.pick_key(rng);
            if k != first {
                keys.push(k);
            }
        }
        let mut per_key: Vec<Vec<Mop>> = keys.iter().map(|&k| vec![Mop::Read(k)]).collect();
        let mut total = keys.len() as u64;
        for (i, &k) in keys.iter().enumerate() {
            if total < max && !rng.chance(self.shape.read_ratio) {
                per_key[i].push(Mop::Write(k, self.next_value(k)));
                total += 1;
            }
        }
        interleave(rng, per_key)
    }
}

/// A random merge of sequences that keeps each one's order.
fn interleave(rng: &mut Rng, mut seqs: Vec<Vec<Mop>>) -> Vec<Mop> {
    seqs.iter_mut().for_each(|s| s.reverse());
    let mut out = Vec::new();
    loop {
        let left: Vec<usize> = (0..seqs.len()).filter(|&i| !seqs[i].is_empty()).collect();
        if left.is_empty() {
            return out;
        }
        let i = left[rng.below(left.len() as u64) as usize];
        out.extend(seqs[i].pop());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(kind: Kind) -> Shape {
        Shape {
            kind,
            min_ops: 1,
            max_ops: 6,
            read_ratio: 0.5,
            blind_writes: 0.0,
            distribution: Distribution::Uniform,
            keys: 5,
            max_writes_per_key: 4,
        }
    }

    #[test]
    fn register_writes_follow_reads_of_their_key() {
        let mut w = Workload::new(shape(Kind::RwRegister));
        let mut rng = Rng::new(1);
        for _ in 0..2000 {
            let mops = w.plan(&mut rng);
            assert!(!mops.is_empty() && mops.len() <= 6, "{mops:?}");
            for (i, m) in mops.iter().enumerate() {
                if let Mop::Write(k, _) = *m {
                    assert!(mops[..i].contains(&Mop::Read(k)), "{mops:?}");
                }
            }
        }
    }

    #[test]
    fn mini_transactions_have_their_shape() {
        let mut w = Workload::new(shape(Kind::MiniTransactions));
        let mut rng = Rng::new(2);
        for _ in 0..2000 {
            let mops = w.plan(&mut rng);
            let reads = mops.iter().filter(|m| matches!(m, Mop::Read(_))).count();
            assert!(mops.len() <= 4 && reads <= 2 && mops.len() - reads <= 2);
            for (i, m) in mops.iter().enumerate() {
                if let Mop::Write(k, _) = *m {
                    assert!(mops[..i].contains(&Mop::Read(k)), "{mops:?}");
                }
            }
        }
    }

    #[test]
    fn values_are_unique_per_key_and_keys_retire() {
        let mut w = Workload::new(shape(Kind::ListAppend));
        let mut rng = Rng::new(3);
        let mut seen = std::collections::HashSet::new();
        for _ in 0..500 {
            for m in w.plan(&mut rng) {
                if let Mop::Write(k, v) = m {
                    assert!(seen.insert((k, v)));
                    assert!(v <= 4);
                }
            }
        }
        let mut dead = Vec::new();
        w.take_dead_keys(u64::MAX, &mut dead);
        assert!(dead.len() > 50);
    }

    #[test]
    fn hotspot_and_zipf_favour_low_keys() {
        for d in [Distribution::Hotspot, Distribution::Zipfian] {
            let p = Picker::new(d, 100);
            let mut rng = Rng::new(4);
            let low = (0..10_000).filter(|_| p.pick(&mut rng) < 20).count();
            assert!(low > 5_000, "{d:?}: {low}");
        }
    }
}

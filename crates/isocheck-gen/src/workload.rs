//! What the clients ask for: the micro-ops of each transaction, over keys
//! drawn from a distribution, with values unique per key unless asked to
//! repeat them (`Shape::duplicate_values`).
//!
//! Every workload keeps a pool of `keys` active keys and retires a key after
//! `max_writes_per_key` writes (as Jepsen's generators do), so lists stay
//! short and each key's versions few however long the run (the command line
//! retires only list-append keys unless asked). Keys beyond those are handed
//! out fresh by [`Workload::fresh_key`] (the forced fault scenarios use
//! them). What the workload knows of a key goes once the plan that retires
//! it is made, so a long run holds only the keys in use.

use super::rng::Rng;
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};

pub type Key = u64;
pub type Value = u64;

/// A map by key for the keys in use, looked up at every micro-op: key ids
/// grow for ever, so a vector by key id would too. Nothing iterates it, so
/// its order changes no history.
pub type KeyMap<V> = HashMap<Key, V, BuildHasherDefault<KeyHasher>>;

/// Hashes a key with one multiply. Keys are handed out in sequence and
/// nobody chooses them to collide, so SipHash's defence buys nothing (a
/// `BTreeMap` made rw-register `gen` with 1,000 keys half as slow again).
/// The product's low bits, the table's index, take consecutive keys to
/// distinct buckets, and its high bits, the table's tags, mix every bit
/// of the key.
#[derive(Default)]
pub struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(self.0 << 8 | u64::from(b));
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

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
    /// Key `i` drawn in proportion to `2^-i`, as Elle's `wr-txns` and
    /// `append-txns` do (`:key-dist :exponential`, base 2).
    Exponential,
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
    /// rw-register and mini-transactions: the probability that a write
    /// repeats a value already written to its key (one of them, uniformly,
    /// the current one included) rather than a fresh one. 0: every value
    /// is unique, and no random draw is spent on it.
    pub duplicate_values: f64,
    pub distribution: Distribution,
    /// Keys (list-append: active keys at any time).
    pub keys: u64,
    /// Writes to a key before it is retired (`u64::MAX`: never).
    pub max_writes_per_key: u64,
}

/// Draws indices `0..n` from a [`Distribution`].
enum Picker {
    Uniform(u64),
    /// A cumulative distribution over the indices.
    Cdf(Vec<f64>),
    Hotspot {
        hot: u64,
        n: u64,
    },
}

impl Picker {
    fn new(d: Distribution, n: u64) -> Picker {
        match d {
            Distribution::Uniform => Picker::Uniform(n),
            Distribution::Zipfian => Picker::cdf(n, |i| 1.0 / (i + 1) as f64),
            // Weights past 2^-1074 are zero: those keys are never drawn.
            Distribution::Exponential => Picker::cdf(n, |i| 0.5f64.powi(i.min(2000) as i32)),
            Distribution::Hotspot => Picker::Hotspot {
                hot: (n / 5).max(1),
                n,
            },
        }
    }

    /// Indices `0..n` drawn in proportion to their weights.
    fn cdf(n: u64, weight: impl Fn(u64) -> f64) -> Picker {
        let mut sum = 0.0;
        let cdf = (0..n)
            .map(|i| {
                sum += weight(i);
                sum
            })
            .collect::<Vec<_>>();
        Picker::Cdf(cdf.iter().map(|c| c / sum).collect())
    }

    fn pick(&self, rng: &mut Rng) -> usize {
        match self {
            Picker::Uniform(n) => rng.below(*n) as usize,
            Picker::Cdf(cdf) => {
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

/// What the workload knows of a key in use.
#[derive(Clone, Copy, Default)]
struct Counts {
    /// The values handed out so far (the next value is one more).
    written: u64,
    /// The writes planned so far, repeated values included: the key
    /// retires after `max_writes_per_key` of them.
    writes: u64,
}

/// The client side of a run: plans transactions and hands out values.
pub struct Workload {
    shape: Shape,
    picker: Picker,
    /// The keys the picker's indices stand for.
    slots: Vec<Key>,
    /// The keys in use: the pool's, those the plan being made retired, and
    /// those [`Workload::fresh_key`] handed out.
    keys: KeyMap<Counts>,
    /// The key [`Workload::fresh_key`] hands out next.
    next_key: Key,
    /// Keys the plan being made retired: it may still ask whether they
    /// are active, so they go once it is made.
    retiring: Vec<Key>,
    /// Keys retired from the pool, with the serial number of the last plan
    /// that could have used them, oldest first.
    retired: VecDeque<(Key, u64)>,
    /// Whether retired keys are kept in `retired` for
    /// [`Workload::take_dead_keys`].
    keep_retired: bool,
    /// Plans made so far.
    serial: u64,
}

impl Workload {
    pub fn new(shape: Shape) -> Workload {
        let n = shape.keys.max(1);
        Workload {
            picker: Picker::new(shape.distribution, n),
            slots: (0..n).collect(),
            keys: (0..n).map(|k| (k, Counts::default())).collect(),
            next_key: n,
            retiring: Vec::new(),
            retired: VecDeque::new(),
            keep_retired: true,
            serial: 0,
            shape,
        }
    }

    /// Keeps no retired keys for [`Workload::take_dead_keys`]: for a run
    /// whose database forgets nothing, which never asks for them.
    pub fn without_dead_keys(mut self) -> Workload {
        self.keep_retired = false;
        self
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
        let key = self.next_key;
        self.next_key += 1;
        self.keys.insert(key, Counts::default());
        key
    }

    /// A value never written to `key` before.
    pub fn next_value(&mut self, key: Key) -> Value {
        let counts = self.keys.entry(key).or_default();
        counts.written += 1;
        counts.written
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
        for key in self.retiring.drain(..) {
            self.keys.remove(&key);
        }
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
                Mop::Write(key, self.write_value(rng, Some(slot), key))
            })
            .collect()
    }

    /// A value for a write to an active key, retiring the key (a fresh one
    /// takes its slot) once it has had its writes. `slot` is the key's slot
    /// when the caller knows it: otherwise it is looked up, only then.
    fn write_value(&mut self, rng: &mut Rng, slot: Option<usize>, key: Key) -> Value {
        let value = self
            .repeated_value(rng, key)
            .unwrap_or_else(|| self.next_value(key));
        let counts = self.keys.entry(key).or_default();
        counts.writes += 1;
        if counts.writes >= self.shape.max_writes_per_key {
            let slot = slot.or_else(|| self.slots.iter().position(|&s| s == key));
            if let Some(slot) = slot {
                self.slots[slot] = self.fresh_key();
                self.retire(key);
            }
        }
        value
    }

    /// Takes `key`, just out of the pool, off the keys in use once the
    /// plan is made (and keeps it for [`Workload::take_dead_keys`]).
    fn retire(&mut self, key: Key) {
        self.retiring.push(key);
        if self.keep_retired {
            self.retired.push_back((key, self.serial));
        }
    }

    /// With probability `duplicate_values`, one of the values already
    /// handed out for `key`, drawn uniformly. None when the rate is 0
    /// without drawing, so that such a run draws as it did before the
    /// option existed (its histories unchanged, byte for byte).
    fn repeated_value(&self, rng: &mut Rng, key: Key) -> Option<Value> {
        let rate = self.shape.duplicate_values;
        let earlier = if rate > 0.0 {
            self.keys.get(&key).map_or(0, |c| c.written)
        } else {
            0
        };
        (earlier > 0 && rng.chance(rate)).then(|| 1 + rng.below(earlier))
    }

    /// Whether writes to `key` may still come (it is not retired).
    fn active(&self, key: Key) -> bool {
        let writes = self.keys.get(&key).map_or(u64::MAX, |c| c.writes);
        writes < self.shape.max_writes_per_key
    }

    /// Writes follow a read of their key (which counts toward `len`) unless
    /// they are blind; with one micro-op left, a write goes to a key already
    /// read that is still active, or becomes a read.
    fn plan_registers(&mut self, rng: &mut Rng, len: u64) -> Vec<Mop> {
        let len = len as usize;
        let mut mops = Vec::with_capacity(len + 1);
        while mops.len() < len {
            let (slot, mut key) = self.pick_key(rng);
            let mut slot = Some(slot);
            if rng.chance(self.shape.read_ratio) {
                mops.push(Mop::Read(key));
                continue;
            }
            let read = |k: Key, mops: &[Mop]| mops.contains(&Mop::Read(k));
            if !read(key, &mops) && !rng.chance(self.shape.blind_writes) {
                if mops.len() + 1 < len {
                    mops.push(Mop::Read(key));
                } else if let Some(k) = self.active_read(&mops) {
                    (slot, key) = (None, k);
                } else {
                    mops.push(Mop::Read(key));
                    continue;
                }
            }
            mops.push(Mop::Write(key, self.write_value(rng, slot, key)));
        }
        mops
    }

    /// The first key the micro-ops read that is still active.
    fn active_read(&self, mops: &[Mop]) -> Option<Key> {
        mops.iter().find_map(|m| match *m {
            Mop::Read(k) if self.active(k) => Some(k),
            _ => None,
        })
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
                per_key[i].push(Mop::Write(k, self.write_value(rng, None, k)));
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
            duplicate_values: 0.0,
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
    fn only_the_keys_in_use_are_kept() {
        for kind in [Kind::ListAppend, Kind::RwRegister, Kind::MiniTransactions] {
            let mut w = Workload::new(shape(kind));
            let mut rng = Rng::new(9);
            for _ in 0..5000 {
                w.plan(&mut rng);
            }
            assert!(w.next_key > 500, "{kind:?}: {}", w.next_key);
            // The pool's five keys: the retired ones went with their plans.
            assert_eq!(w.keys.len(), 5, "{kind:?}");
            let mut dead = Vec::new();
            w.take_dead_keys(u64::MAX, &mut dead);
            assert_eq!(dead.len() as u64, w.next_key - 5, "{kind:?}");
        }
    }

    #[test]
    fn without_dead_keys_none_are_kept() {
        let mut w = Workload::new(shape(Kind::ListAppend)).without_dead_keys();
        let mut rng = Rng::new(10);
        for _ in 0..1000 {
            w.plan(&mut rng);
        }
        assert!(w.next_key > 100 && w.retired.is_empty());
    }

    #[test]
    fn exponential_halves_each_next_key() {
        let p = Picker::new(Distribution::Exponential, 10);
        let mut rng = Rng::new(5);
        let mut count = [0u32; 10];
        for _ in 0..100_000 {
            count[p.pick(&mut rng)] += 1;
        }
        // Expected 50,000 / 25,000 / 12,500: within 5% each.
        for (i, &c) in count[..3].iter().enumerate() {
            let expected = 100_000.0 * 0.5f64.powi(i as i32 + 1) / (1.0 - 0.5f64.powi(10));
            assert!((c as f64 - expected).abs() < expected * 0.05, "{i}: {c}");
        }
    }

    #[test]
    fn register_keys_retire_after_their_writes() {
        let mut s = shape(Kind::RwRegister);
        s.blind_writes = 0.5;
        s.distribution = Distribution::Exponential;
        let mut w = Workload::new(s);
        let mut rng = Rng::new(6);
        let mut written: std::collections::HashMap<Key, u64> = Default::default();
        for _ in 0..2000 {
            for m in w.plan(&mut rng) {
                if let Mop::Write(k, v) = m {
                    assert_eq!(v, written.get(&k).copied().unwrap_or(0) + 1, "{k}");
                    written.insert(k, v);
                }
            }
        }
        assert!(written.values().all(|&v| v <= 4));
        let mut dead = Vec::new();
        w.take_dead_keys(u64::MAX, &mut dead);
        assert!(dead.len() > 100, "{}", dead.len());
        assert!(dead.iter().all(|k| written[k] == 4));
    }

    /// Per key, the writes of `n` plans, in plan order.
    fn planned_writes(w: &mut Workload, seed: u64, n: usize) -> Vec<Vec<Value>> {
        let mut rng = Rng::new(seed);
        let mut writes: Vec<Vec<Value>> = Vec::new();
        for _ in 0..n {
            for m in w.plan(&mut rng) {
                if let Mop::Write(k, v) = m {
                    writes.resize(writes.len().max(k as usize + 1), Vec::new());
                    writes[k as usize].push(v);
                }
            }
        }
        writes
    }

    #[test]
    fn repeated_values_come_at_their_rate_from_the_keys_earlier_values() {
        let mut s = shape(Kind::RwRegister);
        (s.duplicate_values, s.max_writes_per_key) = (0.3, 8);
        let mut w = Workload::new(s);
        let (mut repeats, mut later, mut of_current, mut of_older) = (0, 0, 0, 0);
        for vs in planned_writes(&mut w, 7, 3000) {
            let (mut most, mut current) = (0, 0);
            for v in vs {
                if most > 0 {
                    later += 1;
                    repeats += u32::from(v <= most);
                    of_current += u32::from(v == current);
                    of_older += u32::from(v < most && v != current);
                }
                // A value is a repeat or the next fresh one.
                assert!(v >= 1 && v <= most + 1, "{v} after {most}");
                (most, current) = (most.max(v), v);
            }
        }
        let rate = f64::from(repeats) / f64::from(later);
        assert!((rate - 0.3).abs() < 0.03, "{repeats} of {later}");
        assert!(of_current > 50 && of_older > 50, "{of_current} {of_older}");
    }

    #[test]
    fn repeated_writes_count_toward_retirement() {
        let mut s = shape(Kind::MiniTransactions);
        s.duplicate_values = 1.0;
        let mut w = Workload::new(s);
        let writes = planned_writes(&mut w, 8, 2000);
        let mut dead = Vec::new();
        w.take_dead_keys(u64::MAX, &mut dead);
        assert!(dead.len() > 50, "{}", dead.len());
        // At rate 1 only a key's first write is fresh.
        for k in dead {
            assert_eq!(writes[k as usize], [1, 1, 1, 1], "{k}");
        }
    }

    #[test]
    fn hotspot_zipf_and_exponential_favour_low_keys() {
        for d in [
            Distribution::Hotspot,
            Distribution::Zipfian,
            Distribution::Exponential,
        ] {
            let p = Picker::new(d, 100);
            let mut rng = Rng::new(4);
            let low = (0..10_000).filter(|_| p.pick(&mut rng) < 20).count();
            assert!(low > 5_000, "{d:?}: {low}");
        }
    }
}

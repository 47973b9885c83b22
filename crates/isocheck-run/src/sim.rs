//! `--db sim:<level>`: the simulated databases of `gen` behind the
//! [`Database`] interface, driven by real client threads. The store is
//! `gen::db::Db` behind a mutex; each connection holds one of its thread
//! slots. Levels that `gen` runs at commit (the serializable ones) hold a
//! token from begin to the end of the transaction, so transactions run one
//! at a time, each at an instant within its interval. Every commit's
//! timestamp is recorded: `Db` installs each key's versions in the order
//! of their commit timestamps, whatever the level. Closed-predicate's
//! deletes and predicate reads are `Db`'s.

use super::backend::{CommitOrder, CommitStamp, Connection, Database, DbError, Statements};
use super::predicate::Pred;
use isocheck_gen::db::{Conflict, Db};
use isocheck_gen::workload::{Key, Value};
use isocheck_gen::Level;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

/// Connections beyond the run's processes (a client reconnecting before
/// its old connection is dropped).
const SPARE_SLOTS: usize = 8;

pub struct Sim {
    shared: Arc<Shared>,
}

struct Shared {
    level: Level,
    db: Mutex<Db>,
    /// Thread slots of `db` no connection holds.
    free: Mutex<Vec<usize>>,
    /// Whether a transaction holds the serial token, and its waiters.
    serial: Mutex<bool>,
    released: Condvar,
}

impl Sim {
    /// A simulated database at `level` for `processes` clients; `list` if
    /// reads return whole lists.
    pub fn new(level: Level, processes: usize, list: bool) -> Sim {
        let slots = processes + SPARE_SLOTS;
        Sim {
            shared: Arc::new(Shared {
                level,
                db: Mutex::new(Db::new(slots, list)),
                free: Mutex::new((0..slots).rev().collect()),
                serial: Mutex::new(false),
                released: Condvar::new(),
            }),
        }
    }
}

/// A lock whose holder panicked still guards consistent data: every
/// critical section here (and the clients' plans, `client.rs`) leaves its
/// data whole between its calls.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Database for Sim {
    fn setup(&self) -> Result<(), DbError> {
        Ok(())
    }

    fn forget(&self, keys: &[Key]) {
        let mut db = lock(&self.shared.db);
        for &k in keys {
            db.forget(k);
        }
    }

    fn forgets(&self) -> bool {
        true
    }

    fn connect(&self) -> Result<Box<dyn Connection>, DbError> {
        let slot = lock(&self.shared.free)
            .pop()
            .ok_or_else(|| DbError::lost("too-many-connections", "every slot is taken"))?;
        Ok(Box::new(SimConnection {
            shared: Arc::clone(&self.shared),
            slot,
            holds_token: false,
        }))
    }

    fn commit_order(&self) -> CommitOrder {
        CommitOrder::Recorded("the simulated database's commit timestamps")
    }
}

struct SimConnection {
    shared: Arc<Shared>,
    slot: usize,
    holds_token: bool,
}

impl SimConnection {
    fn take_token(&mut self) {
        let mut busy = lock(&self.shared.serial);
        while *busy {
            busy = self
                .shared
                .released
                .wait(busy)
                .unwrap_or_else(|e| e.into_inner());
        }
        *busy = true;
        self.holds_token = true;
    }

    fn release_token(&mut self) {
        if std::mem::take(&mut self.holds_token) {
            *lock(&self.shared.serial) = false;
            self.shared.released.notify_one();
        }
    }
}

fn conflict(_: Conflict) -> DbError {
    DbError::rejected("conflict", "the simulated database aborted the transaction")
}

impl Statements for SimConnection {
    fn begin(&mut self, _read_only: bool) -> Result<(), DbError> {
        let level = self.shared.level;
        if level.at_commit() {
            self.take_token();
        }
        let mut db = lock(&self.shared.db);
        let view = level.view(db.clock());
        db.begin(self.slot, view, level.rules(None));
        Ok(())
    }

    fn read(&mut self, key: Key, out: &mut Vec<Value>) -> Result<(), DbError> {
        lock(&self.shared.db).read(self.slot, key, out);
        Ok(())
    }

    fn write(&mut self, key: Key, value: Value) -> Result<(), DbError> {
        let result = lock(&self.shared.db).write(self.slot, key, value);
        result.map_err(conflict)
    }

    fn delete(&mut self, key: Key) -> Result<(), DbError> {
        let result = lock(&self.shared.db).delete(self.slot, key);
        result.map_err(conflict)
    }

    fn select(&mut self, pred: Pred, out: &mut Vec<(Key, Value)>) -> Result<(), DbError> {
        lock(&self.shared.db).select(self.slot, |v| pred.matches(v), out);
        Ok(())
    }

    fn commit(&mut self) -> Result<CommitStamp, DbError> {
        let result = lock(&self.shared.db).commit(self.slot);
        self.release_token();
        result.map(Some).map_err(conflict)
    }

    fn abort(&mut self) {
        lock(&self.shared.db).abort(self.slot);
        self.release_token();
    }
}

impl Drop for SimConnection {
    fn drop(&mut self) {
        self.abort();
        lock(&self.shared.free).push(self.slot);
    }
}

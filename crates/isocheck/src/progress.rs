//! How far a check is, for whoever listens (the binary's progress display):
//! the library never prints, it hands each stage it enters and each count it
//! makes to the one [`Listener`] given to [`listen`].
//!
//! Counts ride on the limits' polls (`limits::tick`, `limits::tick_of`,
//! `limits::at`): a loop that polls the limits reports with them, every
//! `limits::TICKS_PER_POLL` steps, so no loop needs plumbing of its own, and
//! a check nobody listens to pays one atomic load a poll. Code that must not
//! poll (the solver's callbacks, pruning's rounds) calls [`report`], which
//! only tells the listener.

use crate::limits::Stage;
use std::sync::OnceLock;

/// What a count counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Bytes of the input parsed.
    Bytes,
    /// Ops paired into transactions.
    Ops,
    /// Transactions gone through.
    Transactions,
    /// Strongly connected components searched for cycles.
    Components,
    /// Constraints built, or decided by pruning.
    Constraints,
    /// Cycles the solver found in a candidate order and blocked.
    Cycles,
    /// Steps of a loop with no natural unit (a renderer's items).
    Steps,
}

impl Unit {
    /// The unit's plural noun, for people.
    pub fn name(self) -> &'static str {
        match self {
            Unit::Bytes => "bytes",
            Unit::Ops => "ops",
            Unit::Transactions => "transactions",
            Unit::Components => "components",
            Unit::Constraints => "constraints",
            Unit::Cycles => "cycles blocked",
            Unit::Steps => "steps",
        }
    }
}

/// How far the current stage is: `done` units of `total` (when known).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Count {
    /// Units done so far.
    pub done: u64,
    /// Units in all, when known.
    pub total: Option<u64>,
    /// What is counted.
    pub unit: Unit,
}

impl Count {
    /// Nothing counted yet.
    pub const NONE: Count = Count {
        done: 0,
        total: None,
        unit: Unit::Steps,
    };

    /// `done` of `total` (a `total` of 0 is unknown).
    pub fn of(done: usize, total: usize, unit: Unit) -> Count {
        Count {
            done: done as u64,
            total: (total > 0).then_some(total as u64),
            unit,
        }
    }
}

/// Told what a check does as it does it. Calls come from the checking
/// thread and, for [`report`], from the solver's worker threads; they must
/// be quick (a poll waits for them) and must not unwind.
pub trait Listener: Sync {
    /// The check entered `stage`; `about` names what it works on (the model
    /// the solver decides), or is empty.
    fn stage(&self, stage: Stage, about: &'static str);
    /// How far the current stage is.
    fn count(&self, count: Count);
}

static LISTENER: OnceLock<&'static dyn Listener> = OnceLock::new();

/// Hands every check's progress in this process to `listener` (the first
/// one given holds).
pub fn listen(listener: &'static dyn Listener) {
    let _ = LISTENER.set(listener);
}

/// Tells the listener, if any, that a stage began.
pub(crate) fn entered(stage: Stage, about: &'static str) {
    if let Some(l) = LISTENER.get() {
        l.stage(stage, about);
    }
}

/// Tells the listener, if any, how far the current stage is. Safe anywhere:
/// it does not poll the limits.
pub fn report(count: Count) {
    if let Some(l) = LISTENER.get() {
        l.count(count);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits;
    use std::sync::Mutex;
    use std::thread::ThreadId;

    /// What the listener heard from one thread (tests run side by side, and
    /// the listener is the process's).
    struct Heard {
        thread: Mutex<Option<ThreadId>>,
        said: Mutex<Vec<Result<Stage, Count>>>,
    }

    static HEARD: Heard = Heard {
        thread: Mutex::new(None),
        said: Mutex::new(Vec::new()),
    };

    impl Heard {
        fn hear(&self, what: Result<Stage, Count>) {
            let mine = *self.thread.lock().unwrap_or_else(|e| e.into_inner());
            if mine == Some(std::thread::current().id()) {
                self.said
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(what);
            }
        }
    }

    impl Listener for Heard {
        fn stage(&self, stage: Stage, _about: &'static str) {
            self.hear(Ok(stage));
        }

        fn count(&self, count: Count) {
            self.hear(Err(count));
        }
    }

    /// Stages are told as they begin; counts ride on the polls, in the
    /// loop's own units where it gives them, else in steps.
    #[test]
    fn a_check_tells_its_stages_and_counts_at_its_polls() {
        listen(&HEARD);
        *HEARD.thread.lock().unwrap_or_else(|e| e.into_inner()) = Some(std::thread::current().id());
        let ran = limits::run(None, || {
            limits::stage(Stage::Inference);
            for t in 0..3000 {
                limits::tick_of(t, 3000, Unit::Transactions);
            }
            limits::stage(Stage::Report);
            for _ in 0..2048 {
                limits::tick();
            }
        });
        assert!(ran.is_ok());
        let said = std::mem::take(&mut *HEARD.said.lock().unwrap_or_else(|e| e.into_inner()));
        let heard: Vec<_> = said
            .into_iter()
            .filter(|s| *s != Err(Count::NONE))
            .collect();
        let of = |done, total, unit| Err(Count { done, total, unit });
        assert_eq!(
            heard,
            vec![
                Ok(Stage::Inference),
                of(1023, Some(3000), Unit::Transactions),
                of(2047, Some(3000), Unit::Transactions),
                Ok(Stage::Report),
                of(1024, None, Unit::Steps),
                of(2048, None, Unit::Steps),
            ]
        );
    }
}

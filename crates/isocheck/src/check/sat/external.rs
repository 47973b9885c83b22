//! CaDiCaL with an external propagator (IPASIR-UP), reached through the
//! small C face in `cpp/propagator.cpp`: the solver tells a [`Theory`] each
//! assignment and backtrack of the variables it observes, and the theory
//! answers with clauses as soon as a partial assignment breaks it, instead
//! of waiting for a complete model.
//!
//! Every call into the solver is guarded (`limits::guarded`): a C++
//! allocation over the memory budget, or one the system refuses, fails
//! inside CaDiCaL, the C face catches it, and the solver stops with the
//! memory limit; after that the solver is asked nothing more. The
//! terminator stops it too at the deadline, or when the memory in use
//! (the theory's included) goes over the budget.

use super::{Lit, Outcome};
use crate::limits;
use std::os::raw::{c_int, c_void};
use std::time::Instant;

/// What the solver tells a theory, and what it asks of it.
pub trait Theory {
    /// Literals of observed variables became true, in trail order.
    fn assign(&mut self, lits: &[Lit]);
    /// A decision opened a new level.
    fn new_level(&mut self);
    /// Every assignment above decision level `level` was undone.
    fn backtrack(&mut self, level: usize);
    /// Whether a complete model (its observed literals) is acceptable. When
    /// not, the theory must have a clause to give.
    fn accept(&mut self, model: &[Lit]) -> bool;
    /// The next clause the solver must learn, if any.
    fn next_clause(&mut self) -> Option<Vec<Lit>>;
    /// The next decision, an unassigned observed literal, or `None` to let
    /// the solver choose.
    fn decide(&mut self) -> Option<Lit> {
        None
    }
}

#[repr(C)]
struct Callbacks {
    data: *mut c_void,
    notify_assignment: extern "C" fn(*mut c_void, *const c_int, usize),
    notify_new_decision_level: extern "C" fn(*mut c_void),
    notify_backtrack: extern "C" fn(*mut c_void, usize),
    check_found_model: extern "C" fn(*mut c_void, *const c_int, usize) -> bool,
    has_external_clause: extern "C" fn(*mut c_void) -> bool,
    add_external_clause_lit: extern "C" fn(*mut c_void) -> c_int,
    terminate: extern "C" fn(*mut c_void) -> bool,
    decide: extern "C" fn(*mut c_void) -> c_int,
}

#[repr(C)]
struct RawSolver {
    _private: [u8; 0],
}

// The calls that can allocate return a status: negative when they failed.
extern "C" {
    fn iso_new(cb: Callbacks, status: *mut c_int) -> *mut RawSolver;
    fn iso_delete(s: *mut RawSolver, failed: bool);
    fn iso_observe(s: *mut RawSolver, var: c_int) -> c_int;
    // A problem's own clauses are added here; the rest go through rustsat.
    fn iso_add(s: *mut RawSolver, lit: c_int) -> c_int;
    fn iso_assume(s: *mut RawSolver, lit: c_int) -> c_int;
    fn iso_phase(s: *mut RawSolver, lit: c_int) -> c_int;
    fn iso_solve(s: *mut RawSolver) -> c_int;
    // Values go through rustsat; this serves the unit tests.
    #[cfg(test)]
    fn iso_val(s: *mut RawSolver, lit: c_int) -> c_int;
    fn iso_failed(s: *mut RawSolver, lit: c_int) -> c_int;
}

/// The C face's status when an allocation failed (`OUT_OF_MEMORY`), and
/// when the solver threw anything else (`FAILED`).
const OUT_OF_MEMORY: c_int = -1;

/// Why a call failed, from its status; `None` when it did not.
fn failure(status: c_int) -> Option<String> {
    match status {
        OUT_OF_MEMORY => Some(limits::MEMORY_LIMIT.to_string()),
        s if s < 0 => Some("SAT solver error: CaDiCaL threw an exception".to_string()),
        _ => None,
    }
}

/// The theory and the state of the clause being handed over, as the
/// callbacks see them.
struct Host<T> {
    theory: T,
    deadline: Option<Instant>,
    /// The terminator stopped the solver because memory ran over.
    over_budget: bool,
    clause: Vec<c_int>,
    next: usize,
    lits: Vec<Lit>,
}

/// A CaDiCaL solver with a theory connected.
pub struct Propagating<T: Theory> {
    /// Null when the solver could not be made.
    raw: *mut RawSolver,
    /// Why a call failed: every later call does nothing, and `solve` stops
    /// with it.
    failed: Option<String>,
    host: *mut Host<T>,
    vars: u32,
    assumptions: Vec<Lit>,
    /// Solver calls made.
    pub calls: u32,
}

fn to_int(lit: Lit) -> c_int {
    lit.0.to_ipasir()
}

fn from_int(lit: c_int) -> Option<Lit> {
    rustsat::types::Lit::from_ipasir(lit).ok().map(Lit)
}

/// The C ints of a callback as literals, into `out`.
///
/// # Safety
/// `ptr` points to `len` ints (or `len` is 0).
unsafe fn read_lits(ptr: *const c_int, len: usize, out: &mut Vec<Lit>) {
    out.clear();
    if len == 0 || ptr.is_null() {
        return;
    }
    let ints = std::slice::from_raw_parts(ptr, len);
    out.extend(ints.iter().filter_map(|&i| from_int(i)));
}

/// # Safety
/// `data` is the `Host<T>` this solver registered, and the solver only
/// calls back from inside `iso_solve`, while nothing else touches it.
unsafe fn host<'a, T>(data: *mut c_void) -> &'a mut Host<T> {
    &mut *(data as *mut Host<T>)
}

extern "C" fn on_assignment<T: Theory>(data: *mut c_void, ptr: *const c_int, len: usize) {
    // SAFETY: see `host` and `read_lits`; CaDiCaL passes a vector's data.
    let h = unsafe { host::<T>(data) };
    let mut lits = std::mem::take(&mut h.lits);
    unsafe { read_lits(ptr, len, &mut lits) };
    h.theory.assign(&lits);
    h.lits = lits;
}

extern "C" fn on_new_level<T: Theory>(data: *mut c_void) {
    // SAFETY: see `host`.
    unsafe { host::<T>(data) }.theory.new_level();
}

extern "C" fn on_backtrack<T: Theory>(data: *mut c_void, level: usize) {
    // SAFETY: see `host`.
    unsafe { host::<T>(data) }.theory.backtrack(level);
}

extern "C" fn on_model<T: Theory>(data: *mut c_void, ptr: *const c_int, len: usize) -> bool {
    // SAFETY: see `host` and `read_lits`.
    let h = unsafe { host::<T>(data) };
    let mut lits = std::mem::take(&mut h.lits);
    unsafe { read_lits(ptr, len, &mut lits) };
    let accepted = h.theory.accept(&lits);
    h.lits = lits;
    accepted
}

extern "C" fn on_has_clause<T: Theory>(data: *mut c_void) -> bool {
    // SAFETY: see `host`.
    let h = unsafe { host::<T>(data) };
    if h.next < h.clause.len() {
        return true;
    }
    match h.theory.next_clause() {
        Some(clause) => {
            h.clause.clear();
            h.clause.extend(clause.into_iter().map(to_int));
            h.clause.push(0);
            h.next = 0;
            true
        }
        None => false,
    }
}

extern "C" fn on_clause_lit<T: Theory>(data: *mut c_void) -> c_int {
    // SAFETY: see `host`.
    let h = unsafe { host::<T>(data) };
    let lit = h.clause.get(h.next).copied().unwrap_or(0);
    h.next += 1;
    lit
}

extern "C" fn on_terminate<T: Theory>(data: *mut c_void) -> bool {
    // SAFETY: see `host`.
    let h = unsafe { host::<T>(data) };
    h.over_budget = limits::over_budget();
    h.over_budget || h.deadline.is_some_and(|d| Instant::now() >= d)
}

extern "C" fn on_decide<T: Theory>(data: *mut c_void) -> c_int {
    // SAFETY: see `host`.
    let h = unsafe { host::<T>(data) };
    h.theory.decide().map_or(0, to_int)
}

impl<T: Theory> Propagating<T> {
    pub fn new(theory: T, deadline: Option<Instant>) -> Propagating<T> {
        let host = Box::into_raw(Box::new(Host {
            theory,
            deadline,
            over_budget: false,
            clause: Vec::new(),
            next: 0,
            lits: Vec::new(),
        }));
        let callbacks = Callbacks {
            data: host as *mut c_void,
            notify_assignment: on_assignment::<T>,
            notify_new_decision_level: on_new_level::<T>,
            notify_backtrack: on_backtrack::<T>,
            check_found_model: on_model::<T>,
            has_external_clause: on_has_clause::<T>,
            add_external_clause_lit: on_clause_lit::<T>,
            terminate: on_terminate::<T>,
            decide: on_decide::<T>,
        };
        let mut status = 0;
        // SAFETY: the callbacks match the C declarations; `host` outlives
        // the solver (both are freed in `drop`, the solver first).
        let raw = limits::guarded(|| unsafe { iso_new(callbacks, &mut status) });
        Propagating {
            raw,
            failed: failure(status),
            host,
            vars: 0,
            assumptions: Vec::new(),
            calls: 0,
        }
    }

    /// The theory, between solver calls.
    pub fn theory(&mut self) -> &mut T {
        // SAFETY: no solver call is running (it would hold `&mut self`).
        unsafe { &mut (*self.host).theory }
    }

    /// The theory, between solver calls.
    pub fn theory_ref(&self) -> &T {
        // SAFETY: no solver call is running (it would hold `&mut self`).
        unsafe { &(*self.host).theory }
    }

    /// A fresh variable, as its positive literal; `observed` variables are
    /// the ones the theory hears about.
    pub fn var(&mut self, observed: bool) -> Lit {
        self.vars += 1;
        let lit = Lit(rustsat::types::Lit::positive(self.vars - 1));
        if observed {
            self.call(iso_observe, to_int(lit));
        }
        lit
    }

    /// Adds a clause (a failure is recorded, and reported by `solve`).
    pub fn clause(&mut self, lits: &[Lit]) {
        for &l in lits {
            self.call(iso_add, to_int(l));
        }
        // 0 ends the clause.
        self.call(iso_add, 0);
    }

    /// Asks the solver to try `lit` true first.
    pub fn prefer(&mut self, lit: Lit) {
        self.call(iso_phase, to_int(lit));
    }

    /// Calls `f` on the solver with `arg` (a literal, or 0 to end a
    /// clause), guarded, unless a call failed before; records a failure.
    fn call(&mut self, f: unsafe extern "C" fn(*mut RawSolver, c_int) -> c_int, arg: c_int) {
        if self.failed.is_some() {
            return;
        }
        // SAFETY: `raw` is a live solver (not null: `failed` would say
        // so), and `f` one of the C face's calls taking a literal.
        let status = limits::guarded(|| unsafe { f(self.raw, arg) });
        self.failed = failure(status);
    }

    pub fn solve(&mut self, assumptions: &[Lit]) -> Outcome {
        // SAFETY: `host` is live; no solver call is running.
        let deadline = unsafe { (*self.host).deadline };
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return Outcome::Stopped(limits::TIMEOUT.into());
        }
        self.calls += 1;
        self.assumptions = assumptions.to_vec();
        for &l in assumptions {
            self.call(iso_assume, to_int(l));
        }
        if let Some(why) = &self.failed {
            return Outcome::Stopped(why.clone());
        }
        // SAFETY: `raw` is a live solver; the callbacks reach `host` only
        // during this call.
        let status = limits::guarded(|| unsafe { iso_solve(self.raw) });
        self.failed = failure(status);
        // SAFETY: the call is over; `host` is live.
        let over_budget = unsafe { (*self.host).over_budget };
        match (status, &self.failed) {
            (10, _) => Outcome::Sat,
            (20, _) => Outcome::Unsat,
            (_, Some(why)) => Outcome::Stopped(why.clone()),
            _ if over_budget => Outcome::Stopped(limits::MEMORY_LIMIT.into()),
            _ => Outcome::Stopped(limits::TIMEOUT.into()),
        }
    }

    /// The value of a literal in the last model (after `Sat`, so no call
    /// failed).
    #[cfg(test)]
    pub fn value(&self, lit: Lit) -> bool {
        if self.failed.is_some() {
            return false;
        }
        // SAFETY: `raw` is a live solver; `val` does not allocate.
        unsafe { iso_val(self.raw, to_int(lit)) == to_int(lit) }
    }

    /// The variables of the assumptions behind the last `Unsat`; `None`
    /// when the solver failed finding them (the memory limit).
    pub fn core_vars(&mut self) -> Option<Vec<u32>> {
        let mut core = Vec::new();
        for i in 0..self.assumptions.len() {
            let l = self.assumptions[i];
            if self.failed.is_some() {
                break;
            }
            // SAFETY: `raw` is a live solver after an unsatisfiable call.
            let status = limits::guarded(|| unsafe { iso_failed(self.raw, to_int(l)) });
            self.failed = failure(status);
            if status == 1 {
                core.push(l.var());
            }
        }
        self.failed.is_none().then_some(core)
    }
}

impl<T: Theory> Drop for Propagating<T> {
    fn drop(&mut self) {
        // SAFETY: both were created in `new` and are freed once, the solver
        // first because it calls back into the host; a solver that failed
        // is deleted without being asked anything more.
        unsafe {
            if !self.raw.is_null() {
                iso_delete(self.raw, self.failed.is_some());
            }
            drop(Box::from_raw(self.host));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A theory forbidding two given literals together, told only through
    /// the propagator: the solver must find the one model that avoids it.
    struct NotBoth {
        a: Lit,
        b: Lit,
        true_now: Vec<Lit>,
        levels: Vec<usize>,
        pending: Vec<Vec<Lit>>,
        checks: u32,
    }

    impl Theory for NotBoth {
        fn assign(&mut self, lits: &[Lit]) {
            self.true_now.extend_from_slice(lits);
            if self.true_now.contains(&self.a) && self.true_now.contains(&self.b) {
                self.pending.push(vec![!self.a, !self.b]);
            }
        }
        fn new_level(&mut self) {
            self.levels.push(self.true_now.len());
        }
        fn backtrack(&mut self, level: usize) {
            let keep = self
                .levels
                .get(level)
                .copied()
                .unwrap_or(self.true_now.len());
            self.true_now.truncate(keep);
            self.levels.truncate(level);
        }
        fn accept(&mut self, model: &[Lit]) -> bool {
            self.checks += 1;
            let bad = model.contains(&self.a) && model.contains(&self.b);
            if bad {
                self.pending.push(vec![!self.a, !self.b]);
            }
            !bad
        }
        fn next_clause(&mut self) -> Option<Vec<Lit>> {
            self.pending.pop()
        }
    }

    #[test]
    fn the_theory_steers_the_solver_and_cores_name_assumptions() {
        let theory = |a, b| NotBoth {
            a,
            b,
            true_now: Vec::new(),
            levels: Vec::new(),
            pending: Vec::new(),
            checks: 0,
        };
        let a = Lit(rustsat::types::Lit::positive(0));
        let b = Lit(rustsat::types::Lit::positive(1));
        let mut s = Propagating::new(theory(a, b), None);
        let (x, y, z) = (s.var(true), s.var(true), s.var(false));
        assert_eq!((x, y), (a, b));
        s.clause(&[x, z]);
        s.clause(&[y, z]);
        s.clause(&[!z]);
        // x and y are both forced by the clauses: only the theory says no.
        assert_eq!(s.solve(&[]), Outcome::Unsat);
        let mut t = Propagating::new(theory(a, b), None);
        let (x, y, z) = (t.var(true), t.var(true), t.var(false));
        t.clause(&[x, z]);
        t.clause(&[y, z]);
        assert_eq!(t.solve(&[]), Outcome::Sat);
        assert!(t.value(z));
        assert!(!(t.value(x) && t.value(y)));
        assert_eq!(t.solve(&[!z]), Outcome::Unsat);
        assert_eq!(t.core_vars(), Some(vec![z.var()]));
        assert!(t.theory().checks >= 1);
    }
}

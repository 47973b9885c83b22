//! The SAT backend: the only module that touches a solver. CaDiCaL through
//! `rustsat-cadical` (incremental: learnt clauses survive between rounds) is
//! the default; Kissat (`--features kissat` without the default features)
//! is not incremental, so `rustsat`'s simulator re-solves it from scratch
//! every round. The two cannot be linked into one binary.
//!
//! Memory: CaDiCaL's allocations count against the check's budget
//! (`limits`). Adding a clause is a guarded call (over the budget it fails,
//! and the solver stops with the memory limit); `solve_assumps` is not (it
//! asks for the failed assumptions through a call that does not catch
//! `std::bad_alloc`), so there the terminator stops the solver once the
//! memory in use goes over the budget.

#[cfg(all(feature = "cadical", feature = "kissat"))]
compile_error!(
    "the `cadical` and `kissat` features are exclusive: build Kissat with \
     `--no-default-features --features kissat`"
);
#[cfg(not(any(feature = "cadical", feature = "kissat")))]
compile_error!("enable one SAT backend: the `cadical` feature (default) or `kissat`");

#[cfg(feature = "cadical")]
pub mod external;

use crate::limits;
use rustsat::solvers::{Solve, SolveIncremental, SolverResult};
use rustsat::types::{Clause, TernaryVal};
use std::time::Instant;

#[cfg(feature = "cadical")]
type Backend = rustsat_cadical::CaDiCaL<'static, 'static>;
#[cfg(all(feature = "kissat", not(feature = "cadical")))]
type Backend = rustsat::solvers::simulators::Incremental<rustsat_kissat::Kissat<'static>>;

/// The backend compiled into this binary, by its `--solver` name.
#[cfg(feature = "cadical")]
pub const BACKEND: &str = "cadical";
#[cfg(all(feature = "kissat", not(feature = "cadical")))]
pub const BACKEND: &str = "kissat";

/// A literal: a variable and a sign.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Lit(rustsat::types::Lit);

impl std::ops::Not for Lit {
    type Output = Lit;
    fn not(self) -> Lit {
        Lit(!self.0)
    }
}

impl Lit {
    /// The variable's index, the same for both signs.
    pub fn var(self) -> u32 {
        self.0.vidx32()
    }

    /// Whether this is the variable's positive literal.
    pub fn is_positive(self) -> bool {
        self.0.is_pos()
    }
}

/// What a call to the solver ended with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Sat,
    Unsat,
    /// The deadline passed, or the solver failed (the message says which).
    Stopped(String),
}

/// An incremental SAT solver.
pub struct Sat {
    solver: Backend,
    vars: u32,
    deadline: Option<Instant>,
    /// Solver calls made.
    pub calls: u32,
}

impl Sat {
    pub fn new(deadline: Option<Instant>) -> Sat {
        #[allow(unused_mut)]
        let mut solver = Backend::default();
        // Stops at the deadline, or when memory runs over the budget.
        #[cfg(feature = "cadical")]
        {
            use rustsat::solvers::{ControlSignal, Terminate};
            solver.attach_terminator(move || {
                match deadline.is_some_and(|d| Instant::now() >= d) || limits::over_budget() {
                    true => ControlSignal::Terminate,
                    false => ControlSignal::Continue,
                }
            });
        }
        Sat {
            solver,
            vars: 0,
            deadline,
            calls: 0,
        }
    }

    /// A fresh variable, as its positive literal.
    pub fn var(&mut self) -> Lit {
        self.vars += 1;
        Lit(rustsat::types::Lit::positive(self.vars - 1))
    }

    /// Adds a clause; `Err` says why the solver stopped (the memory limit).
    pub fn clause(&mut self, lits: &[Lit]) -> Result<(), String> {
        let clause: Clause = lits.iter().map(|l| l.0).collect();
        // rustsat-cadical's `add_clause` calls CaDiCaL only through
        // `ccadical_add_mem`, which catches `std::bad_alloc`.
        let added = limits::guarded(|| self.solver.add_clause(clause));
        added.map_err(|e| match e.downcast_ref::<rustsat::OutOfMemory>() {
            Some(_) => limits::MEMORY_LIMIT.to_string(),
            None => format!("SAT solver error: {e}"),
        })
    }

    /// Asks the solver to try `lit` true first (CaDiCaL only; Kissat has no
    /// such hint).
    pub fn prefer(&mut self, lit: Lit) {
        #[cfg(feature = "cadical")]
        {
            use rustsat::solvers::PhaseLit;
            // A phase is a hint: failing to set one changes nothing sound.
            let _ = self.solver.phase_lit(lit.0);
        }
        #[cfg(not(feature = "cadical"))]
        let _ = lit;
    }

    pub fn solve(&mut self, assumptions: &[Lit]) -> Outcome {
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return Outcome::Stopped(limits::TIMEOUT.into());
        }
        self.calls += 1;
        let assumps: Vec<_> = assumptions.iter().map(|l| l.0).collect();
        match self.solver.solve_assumps(&assumps) {
            Ok(SolverResult::Sat) => Outcome::Sat,
            Ok(SolverResult::Unsat) => Outcome::Unsat,
            Ok(SolverResult::Interrupted) if limits::over_budget() => {
                Outcome::Stopped(limits::MEMORY_LIMIT.into())
            }
            Ok(SolverResult::Interrupted) => Outcome::Stopped(limits::TIMEOUT.into()),
            Err(e) if e.downcast_ref::<rustsat::OutOfMemory>().is_some() => {
                Outcome::Stopped(limits::MEMORY_LIMIT.into())
            }
            Err(e) => Outcome::Stopped(format!("SAT solver error: {e}")),
        }
    }

    /// The value of a literal in the last model (false when unassigned).
    pub fn value(&self, lit: Lit) -> bool {
        matches!(self.solver.lit_val(lit.0), Ok(TernaryVal::True))
    }

    /// The variables of the assumptions behind the last `Unsat`; `None`
    /// when the solver has none to give.
    pub fn core_vars(&mut self) -> Option<Vec<u32>> {
        let lits = self.solver.core().ok()?;
        Some(lits.iter().map(|l| l.vidx32()).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn incremental_solving_with_assumptions_and_cores() {
        let mut s = Sat::new(None);
        let (a, b, c) = (s.var(), s.var(), s.var());
        s.clause(&[a, b]).unwrap();
        s.clause(&[!a, c]).unwrap();
        assert_eq!(s.solve(&[]), Outcome::Sat);
        assert!(s.value(a) || s.value(b));
        s.clause(&[!b]).unwrap();
        assert_eq!(s.solve(&[]), Outcome::Sat);
        assert!(s.value(a) && s.value(c));
        assert_eq!(s.solve(&[!c]), Outcome::Unsat);
        assert_eq!(s.core_vars(), Some(vec![c.var()]));
        assert_eq!(s.solve(&[]), Outcome::Sat);
    }
}

// A C face for CaDiCaL's IPASIR-UP external propagator, which neither
// CaDiCaL's C API nor rustsat exposes. The propagator's logic is Rust
// (`src/check/sat/external.rs`): every callback is forwarded to a function
// pointer with the Rust object as its first argument. The CaDiCaL it links
// to is the one `rustsat-cadical` builds (see `cadical/README.md`).

#include "cadical/cadical.hpp"

#include <cstddef>
#include <new>

extern "C" {

struct IsoCallbacks {
  void *data;
  void (*notify_assignment) (void *, const int *, size_t);
  void (*notify_new_decision_level) (void *);
  void (*notify_backtrack) (void *, size_t);
  bool (*check_found_model) (void *, const int *, size_t);
  bool (*has_external_clause) (void *);
  int (*add_external_clause_lit) (void *);
  bool (*terminate) (void *);
  int (*decide) (void *);
};

void iso_guard (bool on) noexcept; // memory.cpp
}

namespace {

class Bridge : public CaDiCaL::ExternalPropagator,
               public CaDiCaL::Terminator {
public:
  explicit Bridge (IsoCallbacks callbacks) : cb (callbacks) {}

  void notify_assignment (const std::vector<int> &lits) override {
    cb.notify_assignment (cb.data, lits.data (), lits.size ());
  }
  void notify_new_decision_level () override {
    cb.notify_new_decision_level (cb.data);
  }
  void notify_backtrack (size_t new_level) override {
    cb.notify_backtrack (cb.data, new_level);
  }
  bool cb_check_found_model (const std::vector<int> &model) override {
    return cb.check_found_model (cb.data, model.data (), model.size ());
  }
  bool cb_has_external_clause (bool &is_forgettable) override {
    // Cycle clauses are lemmas of the theory: the solver may drop them and
    // the propagator finds them again when needed.
    is_forgettable = true;
    return cb.has_external_clause (cb.data);
  }
  int cb_decide () override { return cb.decide (cb.data); }
  int cb_add_external_clause_lit () override {
    return cb.add_external_clause_lit (cb.data);
  }
  bool terminate () override { return cb.terminate (cb.data); }

private:
  IsoCallbacks cb;
};

struct IsoSolver {
  CaDiCaL::Solver solver;
  Bridge bridge;
  explicit IsoSolver (IsoCallbacks cb) : bridge (cb) {}
};

// Runs `body` as a guarded call (`memory.cpp`): the status, or
// `OUT_OF_MEMORY` when an allocation was refused (the budget, or the
// system), `FAILED` when the solver threw anything else. No exception
// crosses into Rust. After a failure the solver may be inconsistent: the
// Rust side only deletes it.
constexpr int OUT_OF_MEMORY = -1;
constexpr int FAILED = -2;

template <class Body> int guarded (Body body) noexcept {
  iso_guard (true);
  int status;
  try {
    status = body ();
  } catch (const std::bad_alloc &) {
    status = OUT_OF_MEMORY;
  } catch (...) {
    status = FAILED;
  }
  iso_guard (false);
  return status;
}

} // namespace

extern "C" {

// A solver with the propagator and terminator connected, or null when it
// could not be made (`*status` says why).
IsoSolver *iso_new (IsoCallbacks cb, int *status) noexcept {
  IsoSolver *s = nullptr;
  *status = guarded ([&] {
    s = new IsoSolver (cb);
    // The propagator keeps its graph as a stack that follows the trail;
    // chronological backtracking would leave out-of-order assignments
    // behind.
    s->solver.set ("chrono", 0);
    s->solver.connect_external_propagator (&s->bridge);
    s->solver.connect_terminator (&s->bridge);
    return 0;
  });
  if (*status != 0) {
    delete s;
    return nullptr;
  }
  return s;
}

// Deletes a solver; `failed`: a call failed, and the solver is deleted
// without being asked anything more.
void iso_delete (IsoSolver *s, bool failed) noexcept {
  if (!failed) {
    s->solver.disconnect_terminator ();
    s->solver.disconnect_external_propagator ();
  }
  delete s;
}

int iso_observe (IsoSolver *s, int var) noexcept {
  return guarded ([&] {
    s->solver.add_observed_var (var);
    return 0;
  });
}

int iso_add (IsoSolver *s, int lit) noexcept {
  return guarded ([&] {
    s->solver.add (lit);
    return 0;
  });
}

int iso_assume (IsoSolver *s, int lit) noexcept {
  return guarded ([&] {
    s->solver.assume (lit);
    return 0;
  });
}

int iso_phase (IsoSolver *s, int lit) noexcept {
  return guarded ([&] {
    s->solver.phase (lit);
    return 0;
  });
}

// 10 satisfiable, 20 unsatisfiable, 0 stopped by the terminator.
int iso_solve (IsoSolver *s) noexcept {
  return guarded ([&] { return s->solver.solve (); });
}

int iso_val (IsoSolver *s, int lit) noexcept { return s->solver.val (lit); }

// 1 when `lit` is a failed assumption (the first call computes them).
int iso_failed (IsoSolver *s, int lit) noexcept {
  return guarded ([&] { return s->solver.failed (lit) ? 1 : 0; });
}
}

// isocheck's replacement of the global operator new and delete: every C++
// allocation of the process (CaDiCaL's, the propagator glue's) goes through
// here, so that the memory the SAT solver holds is counted against the
// check's budget (`src/limits.rs`, which reads the count and sets the hooks).
//
// Each block carries its size in a header, so that delete, sized or not,
// takes back exactly what new counted. Inside a *guarded* call (one whose
// C++ entry point catches `std::bad_alloc`: the propagator glue's, and
// rustsat-cadical's `*_mem` functions) an allocation that would take the
// check over its budget throws `std::bad_alloc`, which the entry point turns
// into an error code the Rust side maps to the memory limit. Outside one, an
// exception would cross into Rust and abort, so the budget is not enforced
// there; when the system itself refuses, the Rust hook frees its ballast or
// ends the process with the memory-limit answer, as it does for Rust's own
// allocations.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

namespace {

// Keeps malloc's alignment for the block after the header.
constexpr std::size_t HEADER = 16;
static_assert (HEADER >= sizeof (std::size_t), "the header holds a size");
static_assert (HEADER % alignof (std::max_align_t) == 0,
               "the header keeps malloc's alignment");

std::atomic<std::size_t> allocated{0};

// Set by `iso_guard` on the thread making a guarded call.
thread_local bool guarded = false;

// Rust's policy (null until `iso_memory_hooks`): whether a guarded
// allocation of this many more bytes is admitted; and, when the system
// refused one, whether to try again (the ballast was freed).
using Admit = bool (*) (std::size_t);
using Refused = bool (*) (std::size_t, bool);
std::atomic<Admit> admit{nullptr};
std::atomic<Refused> refused{nullptr};

void *allocate (std::size_t n) noexcept {
  if (n > SIZE_MAX - HEADER)
    return nullptr;
  Admit may = admit.load (std::memory_order_relaxed);
  if (guarded && may && !may (n))
    return nullptr;
  void *block = std::malloc (n + HEADER);
  Refused again = refused.load (std::memory_order_relaxed);
  if (!block && again && again (n, guarded))
    block = std::malloc (n + HEADER);
  if (!block)
    return nullptr;
  *static_cast<std::size_t *> (block) = n;
  allocated.fetch_add (n, std::memory_order_relaxed);
  return static_cast<char *> (block) + HEADER;
}

void release (void *p) noexcept {
  if (!p)
    return;
  void *block = static_cast<char *> (p) - HEADER;
  std::size_t n = *static_cast<std::size_t *> (block);
  allocated.fetch_sub (n, std::memory_order_relaxed);
  std::free (block);
}

void *allocate_or_throw (std::size_t n) {
  void *p = allocate (n);
  if (!p)
    throw std::bad_alloc ();
  return p;
}

} // namespace

void *operator new (std::size_t n) { return allocate_or_throw (n); }
void *operator new[] (std::size_t n) { return allocate_or_throw (n); }
void *operator new (std::size_t n, const std::nothrow_t &) noexcept {
  return allocate (n);
}
void *operator new[] (std::size_t n, const std::nothrow_t &) noexcept {
  return allocate (n);
}
void operator delete (void *p) noexcept { release (p); }
void operator delete[] (void *p) noexcept { release (p); }
void operator delete (void *p, std::size_t) noexcept { release (p); }
void operator delete[] (void *p, std::size_t) noexcept { release (p); }
void operator delete (void *p, const std::nothrow_t &) noexcept {
  release (p);
}
void operator delete[] (void *p, const std::nothrow_t &) noexcept {
  release (p);
}

extern "C" {

// Bytes C++ code holds now.
std::size_t iso_cpp_allocated () noexcept {
  return allocated.load (std::memory_order_relaxed);
}

void iso_memory_hooks (Admit may, Refused again) noexcept {
  admit.store (may, std::memory_order_relaxed);
  refused.store (again, std::memory_order_relaxed);
}

// Marks the calls this thread makes from now on as guarded (or not).
void iso_guard (bool on) noexcept { guarded = on; }
}

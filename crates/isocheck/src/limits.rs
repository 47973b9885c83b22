//! Limits on one check: a deadline (`--timeout`) and a memory budget
//! (`--max-memory`), from the first byte read to the verdict.
//!
//! A check runs inside [`run`], which arms the limits for its thread. The
//! pipeline names the stage it enters with [`stage`] (which polls the limits)
//! and its hot loops call [`tick`] (which polls every [`TICKS_PER_POLL`]
//! calls). A poll that finds a limit exceeded unwinds to [`run`] with a
//! [`Stop`] saying why and where: the stages build their structures in
//! place and cannot all return errors without threading one through every
//! loop, and `resume_unwind` runs no panic hook, so nothing is printed and
//! everything built so far is dropped on the way. Outside [`run`] the polls
//! do nothing, so library callers see no limit.
//!
//! Memory is what [`CountingAlloc`] (the binary's global allocator) has
//! handed out and not taken back, plus what C++ code (the SAT solver) holds
//! through `cpp/memory.cpp`'s operator new. Rust collections cannot see an
//! allocation fail, so the budget is soft: polls compare the count with it.
//! When the system itself refuses an allocation (an address-space limit),
//! the allocator frees a ballast reserved at [`arm_memory`] and retries, so
//! the check can reach its next poll; if even that fails, it hands the
//! [`Stop`] to the function given to [`on_exhausted`] (the binary writes the
//! memory-limit answer without allocating and exits with status 2) rather
//! than abort. Polls must not run in code the SAT solver calls back into
//! (unwinding across C++ would abort); the solver has its own deadline, and
//! asks [`over_budget`]. Inside the solver's *guarded* calls (those whose
//! C++ entry point catches `std::bad_alloc`, see [`guarded`]) the budget is
//! hard: a C++ allocation that would exceed it fails, and the solver stops
//! with the memory limit.
//!
//! The polls also carry the check's progress to whoever listens (see
//! [`crate::progress`]): [`stage`] tells the listener the stage began, and
//! each poll how far the stage is, counted by [`tick_of`] and [`at`] (or, for
//! loops with no natural unit, by [`tick`] in steps).
//!
//! Also how many threads a stage may use ([`cores`], [`threads_for`]),
//! the one place the machine's parallelism is read.

use crate::progress::{self, Count, Unit};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Hot loops poll the clock and the allocation count this seldom.
pub const TICKS_PER_POLL: u32 = 1024;

/// Address space kept in reserve to reach the next poll after the system
/// refuses an allocation.
const BALLAST_BYTES: usize = 32 << 20;

/// Where a check was when it stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Stage {
    /// Reading the file.
    Reading,
    /// Pairing invocations with completions.
    Pairing,
    /// The mini-transaction fast path.
    FastPath,
    /// The database's timestamps, as a proof (`check::stamped`).
    Timestamps,
    /// Inferring dependencies.
    Inference,
    /// Building the process and real-time orders.
    Order,
    /// Building the dependency graph.
    Graph,
    /// Searching for cycles.
    Cycles,
    /// Deciding the axiomatic levels (`check::weak`).
    Saturation,
    /// Building the solver's problem.
    Construct,
    /// Solving for a version order.
    Solve,
    /// The register check.
    Registers,
    /// A Jepsen checker.
    Checker,
    /// Writing the report.
    Report,
}

impl Stage {
    const ALL: [Stage; 14] = [
        Stage::Reading,
        Stage::Pairing,
        Stage::FastPath,
        Stage::Timestamps,
        Stage::Inference,
        Stage::Order,
        Stage::Graph,
        Stage::Cycles,
        Stage::Saturation,
        Stage::Construct,
        Stage::Solve,
        Stage::Registers,
        Stage::Checker,
        Stage::Report,
    ];

    /// The keyword the result map names the stage with.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Reading => "reading",
            Stage::Pairing => "pairing",
            Stage::FastPath => "fast-path",
            Stage::Timestamps => "timestamps",
            Stage::Inference => "inference",
            Stage::Order => "order",
            Stage::Graph => "graph",
            Stage::Cycles => "cycles",
            Stage::Saturation => "saturation",
            Stage::Construct => "construct",
            Stage::Solve => "solve",
            Stage::Registers => "registers",
            Stage::Checker => "checker",
            Stage::Report => "report",
        }
    }

    /// What the check was doing, for people.
    pub fn doing(self) -> &'static str {
        match self {
            Stage::Reading => "reading the history",
            Stage::Pairing => "pairing ops into transactions",
            Stage::FastPath => "checking mini-transactions",
            Stage::Timestamps => "checking the database's timestamps",
            Stage::Inference => "inferring dependencies",
            Stage::Order => "building process or real-time order",
            Stage::Graph => "building the dependency graph",
            Stage::Cycles => "searching for cycles",
            Stage::Saturation => "deciding the axiomatic models",
            Stage::Construct => "building the solver's problem",
            Stage::Solve => "solving for a version order",
            Stage::Registers => "checking registers for linearizability",
            Stage::Checker => "running a Jepsen checker",
            Stage::Report => "writing the report",
        }
    }

    fn from_u8(n: u8) -> Stage {
        Stage::ALL
            .get(usize::from(n))
            .copied()
            .unwrap_or(Stage::Reading)
    }
}

/// Which limit stopped a check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    /// The `--timeout` passed.
    Timeout(Duration),
    /// Allocated memory went over the budget, or (`refused`) the system
    /// refused an allocation; then `budget` is what it had given and `used`
    /// what the check asked for.
    MemoryLimit {
        /// The budget, in bytes.
        budget: u64,
        /// What the check had allocated, or asked for, in bytes.
        used: u64,
        /// The system, not the budget, refused.
        refused: bool,
    },
}

/// The names of the reasons, as the result map and the solver give them.
pub const TIMEOUT: &str = "timeout";
/// The name of [`Reason::MemoryLimit`].
pub const MEMORY_LIMIT: &str = "memory-limit";

impl Reason {
    /// The reason's name in the result map (`:reason`).
    pub fn name(self) -> &'static str {
        match self {
            Reason::Timeout(_) => TIMEOUT,
            Reason::MemoryLimit { .. } => MEMORY_LIMIT,
        }
    }
}

/// A check stopped by a limit: its answer is `:valid? :unknown`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stop {
    /// Which limit.
    pub reason: Reason,
    /// The stage it stopped in.
    pub stage: Stage,
    /// Ops read when it stopped (every op of the history after reading).
    pub ops: u64,
    /// Bytes of the input.
    pub input_bytes: u64,
}

/// What would fit in the memory a check stopped at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fit {
    /// Stopped while reading: an input of about this many bytes.
    InputBytes(u64),
    /// Stopped later: a history of about this many ops.
    Ops(u64),
}

impl Stop {
    /// What the memory would hold, scaling what it held when the check
    /// stopped (reading grows with the input, later stages with the ops);
    /// `None` for a timeout or when there is nothing to scale.
    pub fn fit(&self) -> Option<Fit> {
        let Reason::MemoryLimit { budget, used, .. } = self.reason else {
            return None;
        };
        let scale = |n: u64| {
            let fit = u128::from(n) * u128::from(budget) / u128::from(used.max(1));
            u64::try_from(fit).unwrap_or(u64::MAX)
        };
        match self.stage {
            Stage::Reading | Stage::Pairing if self.input_bytes > 0 => {
                Some(Fit::InputBytes(scale(self.input_bytes)))
            }
            Stage::Reading | Stage::Pairing => None,
            _ if self.ops > 0 => Some(Fit::Ops(scale(self.ops))),
            _ => None,
        }
    }
}

/// The limits of the check running on this thread.
#[derive(Clone, Copy)]
struct Armed {
    deadline: Option<Instant>,
    timeout: Duration,
    stage: Stage,
    ticks: u32,
    ops: u64,
    input_bytes: u64,
    /// The limit that cut the report short ([`rendering`]), or none.
    cut: Option<Stop>,
    /// Polls do nothing: the verdict is out (the report was cut, or the
    /// check already stopped for a limit and says so).
    lifted: bool,
    /// How far the current stage is, for the progress listener.
    count: Count,
}

thread_local! {
    static ARMED: Cell<Option<Armed>> = const { Cell::new(None) };
}

/// Runs `check` under a deadline `timeout` from now (none when `None` or
/// too far to represent) and the memory budget [`arm_memory`] set; a limit
/// exceeded on the way is `Err(Stop)`.
pub fn run<T>(timeout: Option<Duration>, check: impl FnOnce() -> T) -> Result<T, Stop> {
    let deadline = timeout.and_then(|t| Instant::now().checked_add(t));
    ARMED.set(Some(Armed {
        deadline,
        timeout: timeout.unwrap_or_default(),
        stage: Stage::Reading,
        ticks: 0,
        ops: 0,
        input_bytes: 0,
        cut: None,
        lifted: false,
        count: Count::NONE,
    }));
    RUNNING.fetch_add(1, Ordering::SeqCst);
    let result = attempt(check);
    RUNNING.fetch_sub(1, Ordering::SeqCst);
    ARMED.set(None);
    result
}

/// Runs one part of a check that can stop on its own and keep what the
/// check found before it (a model of the solver's): a stop inside is
/// `Err(Stop)` here, and the limits stay armed.
pub fn attempt<T>(part: impl FnOnce() -> T) -> Result<T, Stop> {
    match catch_unwind(AssertUnwindSafe(part)) {
        Ok(value) => Ok(value),
        Err(payload) => match payload.downcast::<Stop>() {
            Ok(stop) => Err(*stop),
            Err(other) => resume_unwind(other),
        },
    }
}

/// Renders (part of) the report of a check whose verdict is computed: a
/// limit that fires inside stops the rendering only, `Err` with the stop,
/// and from then on the check's polls do nothing, since what is left is to
/// say the verdict and that its report was cut ([`cut`]). After a cut,
/// `render` is not run.
pub fn rendering<T>(render: impl FnOnce() -> T) -> Result<T, Stop> {
    if let Some(stop) = cut() {
        return Err(stop);
    }
    // Writing the report counts against the limits from its start.
    attempt(|| {
        poll();
        render()
    })
    .inspect_err(|&stop| {
        update(|a| {
            a.cut = Some(stop);
            a.lifted = true;
        })
    })
}

/// The limit that cut the report of the check on this thread, if one did.
pub fn cut() -> Option<Stop> {
    ARMED.get().and_then(|a| a.cut)
}

/// Turns the polls of the check on this thread off: its verdict already
/// says that a limit stopped it, and its report says what was found before.
pub fn lift() {
    update(|a| a.lifted = true);
}

/// The deadline of the check running on this thread, for the solver.
pub fn deadline() -> Option<Instant> {
    ARMED.get().and_then(|a| a.deadline)
}

/// Marks the stage the check enters, and polls the limits.
pub fn stage(stage: Stage) {
    enter(stage);
    poll();
}

/// Marks the stage the check enters, and polls the limits; `about` names
/// what the stage works on (the model the solver decides) for the progress
/// listener.
pub fn stage_of(stage: Stage, about: &'static str) {
    enter_of(stage, about);
    poll();
}

/// Marks the stage the check enters, without polling.
pub fn enter(stage: Stage) {
    enter_of(stage, "");
}

fn enter_of(stage: Stage, about: &'static str) {
    update(|a| {
        a.stage = stage;
        a.count = Count::NONE;
    });
    STAGE.store(stage as u8, Ordering::Relaxed);
    if ARMED.get().is_some() {
        progress::entered(stage, about);
    }
}

/// Records how many ops have been read (what a memory stop scales from).
pub fn ops_read(ops: usize) {
    let ops = ops as u64;
    update(|a| a.ops = ops);
    OPS.store(ops, Ordering::Relaxed);
}

/// One step of a hot loop: polls the limits every [`TICKS_PER_POLL`] calls.
/// Unless the stage counts in units of its own ([`tick_of`], [`at`]), its
/// progress is counted in these steps.
pub fn tick() {
    let mut due = false;
    update(|a| {
        a.ticks = a.ticks.wrapping_add(1);
        due = a.ticks.is_multiple_of(TICKS_PER_POLL);
        if due && a.count.unit == Unit::Steps {
            a.count.done = a.count.done.saturating_add(u64::from(TICKS_PER_POLL));
        }
    });
    if due {
        poll();
    }
}

/// Step `done` of a hot loop over `total` `unit`s: a [`tick`] whose poll
/// also records how far the stage is.
pub fn tick_of(done: usize, total: usize, unit: Unit) {
    let mut due = false;
    update(|a| {
        a.ticks = a.ticks.wrapping_add(1);
        due = a.ticks.is_multiple_of(TICKS_PER_POLL);
        if due {
            a.count = Count::of(done, total, unit);
        }
    });
    if due {
        poll();
    }
}

/// Records how far the stage is (`done` of `total` `unit`s), without
/// polling: for an outer loop whose inner loops tick.
pub fn at(done: usize, total: usize, unit: Unit) {
    update(|a| a.count = Count::of(done, total, unit));
}

/// One op read, its text ending `bytes` into the input: records both and
/// ticks.
pub fn tick_read(ops: usize, bytes: usize) {
    if ops.is_multiple_of(TICKS_PER_POLL as usize) {
        ops_read(ops);
        update(|a| {
            let total = usize::try_from(a.input_bytes).unwrap_or(usize::MAX);
            a.count = Count::of(bytes, total, Unit::Bytes);
        });
        poll();
    }
}

fn update(f: impl FnOnce(&mut Armed)) {
    ARMED.with(|cell| {
        if let Some(mut a) = cell.get() {
            f(&mut a);
            cell.set(Some(a));
        }
    });
}

/// Reports how far the stage is, and unwinds to [`run`] when a limit is
/// exceeded.
fn poll() {
    let Some(a) = ARMED.get() else {
        return;
    };
    progress::report(a.count);
    if a.lifted {
        return;
    }
    let reason = if a.deadline.is_some_and(|d| Instant::now() >= d) {
        Some(Reason::Timeout(a.timeout))
    } else {
        memory_exceeded()
    };
    if let Some(reason) = reason {
        stop(a, reason);
    }
}

fn stop(a: Armed, reason: Reason) -> ! {
    resume_unwind(Box::new(Stop {
        reason,
        stage: a.stage,
        ops: a.ops,
        input_bytes: a.input_bytes,
    }))
}

/// Records the input's size, and stops the check before it reads an input
/// of that many bytes whole when they would not fit in the budget.
pub fn read_whole(input_bytes: u64) {
    update(|a| a.input_bytes = input_bytes);
    INPUT_BYTES.store(input_bytes, Ordering::Relaxed);
    will_allocate(input_bytes);
}

/// Polls while an input of unknown length is read: `bytes` read so far
/// are recorded as the input's size and held against the budget (also
/// where the allocator does not count), and the time limit is checked.
pub fn reading(bytes: u64) {
    read_so_far(bytes);
    stop_over_budget(ALLOCATED.load(Ordering::Relaxed).max(bytes));
    poll();
}

/// Polls while a history streamed op by op waits for bytes: `bytes` read
/// so far are recorded as the input's size, but not held against the
/// budget (the stream keeps a bounded buffer, which the allocator counts).
pub fn streaming(bytes: u64) {
    read_so_far(bytes);
    poll();
}

/// Records how much of an input of unknown length is read.
fn read_so_far(bytes: u64) {
    update(|a| {
        a.input_bytes = bytes;
        a.count = Count {
            done: bytes,
            total: None,
            unit: Unit::Bytes,
        };
    });
    INPUT_BYTES.store(bytes, Ordering::Relaxed);
}

/// Stops the check before it allocates `bytes` (a structure whose size is
/// known in advance) when they would not fit in the budget.
pub fn will_allocate(bytes: u64) {
    stop_over_budget(in_use().saturating_add(bytes));
}

/// Stops the check when `used` bytes would be over the budget.
fn stop_over_budget(used: u64) {
    let budget = BUDGET.load(Ordering::Relaxed);
    if let Some(a) = ARMED.get().filter(|a| !a.lifted && used > budget) {
        let refused = false;
        stop(
            a,
            Reason::MemoryLimit {
                budget,
                used,
                refused,
            },
        );
    }
}

fn memory_exceeded() -> Option<Reason> {
    if EXHAUSTED.load(Ordering::Relaxed) {
        return Some(refusal());
    }
    let budget = BUDGET.load(Ordering::Relaxed);
    let used = in_use();
    let refused = false;
    (used > budget).then_some(Reason::MemoryLimit {
        budget,
        used,
        refused,
    })
}

/// The system's refusal: what it had given, and what the check asked for.
fn refusal() -> Reason {
    Reason::MemoryLimit {
        budget: GIVEN.load(Ordering::Relaxed),
        used: ASKED.load(Ordering::Relaxed),
        refused: true,
    }
}

// ---- memory ----

/// Bytes allocated through [`CountingAlloc`] and not yet freed.
static ALLOCATED: AtomicU64 = AtomicU64::new(0);
/// The memory budget in bytes (`u64::MAX`: none).
static BUDGET: AtomicU64 = AtomicU64::new(u64::MAX);
/// The system refused an allocation and the ballast is gone.
static EXHAUSTED: AtomicBool = AtomicBool::new(false);
static BALLAST: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
/// Checks running under [`run`]: only they end with a memory-limit answer
/// when the system runs out; anything else aborts as Rust does.
static RUNNING: AtomicUsize = AtomicUsize::new(0);
/// The last stage entered and ops read, by any thread, for the answer
/// written when the system runs out (which cannot read thread-locals).
static STAGE: AtomicU8 = AtomicU8::new(0);
static OPS: AtomicU64 = AtomicU64::new(0);
static INPUT_BYTES: AtomicU64 = AtomicU64::new(0);
/// When the system refused an allocation: bytes allocated, and those plus
/// the refused request.
static GIVEN: AtomicU64 = AtomicU64::new(0);
static ASKED: AtomicU64 = AtomicU64::new(0);
/// What the process does when the system runs out inside a check: the
/// caller of [`on_exhausted`] says (the library neither prints nor exits).
static EXHAUSTED_HOOK: OnceLock<Exhausted> = OnceLock::new();

/// Ends the process when the system has run out of memory inside a check.
/// It runs inside the global allocator, so it must not allocate.
pub type Exhausted = fn(&Stop) -> !;

/// Bytes currently allocated through [`CountingAlloc`] (0 when the binary
/// does not use it) and by C++ code.
pub fn allocated() -> u64 {
    in_use()
}

fn in_use() -> u64 {
    ALLOCATED
        .load(Ordering::Relaxed)
        .saturating_add(cpp::allocated())
}

/// Whether a check is running and the memory in use is over its budget:
/// what the SAT solver's terminator asks, since it cannot poll.
pub fn over_budget() -> bool {
    RUNNING.load(Ordering::Relaxed) > 0 && in_use() > BUDGET.load(Ordering::Relaxed)
}

/// Whether `bytes` more would fit in the budget of the running check (any
/// amount fits outside one): asked before building a structure whose size
/// is known, where a stop cannot unwind.
pub fn room_for(bytes: u64) -> bool {
    RUNNING.load(Ordering::Relaxed) == 0
        || in_use().saturating_add(bytes) <= BUDGET.load(Ordering::Relaxed)
}

/// Runs `call`, a call into the SAT solver whose C++ entry point catches
/// `std::bad_alloc`, with the budget enforced on the solver's allocations:
/// one that would exceed it fails, and `call` reports it as the solver
/// does. Only such calls may be guarded: a `std::bad_alloc` that reaches
/// Rust aborts the process.
pub fn guarded<T>(call: impl FnOnce() -> T) -> T {
    let _on = cpp::Guard::new();
    call()
}

/// Says what ends the process should the system run out of memory inside
/// a check (the first function given holds); without one, it aborts.
pub fn on_exhausted(exhausted: Exhausted) {
    let _ = EXHAUSTED_HOOK.set(exhausted);
}

/// Sets the memory budget and reserves the ballast.
pub fn arm_memory(budget: u64) {
    BUDGET.store(budget, Ordering::Relaxed);
    cpp::install_hooks();
    let layout = ballast_layout();
    if BALLAST.load(Ordering::Relaxed).is_null() {
        // SAFETY: the layout has a non-zero size; the block is freed only
        // by `release_ballast`, with the same layout.
        let block = unsafe { System.alloc(layout) };
        BALLAST.store(block, Ordering::Relaxed);
    }
}

fn ballast_layout() -> Layout {
    Layout::from_size_align(BALLAST_BYTES, 4096).unwrap_or(Layout::new::<u64>())
}

/// Frees the ballast; whether there was one to free.
fn release_ballast() -> bool {
    let block = BALLAST.swap(std::ptr::null_mut(), Ordering::SeqCst);
    if block.is_null() {
        return false;
    }
    EXHAUSTED.store(true, Ordering::SeqCst);
    // SAFETY: `block` came from `System.alloc(ballast_layout())` and the
    // swap above hands it to exactly one caller.
    unsafe { System.dealloc(block, ballast_layout()) };
    true
}

/// The default budget: the least of the memory available (`MemAvailable`),
/// what the cgroup still allows, and what the address-space limit leaves
/// (less what the process already maps); `None` when nothing says.
pub fn available_memory() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok();
    let available = meminfo
        .as_deref()
        .and_then(|m| kib_field(m, "MemAvailable:"));
    let cgroup = cgroup_room();
    let address_space = address_space_room();
    [available, cgroup, address_space]
        .into_iter()
        .flatten()
        .min()
}

/// A `Name: N kB` line of a `/proc` file, in bytes.
fn kib_field(text: &str, name: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(name))?;
    let kib: u64 = line[name.len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kib.saturating_mul(1024))
}

/// The cgroup's limit less its usage: v2's `memory.max` and
/// `memory.current`, else v1's `memory.limit_in_bytes` and
/// `memory.usage_in_bytes` ("max" or an absent file: no limit).
fn cgroup_room() -> Option<u64> {
    let read = |f: &str| -> Option<u64> {
        let text = std::fs::read_to_string(format!("/sys/fs/cgroup/{f}")).ok()?;
        text.trim().parse().ok()
    };
    let (max, current) = match read("memory.max") {
        Some(max) => (max, read("memory.current")),
        None => (
            read("memory/memory.limit_in_bytes")?,
            read("memory/memory.usage_in_bytes"),
        ),
    };
    Some(max.saturating_sub(current.unwrap_or(0)))
}

/// `RLIMIT_AS` (from `/proc/self/limits`) less the address space in use,
/// less the ballast and a margin for stacks and allocator slack: the heap
/// reaches the limit before the count does.
fn address_space_room() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max address space"))?;
    let soft: u64 = line.split_whitespace().nth(3)?.parse().ok()?;
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let mapped = kib_field(&status, "VmSize:").unwrap_or(0);
    let room = soft
        .saturating_sub(mapped)
        .saturating_sub(BALLAST_BYTES as u64);
    Some(room / 10 * 8)
}

/// Counts what it hands out, so that polls can compare it with the budget,
/// and turns the system's refusal into a memory-limit answer.
pub struct CountingAlloc;

// SAFETY: every method forwards to `System` with the caller's arguments and
// only adds bookkeeping; it never unwinds.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as given.
        let p = retrying(layout.size(), || unsafe { System.alloc(layout) });
        counted(p, layout.size(), 0)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as given.
        let p = retrying(layout.size(), || unsafe { System.alloc_zeroed(layout) });
        counted(p, layout.size(), 0)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded as given.
        unsafe { System.dealloc(ptr, layout) };
        ALLOCATED.fetch_sub(layout.size() as u64, Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded as given; on failure `ptr` is still valid and
        // the retry passes it again.
        let grow = new_size.saturating_sub(layout.size());
        let p = retrying(grow, || unsafe { System.realloc(ptr, layout, new_size) });
        counted(p, new_size, layout.size())
    }
}

/// Adjusts the count for a block of `new` bytes that replaced `old`.
fn counted(p: *mut u8, new: usize, old: usize) -> *mut u8 {
    if !p.is_null() {
        ALLOCATED.fetch_add(new as u64, Ordering::Relaxed);
        ALLOCATED.fetch_sub(old as u64, Ordering::Relaxed);
    }
    p
}

/// Retries a refused allocation once the ballast is freed; when even that
/// fails inside a check, ends the process with the memory-limit answer.
fn retrying(size: usize, mut allocate: impl FnMut() -> *mut u8) -> *mut u8 {
    let p = allocate();
    if !p.is_null() || RUNNING.load(Ordering::SeqCst) == 0 {
        return p;
    }
    if refused_once(size) {
        let p = allocate();
        if !p.is_null() {
            return p;
        }
    }
    out_of_memory()
}

/// Records a refusal of `size` more bytes, and frees the ballast; whether
/// there was one to free (then the allocation is worth retrying).
fn refused_once(size: usize) -> bool {
    let given = in_use();
    GIVEN.store(given, Ordering::Relaxed);
    ASKED.store(given.saturating_add(size as u64), Ordering::Relaxed);
    release_ballast()
}

/// The C++ allocations of `cpp/memory.cpp`: their count, the hooks that
/// apply the budget to them, and the guard of the solver's calls.
#[cfg(feature = "cadical")]
mod cpp {
    use super::{in_use, out_of_memory, refused_once, BUDGET, RUNNING};
    use std::sync::atomic::Ordering;

    extern "C" {
        fn iso_cpp_allocated() -> usize;
        fn iso_memory_hooks(
            admit: extern "C" fn(usize) -> bool,
            refused: extern "C" fn(usize, bool) -> bool,
        );
        fn iso_guard(on: bool);
    }

    pub(super) fn allocated() -> u64 {
        // SAFETY: reads an atomic counter.
        unsafe { iso_cpp_allocated() as u64 }
    }

    pub(super) fn install_hooks() {
        // SAFETY: both are plain functions that never unwind.
        unsafe { iso_memory_hooks(admit, refused) };
    }

    /// Whether a guarded C++ allocation of `bytes` more fits the budget.
    extern "C" fn admit(bytes: usize) -> bool {
        let budget = BUDGET.load(Ordering::Relaxed);
        RUNNING.load(Ordering::Relaxed) == 0 || in_use().saturating_add(bytes as u64) <= budget
    }

    /// The system refused a C++ allocation of `bytes`: whether to retry
    /// (the ballast was freed). A guarded one fails instead, and the solver
    /// stops; an unguarded one inside a check that even the ballast cannot
    /// help ends the process with the memory-limit answer.
    extern "C" fn refused(bytes: usize, guarded: bool) -> bool {
        if RUNNING.load(Ordering::SeqCst) == 0 || guarded {
            return false;
        }
        refused_once(bytes) || out_of_memory()
    }

    /// Marks this thread's C++ calls as guarded while it lives.
    pub(super) struct Guard;

    impl Guard {
        pub(super) fn new() -> Guard {
            // SAFETY: sets a thread-local flag.
            unsafe { iso_guard(true) };
            Guard
        }
    }

    impl Drop for Guard {
        fn drop(&mut self) {
            // SAFETY: as in `new`.
            unsafe { iso_guard(false) };
        }
    }
}

/// Without CaDiCaL there is no C++ code to count.
#[cfg(not(feature = "cadical"))]
mod cpp {
    pub(super) fn allocated() -> u64 {
        0
    }

    pub(super) fn install_hooks() {}

    pub(super) struct Guard;

    impl Guard {
        pub(super) fn new() -> Guard {
            Guard
        }
    }
}

/// Hands the memory-limit [`Stop`] to the function [`on_exhausted`] was
/// given, or aborts as Rust does when none was.
fn out_of_memory() -> ! {
    let stop = Stop {
        reason: refusal(),
        stage: Stage::from_u8(STAGE.load(Ordering::Relaxed)),
        ops: OPS.load(Ordering::Relaxed),
        input_bytes: INPUT_BYTES.load(Ordering::Relaxed),
    };
    match EXHAUSTED_HOOK.get() {
        Some(exhausted) => exhausted(&stop),
        None => std::process::abort(),
    }
}

/// The cores this process may use (1 when the system does not say).
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The threads to split `items` over: every core from `from` items on
/// (below, a thread costs more than it saves), else one.
pub fn threads_for(items: usize, from: usize) -> usize {
    match items >= from {
        true => cores(),
        false => 1,
    }
}

/// Sorts `items` as `sort_unstable` does, on two threads from
/// `parallel_from` items on (at least 2) when there are two cores: split
/// at the median (an O(n) selection), the halves sorted apart. Unstable
/// either way: the order is the same however it is reached only when no
/// two items are equal.
pub fn sort_unstable_on_cores<T: Ord + Send>(items: &mut [T], parallel_from: usize) {
    if threads_for(items.len(), parallel_from.max(2)) < 2 {
        items.sort_unstable();
        return;
    }
    let mid = items.len() / 2;
    items.select_nth_unstable(mid);
    let (left, right) = items.split_at_mut(mid);
    std::thread::scope(|s| {
        s.spawn(|| right.sort_unstable());
        left.sort_unstable();
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Outside [`run`] a poll is due and still stops nothing, and what it
    /// marks does not carry over: the same ticks inside a check that has no
    /// time at all stop it, in the check's own first stage.
    #[test]
    fn a_poll_outside_a_check_does_nothing() {
        let outside = catch_unwind(|| {
            stage(Stage::Inference);
            for _ in 0..TICKS_PER_POLL {
                tick();
            }
            (deadline(), cut())
        });
        assert_eq!(outside.ok(), Some((None, None)));
        let inside = run(Some(Duration::ZERO), || {
            for _ in 0..TICKS_PER_POLL {
                tick();
            }
        });
        let stop = inside.err().map(|s| (s.reason.name(), s.stage));
        assert_eq!(stop, Some(("timeout", Stage::Reading)));
    }

    #[test]
    fn a_zero_timeout_stops_at_the_first_stage() {
        let r = run(Some(Duration::ZERO), || {
            stage(Stage::Reading);
            1
        });
        let stop = r.err().map(|s| (s.reason.name(), s.stage));
        assert_eq!(stop, Some(("timeout", Stage::Reading)));
    }

    #[test]
    fn ticks_poll_every_so_often() {
        let r = run(Some(Duration::ZERO), || {
            for _ in 1..TICKS_PER_POLL {
                tick();
            }
            "not yet"
        });
        assert_eq!(r.ok(), Some("not yet"));
        let r = run(Some(Duration::ZERO), || {
            for _ in 0..TICKS_PER_POLL {
                tick();
            }
        });
        assert!(r.is_err());
    }

    #[test]
    fn an_attempt_stops_its_part_and_the_check_goes_on() {
        let r = run(Some(Duration::ZERO), || {
            let part = attempt(|| stage(Stage::Construct));
            enter(Stage::Report);
            part.err().map(|s| (s.reason.name(), s.stage))
        });
        assert_eq!(r.ok(), Some(Some(("timeout", Stage::Construct))));
    }

    #[test]
    fn a_stop_while_rendering_cuts_the_report_and_keeps_the_check() {
        let r = run(Some(Duration::ZERO), || {
            let report = rendering(|| stage(Stage::Report));
            // Polls do nothing after the cut, and rendering is not run again.
            stage(Stage::Report);
            let again = rendering(|| "rendered");
            (
                report.err().map(|s| s.reason.name()),
                again.is_err(),
                cut().is_some(),
            )
        });
        assert_eq!(r.ok(), Some((Some("timeout"), true, true)));
    }

    #[test]
    fn a_far_deadline_is_no_deadline() {
        let r = run(Some(Duration::MAX), || {
            stage(Stage::Solve);
            deadline()
        });
        assert_eq!(r.ok(), Some(None));
    }

    #[test]
    fn what_fits_scales_the_input_then_the_ops() {
        let mut stop = Stop {
            reason: Reason::MemoryLimit {
                budget: 100,
                used: 400,
                refused: false,
            },
            stage: Stage::Reading,
            ops: 1000,
            input_bytes: 4000,
        };
        assert_eq!(stop.fit(), Some(Fit::InputBytes(1000)));
        stop.stage = Stage::Inference;
        assert_eq!(stop.fit(), Some(Fit::Ops(250)));
        stop.reason = Reason::Timeout(Duration::ZERO);
        assert_eq!(stop.fit(), None);
    }

    #[test]
    fn kib_fields_are_read_in_bytes() {
        let text = "MemTotal: 10 kB\nMemAvailable:    2048 kB\n";
        assert_eq!(kib_field(text, "MemAvailable:"), Some(2 << 20));
        assert_eq!(kib_field(text, "Nope:"), None);
    }
}

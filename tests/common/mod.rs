//! Helpers shared by the integration tests.

// Each test crate uses some of them.
#![allow(dead_code)]

use std::path::PathBuf;

pub mod run;

/// The shared corpus, beside the project checkout.
pub const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus");

/// [`CORPUS`], or `None` (with the reason printed) on a clone that does not have it.
pub fn corpus_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(CORPUS);
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "skipping: {} not found (the shared corpus sits beside the project checkout)",
            dir.display()
        );
        None
    }
}

/// A tiny deterministic generator (xorshift), so a failing seed replays.
pub struct Rng(pub u64);

impl Rng {
    pub fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

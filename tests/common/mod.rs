//! Helpers shared by the integration tests.

use std::path::PathBuf;

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

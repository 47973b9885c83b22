//! Helpers shared by the integration tests.

use std::path::PathBuf;

/// `../shared/corpus` beside the checkout, or `None` (with the reason
/// printed) on a clone that does not have it.
pub fn corpus_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus"));
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

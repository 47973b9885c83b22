//! Every malformed history in `fixtures/malformed/` is refused with a
//! diagnostic that has a place, a label and a help line; the rendered
//! diagnostics are pinned with insta.

use isocheck::history::{self, LoadOptions};
use isocheck::report::diagnostic;
use std::path::{Path, PathBuf};
use std::process::Command;

fn malformed() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/malformed");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("fixtures/malformed exists")
        .map(|e| e.expect("readable dir entry").path())
        .collect();
    files.sort();
    assert!(
        files.len() >= 20,
        "expected the malformed corpus, found {} files",
        files.len()
    );
    files
}

/// The fixture's path relative to the crate, as a user would type it.
fn relative(path: &Path) -> PathBuf {
    path.strip_prefix(env!("CARGO_MANIFEST_DIR"))
        .expect("inside the crate")
        .to_path_buf()
}

#[test]
fn malformed_histories_render_stable_diagnostics() {
    std::env::set_current_dir(env!("CARGO_MANIFEST_DIR")).expect("cd to the crate");
    for path in malformed() {
        let rel = relative(&path);
        let d = match history::load(&rel, &LoadOptions::default()) {
            Ok(_) => panic!("{} was accepted", rel.display()),
            Err(d) => d,
        };
        assert!(!d.error.help.is_empty(), "{}: no help", rel.display());
        assert!(!d.error.labels.is_empty(), "{}: no span", rel.display());
        let loc = d.location().unwrap_or_default();
        assert!(
            loc.starts_with(&rel.display().to_string()),
            "{}: location {loc}",
            rel.display()
        );
        let name = rel
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("unnamed")
            .to_string();
        insta::assert_snapshot!(name, diagnostic::render(&d, false));
    }
}

#[test]
fn the_binary_exits_3_with_the_diagnostic_on_stderr() {
    for path in malformed() {
        let out = Command::new(env!("CARGO_BIN_EXE_isocheck"))
            .env("ISOCHECK_PROGRESS", "off")
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .arg("stats")
            .arg(relative(&path))
            .env("NO_COLOR", "1")
            .output()
            .expect("run isocheck");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{}: {stderr}", path.display());
        assert!(stderr.contains("help:"), "{}: {stderr}", path.display());
        assert!(
            out.stdout.is_empty(),
            "{}: printed stats for a bad file",
            path.display()
        );
        assert!(!stderr.contains("panicked"), "{}", path.display());
    }
}

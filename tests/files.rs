//! The files `isocheck` writes: whole or not at all (a file size limit is a
//! one-line error with exit status 3, and leaves no partial file under the
//! name asked for), never over the history being checked, and a
//! `--directory` that describes the run that wrote it, beside the files of
//! other names that were there.
#![cfg(unix)]

mod common;

use common::TempPath;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Output};

const INVALID: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/check/g1c.edn");
const VALID: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/check/valid.edn");

fn isocheck(args: &[&str]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_isocheck"));
    c.env("ISOCHECK_PROGRESS", "off");
    c.args(args).env("NO_COLOR", "1");
    c.output().expect("run isocheck")
}

/// `isocheck` with `args` under a file size limit of 1 block (512 bytes or
/// 1 KiB, as the shell counts): set by the shell, which then runs isocheck
/// in its place.
fn isocheck_small_files(args: &[&str]) -> Output {
    let mut sh = Command::new("sh");
    sh.arg("-c")
        .arg("ulimit -f 1 && exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_isocheck"))
        .args(args)
        .env("NO_COLOR", "1");
    sh.output().expect("run isocheck")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The names in a directory, sorted (temporary files included).
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .expect("read directory")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn scratch(name: &str) -> TempPath {
    let dir = TempPath::new(&format!("files-{name}"));
    std::fs::create_dir_all(&*dir).expect("scratch directory");
    dir
}

/// Exit status 3 (not SIGXFSZ), and stderr ends with the one line of error
/// naming `path`.
fn assert_too_large(o: &Output, path: &Path) {
    let err = text(&o.stderr);
    assert_eq!(o.status.signal(), None, "killed by a signal: {err}");
    assert_eq!(o.status.code(), Some(3), "{err}");
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error:")).collect();
    let expected = format!("error: cannot write to {}: File too large", path.display());
    assert_eq!(errors.len(), 1, "{err}");
    assert!(errors[0].starts_with(&expected), "{err}");
    assert!(err.ends_with(&format!("{}\n", errors[0])), "{err}");
}

#[test]
fn a_file_size_limit_is_one_line_and_status_3_and_leaves_no_partial_file() {
    let dir = scratch("size-limit");
    let html = dir.join("report.html");
    let arg = html.to_string_lossy();
    let o = isocheck_small_files(&["check", "--format", "edn", INVALID, "--html", &arg]);
    assert_too_large(&o, &html);
    assert!(text(&o.stdout).starts_with("{:valid? false"));
    assert_eq!(names(&dir), Vec::<String>::new());

    let artifacts = dir.join("artifacts");
    let arg = artifacts.to_string_lossy();
    let o = isocheck_small_files(&["check", "--format", "edn", INVALID, "--directory", &arg]);
    assert_too_large(&o, &artifacts);
    assert!(!artifacts.join("index.html").exists());
    assert!(!artifacts.join("G1c.txt").exists());
    assert_eq!(names(&dir), ["artifacts"], "no temporary directory is left");

    let generated = dir.join("generated.edn");
    let arg = generated.to_string_lossy();
    let o = isocheck_small_files(&["gen", "rw-register", "--txns", "1000", "-o", &arg]);
    assert_too_large(&o, &generated);
    assert_eq!(text(&o.stderr).lines().count(), 1, "{}", text(&o.stderr));
    assert_eq!(names(&dir), ["artifacts"]);
}

#[test]
fn a_failed_write_keeps_the_file_that_was_there() {
    let dir = scratch("keeps-old");
    let html = dir.join("report.html");
    std::fs::write(&html, "the earlier report").expect("write");
    let arg = html.to_string_lossy();
    let o = isocheck_small_files(&["check", "--format", "edn", VALID, "--html", &arg]);
    assert_too_large(&o, &html);
    let kept = std::fs::read_to_string(&html).expect("read");
    assert_eq!(kept, "the earlier report");
    assert_eq!(names(&dir), ["report.html"]);
    // Without the limit it is replaced, whole.
    let o = isocheck(&["check", VALID, "--html", &arg]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let page = std::fs::read_to_string(&html).expect("read");
    assert!(page.starts_with("<!DOCTYPE html>"), "{}", &page[..100]);
    assert!(page.trim_end().ends_with("</html>"));
    assert_eq!(names(&dir), ["report.html"]);
}

#[test]
fn html_naming_the_history_is_refused_and_the_history_kept() {
    let dir = scratch("html-input");
    let history = dir.join("history.edn");
    std::fs::copy(INVALID, &history).expect("copy");
    let before = std::fs::read(&history).expect("read");
    let link = dir.join("link.html");
    std::os::unix::fs::symlink(&history, &link).expect("symlink");
    let relative = format!("{}/../{}/history.edn", dir.display(), dir_name(&dir));
    for html in [
        history.to_string_lossy().into_owned(),
        relative,
        link.to_string_lossy().into_owned(),
    ] {
        let h = history.to_string_lossy();
        let o = isocheck(&["check", &h, "--html", &html]);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(3), "{html}: {err}");
        assert!(
            err.starts_with(&format!(
                "error: --html {html} is the history being checked"
            )),
            "{err}"
        );
        assert!(o.stdout.is_empty());
        assert_eq!(std::fs::read(&history).expect("read"), before, "{html}");
    }
    // A history named like an artifact of the directory is kept too.
    let index = dir.join("index.html");
    std::fs::copy(INVALID, &index).expect("copy");
    let d = dir.to_string_lossy();
    let o = isocheck(&["check", &index.to_string_lossy(), "--directory", &d]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(
        err.contains("would replace the history being checked"),
        "{err}"
    );
    assert_eq!(std::fs::read(&index).expect("read"), before);
}

fn dir_name(dir: &Path) -> String {
    dir.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

#[test]
fn a_reused_directory_describes_only_the_last_run() {
    let dir = scratch("reused");
    let artifacts = dir.join("artifacts");
    let d = artifacts.to_string_lossy();
    let o = isocheck(&["check", INVALID, "--directory", &d]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    assert_eq!(names(&artifacts), ["G1c", "G1c.txt", "index.html"]);
    // The user's files, even in a directory isocheck writes, stay.
    std::fs::write(artifacts.join("notes.txt"), "mine").expect("write");
    std::fs::write(artifacts.join("G1c").join("notes.txt"), "mine").expect("write");

    let o = isocheck(&["check", VALID, "--directory", &d]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(names(&artifacts), ["G1c", "index.html", "notes.txt"]);
    assert_eq!(names(&artifacts.join("G1c")), ["notes.txt"]);
    let page = std::fs::read_to_string(artifacts.join("index.html")).expect("index");
    assert!(!page.contains("G1c #0"), "the page of the earlier history");

    // A check stopped before its verdict leaves the page that says so.
    isocheck(&["check", INVALID, "--directory", &d]);
    let o = isocheck(&["check", INVALID, "--timeout", "0", "--directory", &d]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert_eq!(names(&artifacts), ["G1c", "index.html", "notes.txt"]);
    assert_eq!(names(&artifacts.join("G1c")), ["notes.txt"]);
    let page = std::fs::read_to_string(artifacts.join("index.html")).expect("index");
    assert!(page.contains("unknown: timeout"), "{page}");
    assert_eq!(names(&dir), ["artifacts"], "no temporary directory is left");
}

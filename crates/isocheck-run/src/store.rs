//! Writing a run into a Jepsen store, laid out as Jepsen lays it out so
//! that `isocheck recheck` (and Jepsen users' tools) read it:
//! `STORE/<test-name>/<timestamp>/` holds `history.edn`, `test.edn` (the
//! options, with `:consistency-models`) and `results.edn` (the check's
//! result map under `:workload`), and `STORE/<test-name>/latest` and
//! `STORE/latest` link to the newest run. A test's name is one directory
//! of the store ([`check_name`]), so nothing is written outside it; the
//! files written whole (`test.edn`, `results.edn`) appear under their names
//! complete or not at all (`files::write`).

use isocheck_gen::edn::push_string;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// Whether `name` can name a test: one directory of the store, so not
/// empty, `.`, `..` nor `latest` (the store's link to the newest run), and
/// without `/` or NUL. The error says which rule it breaks.
pub fn check_name(name: &str) -> Result<(), String> {
    let why = if name.is_empty() {
        "is empty"
    } else if name == "." || name == ".." {
        "names no directory of its own"
    } else if name.eq_ignore_ascii_case("latest") {
        "is the store's link to the newest run"
    } else if name.contains('/') || name.contains(std::path::MAIN_SEPARATOR) {
        "has a path separator"
    } else if name.contains('\0') {
        "has a NUL character"
    } else {
        return Ok(());
    };
    Err(format!(
        "--name `{name}` {why}: a test's name is one directory inside the store (not empty, \
         `.`, `..` or `latest`, no `/`)"
    ))
}

/// Creates a fresh run directory `store/name/<timestamp>` (a suffix is
/// added if two runs start in the same millisecond); `name` must pass
/// [`check_name`].
pub fn create_run_dir(store: &Path, name: &str) -> io::Result<PathBuf> {
    check_name(name).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    let test = store.join(name);
    std::fs::create_dir_all(&test)?;
    let stamp = timestamp(SystemTime::now());
    let mut attempt = 0u32;
    loop {
        let dir = match attempt {
            0 => test.join(&stamp),
            n => test.join(format!("{stamp}-{n}")),
        };
        match std::fs::create_dir(&dir) {
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempt < 100 => attempt += 1,
            result => return result.map(|()| dir),
        }
    }
}

/// Removes a run directory nothing was recorded in, and its test's
/// directory if no other run is left in it.
pub fn remove_run_dir(run: &Path) {
    let _ = std::fs::remove_dir_all(run);
    if let Some(test) = run.parent() {
        let _ = std::fs::remove_dir(test);
    }
}

/// Points `store/<test>/latest` at the run and `store/latest` at
/// `<test>/<run>`, replacing earlier links (a symlink renamed over the old
/// one, so a reader never sees none).
pub fn link_latest(store: &Path, run: &Path) -> io::Result<()> {
    let (Some(test), Some(stamp)) = (run.parent(), run.file_name()) else {
        return Ok(());
    };
    let Some(name) = test.file_name() else {
        return Ok(());
    };
    replace_link(&test.join("latest"), Path::new(stamp))?;
    replace_link(&store.join("latest"), &Path::new(name).join(stamp))
}

#[cfg(unix)]
fn replace_link(link: &Path, target: &Path) -> io::Result<()> {
    let tmp = link.with_extension(format!("tmp{}", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    std::os::unix::fs::symlink(target, &tmp)?;
    std::fs::rename(&tmp, link)
}

#[cfg(not(unix))]
fn replace_link(_link: &Path, _target: &Path) -> io::Result<()> {
    Ok(())
}

/// Jepsen's run directory name in UTC: `20261125T013000.123Z`.
pub fn timestamp(t: SystemTime) -> String {
    let since = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs();
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    let s = secs % 86_400;
    format!(
        "{y:04}{m:02}{d:02}T{:02}{:02}{:02}.{:03}Z",
        s / 3600,
        s / 60 % 60,
        s % 60,
        since.subsec_millis()
    )
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard
/// Hinnant's `civil_from_days`).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// A value of `test.edn`.
pub enum Field<'a> {
    Str(&'a str),
    Keyword(&'a str),
    Keywords(&'a [&'a str]),
    Int(u64),
    Float(f64),
    Bool(bool),
    Nil,
}

/// `test.edn`: a map of the options, keys in the order given.
pub fn test_edn(fields: &[(&str, Field)]) -> String {
    let mut out = Vec::new();
    out.push(b'{');
    for (i, (key, value)) in fields.iter().enumerate() {
        if i > 0 {
            out.extend_from_slice(b",\n ");
        }
        out.push(b':');
        out.extend_from_slice(key.as_bytes());
        out.push(b' ');
        match value {
            Field::Str(s) => push_string(&mut out, s),
            Field::Keyword(k) => out.extend_from_slice(format!(":{k}").as_bytes()),
            Field::Keywords(ks) => {
                let names: Vec<String> = ks.iter().map(|k| format!(":{k}")).collect();
                out.extend_from_slice(format!("[{}]", names.join(" ")).as_bytes());
            }
            Field::Int(n) => out.extend_from_slice(n.to_string().as_bytes()),
            Field::Float(x) => out.extend_from_slice(format!("{x:?}").as_bytes()),
            Field::Bool(b) => out.extend_from_slice(b.to_string().as_bytes()),
            Field::Nil => out.extend_from_slice(b"nil"),
        }
    }
    out.extend_from_slice(b"}\n");
    String::from_utf8(out).unwrap_or_default()
}

/// `results.edn`: Jepsen's composed result, the check's map under
/// `:workload` and the completion counts under `:stats`.
pub fn results_edn(valid: &str, workload: &str, stats: &[(&str, u64)]) -> String {
    let stats: Vec<String> = stats.iter().map(|(k, n)| format!(":{k} {n}")).collect();
    format!(
        "{{:valid? {valid},\n :stats {{{}}},\n :workload\n {workload}}}\n",
        stats.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use isocheck::store;
    use std::time::Duration;

    #[test]
    fn timestamps_are_jepsen_s_in_utc() {
        let t = UNIX_EPOCH + Duration::from_millis(951_782_400_000 + 3_723_456);
        assert_eq!(timestamp(t), "20000229T010203.456Z");
        assert_eq!(timestamp(UNIX_EPOCH), "19700101T000000.000Z");
        let t = UNIX_EPOCH + Duration::from_secs(1_795_000_000);
        assert_eq!(timestamp(t), "20261118T110640.000Z");
    }

    #[test]
    fn recheck_reads_what_is_written() {
        let test = test_edn(&[
            ("name", Field::Str("a \"b\"")),
            ("workload", Field::Keyword("list-append")),
            ("consistency-models", Field::Keywords(&["serializable"])),
            ("time-limit", Field::Nil),
        ]);
        let options = store::recorded_options(&test).unwrap();
        assert_eq!(options.workload.as_deref(), Some("list-append"));
        assert_eq!(
            options.consistency_models,
            Some(vec!["serializable".to_string()])
        );
        let results = results_edn(
            "false",
            "{:valid? false, :anomaly-types [:G1c], :not #{:read-committed}}",
            &[("ok-count", 3)],
        );
        let recorded = store::recorded_verdict(&results).unwrap();
        assert_eq!(recorded.anomaly_types, ["G1c"]);
        assert_eq!(recorded.not, ["read-committed"]);
    }

    #[test]
    fn names_stay_inside_the_store() {
        for bad in [
            "", ".", "..", "../x", "/tmp/x", "a/b", "latest", "LATEST", "a\0b",
        ] {
            let e = check_name(bad).unwrap_err();
            assert!(e.contains("one directory inside the store"), "{bad:?}: {e}");
            let store = Path::new("/nonexistent-isocheck-store");
            let refused = create_run_dir(store, bad).unwrap_err();
            assert_eq!(refused.kind(), io::ErrorKind::InvalidInput, "{bad:?}");
        }
        for good in [
            "postgres-list-append",
            "a..b",
            "...",
            ".hidden",
            "latest-run",
        ] {
            assert_eq!(check_name(good), Ok(()), "{good:?}");
        }
    }

    #[test]
    fn runs_get_fresh_directories_and_latest_links() {
        let store = std::env::temp_dir().join(format!("isocheck-run-store-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&store);
        let a = create_run_dir(&store, "t").unwrap();
        let b = create_run_dir(&store, "t").unwrap();
        assert_ne!(a, b);
        std::fs::write(b.join("history.edn"), "").unwrap();
        link_latest(&store, &b).unwrap();
        link_latest(&store, &b).unwrap();
        #[cfg(unix)]
        {
            let latest = std::fs::canonicalize(store.join("latest")).unwrap();
            assert_eq!(latest, std::fs::canonicalize(&b).unwrap());
            let inner = std::fs::canonicalize(store.join("t/latest")).unwrap();
            assert_eq!(inner, latest);
        }
        let runs = store::find_runs(&store).unwrap();
        std::fs::remove_dir_all(&store).unwrap();
        assert_eq!(runs.len(), 1);
    }
}

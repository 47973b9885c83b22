//! The HTML report (`check --html`): the pages of small fixtures pinned with
//! insta, every cycle's transactions and steps drawn, nothing loaded from
//! outside the page, the history's text escaped, and a page that does not
//! grow with the history (only the involved transactions are drawn).

mod common;

use isocheck::history::{self, Format, History};
use isocheck::internals::check::{CheckOptions, Entry};
use isocheck::Outcome;
use isocheck_gen::{self as gen, Fault, Kind, Params};
use std::path::Path;

fn parse(name: &str, text: String) -> History {
    history::parse_text(Format::Edn, name, text, None).unwrap_or_else(|d| panic!("{d}"))
}

fn load(rel: &str) -> History {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{rel}: {e}"));
    parse(rel, text)
}

fn models(m: &[&str]) -> CheckOptions {
    CheckOptions {
        consistency_models: Some(m.iter().map(|s| s.to_string()).collect()),
        ..CheckOptions::default()
    }
}

/// The fixtures whose pages are pinned, with the models they are held to.
const PAGES: &[(&str, &[&str])] = &[
    ("fixtures/html/g2-item-forced.edn", &["serializable"]),
    ("fixtures/html/g1c-faults.edn", &["serializable"]),
    ("fixtures/check/g1a.edn", &["read-committed"]),
    ("fixtures/check/lost-update.edn", &["strict-serializable"]),
    ("fixtures/check/g1c.edn", &["serializable"]),
    ("fixtures/check/valid.edn", &["strict-serializable"]),
    ("fixtures/lwt/realtime.edn", &["strict-serializable"]),
    (
        "fixtures/lwt/no-linearization.edn",
        &["strict-serializable"],
    ),
    ("fixtures/jepsen/bank-invalid.edn", &["strict-serializable"]),
];

fn page(rel: &str, m: &[&str]) -> (History, Outcome, String) {
    let h = load(rel);
    let o = isocheck::check(&h, &models(m)).expect("valid options");
    let html = o.html(&h, Path::new(env!("CARGO_MANIFEST_DIR")));
    (h, o, html)
}

#[test]
fn pages_of_small_fixtures() {
    for (rel, m) in PAGES {
        let (_, _, html) = page(rel, m);
        let name = Path::new(rel).file_stem().unwrap().to_string_lossy();
        insta::assert_snapshot!(format!("page-{name}"), html);
    }
}

/// The page loads nothing: no external script, style sheet, image or font,
/// and no address but the SVG namespace.
#[test]
fn pages_are_self_contained() {
    for (rel, m) in PAGES {
        let (_, _, html) = page(rel, m);
        for banned in ["<link", " src=", "@import", "url(http", "<iframe", "<img"] {
            assert!(!html.contains(banned), "{rel}: {banned}");
        }
        let without_ns = html.replace("http://www.w3.org/2000/svg", "");
        assert!(!without_ns.contains("http:"), "{rel}");
        assert!(!without_ns.contains("https:"), "{rel}");
        assert_eq!(html.matches("<script>").count(), 1, "{rel}");
    }
}

/// Every cycle shown has a node per transaction and an edge per step; a
/// forced anomaly has a tab and a panel per case.
#[test]
fn cycles_are_drawn_whole() {
    for (rel, m) in PAGES {
        let (_, o, html) = page(rel, m);
        let Outcome::Transactional { analysis, verdict } = &o else {
            continue;
        };
        let mut steps = 0;
        let mut cases = 0;
        for entries in verdict.anomalies.values() {
            for e in entries.iter().take(isocheck::report::human::SHOWN_PER_TYPE) {
                match *e {
                    Entry::Cycle(i) => steps += analysis.cycles[i].steps.len(),
                    Entry::Forced(i) => {
                        let f = &analysis.forced[i];
                        cases += f.cases.len();
                        steps += f.cases.iter().map(|c| c.cycle.steps.len()).sum::<usize>();
                    }
                    _ => {}
                }
            }
        }
        assert_eq!(html.matches("class=\"node txn").count(), steps, "{rel}");
        assert_eq!(html.matches("class=\"dep ").count(), steps, "{rel}");
        assert_eq!(html.matches("role=\"tab\"").count(), cases, "{rel}");
        assert_eq!(html.matches("role=\"tabpanel\"").count(), cases, "{rel}");
    }
}

/// Text from the history is escaped wherever it appears.
#[test]
fn history_text_is_escaped() {
    let text = "{:type :invoke, :f :txn, :value [[:append \"<b>&\" 1]], :process 0, :index 0}\n\
                {:type :fail, :f :txn, :value [[:append \"<b>&\" 1]], :process 0, :index 1}\n\
                {:type :invoke, :f :txn, :value [[:r \"<b>&\" nil]], :process 1, :index 2}\n\
                {:type :ok, :f :txn, :value [[:r \"<b>&\" [1]]], :process 1, :index 3}\n";
    let h = parse("<script>.edn", text.to_string());
    let o = isocheck::check(&h, &models(&["read-committed"])).expect("options");
    let html = o.html(&h, Path::new("."));
    assert!(html.contains("G1a"), "{html}");
    assert!(!html.contains("<b>"), "{html}");
    assert!(!html.contains("<script>.edn"), "{html}");
    assert!(html.contains("&lt;b&gt;&amp;"), "{html}");
}

/// A generated list-append history with a lost update at a random point.
fn generated(txns: u64) -> History {
    let mut p = Params {
        txns,
        seed: 3,
        processes: 20,
        fault: Some(Fault::LostUpdate),
        ..Params::default()
    };
    p.shape.kind = Kind::ListAppend;
    p.shape.keys = 50;
    let text = gen::to_string(&p).expect("parameters");
    parse("generated.edn", text)
}

/// Only the involved transactions and their neighbours are drawn: the page
/// of a history a hundred times longer is the same size, give or take the
/// digits of its counts. (`BENCHMARKS.md` has the page of a million
/// transactions, from the release build.)
#[test]
fn the_page_does_not_grow_with_the_history() {
    let size = |txns| {
        let h = generated(txns);
        let o = isocheck::check(&h, &models(&["serializable"])).expect("options");
        assert!(o.anomaly_types().contains(&"lost-update"), "{txns}");
        o.html(&h, Path::new(".")).len()
    };
    let small = size(1_000);
    let large = size(100_000);
    assert!(large < 200_000, "{large} bytes");
    assert!(large < small * 3 / 2, "{small} bytes, then {large}");
}

/// Lines link to the history file relative to the page, as Jepsen's store
/// lays them out (`<run>/history.edn`, the page in `<run>/isocheck/`), so
/// that the store can be moved; a name that is no file stays as given.
#[test]
fn links_to_the_history_are_relative_to_the_page() {
    let run = Path::new(env!("CARGO_TARGET_TMPDIR")).join("html-links/run");
    let page_dir = run.join("isocheck");
    std::fs::create_dir_all(&page_dir).expect("scratch directory");
    let history = run.join("history.edn");
    std::fs::write(&history, "").expect("history written");
    let href = |dir: &Path, file: &Path| isocheck::report::html::href(dir, &file.to_string_lossy());
    assert_eq!(href(&page_dir, &history).as_deref(), Some("../history.edn"));
    assert_eq!(href(&run, &history).as_deref(), Some("./history.edn"));
    let odd = run.join("a #1 100%");
    std::fs::create_dir_all(&odd).expect("scratch directory");
    std::fs::write(odd.join("history.edn"), "").expect("history written");
    assert_eq!(
        href(&page_dir, &odd.join("history.edn")).as_deref(),
        Some("../a%20%231%20100%25/history.edn")
    );
    // A name that reads as a scheme stays a path.
    let scheme = run.join("javascript:alert(1)");
    std::fs::write(&scheme, "").expect("history written");
    assert_eq!(
        href(&run, &scheme).as_deref(),
        Some("./javascript%3Aalert%281%29")
    );
    // Standard input has no address: the lines are not linked.
    assert_eq!(isocheck::report::html::href(&run, "<stdin>"), None);
}

/// A history file whose name is a `javascript:` URL (issue 32): the page
/// links its lines with a relative, percent-encoded address, names the
/// file escaped, and makes no other link than to its own sections.
#[test]
fn a_hostile_file_name_is_a_relative_link() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("html-hostile");
    std::fs::create_dir_all(&dir).expect("scratch directory");
    let file = dir.join("javascript:top.document.title='PWNED'<!--");
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/check/g1a.edn"),
    )
    .expect("fixture");
    std::fs::write(&file, &text).expect("history written");
    let h = parse(&file.to_string_lossy(), text);
    let o = isocheck::check(&h, &models(&["read-committed"])).expect("options");
    let html = o.html(&h, &dir);
    let encoded = "./javascript%3Atop.document.title%3D%27PWNED%27%3C%21--";
    assert!(
        html.contains(&format!("<a href=\"{encoded}#L3\">line 3</a>")),
        "{html}"
    );
    for href in html.split("href=\"").skip(1) {
        let target = &href[..href.find('"').expect("a closed attribute")];
        let relative = target.starts_with('#') || target.starts_with("./");
        assert!(relative, "{target}");
        assert!(!target.contains(':'), "{target}");
    }
    assert!(!html.contains("PWNED'<!--"), "{html}");
    assert!(html.contains("title=&#39;PWNED&#39;&lt;!--"), "{html}");
}

/// Bidirectional overrides and other control characters from the history
/// (a key, the file name) are written as visible escapes on the page, as
/// on the terminal: they neither reorder nor hide the text around them.
#[test]
fn control_characters_are_visible_escapes() {
    let key = "\"a\u{202e}b\u{1b}[31mc\u{2066}\"";
    let text = format!(
        "{{:type :invoke, :f :txn, :value [[:append {key} 1]], :process 0, :index 0}}\n\
         {{:type :fail, :f :txn, :value [[:append {key} 1]], :process 0, :index 1}}\n\
         {{:type :invoke, :f :txn, :value [[:r {key} nil]], :process 1, :index 2}}\n\
         {{:type :ok, :f :txn, :value [[:r {key} [1]]], :process 1, :index 3}}\n"
    );
    let h = parse("evil\u{202e}nde.edn", text);
    let o = isocheck::check(&h, &models(&["read-committed"])).expect("options");
    let html = o.html(&h, Path::new("."));
    assert!(html.contains("G1a"), "{html}");
    for raw in ['\u{202e}', '\u{1b}', '\u{2066}'] {
        assert!(!html.contains(raw), "{raw:?} in {html}");
    }
    assert!(html.contains("a\\u{202e}b\\u{1b}[31mc\\u{2066}"), "{html}");
    assert!(html.contains("evil\\u{202e}nde.edn"), "{html}");
}

/// A G0 cycle through `n` transactions: each appends to its own key and
/// to the next one's, and readers see every key's two appends in order.
fn long_g0(n: usize) -> String {
    let mut lines = Vec::new();
    let mut op = |process: usize, value: String| {
        let i = lines.len();
        lines.push(format!(
            "{{:index {i}, :type :invoke, :process {process}, :f :txn, :value {value}}}"
        ));
        lines.push(format!(
            "{{:index {}, :type :ok, :process {process}, :f :txn, :value {value}}}",
            i + 1
        ));
    };
    // T_i appends 2 to key i after T_{i-1}'s 1, and 1 to key i+1.
    for i in 0..n {
        op(i, format!("[[:append {i} 2] [:append {} 1]]", (i + 1) % n));
    }
    for i in 0..n {
        op(n + i, format!("[[:r {i} [1 2]]]"));
    }
    lines.join("\n") + "\n"
}

/// A cycle too long to plot (over Elle's :max-plot-bytes) is not laid out:
/// the page says so, keeps the explanation, and stays small.
#[test]
fn a_cycle_over_the_plot_cap_is_skipped_with_a_note() {
    let h = parse("long-g0.edn", long_g0(3_000));
    let o = isocheck::check(&h, &models(&["read-uncommitted"])).expect("options");
    assert!(o.anomaly_types().contains(&"G0"), "{:?}", o.anomaly_types());
    let html = o.html(&h, Path::new("."));
    assert!(
        html.contains("The plot of this cycle was skipped"),
        "{html}"
    );
    assert!(html.contains("more transactions, T11 to T2990"), "{html}");
    assert!(!html.contains("class=\"node txn"));
    assert!(html.len() < 200_000, "{} bytes", html.len());
}

/// A check a limit stops still leaves the page asked for, saying why the
/// verdict is unknown.
#[test]
fn a_stopped_check_writes_a_page_saying_so() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("html-stopped");
    std::fs::create_dir_all(&dir).expect("scratch directory");
    let page = dir.join("report.html");
    let _ = std::fs::remove_file(&page);
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_isocheck"))
        .env("ISOCHECK_PROGRESS", "off")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "check",
            "fixtures/check/g1c.edn",
            "--timeout",
            "0",
            "--html",
        ])
        .arg(&page)
        .output()
        .expect("isocheck runs");
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    let html = std::fs::read_to_string(&page).expect("the page");
    assert!(html.contains("data-valid=\"unknown\""), "{html}");
    assert!(html.contains("unknown: timeout"), "{html}");
    assert!(html.contains("allow more time with --timeout"), "{html}");
}

/// Issue 34: every anomaly is on the page, the first ten of a type drawn
/// and the rest collapsed in brief, so that thousands of them make a page
/// of a few megabytes, not a hundred.
#[test]
fn every_anomaly_is_on_the_page_in_brief() {
    let n = 5_000;
    let h = parse("many-g1a.edn", common::many_g1a(n));
    let o = isocheck::check(&h, &models(&["read-committed"])).expect("options");
    let html = o.html(&h, Path::new("."));
    assert_eq!(
        html.matches("<section class=\"anomaly\" id=\"G1a-").count(),
        10
    );
    assert_eq!(html.matches("<details class=\"brief\"").count(), n - 10);
    for i in [0, 9, 10, 2_345, n - 1] {
        assert!(html.contains(&format!(" id=\"G1a-{i}\"")), "G1a-{i}");
    }
    assert!(html.contains("… and 4990 more G1a, #10 to #4999"));
    let per_anomaly = html.len() / n;
    assert!(
        per_anomaly < 1_000,
        "{} bytes, {per_anomaly} each",
        html.len()
    );
}

/// Issue 34: the timeline shades the nemesis's faults, is measured in
/// time when every op has one, and says so.
#[test]
fn the_timeline_shows_the_nemesis_in_time() {
    let (_, _, html) = page("fixtures/html/g1c-faults.edn", &["serializable"]);
    assert!(html.contains("<g class=\"fault\" data-f=\"start-partition\">"));
    assert!(html.contains("<g class=\"fault\" data-f=\"kill\">"));
    assert!(html.contains("left to right is time"));
    // Without :time, the order of the file, said so.
    let (_, _, html) = page("fixtures/check/g1a.edn", &["read-committed"]);
    assert!(html.contains("no nemesis ops"), "{html}");
    let h = parse("untimed.edn", common::many_g1a(2));
    let o = isocheck::check(&h, &models(&["read-committed"])).expect("options");
    let html = o.html(&h, Path::new("."));
    assert!(html.contains("the ops carry no :time"), "{html}");
}

/// Issue 36: a violation of an axiomatic level under every writer choice
/// of a repeated value says so on the page, with the choice it shows.
#[test]
fn a_violation_under_every_writer_choice_names_the_one_shown() {
    let rel = "fixtures/check/repeated-values-fractured-read.edn";
    let (_, _, html) = page(rel, &["read-atomic"]);
    let said = "whichever write of a repeated value each read returned (2 choices, each checked)";
    assert!(html.contains(said), "{html}");
    assert!(
        html.contains("If index 5 read index 1&#39;s write:"),
        "{html}"
    );
}

//! The HTML report in a real browser (issue 18): headless Chromium opens the
//! reports `isocheck check --html` writes for a G2-item whose write order
//! is unknown (two cases), a G1a, a lost update and a cas-register
//! violation, inside a probe page that reads their DOM (the report in an
//! iframe of a 1366×768 laptop screen, `--allow-file-access-from-files`
//! making it readable): the verdict and the first anomaly are on the first
//! screen, every cycle has its nodes and edges, the case tabs switch on a
//! click, and the timeline has a lane for exactly the processes of its bars.
//! It also takes a screenshot of each report (and of the second case) in
//! `target/tmp/browser/`. A history file named like a `javascript:` URL
//! (issue 32) gets a report whose line links are relative file addresses,
//! and clicking one runs no script.
//!
//! Without Chromium the test prints why and passes, unless
//! `ISOCHECK_BROWSER_TEST=required` or `CI=true` (both set by `dev.sh ci`)
//! makes it fail (`common::skip`).

mod common;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The screen the report must fit its verdict and first anomaly on.
const SCREEN: (u32, u32) = (1366, 768);

fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|d| ["chromium", "chromium-browser", "google-chrome"].map(move |n| d.join(n)))
        .find(|p| p.is_file())
}

/// The flags every run of the browser takes: no sandbox (tests run as
/// root in containers), no GPU, file pages may read each other, a profile
/// of its own (runs sharing the default profile, of this test or of
/// another on the machine, can hang waiting for each other), and a stop
/// after a minute whatever the page does. Runs it with `args` and
/// removes the profile.
fn browser(exe: &Path, args: &[String]) -> std::process::Output {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let n = RUNS.fetch_add(1, Ordering::Relaxed);
    let profile = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("chromium-profile-{}-{n}", std::process::id()));
    let mut c = Command::new(exe);
    c.arg(format!("--user-data-dir={}", profile.display()));
    c.arg("--timeout=60000");
    c.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        "--allow-file-access-from-files",
        "--virtual-time-budget=10000",
    ]);
    c.arg(format!("--window-size={},{}", SCREEN.0, SCREEN.1));
    let out = c.args(args).output().expect("chromium runs");
    let _ = std::fs::remove_dir_all(&profile);
    out
}

/// Runs `isocheck check --html` on a fixture; the report's path.
fn report(dir: &Path, fixture: &str, models: &str, name: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = dir.join(format!("{name}.html"));
    let status = Command::new(env!("CARGO_BIN_EXE_isocheck"))
        .env("ISOCHECK_PROGRESS", "off")
        .current_dir(root)
        .args(["check", fixture, "-m", models, "--html"])
        .arg(&out)
        .output()
        .expect("isocheck runs");
    assert_eq!(status.status.code(), Some(1), "{fixture}: {status:?}");
    out
}

/// What the probe page reads of a report: the first screen, the first
/// anomaly's drawing and timeline, and its case tabs before and after a
/// click on the second.
const PROBE: &str = r#"<!DOCTYPE html><html><body style="margin:0">
<iframe id="f" src="REPORT" width="WIDTH" height="HEIGHT" style="border:0"></iframe>
<pre id="out"></pre>
<script>
function visible(s) { return [...s.querySelectorAll('[role=tabpanel]')].filter(p => !p.hidden); }
function drawing(s) {
  var scope = visible(s)[0] || s;
  return {
    nodes: [...scope.querySelectorAll('.node.txn')].map(n => n.dataset.process),
    edges: [...scope.querySelectorAll('.dep')].map(e => e.dataset.rel),
    lanes: [...scope.querySelectorAll('.timeline .lane')].map(l => l.dataset.process),
    bars: [...scope.querySelectorAll('.timeline .bar')].map(b => b.dataset.process),
    involved: [...scope.querySelectorAll('.timeline .bar.involved')].map(b => b.dataset.process),
    where: scope.querySelectorAll('.where li').length
  };
}
document.getElementById('f').addEventListener('load', function () {
  var d = this.contentDocument, r = {};
  var h1 = d.querySelector('h1.verdict'), first = d.querySelector('section.anomaly');
  r.verdict = h1.textContent;
  r.verdictBottom = h1.getBoundingClientRect().bottom;
  r.anomaly = first.querySelector('h2').textContent;
  var shown = first.querySelector('.plot svg, pre.explanation');
  r.firstTop = shown.getBoundingClientRect().top;
  r.before = drawing(first);
  r.plotsScrolling = [...d.querySelectorAll('.plot')]
    .filter(p => p.scrollHeight > p.clientHeight + 1).length;
  var lattice = d.querySelector('svg.lattice');
  r.lattice = !!lattice;
  if (lattice) {
    r.latticeFont = 12 * lattice.getBoundingClientRect().width / lattice.width.baseVal.value;
  }
  var tabs = [...first.querySelectorAll('[role=tab]')];
  r.tabs = tabs.length;
  if (tabs.length > 1) {
    tabs[1].click();
    r.selected = tabs.map(t => t.getAttribute('aria-selected'));
    r.selectedLabel = tabs[1].textContent;
    r.shownPanels = visible(first).map(p => p.id);
    r.after = drawing(first);
  }
  document.getElementById('out').textContent = JSON.stringify(r);
});
</script></body></html>"#;

/// Loads the probe around `report` and returns what it read.
fn probe(exe: &Path, report: &Path) -> Value {
    let page = PROBE
        .replace("WIDTH", &SCREEN.0.to_string())
        .replace("HEIGHT", &SCREEN.1.to_string());
    read_probe(exe, report, &page)
}

/// Writes the probe page `page` beside `report` (`REPORT` standing for
/// the report's name), loads it and returns the JSON it put in its `out`.
fn read_probe(exe: &Path, report: &Path, page: &str) -> Value {
    let name = report.file_name().unwrap().to_string_lossy();
    let probe = report.with_file_name(format!("probe-{name}"));
    std::fs::write(&probe, page.replace("REPORT", &name)).expect("probe written");
    let page = format!("file://{}", probe.display());
    let out = browser(exe, &["--dump-dom".to_string(), page]);
    let dom = String::from_utf8_lossy(&out.stdout);
    let json = dom
        .split("<pre id=\"out\">")
        .nth(1)
        .and_then(|s| s.split("</pre>").next())
        .unwrap_or_else(|| panic!("no probe output in {dom}\n{out:?}"));
    let json = json
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&");
    serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}"))
}

fn screenshot(exe: &Path, report: &Path, fragment: &str, png: &Path) {
    let out = browser(
        exe,
        &[
            format!("--screenshot={}", png.display()),
            format!("file://{}{fragment}", report.display()),
        ],
    );
    let size = std::fs::metadata(png).map(|m| m.len()).unwrap_or(0);
    assert!(size > 10_000, "{}: {size} bytes, {out:?}", png.display());
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("not a list: {v}"))
        .iter()
        .map(|x| x.as_str().unwrap_or_default().to_string())
        .collect()
}

/// The first screen shows the verdict and the first anomaly, and the
/// timeline's lanes are exactly the processes of its bars, the involved
/// ones among them.
fn first_screen_and_lanes(r: &Value, drawing: &Value, name: &str) {
    let height = f64::from(SCREEN.1);
    assert_eq!(r["verdict"], "invalid", "{name}: {r}");
    assert!(r["verdictBottom"].as_f64().unwrap() < height, "{name}: {r}");
    assert!(
        r["firstTop"].as_f64().unwrap() < height - 100.0,
        "{name}: {r}"
    );
    // Plots are as tall as they need: the page scrolls, not the plot.
    assert_eq!(r["plotsScrolling"], 0, "{name}: {r}");
    if r["lattice"] == true {
        let font = r["latticeFont"].as_f64().unwrap_or_default();
        assert!(
            font >= 11.0,
            "{name}: the lattice's letters are {font} px: {r}"
        );
    }
    let mut lanes = strings(&drawing["lanes"]);
    let mut bars = strings(&drawing["bars"]);
    bars.sort();
    bars.dedup();
    assert!(!lanes.is_empty(), "{name}: no timeline: {r}");
    lanes.sort();
    assert_eq!(lanes, bars, "{name}: {r}");
    for p in strings(&drawing["involved"]) {
        assert!(lanes.contains(&p), "{name}: {p} has no lane: {r}");
    }
    // A cycle's transactions are the involved bars.
    let mut nodes = strings(&drawing["nodes"]);
    if !nodes.is_empty() {
        let mut involved = strings(&drawing["involved"]);
        nodes.sort();
        involved.sort();
        assert_eq!(nodes, involved, "{name}: {r}");
    }
}

/// The report of a fixture, read by the probe: its first anomaly is
/// `anomaly`, on the first screen with its timeline; a screenshot is taken.
fn open(exe: &Path, dir: &Path, fixture: &str, models: &str, anomaly: &str) -> Value {
    let name = Path::new(fixture).file_stem().unwrap().to_string_lossy();
    let page = report(dir, fixture, models, &name);
    let r = probe(exe, &page);
    assert_eq!(r["anomaly"], anomaly, "{r}");
    first_screen_and_lanes(&r, &r["before"], &name);
    screenshot(exe, &page, "", &dir.join(format!("{name}.png")));
    r
}

/// Chromium, or `None` after [`common::skip`] when it is not installed.
fn chromium_or_skip() -> Option<PathBuf> {
    let exe = chromium();
    if exe.is_none() {
        let why = "chromium is not installed (`apt-get install chromium`)";
        common::skip(common::Need::Browser, why);
    }
    exe
}

/// A scratch directory of this test file's.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

#[test]
fn reports_in_chromium() {
    let Some(exe) = chromium_or_skip() else {
        return;
    };
    let dir = scratch("browser");

    // A G2-item in both orders of two writes: two cases of three steps each.
    let forced = "fixtures/html/g2-item-forced.edn";
    let r = open(&exe, &dir, forced, "serializable", "G2-item #0");
    assert_eq!(r["tabs"], 2, "{r}");
    assert_eq!(strings(&r["before"]["edges"]), ["rw", "wr", "rw"], "{r}");
    assert_eq!(strings(&r["selected"]), ["false", "true"], "{r}");
    assert_eq!(strings(&r["shownPanels"]), ["G2-item-0-case-2"], "{r}");
    assert!(
        r["selectedLabel"]
            .as_str()
            .unwrap_or_default()
            .starts_with("Case 2"),
        "{r}"
    );
    first_screen_and_lanes(&r, &r["after"], "g2-item, second case");
    assert_eq!(strings(&r["after"]["nodes"]).len(), 3, "{r}");
    assert_eq!(strings(&r["after"]["edges"]).len(), 3, "{r}");
    assert_ne!(r["before"]["nodes"], r["after"]["nodes"], "{r}");
    let page = dir.join("g2-item-forced.html");
    let second = dir.join("g2-item-forced-case-2.png");
    screenshot(&exe, &page, "#G2-item-0-case-2", &second);
    for case in ["1", "2"] {
        let r = fragment_probe(&exe, &page, &format!("G2-item-0-case-{case}"));
        assert_eq!(
            strings(&r["shown"]),
            [format!("G2-item-0-case-{case}")],
            "{r}"
        );
        let label = r["selected"].as_str().unwrap_or_default();
        assert!(label.starts_with(&format!("Case {case}")), "{r}");
        assert_eq!(r["target"], true, "{r}");
    }

    // A G1a: no cycle, the ops it rests on and their lane.
    let r = open(
        &exe,
        &dir,
        "fixtures/check/g1a.edn",
        "read-committed",
        "G1a #0",
    );
    assert_eq!(r["before"]["nodes"], Value::Array(Vec::new()), "{r}");
    assert!(r["before"]["where"].as_u64().unwrap() >= 2, "{r}");

    let lost = "fixtures/check/lost-update.edn";
    open(&exe, &dir, lost, "serializable", "lost-update #0");

    let cas = "fixtures/lwt/realtime.edn";
    let r = open(&exe, &dir, cas, "linearizable", "nonlinearizable #0");
    assert_eq!(strings(&r["before"]["involved"]).len(), 2, "{r}");
}

/// A history file whose name is a script URL: if the page linked to it as
/// written, a click on "line 3" would run it and set the probe's title.
const HOSTILE_NAME: &str = "javascript:top.document.title='PWNED'<!--";

/// What the hostile probe reads: the first line link's address as written
/// and as the browser resolves it, then the title a second after a click
/// on it (virtual time: the click's navigation has happened by then).
const CLICK_PROBE: &str = r#"<!DOCTYPE html><html><head><title>probe</title></head><body>
<iframe id="f" src="REPORT" width="800" height="600"></iframe>
<pre id="out"></pre>
<script>
var r = {}, frame = document.getElementById('f');
frame.addEventListener('load', function first() {
  frame.removeEventListener('load', first);
  var a = frame.contentDocument.querySelector('.where a');
  r.text = a.textContent;
  r.attribute = a.getAttribute('href');
  r.protocol = a.protocol;
  a.click();
  setTimeout(function () {
    r.title = document.title;
    document.getElementById('out').textContent = JSON.stringify(r);
  }, 1000);
});
</script></body></html>"#;

#[test]
fn a_hostile_file_name_is_a_relative_link_in_chromium() {
    let Some(exe) = chromium_or_skip() else {
        return;
    };
    let dir = scratch("browser-hostile");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::copy(root.join("fixtures/check/g1a.edn"), dir.join(HOSTILE_NAME))
        .expect("history copied");
    let page = dir.join("hostile.html");
    let out = Command::new(env!("CARGO_BIN_EXE_isocheck"))
        .env("ISOCHECK_PROGRESS", "off")
        .current_dir(&dir)
        .args(["check", HOSTILE_NAME, "-m", "read-committed", "--html"])
        .arg(&page)
        .output()
        .expect("isocheck runs");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let r = read_probe(&exe, &page, CLICK_PROBE);
    assert_eq!(r["text"], "line 4", "{r}");
    let attribute = r["attribute"].as_str().unwrap_or_default();
    assert!(attribute.starts_with("./javascript%3A"), "{r}");
    assert_eq!(r["protocol"], "file:", "{r}");
    assert_eq!(r["title"], "probe", "the click ran the file name: {r}");
}

/// What the table probe reads of `recheck --html`'s page: where the
/// summary, the table and the agree column are, and which rows show
/// before and after a click on the "disagreements only" filter.
const TABLE_PROBE: &str = r#"<!DOCTYPE html><html><body style="margin:0">
<iframe id="f" src="REPORT" width="WIDTH" height="HEIGHT" style="border:0"></iframe>
<pre id="out"></pre>
<script>
document.getElementById('f').addEventListener('load', function () {
  var d = this.contentDocument, r = {};
  var shown = () => [...d.querySelectorAll('table.runs tbody tr')]
    .filter(t => t.getClientRects().length > 0).map(t => t.className);
  r.summaryTop = d.querySelector('p.summary').getBoundingClientRect().top;
  r.tableTop = d.querySelector('table.runs').getBoundingClientRect().top;
  r.agreeRight = Math.max(...[...d.querySelectorAll('table.runs .agree')]
    .map(c => c.getBoundingClientRect().right));
  r.before = shown();
  d.getElementById('disagreements-only').click();
  r.after = shown();
  document.getElementById('out').textContent = JSON.stringify(r);
});
</script></body></html>"#;

/// Issue 34: `recheck --html`'s table at 1366 px, with run names as long
/// as GRAIL's and a long reason: the summary is above the table, the agree
/// column is on the screen, and the filter leaves only the disagreement.
#[test]
fn the_recheck_table_in_chromium() {
    let Some(exe) = chromium_or_skip() else {
        return;
    };
    let dir = scratch("browser-recheck");
    let store = dir.join("store");
    let _ = std::fs::remove_dir_all(&store);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let valid = "{:workload {:valid? true} :valid? true}";
    let long = "example-histories/rw-register/a-test-with-a-rather-long-name-as-jepsen-gives";
    for (run, fixture) in [
        ("20230411T124640.891+0200", "fixtures/check/valid.edn"),
        ("20230411T124905.164+0200", "fixtures/check/rw-forced.edn"),
        ("20230411T125013.203+0200", "fixtures/check/valid.edn"),
    ] {
        let run = store.join(long).join(run);
        std::fs::create_dir_all(&run).expect("run directory");
        std::fs::copy(root.join(fixture), run.join("history.edn")).expect("history copied");
        std::fs::write(run.join("results.edn"), valid).expect("results written");
    }
    let page = dir.join("table.html");
    let out = Command::new(env!("CARGO_BIN_EXE_isocheck"))
        .args(["recheck", "--html"])
        .arg(&page)
        .arg(&store)
        .output()
        .expect("isocheck runs");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let probe = TABLE_PROBE
        .replace("WIDTH", &SCREEN.0.to_string())
        .replace("HEIGHT", &SCREEN.1.to_string());
    let r = read_probe(&exe, &page, &probe);
    assert!(r["summaryTop"].as_f64() < r["tableTop"].as_f64(), "{r}");
    let right = r["agreeRight"].as_f64().unwrap_or(f64::MAX);
    assert!(right <= f64::from(SCREEN.0), "{r}");
    assert_eq!(strings(&r["before"]), ["agree", "disagree", "agree"], "{r}");
    assert_eq!(strings(&r["after"]), ["disagree"], "{r}");
    screenshot(&exe, &page, "", &dir.join("recheck-table.png"));
}

/// What a report opened at `#FRAGMENT` shows: the case panels shown, the
/// label of the selected tab, and whether the element the fragment names
/// is shown (rendered, with its collapsed ancestors open).
const FRAGMENT_PROBE: &str = r#"<!DOCTYPE html><html><body style="margin:0">
<iframe id="f" src="REPORT#FRAGMENT" width="WIDTH" height="HEIGHT" style="border:0"></iframe>
<pre id="out"></pre>
<script>
document.getElementById('f').addEventListener('load', function () {
  var d = this.contentDocument, r = {};
  r.shown = [...d.querySelectorAll('[role=tabpanel]')].filter(p => !p.hidden).map(p => p.id);
  var tab = d.querySelector('[role=tab][aria-selected=true]');
  r.selected = tab ? tab.textContent : null;
  var t = d.getElementById('FRAGMENT');
  r.target = !!t && t.getClientRects().length > 0;
  document.getElementById('out').textContent = JSON.stringify(r);
});
</script></body></html>"#;

fn fragment_probe(exe: &Path, report: &Path, fragment: &str) -> Value {
    let page = FRAGMENT_PROBE
        .replace("FRAGMENT", fragment)
        .replace("WIDTH", &SCREEN.0.to_string())
        .replace("HEIGHT", &SCREEN.1.to_string());
    read_probe(exe, report, &page)
}

/// What the evidence probe reads of the first anomaly of a report with a
/// nemesis (issue 34): the lines of text of each transaction's box and
/// whether they are inside it, and the fault windows of the timeline as
/// drawn before and after ticking "show the whole run".
const EVIDENCE_PROBE: &str = r#"<!DOCTYPE html><html><body style="margin:0">
<iframe id="f" src="REPORT" width="WIDTH" height="HEIGHT" style="border:0"></iframe>
<pre id="out"></pre>
<script>
function shown(e) { var b = e.getBoundingClientRect(); return b.width > 0 && getComputedStyle(e).display != 'none'; }
function faults(s) {
  return [...s.querySelectorAll('.timeline .fault rect')].filter(shown).map(e => {
    var b = e.getBoundingClientRect(); return {f: e.parentNode.dataset.f, width: b.width, height: b.height};
  });
}
document.getElementById('f').addEventListener('load', function () {
  var d = this.contentDocument, r = {}, first = d.querySelector('section.anomaly');
  r.anomaly = first.querySelector('h2').textContent;
  r.boxes = [...first.querySelectorAll('.node.txn')].map(n => {
    var box = n.querySelector('rect').getBoundingClientRect();
    var lines = [...n.querySelectorAll('tspan')];
    var inside = lines.every(l => { var b = l.getBoundingClientRect();
      return b.left >= box.left - 0.5 && b.right <= box.right + 0.5 && b.top >= box.top - 0.5 && b.bottom <= box.bottom + 0.5; });
    return {name: n.dataset.name, text: lines.map(l => l.textContent.trim()).join(' '), inside: inside};
  });
  r.lanes = first.querySelectorAll('.timeline .lane').length;
  r.before = faults(first);
  first.querySelector('.timeline-view label').click();
  r.after = faults(first);
  r.caption = first.querySelector('.timeline-view .caption').textContent;
  document.getElementById('out').textContent = JSON.stringify(r);
});
</script></body></html>"#;

/// Issue 34: a G1c inside a network partition, one of its transactions of
/// twelve micro-ops (the last a read of 40 elements): every micro-op is in
/// its box, whole and inside it, and the timeline shades the partition
/// around the anomaly, and the later kill once widened to the whole run.
#[test]
fn the_evidence_in_chromium() {
    let Some(exe) = chromium_or_skip() else {
        return;
    };
    let dir = scratch("browser-evidence");
    let page = report(
        &dir,
        "fixtures/html/g1c-faults.edn",
        "serializable",
        "faults",
    );
    let probe = EVIDENCE_PROBE
        .replace("WIDTH", &SCREEN.0.to_string())
        .replace("HEIGHT", &SCREEN.1.to_string());
    let r = read_probe(&exe, &page, &probe);
    assert_eq!(r["anomaly"], "G1c #0", "{r}");
    let boxes = r["boxes"].as_array().expect("boxes");
    assert_eq!(boxes.len(), 2, "{r}");
    let twelve = boxes
        .iter()
        .find(|b| b["text"].as_str().unwrap_or_default().contains(":m8"))
        .unwrap_or_else(|| panic!("no box of twelve micro-ops: {r}"));
    let text = twelve["text"]
        .as_str()
        .unwrap_or_default()
        .replace("  ", " ");
    assert_eq!(text.matches("[:").count(), 12, "{text}");
    for i in 0..9 {
        assert!(text.contains(&format!("[:append :m{i} 1]")), "{text}");
    }
    let long: Vec<String> = (1..=40).map(|i| i.to_string()).collect();
    assert!(
        text.contains(&format!("[:r :long [{}]]", long.join(" "))),
        "{text}"
    );
    for b in boxes {
        assert_eq!(b["inside"], true, "text outside its box: {r}");
    }
    let fs = |v: &Value| -> Vec<String> {
        let all = v.as_array().cloned().unwrap_or_default();
        all.iter()
            .map(|w| w["f"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    assert_eq!(fs(&r["before"]), ["start-partition"], "{r}");
    assert_eq!(fs(&r["after"]), ["start-partition", "kill"], "{r}");
    let lanes = r["lanes"].as_f64().unwrap_or_default();
    for w in r["after"].as_array().into_iter().flatten() {
        assert!(w["width"].as_f64().unwrap_or_default() >= 2.0, "{r}");
        // Shaded across every lane.
        assert!(
            w["height"].as_f64().unwrap_or_default() >= lanes * 24.0,
            "{r}"
        );
    }
    let caption = r["caption"].as_str().unwrap_or_default();
    assert!(caption.contains("left to right is time"), "{r}");
    assert!(caption.contains("the nemesis's 2 faults"), "{r}");
    let png = dir.join("faults.png");
    screenshot(&exe, &page, "", &png);
}

/// What the many-anomalies probe reads: for each fragment `#G1a-<i>`,
/// whether, once the address is set, the anomaly is shown and which
/// keys its text names.
const MANY_PROBE: &str = r#"<!DOCTYPE html><html><body style="margin:0">
<iframe id="f" src="REPORT" width="WIDTH" height="HEIGHT" style="border:0"></iframe>
<pre id="out"></pre>
<script>
document.getElementById('f').addEventListener('load', async function () {
  var w = this.contentWindow, d = this.contentDocument, r = {shown: [], keys: []};
  for (var i = 0; i < COUNT; i++) {
    // The page opens the anomaly on the address's change; a second at
    // most for it, so that a lost event fails the test rather than hang.
    await Promise.race([
      new Promise(done => { w.addEventListener('hashchange', done, {once: true}); w.location.hash = '#G1a-' + i; }),
      new Promise(done => setTimeout(done, 1000))]);
    var e = d.getElementById('G1a-' + i);
    r.shown.push(!!e && e.getClientRects().length > 0 && e.querySelector('pre').getClientRects().length > 0);
    r.keys.push(e ? (e.textContent.match(/:k[0-9]+/) || [''])[0] : '');
  }
  document.getElementById('out').textContent = JSON.stringify(r);
});
</script></body></html>"#;

/// Issue 34: every one of 90 anomalies is on the page: opening its
/// address shows it, whether drawn in full (the first ten) or collapsed.
#[test]
fn every_anomaly_is_reachable_in_chromium() {
    let Some(exe) = chromium_or_skip() else {
        return;
    };
    let dir = scratch("browser-many");
    let history = dir.join("ninety-g1a.edn");
    std::fs::write(&history, common::many_g1a(90)).expect("history written");
    let page = dir.join("ninety.html");
    let out = Command::new(env!("CARGO_BIN_EXE_isocheck"))
        .env("ISOCHECK_PROGRESS", "off")
        .args(["check", "-m", "read-committed", "--html"])
        .arg(&page)
        .arg(&history)
        .output()
        .expect("isocheck runs");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let probe = MANY_PROBE
        .replace("COUNT", "90")
        .replace("WIDTH", &SCREEN.0.to_string())
        .replace("HEIGHT", &SCREEN.1.to_string());
    let r = read_probe(&exe, &page, &probe);
    let shown = r["shown"].as_array().expect("shown");
    assert_eq!(shown.len(), 90, "{r}");
    assert!(shown.iter().all(|s| s == true), "{r}");
    let mut keys = strings(&r["keys"]);
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), 90, "{r}");
}

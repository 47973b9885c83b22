//! Every EDN history of the shared corpus loads, with the op and transaction
//! counts that two independent counts give: the corpus manifest's, and a
//! plain line scan done here.

mod common;

use isocheck::history::{self, History, LoadOptions, OpType, Status};
use serde_json::Value;
use std::path::Path;

#[derive(Debug, Default, PartialEq, Eq)]
struct Counts {
    invoke: usize,
    ok: usize,
    fail: usize,
    info: usize,
}

fn manifest(dir: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(dir.join("manifest.json")).expect("manifest.json");
    serde_json::from_str::<Vec<Value>>(&text).expect("manifest is a JSON array")
}

fn manifest_counts(entry: &Value) -> Counts {
    let t = &entry["stats"]["types"];
    let n = |k: &str| t[k].as_u64().unwrap_or(0) as usize;
    Counts {
        invoke: n("invoke"),
        ok: n("ok"),
        fail: n("fail"),
        info: n("info"),
    }
}

fn our_counts(h: &History) -> Counts {
    let mut c = Counts::default();
    for op in &h.ops {
        match op.ty {
            OpType::Invoke => c.invoke += 1,
            OpType::Ok => c.ok += 1,
            OpType::Fail => c.fail += 1,
            OpType::Info => c.info += 1,
        }
    }
    c
}

/// Client completions by type, from the text: one op per line, an integer
/// `:process`. Independent of the EDN reader.
fn scanned_client_counts(text: &str) -> Counts {
    let mut c = Counts::default();
    for line in text.lines().map(str::trim).filter(|l| l.starts_with('{')) {
        let client = line
            .split(":process ")
            .nth(1)
            .and_then(|rest| rest.chars().next())
            .is_some_and(|ch| ch.is_ascii_digit());
        if !client {
            continue;
        }
        let ty = line
            .split(":type :")
            .nth(1)
            .map(|r| r.split([',', ' ', '}']).next().unwrap_or(""));
        match ty {
            Some("invoke") => c.invoke += 1,
            Some("ok") => c.ok += 1,
            Some("fail") => c.fail += 1,
            Some("info") => c.info += 1,
            _ => {}
        }
    }
    c
}

fn status_counts(h: &History) -> Counts {
    let mut c = Counts {
        invoke: h.txns.iter().filter(|t| t.invoke.is_some()).count(),
        ..Counts::default()
    };
    for t in h.txns.iter().filter(|t| t.completion.is_some()) {
        match t.status {
            Status::Committed => c.ok += 1,
            Status::Aborted => c.fail += 1,
            Status::Indeterminate => c.info += 1,
        }
    }
    c
}

#[test]
fn every_corpus_edn_history_loads_with_independent_counts() {
    let Some(dir) = common::corpus_dir() else {
        return;
    };
    let mut checked = 0;
    for entry in manifest(&dir) {
        let kind = entry["kind"].as_str().unwrap_or("");
        let file = entry["file"].as_str().unwrap_or("");
        if !kind.starts_with("history") || !file.ends_with(".edn") {
            continue;
        }
        let path = dir.join(file);
        let h =
            history::load(&path, &LoadOptions::default()).unwrap_or_else(|d| panic!("{file}: {d}"));
        assert_eq!(
            our_counts(&h),
            manifest_counts(&entry),
            "{file}: op types vs manifest"
        );
        let nemesis = entry["stats"]["nemesis_ops"].as_u64().unwrap_or(0) as usize;
        let clients = h.ops.iter().filter(|o| o.is_client()).count();
        let text = std::fs::read_to_string(&path).expect("readable");
        let scanned = scanned_client_counts(&text);
        assert_eq!(
            status_counts(&h),
            scanned,
            "{file}: transactions vs line scan"
        );
        let has_process = text.contains(":process");
        if has_process {
            assert_eq!(
                clients + nemesis,
                h.ops.len(),
                "{file}: client + nemesis ops"
            );
        } else {
            assert_eq!(
                clients, 0,
                "{file}: ops without :process are not client ops"
            );
        }
        checked += 1;
    }
    assert!(checked >= 60, "only {checked} corpus histories found");
    eprintln!("checked {checked} corpus EDN histories");
}

#[test]
fn huge_scc_counts_match_the_published_figures() {
    let Some(dir) = common::corpus_dir() else {
        return;
    };
    let h = history::load(
        &dir.join("elle/histories/huge-scc.edn"),
        &LoadOptions::default(),
    )
    .expect("loads");
    assert_eq!(
        our_counts(&h),
        Counts {
            invoke: 10254,
            ok: 3036,
            fail: 7070,
            info: 242
        }
    );
    assert_eq!(h.ops.iter().filter(|o| !o.is_client()).count(), 94);
    let committed = h
        .txns
        .iter()
        .filter(|t| t.status == Status::Committed)
        .count();
    assert_eq!((h.txns.len(), committed), (10254, 3036));
}

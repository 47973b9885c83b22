//! The model table (`check::models::ROWS`) is the one place a model is
//! described: `check --help`'s list of names, the HTML report's drawing of
//! the lattice and the README's table of models are derived from its rows
//! here, and must agree with what the binary, the report and the README
//! show.

use isocheck::history::{self, Format};
use isocheck::internals::check::lattice::{self, Definition};
use isocheck::internals::check::models::{Model, ROWS};
use isocheck::CheckOptions;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Every name a model is known by, sorted: what `--help` lists.
fn names_of_rows() -> Vec<&'static str> {
    let names: BTreeSet<&str> = Model::all().flat_map(Model::names).collect();
    names.into_iter().collect()
}

/// Each model with the models it implies with no model in between (the
/// lattice's transitive reduction, which the drawing shows), by the names
/// Elle prints.
fn reduction_of_rows() -> BTreeSet<(&'static str, &'static str)> {
    let below = |m: Model| -> BTreeSet<Model> {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<Model> = m.row().implies.to_vec();
        while let Some(n) = stack.pop() {
            if seen.insert(n) {
                stack.extend(n.row().implies);
            }
        }
        seen
    };
    let all: BTreeMap<Model, BTreeSet<Model>> = Model::all().map(|m| (m, below(m))).collect();
    let mut edges = BTreeSet::new();
    for (&m, under) in &all {
        for &n in under {
            if !under.iter().any(|k| all[k].contains(&n)) {
                edges.insert((m.friendly(), n.friendly()));
            }
        }
    }
    edges
}

#[test]
fn help_lists_the_names_of_the_rows() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_isocheck"))
        .env("ISOCHECK_PROGRESS", "off")
        .args(["check", "--help"])
        .output()
        .expect("isocheck runs");
    let help = String::from_utf8(out.stdout).expect("UTF-8 help");
    let listed = help
        .split("Known models: ")
        .nth(1)
        .expect("--help lists the models");
    let listed = listed.split("\n\n").next().unwrap_or_default();
    let listed: Vec<&str> = listed.split(',').map(str::trim).collect();
    assert_eq!(listed, names_of_rows());
    // The names weak_models.rs's every-model property goes through.
    assert_eq!(listed, lattice::known_models());
}

/// A box of the drawing: a model's name and its rectangle.
struct Box {
    name: String,
    x: f64,
    y: f64,
    w: f64,
    h: f64,
}

impl Box {
    /// Whether a point lies on the rectangle (its border included).
    fn holds(&self, (x, y): (f64, f64)) -> bool {
        let near = |v: f64, lo: f64, len: f64| v > lo - 0.5 && v < lo + len + 0.5;
        near(x, self.x, self.w) && near(y, self.y, self.h)
    }
}

/// The number after `key="` in `s`.
fn attr(s: &str, key: &str) -> f64 {
    let from = s.find(&format!(" {key}=\"")).expect(key) + key.len() + 3;
    let to = from + s[from..].find('"').unwrap();
    s[from..to].parse().unwrap()
}

/// The models' boxes of the drawing in an HTML report.
fn boxes(svg: &str) -> Vec<Box> {
    svg.split("<g class=\"model ")
        .skip(1)
        .map(|g| {
            let name = g.split("data-model=\"").nth(1).unwrap();
            let rect = g.split("<rect").nth(1).unwrap();
            Box {
                name: name[..name.find('"').unwrap()].to_string(),
                x: attr(rect, "x"),
                y: attr(rect, "y"),
                w: attr(rect, "width"),
                h: attr(rect, "height"),
            }
        })
        .collect()
}

/// The drawing's arrows, each as the boxes its path starts and ends on.
fn arrows(svg: &str, boxes: &[Box]) -> BTreeSet<(String, String)> {
    let on = |p: (f64, f64)| {
        let b: Vec<&Box> = boxes.iter().filter(|b| b.holds(p)).collect();
        assert_eq!(b.len(), 1, "{p:?} is on one box");
        b[0].name.clone()
    };
    svg.split("<g class=\"implies\"><path d=\"M ")
        .skip(1)
        .map(|p| {
            let d = &p[..p.find('"').unwrap()];
            let numbers: Vec<f64> = d.split([' ', ',']).filter_map(|t| t.parse().ok()).collect();
            let end = (numbers[numbers.len() - 2], numbers[numbers.len() - 1]);
            (on((numbers[0], numbers[1])), on(end))
        })
        .collect()
}

#[test]
fn the_drawing_shows_the_rows() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(dir.join("fixtures/check/g1a.edn")).unwrap();
    let h = history::parse_text(Format::Edn, "g1a.edn", text, None).unwrap();
    let o = isocheck::check(&h, &CheckOptions::default()).expect("valid options");
    let html = o.html(&h, dir);
    let svg = html
        .split("<svg class=\"lattice\"")
        .nth(1)
        .expect("the page draws the lattice");
    let svg = &svg[..svg.find("</svg>").unwrap()];
    let boxes = boxes(svg);
    let drawn: BTreeSet<&str> = boxes.iter().map(|b| b.name.as_str()).collect();
    let rows: BTreeSet<&str> = Model::all().map(Model::friendly).collect();
    assert_eq!(drawn, rows);
    assert_eq!(boxes.len(), ROWS.len());
    let expected: BTreeSet<(String, String)> = reduction_of_rows()
        .into_iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(arrows(svg, &boxes), expected);
}

/// How a README row says its models are decided, and how a row of the
/// table decides its model.
#[derive(Debug, PartialEq, Eq)]
enum Decided {
    Adya,
    Saturation,
    Characterisation,
    NotChecked,
}

fn decided(d: Definition) -> Decided {
    match d {
        Definition::Adya => Decided::Adya,
        Definition::Axiomatic(_) => Decided::Saturation,
        Definition::Characterised(_) | Definition::OrderKnown(_) => Decided::Characterisation,
        Definition::NotChecked(_) => Decided::NotChecked,
    }
}

fn readme_decided(definition: &str, decided_in: &str) -> Decided {
    if definition.starts_with("not checked") {
        Decided::NotChecked
    } else if definition.starts_with("Adya 1999 as Elle checks it") {
        Decided::Adya
    } else if definition.contains("characterisation") {
        Decided::Characterisation
    } else {
        assert!(decided_in.starts_with("saturation"), "{decided_in}");
        Decided::Saturation
    }
}

/// The README's table of models: each row's names (a `*` stands for every
/// model whose printed name is so prefixed and that no other name or
/// longer prefix of the table stands for) and cells.
fn readme_table() -> Vec<(Vec<String>, Vec<String>)> {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("the README");
    let table = readme
        .split("<!-- the model table")
        .nth(1)
        .expect("the README marks its table of models");
    table
        .lines()
        .skip_while(|l| !l.starts_with("| model name |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            let cells: Vec<String> = l
                .trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().to_string())
                .collect();
            let names = cells[0]
                .split(", ")
                .map(|n| n.trim_matches('`').to_string())
                .collect();
            (names, cells)
        })
        .collect()
}

#[test]
fn the_readme_table_has_every_row_once_as_decided() {
    let table = readme_table();
    let explicit: BTreeSet<Model> = table
        .iter()
        .flat_map(|(names, _)| names.iter())
        .filter(|n| !n.ends_with('*'))
        .map(|n| Model::parse(n).unwrap_or_else(|| panic!("the README names `{n}`")))
        .collect();
    let prefixes: Vec<&str> = table
        .iter()
        .flat_map(|(names, _)| names.iter())
        .filter_map(|n| n.strip_suffix('*'))
        .collect();
    // The longest prefix of the table a model's printed name has.
    let prefix_of = |m: Model| {
        (prefixes.iter().copied())
            .filter(|p| m.friendly().starts_with(p))
            .max_by_key(|p| p.len())
    };
    let mut seen: Vec<Model> = Vec::new();
    for (names, cells) in &table {
        let way = readme_decided(&cells[1], &cells[2]);
        for name in names {
            let models: Vec<Model> = match name.strip_suffix('*') {
                Some(prefix) => Model::all()
                    .filter(|&m| !explicit.contains(&m) && prefix_of(m) == Some(prefix))
                    .collect(),
                None => vec![Model::parse(name).unwrap()],
            };
            assert!(!models.is_empty(), "`{name}` names no model");
            for m in models {
                assert_eq!(decided(m.row().definition), way, "`{name}`: {m:?}");
                seen.push(m);
            }
        }
    }
    let once: BTreeSet<Model> = seen.iter().copied().collect();
    assert_eq!(seen.len(), once.len(), "a model is in two rows");
    assert_eq!(once, Model::all().collect(), "every model has a row");
}

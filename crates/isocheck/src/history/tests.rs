//! Reading Jepsen EDN into transactions: framings, fields, pairing, workload, uniqueness.

use super::error::ErrorKind;
use super::*;

fn load(text: &str) -> History {
    parse_edn("t.edn", text).unwrap_or_else(|d| panic!("{d}"))
}

fn error(text: &str) -> HistoryError {
    match parse_edn("t.edn", text) {
        Ok(_) => panic!("accepted: {text}"),
        Err(d) => *d.error,
    }
}

/// Micro-ops of transaction `t` as `[:f k v]` text.
fn mops(h: &History, t: usize) -> Vec<String> {
    h.mops_of(&h.txns[t])
        .iter()
        .map(|m| {
            let v = match m.value() {
                MopValue::Val(v) => h.values.display(v),
                MopValue::List { start, len } => {
                    let items: Vec<String> = h
                        .list(start, len)
                        .iter()
                        .map(|v| h.values.display(*v))
                        .collect();
                    format!("[{}]", items.join(" "))
                }
            };
            format!("[:{} {} {}]", m.kind.name(), h.values.display(m.key), v)
        })
        .collect()
}

const PAIR: &str = r#"{:index 0, :time 10, :type :invoke, :process 0, :f :txn, :value [[:append :x 1] [:r :x nil]]}
{:index 1, :time 20, :type :ok, :process 0, :f :txn, :value [[:append :x 1] [:r :x [1]]]}
"#;

#[test]
fn reads_a_pair_into_a_committed_transaction() {
    let h = load(PAIR);
    assert_eq!(h.ops.len(), 2);
    assert_eq!(h.txns.len(), 1);
    let t = &h.txns[0];
    assert_eq!(
        (t.invoke, t.completion, t.status, t.process),
        (Some(0), Some(1), Status::Committed, 0)
    );
    assert_eq!(mops(&h, 0), ["[:append :x 1]", "[:r :x [1]]"]);
    assert_eq!(h.ops[1].time(), Some(20));
    assert_eq!(h.workload, Workload::ListAppend);
    assert_eq!(h.text(h.ops[1].span), PAIR.lines().nth(1).unwrap());
}

#[test]
fn framings_records_and_key_order_do_not_matter() {
    let vector = format!("[{}]", PAIR.replace('\n', " "));
    let records = PAIR.replace("{:index", "#jepsen.history.Op{:index");
    let spaced = PAIR.replace("{:index", "#jepsen.history.Op {:index");
    let reordered = "{:value [[:append :x 1] [:r :x nil]], :process 0, :type :invoke, :f :txn, :index 0, :time 10}\n\
                     {:type :ok :value [[:append :x 1] [:r :x [1]]] :process 0 :index 1 :time 20 :f :txn}";
    let listed = format!("({})", PAIR);
    for text in [vector.as_str(), &records, &spaced, reordered, &listed] {
        let h = load(text);
        assert_eq!(mops(&h, 0), ["[:append :x 1]", "[:r :x [1]]"], "{text}");
        assert_eq!(h.txns[0].status, Status::Committed);
    }
}

#[test]
fn reads_of_nil_empty_and_two_elements_are_empty() {
    let h = load("{:type :ok, :process 1, :value [[:r 5 nil] [:r 5 []] [:r 5] [:r 6 ()]]}");
    assert_eq!(
        mops(&h, 0),
        ["[:r 5 nil]", "[:r 5 []]", "[:r 5 nil]", "[:r 6 []]"]
    );
}

#[test]
fn opaque_keys_and_values() {
    let h = load(
        r#"{:type :ok, :process 0, :value [[:w [:anti 5] "s"] [:w -3 12345678901] [:r :k/ns 1N]]}"#,
    );
    assert_eq!(
        mops(&h, 0),
        [
            r#"[:w [:anti 5] "s"]"#,
            "[:w -3 12345678901]",
            "[:r :k/ns 1]"
        ]
    );
    assert_eq!(h.workload, Workload::RwRegister);
}

#[test]
fn register_reads_of_lists_are_values() {
    let h = load("{:type :ok, :process 0, :value [[:w 1 [1 2]] [:r 1 (1 2)]]}");
    let m = h.mops_of(&h.txns[0]);
    assert_eq!(m[0].value(), m[1].value());
}

#[test]
fn statuses_and_unmatched_ops() {
    let text = "{:type :invoke, :process 0, :value [[:append 1 1]]}\n\
                {:type :invoke, :process 1, :value [[:append 1 2]]}\n\
                {:type :fail, :process 0, :value [[:append 1 1]], :error [:abort \"no\"]}\n\
                {:type :invoke, :process 2, :value [[:append 1 3]]}\n\
                {:type :info, :process 1, :value [[:append 1 2]]}\n\
                {:type :ok, :process 3, :value [[:append 1 4]]}\n";
    let h = load(text);
    let got: Vec<_> = h
        .txns
        .iter()
        .map(|t| (t.process, t.status, t.invoke, t.completion))
        .collect();
    assert_eq!(
        got,
        [
            (0, Status::Aborted, Some(0), Some(2)),
            (1, Status::Indeterminate, Some(1), Some(4)),
            (2, Status::Indeterminate, Some(3), None),
            (3, Status::Committed, None, Some(5)),
        ]
    );
    let err = h.ops[2].extras_range();
    assert_eq!(h.text(h.extras[err.start].0), ":error");
    assert_eq!(h.text(h.extras[err.start].1), "[:abort \"no\"]");
}

#[test]
fn failed_completion_without_value_uses_the_invocation() {
    let h = load("{:type :invoke, :process 0, :f :txn, :value [[:w 1 1]]}\n{:type :fail, :process 0, :f :txn}\n");
    assert_eq!(mops(&h, 0), ["[:w 1 1]"]);
    assert_eq!(h.txns[0].status, Status::Aborted);
}

#[test]
fn nemesis_and_non_transactional_ops_are_kept_apart() {
    let text = "{:type :info, :process :nemesis, :f :kill, :value \"n1\"}\n\
                {:type :invoke, :process 0, :f :cas, :value [0 [3 4]]}\n\
                {:type :ok, :process 0, :f :cas, :value [0 [3 4]]}\n\
                {:type :info, :process :nemesis, :f :kill, :value [\"n1\" {\"n1\" :killed}]}\n\
                {:type :ok, :f :txn, :value [[:r 1 nil]]}\n";
    let h = load(text);
    assert_eq!(h.txns.len(), 0);
    assert_eq!(h.other_client_ops, vec![2]);
    assert_eq!(
        h.ops[0].process,
        Process::Other(h.values.clone().intern_canonical(":nemesis"))
    );
    assert_eq!(h.ops[4].process, Process::Missing);
}

#[test]
fn index_defaults_to_position() {
    let h =
        load("{:type :ok, :process 0, :value []}\n{:type :ok, :process 0, :index 7, :value []}\n");
    assert_eq!((h.ops[0].index, h.ops[1].index), (0, 7));
}

#[test]
fn workload_detection_and_override() {
    let reads_only = "{:type :ok, :process 0, :value [[:r 1 nil]]}";
    let h = load(reads_only);
    assert_eq!(h.workload_source, model::WorkloadSource::Assumed);
    let h = parse_text(
        Format::Edn,
        "t",
        reads_only.into(),
        Some(Workload::RwRegister),
    )
    .unwrap();
    assert_eq!(
        (h.workload, h.workload_source),
        (Workload::RwRegister, model::WorkloadSource::Flag)
    );
    assert_eq!(
        load("{:type :ok, :process 0, :value [[:r 1 5]]}").workload,
        Workload::RwRegister
    );
    assert_eq!(
        load("{:type :ok, :process 0, :value [[:r 1 [5]]]}").workload,
        Workload::ListAppend
    );
    let e = parse_text(
        Format::Edn,
        "t",
        "{:type :ok, :process 0, :value [[:w 1 1]]}".into(),
        Some(Workload::ListAppend),
    );
    assert!(matches!(
        e.unwrap_err().error.kind,
        ErrorKind::MixedWorkload
    ));
}

#[test]
fn input_errors() {
    type Expect = fn(&ErrorKind) -> bool;
    let cases: &[(&str, Expect)] = &[
        ("{:process 0, :value []}", |k| *k == ErrorKind::MissingType),
        ("{:valid? true, :anomaly-types []}", |k| *k == ErrorKind::NotAHistory),
        ("{:type :sleep, :process 0}", |k| matches!(k, ErrorKind::BadField { field: "type", .. })),
        ("{:type :ok, :index \"3\"}", |k| matches!(k, ErrorKind::BadField { field: "index", .. })),
        ("{:type :ok, :time 1.5}", |k| matches!(k, ErrorKind::BadField { field: "time", .. })),
        ("{:type :ok, :type :fail}", |k| *k == ErrorKind::DuplicateField("type".into())),
        ("{:type :ok, :foo 1, :foo 2}", |k| *k == ErrorKind::DuplicateField("foo".into())),
        ("[1 2]", |k| matches!(k, ErrorKind::NotAnOp(_))),
        ("{:type :ok}\n42", |k| matches!(k, ErrorKind::NotAnOp(_))),
        ("[{:type :ok}] {:type :ok}", |k| matches!(k, ErrorKind::Syntax(_))),
        ("{:type :ok, :process 0, :f :txn, :value [[:inc 1 1]]}", |k| *k == ErrorKind::NotATransaction),
        ("{:type :ok, :process 0, :value [[:append 1 1] [:w 1 2]]}", |k| *k == ErrorKind::MixedWorkload),
        ("{:type :ok, :process 0, :value [[:append 1 1] [:r 1 5]]}", |k| matches!(k, ErrorKind::ReadNotAList { .. })),
        ("{:type :ok, :process 0, :value [[:append 1 1]]}\n{:type :ok, :process 1, :value [[:append 1 1]]}", |k| {
            matches!(k, ErrorKind::DuplicateWrite { .. })
        }),
        ("{:type :invoke, :process 0, :value []}\n{:type :invoke, :process 0, :value []}", |k| {
            *k == ErrorKind::DoubleInvoke { process: 0 }
        }),
        ("{:type :ok, :value [[:r 1 nil]]", |k| matches!(k, ErrorKind::Syntax(edn::Problem::Eof(_)))),
        ("{:type :ok :process}", |k| *k == ErrorKind::Syntax(edn::Problem::OddMap)),
    ];
    for (text, expected) in cases {
        let e = error(text);
        assert!(expected(&e.kind), "{text}: got {:?}", e.kind);
        assert!(!e.help.is_empty(), "{text}: no help");
        assert!(
            !e.labels.is_empty() || matches!(e.kind, ErrorKind::Io { .. }),
            "{text}: no span"
        );
    }
}

#[test]
fn duplicate_append_names_both_places() {
    let text = "{:type :ok, :process 0, :value [[:append :x 1]]}\n\
                {:type :ok, :process 1, :value [[:append :x 1]]}";
    let e = error(text);
    let spans: Vec<&str> = e
        .labels
        .iter()
        .map(|l| &text[l.span.start()..l.span.end()])
        .collect();
    assert_eq!(spans, ["[:append :x 1]", "[:append :x 1]"]);
    assert!(e.labels[0].span.start() > e.labels[1].span.start());
    assert!(e.to_string().contains(":x"));
}

#[test]
fn diagnostics_render_with_file_line_and_column() {
    let d = parse_edn("bad.edn", "{:type :ok}\n{:type :ok, :process 0 :time x}\n").unwrap_err();
    assert_eq!(d.location().as_deref(), Some("bad.edn:2:30"));
    let text = crate::report::diagnostic::render(&d, false);
    assert!(text.contains("bad.edn:2:30"), "{text}");
    assert!(text.contains(":time must be an integer"), "{text}");
}

#[test]
fn mutex_histories_are_detected_and_kept_apart_from_registers() {
    let mutex = "{:type :invoke, :process 0, :f :acquire}\n{:type :ok, :process 0, :f :acquire}\n{:type :invoke, :process 0, :f :release, :value nil}\n";
    let h = load(mutex);
    assert_eq!(
        (h.workload, h.workload_source, h.registers.len()),
        (Workload::Mutex, model::WorkloadSource::Detected, 2)
    );
    assert_eq!(h.registers[0].f, RegisterF::Acquire);
    // Mutex and register ops together are neither.
    let mixed = format!("{mutex}{{:type :ok, :process 1, :f :write, :value 1}}\n");
    assert!(!matches!(
        load(&mixed).workload,
        Workload::Mutex | Workload::CasRegister
    ));
    let flagged = |text: &str, w| {
        let e = parse_text(Format::Edn, "t", text.into(), Some(w)).unwrap_err();
        (e.error.kind.to_string(), e.error.help)
    };
    let (kind, help) = flagged(mutex, Workload::CasRegister);
    assert_eq!(kind, "this op is not a register op");
    assert!(help.contains(":read, :write and :cas"), "{help}");
    let register = "{:type :ok, :process 0, :f :write, :value 1}\n";
    assert_eq!(
        flagged(register, Workload::Mutex).0,
        "this op is not a mutex op"
    );
    let txn = "{:type :ok, :process 0, :value [[:r 1 nil]]}\n";
    assert!(flagged(txn, Workload::Mutex).1.contains("--workload mutex"));
}

/// `build::build_within` of `text` with at most `max_items` items.
fn build_limited(text: &str, max_items: usize) -> Result<History, HistoryError> {
    let ops = jepsen::read_ops(text).expect("reads");
    build::build_within(SourceFile::new("t.edn", text), ops, None, max_items)
}

#[test]
fn a_history_past_the_item_limit_is_refused() {
    // Two ops, four micro-ops, one read element.
    assert!(build_limited(PAIR, 7).is_ok());
    let e = build_limited(PAIR, 6).unwrap_err();
    assert_eq!(e.code(), "isocheck::format");
    assert_eq!(
        e.kind.to_string(),
        "the history holds 7 ops, micro-ops and read elements; isocheck holds at most 6"
    );
    // A set's final read is read while building: its elements count too.
    let set = "{:type :invoke, :process 0, :f :add, :value 1}\n\
               {:type :ok, :process 0, :f :add, :value 1}\n\
               {:type :invoke, :process 1, :f :read}\n\
               {:type :ok, :process 1, :f :read, :value #{1 2 3}}\n";
    assert_eq!(
        build_limited(set, 7).map(|h| h.workload).ok(),
        Some(Workload::Set)
    );
    let e = build_limited(set, 6).unwrap_err();
    assert!(e.kind.to_string().contains("holds 7 "), "{e}");
}

#[test]
fn a_full_value_table_refuses_the_history() {
    // Register values are interned while building: with room for six
    // names (`:txn`, `:cas`, `:acquire`, `:release`, `:free`, `:held`) and
    // one string, `"b"` finds the table full and stands for `nil`.
    let text = "{:type :invoke, :process 0, :f :write, :value \"a\"}\n\
                {:type :ok, :process 0, :f :write, :value \"a\"}\n\
                {:type :invoke, :process 1, :f :read}\n\
                {:type :ok, :process 1, :f :read, :value \"b\"}\n";
    let mut ops = jepsen::read_ops(text).expect("reads");
    ops.values.limit_to(ops.values.len() as u32 + 7);
    let source = SourceFile::new("t.edn", text);
    let e = build::build_within(source, ops, None, usize::MAX).unwrap_err();
    assert_eq!(e.code(), "isocheck::format");
    assert!(
        e.kind.to_string().contains("2^31 - 1 distinct values"),
        "{e}"
    );
    // With room for one more value the history reads, and `"b"` is `"b"`.
    let mut ops = jepsen::read_ops(text).expect("reads");
    ops.values.limit_to(ops.values.len() as u32 + 8);
    let h =
        build::build_within(SourceFile::new("t.edn", text), ops, None, usize::MAX).expect("builds");
    assert_eq!(h.values.display(h.registers[1].value), "\"b\"");
}

/// What loading `input` gives, as text: the whole history, or the error
/// with its file's text.
fn loaded(input: Input) -> String {
    match input.parse(None) {
        // Not the whole `Debug`: the value table's hash map has no order.
        Ok(h) => format!(
            "{:?} {:?} {:?} {:?} {:?} {:?} {:?}",
            h.source,
            h.ops,
            h.mops,
            h.elems,
            h.txns,
            h.values.canonical_texts(),
            h.workload,
        ),
        Err(d) => format!("{:?}\n{:?}", d.error, d.source.map(|s| s.text().to_owned())),
    }
}

/// A file large enough to be mapped (and read in pieces) loads as the same
/// bytes read into a buffer do: the same history, or the same error, an
/// invalid UTF-8 byte among them (one in the middle, one where the second
/// piece starts, one the file's last byte).
#[test]
fn a_mapped_file_loads_as_its_bytes_read() {
    let mut text = String::new();
    let mut i = 0;
    while text.len() < 2 * jepsen::split::PARALLEL_FROM.max(text::MAP_FROM as usize) {
        let mops = format!("[[:append {} {i}] [:r {} nil]]", i % 7, i % 5);
        text += &format!(
            "{{:type :invoke, :process {}, :f :txn, :value {mops}}}\n",
            i % 3
        );
        text += &format!(
            "{{:type :ok, :process {}, :f :txn, :value {mops}}}\n",
            i % 3
        );
        i += 1;
    }
    let cut = jepsen::split::piece_starts(&text, 2);
    assert_eq!(cut.len(), 2, "the file is read in two pieces");
    let mut cases = vec![text.clone().into_bytes()];
    for at in [text.len() / 2, cut[1], text.len() - 1] {
        let mut bytes = text.clone().into_bytes();
        bytes[at] = 0xFF;
        cases.push(bytes);
    }
    for bytes in cases {
        let mut file = tempfile::NamedTempFile::new().expect("temporary file");
        std::io::Write::write_all(&mut file, &bytes).expect("written");
        let mapped = Input::read(file.path(), Some(Format::Edn)).expect("mapped");
        assert!(matches!(mapped.content, Content::Bytes(Bytes::Mapped(_))));
        let name = file.path().display().to_string();
        let read = Input::of_bytes(&name, None, Bytes::Read(bytes), Some(Format::Edn));
        let (mapped, read) = (loaded(mapped), loaded(read.expect("read")));
        let differ = mapped.bytes().zip(read.bytes()).position(|(a, b)| a != b);
        let near = |s: &str, at: usize| {
            s.get(at.saturating_sub(80)..(at + 80).min(s.len()))
                .map(str::to_owned)
        };
        let at = differ.unwrap_or(mapped.len().min(read.len()));
        assert_eq!(near(&mapped, at), near(&read, at), "at byte {at}");
        assert_eq!(mapped.len(), read.len());
    }
}

use super::*;

fn one(text: &str) -> Node<'_> {
    let mut v = read_all(text).unwrap_or_else(|e| panic!("{text:?}: {e:?}"));
    assert_eq!(v.len(), 1, "{text:?}");
    v.remove(0)
}

fn canon(text: &str) -> String {
    one(text).canonical()
}

fn problem(text: &str) -> Problem {
    read_all(text).expect_err(text).problem
}

#[test]
fn scalars() {
    assert_eq!(one("nil").kind, Kind::Nil);
    assert_eq!(one("true").kind, Kind::Bool(true));
    assert_eq!(one("-42").kind, Kind::Int(-42));
    assert_eq!(one("+7").kind, Kind::Int(7));
    assert_eq!(one("12N").kind, Kind::BigInt("12"));
    assert_eq!(
        one("18446744073709551616").kind,
        Kind::BigInt("18446744073709551616")
    );
    assert_eq!(
        one("-9223372036854775809").kind,
        Kind::BigInt("-9223372036854775809")
    );
    assert_eq!(one("1.5").kind, Kind::Float(1.5));
    assert_eq!(one("-1e3").kind, Kind::Float(-1000.0));
    assert_eq!(one("1.").kind, Kind::Float(1.0));
    assert_eq!(one("1.50M").kind, Kind::BigDec("1.50"));
    assert_eq!(
        one(":jepsen.history/op").kind,
        Kind::Keyword("jepsen.history/op")
    );
    assert_eq!(one("foo/bar").kind, Kind::Symbol("foo/bar"));
    assert_eq!(one("/").kind, Kind::Symbol("/"));
    assert_eq!(one("-").kind, Kind::Symbol("-"));
    assert!(matches!(one("##Inf").kind, Kind::Float(f) if f == f64::INFINITY));
    assert!(matches!(one("##NaN").kind, Kind::Float(f) if f.is_nan()));
}

#[test]
fn strings_and_escapes() {
    assert_eq!(one(r#""plain""#).kind, Kind::Str(Cow::Borrowed("plain")));
    let s = one(r#""a\"b\\c\nd\te\r\f\b\u00e9""#);
    assert_eq!(
        s.kind,
        Kind::Str(Cow::Owned("a\"b\\c\nd\te\r\u{0C}\u{08}é".into()))
    );
    assert_eq!(
        one("\"multi\nline\"").kind,
        Kind::Str(Cow::Borrowed("multi\nline"))
    );
    assert!(matches!(problem(r#""bad \q""#), Problem::InvalidEscape(_)));
    assert!(matches!(problem(r#""\u12""#), Problem::InvalidEscape(_)));
    assert!(matches!(problem(r#""\uD800""#), Problem::InvalidEscape(_)));
    assert_eq!(problem("\"open"), Problem::UnterminatedString);
}

#[test]
fn characters() {
    let chars =
        one(r"[\a \newline \space \tab \return \formfeed \backspace \u0041 \, \( \é \o101]");
    let Kind::Vector(items) = chars.kind else {
        panic!()
    };
    let got: Vec<char> = items
        .iter()
        .map(|n| match n.kind {
            Kind::Char(c) => c,
            _ => panic!("{n:?}"),
        })
        .collect();
    assert_eq!(
        got,
        vec!['a', '\n', ' ', '\t', '\r', '\u{0C}', '\u{08}', 'A', ',', '(', 'é', 'A']
    );
    assert!(matches!(problem(r"\newlin"), Problem::InvalidChar(_)));
    assert!(matches!(problem(r"\ "), Problem::InvalidChar(_)));
}

#[test]
fn collections_and_spans() {
    let text = "[1 (2 3) {:a #{4}}]";
    let v = one(text);
    assert_eq!((v.span.start(), v.span.end()), (0, text.len()));
    let Kind::Vector(items) = &v.kind else {
        panic!()
    };
    assert_eq!(&text[items[1].span.start()..items[1].span.end()], "(2 3)");
    assert_eq!(
        &text[items[2].span.start()..items[2].span.end()],
        "{:a #{4}}"
    );
    assert_eq!(v.canonical(), "[1 [2 3] {:a #{4}}]");
}

#[test]
fn whitespace_comments_and_discards() {
    assert_eq!(canon("[1,2 ; two\n 3]"), "[1 2 3]");
    assert_eq!(canon("{:a 1 #_:b #_2 :c 3}"), "{:a 1 :c 3}");
    assert_eq!(canon("[1 #_ 2 3]"), "[1 3]");
    assert_eq!(canon("[1 2 #_3]"), "[1 2]");
    assert_eq!(canon("[#_ #_ 1 2 3]"), "[3]");
    assert_eq!(read_all("; only a comment\n").unwrap(), vec![]);
    assert_eq!(read_all("#_ [1 2]").unwrap(), vec![]);
    assert_eq!(problem("[1 #_]"), Problem::EmptyDiscard);
    assert_eq!(problem("#_"), Problem::EmptyDiscard);
}

#[test]
fn tags_and_records() {
    let r = one("#jepsen.history.Op{:index 3, :type :ok}");
    let Kind::Tagged(tag, inner) = &r.kind else {
        panic!()
    };
    assert_eq!(*tag, "jepsen.history.Op");
    assert!(matches!(inner.kind, Kind::Map(_)));
    assert_eq!(r.get("index").map(|n| &n.kind), Some(&Kind::Int(3)));
    assert!(matches!(
        one("#inst \"2020-01-01\"").kind,
        Kind::Tagged("inst", _)
    ));
    assert!(matches!(problem("#1{}"), Problem::InvalidTag(_)));
    assert!(matches!(problem("##Foo"), Problem::InvalidTag(_)));
}

#[test]
fn canonical_equality_follows_clojure() {
    assert_eq!(canon("1N"), canon("1"));
    assert_eq!(canon("(1 2)"), canon("[1 2]"));
    assert_eq!(canon("{:b 2 :a 1}"), canon("{:a 1, :b 2}"));
    assert_eq!(canon("#{3 1 2}"), canon("#{1 2 3}"));
    assert_eq!(canon("1.50M"), canon("1.5M"));
    assert_ne!(canon("1.0"), canon("1"));
    assert_ne!(canon("1.0M"), canon("1.0"));
    assert_ne!(canon(":a"), canon("a"));
    assert_eq!(canon(r#""a\u0041""#), canon(r#""aA""#));
}

#[test]
fn numbers_reject_what_edn_forbids() {
    for bad in ["08", "1/0", "1.5N", "1e", "12x", "0x1G", "2r2", "1.2.3"] {
        assert!(matches!(problem(bad), Problem::InvalidNumber(_)), "{bad}");
    }
}

/// Ratios as Clojure reads them: in lowest terms, an integer when they
/// divide, so `2/4` = `1/2` and `4/2` = `2` = `2N`.
#[test]
fn ratios_are_values_in_lowest_terms() {
    assert_eq!(one("1/2").kind, Kind::Ratio("1/2"));
    for (text, canonical) in [
        ("1/2", "1/2"),
        ("2/4", "1/2"),
        ("-6/4", "-3/2"),
        ("+007/14", "1/2"),
        ("4/2", "2"),
        ("0/5", "0"),
        ("-18446744073709551616/1", "-18446744073709551616N"),
    ] {
        assert_eq!(canon(text), canonical, "{text}");
    }
    assert_eq!(canon("4/2"), canon("2N"));
    assert_eq!(one("-8/2").integer(), Some(Some(-4)));
    assert_eq!(one("36893488147419103232/2").integer(), Some(None));
    assert_eq!(one("1/2").integer(), None);
    for bad in ["1/-2", "-1/0", "1/2N", "1/ 2", "1/2/3"] {
        assert!(matches!(problem(bad), Problem::InvalidNumber(_)), "{bad}");
    }
}

/// A byte order mark is skipped at the start of the text and is a symbol
/// character anywhere else.
#[test]
fn a_leading_byte_order_mark_is_skipped() {
    assert_eq!(canon("\u{FEFF}[1]"), "[1]");
    assert_eq!(one("\u{FEFF}[1]").span, Span::new(3, 6));
    assert_eq!(one("\u{FEFF}\u{FEFF}x").kind, Kind::Symbol("\u{FEFF}x"));
}

#[test]
fn hex_octal_and_radix_integers_as_clojure_edn_reads_them() {
    let ints = [
        ("0x1F", 31),
        ("-0x10", -16),
        ("007", 7),
        ("2r101", 5),
        ("36rZz", 1295),
    ];
    for (text, n) in ints {
        let forms = read_all(text).expect(text);
        assert_eq!(forms[0].kind, Kind::Int(n), "{text}");
    }
    let object = read_all("#object[java.lang.Object 0x5e9f23b4 \"java.lang.Object@5e9f23b4\"]");
    assert!(object.is_ok(), "{object:?}");
}

#[test]
fn structural_errors() {
    assert_eq!(problem("{:a}"), Problem::OddMap);
    assert_eq!(problem("{:a 1 :b}"), Problem::OddMap);
    assert!(matches!(problem("{:a 1 :a 2}"), Problem::DuplicateKey(_)));
    assert!(matches!(
        problem("{[1 2] 1 (1 2) 2}"),
        Problem::DuplicateKey(_)
    ));
    assert!(matches!(problem("#{1 1}"), Problem::DuplicateSetElement(_)));
    assert_eq!(problem("[1 2"), Problem::Eof("`]`"));
    assert_eq!(problem("(1 2]"), Problem::Unmatched(']'));
    assert_eq!(problem("}"), Problem::Unmatched('}'));
    assert!(matches!(problem("::auto"), Problem::InvalidSymbol(_)));
    assert!(matches!(problem(":"), Problem::InvalidSymbol(_)));
    assert!(matches!(problem("a|b"), Problem::InvalidSymbol(_)));
}

#[test]
fn errors_carry_the_offending_span() {
    let e = read_all("[1 2]\n{:a 1 :a 2}").unwrap_err();
    assert_eq!((e.span.start(), e.span.end()), (12, 14));
    let e = read_all("[1 \"abc").unwrap_err();
    assert_eq!(e.span.start(), 3);
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let deep = "[".repeat(100_000);
    assert_eq!(problem(&deep), Problem::TooDeep(lex::MAX_DEPTH));
    let ok = format!("{}{}", "[".repeat(150), "]".repeat(150));
    assert!(read_all(&ok).is_ok());
    let deep_discard = "#_".repeat(100_000) + "1";
    assert!(read_all(&deep_discard).is_err());
}

#[test]
fn read_first_reads_one_form_and_form_text_follows_a_clipped_span() {
    let node = read_first(" ; note\n[1 2] :rest").expect("reads");
    assert_eq!(node.canonical(), "[1 2]");
    assert!(read_first("   ").is_err());
    assert_eq!(first_form_end("#{1} 2"), Some(4));
    // A form longer than a span holds: its span is clipped, its text whole.
    let long = format!("x [\"{}é\"] y", "a".repeat(1 << 24));
    let nodes = read_all(&long).expect("reads");
    let span = nodes[1].span;
    assert!(span.is_clipped());
    assert_eq!(form_text(&long, span), &long[2..long.len() - 2]);
    assert_eq!(form_text("[1]", crate::history::Span::new(0, 3)), "[1]");
}

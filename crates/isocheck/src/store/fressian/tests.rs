//! The decoder code by code, on bytes a small writer here lays out as
//! Datomic's `FressianWriter.java` does (real files from the JVM are in
//! `fixtures/fressian/`, checked by `tests/fressian.rs`).

use super::*;
use proptest::prelude::*;

/// Bytes as `FressianWriter` writes them.
#[derive(Default)]
struct W(Vec<u8>);

impl W {
    fn code(&mut self, c: u8) -> &mut W {
        self.0.push(c);
        self
    }

    fn raw(&mut self, v: u64, n: usize) -> &mut W {
        for i in (0..n).rev() {
            self.0.push((v >> (8 * i)) as u8);
        }
        self
    }

    /// `internalWriteInt`: the shortest packed form by the bits needed.
    fn int(&mut self, i: i64) -> &mut W {
        let lz = if i < 0 { !i } else { i }.leading_zeros();
        let u = i as u64;
        match lz {
            1..=14 => self.code(code::INT).raw(u, 8),
            15..=22 => self.code((0x7E + (i >> 48)) as u8).raw(u, 6),
            23..=30 => self.code((0x7A + (i >> 40)) as u8).raw(u, 5),
            31..=38 => self.code((0x76 + (i >> 32)) as u8).raw(u, 4),
            39..=44 => self.code((0x72 + (i >> 24)) as u8).raw(u, 3),
            45..=51 => self.code((0x68 + (i >> 16)) as u8).raw(u, 2),
            52..=57 => self.code((0x50 + (i >> 8)) as u8).raw(u, 1),
            _ if i < -1 => self.code((0x50 + (i >> 8)) as u8).raw(u, 1),
            _ => self.raw(u, 1),
        }
    }

    /// `writeString`: UTF-16 units in one to three bytes, in chunks of at
    /// most `chunk` bytes (65,536 in Java).
    fn string_chunked(&mut self, s: &str, chunk: usize) -> &mut W {
        let units: Vec<u16> = s.encode_utf16().collect();
        let mut i = 0;
        loop {
            let mut buf = Vec::new();
            while let Some(&u) = units.get(i) {
                let enc = utf8_of_unit(u);
                if buf.len() + enc.len() > chunk {
                    break;
                }
                buf.extend(enc);
                i += 1;
            }
            if i < units.len() {
                self.code(code::STRING_CHUNK).int(buf.len() as i64);
            } else if buf.len() < 8 {
                self.code(code::STRING_PACKED_LENGTH_START + buf.len() as u8);
            } else {
                self.code(code::STRING).int(buf.len() as i64);
            }
            self.0.extend(buf);
            if i >= units.len() {
                return self;
            }
        }
    }

    fn string(&mut self, s: &str) -> &mut W {
        self.string_chunked(s, 65536)
    }

    fn list(&mut self, n: usize) -> &mut W {
        if n < 8 {
            self.code(code::LIST_PACKED_LENGTH_START + n as u8)
        } else {
            self.code(code::LIST).int(n as i64)
        }
    }

    fn bytes(&mut self, b: &[u8]) -> &mut W {
        if b.len() < 8 {
            self.code(code::BYTES_PACKED_LENGTH_START + b.len() as u8);
        } else {
            self.code(code::BYTES).int(b.len() as i64);
        }
        self.0.extend_from_slice(b);
        self
    }

    /// A keyword as clojure.data.fressian writes it, without caching.
    fn key(&mut self, ns: Option<&str>, name: &str) -> &mut W {
        self.code(code::KEY);
        match ns {
            Some(ns) => self.string(ns),
            None => self.code(code::NULL),
        };
        self.string(name)
    }

    fn map(&mut self, entries: usize) -> &mut W {
        self.code(code::MAP).list(entries * 2)
    }
}

fn utf8_of_unit(u: u16) -> Vec<u8> {
    match u {
        0x0001..=0x007F => vec![u as u8],
        0x0080..=0x07FF => vec![0xC0 | (u >> 6) as u8, 0x80 | (u & 0x3F) as u8],
        _ => vec![
            0xE0 | (u >> 12) as u8,
            0x80 | ((u >> 6) & 0x3F) as u8,
            0x80 | (u & 0x3F) as u8,
        ],
    }
}

fn read(w: &W) -> Value {
    decode(&w.0, Limits::default()).unwrap_or_else(|e| panic!("{e}: {:02X?}", w.0))
}

fn err(bytes: &[u8]) -> Problem {
    decode(bytes, Limits::default())
        .expect_err("an error")
        .problem
}

fn kw(name: &str) -> Value {
    Value::Keyword {
        ns: None,
        name: name.into(),
    }
}

#[test]
fn every_packed_int_width_and_its_edges() {
    let edges = [
        0,
        1,
        63,
        -1,
        64,
        -2,
        -64,
        -65,
        4095,
        -4096,
        4096,
        (1 << 19) - 1,
        -(1 << 19),
        1 << 19,
        (1 << 25) - 1,
        -(1 << 25),
        (1 << 33) - 1,
        -(1 << 33),
        (1 << 41) - 1,
        -(1 << 41),
        (1 << 49) - 1,
        -(1 << 49),
        1 << 49,
        i64::MAX,
        i64::MIN,
    ];
    for n in edges {
        let mut w = W::default();
        w.int(n);
        assert_eq!(read(&w), Value::Int(n), "{n}: {:02X?}", w.0);
    }
    // Every one-byte code of the packed ranges.
    for code in 0x00u8..=0x7F {
        let mut bytes = vec![code];
        bytes.extend([0xAB; 7]);
        assert!(matches!(
            decode(&bytes, Limits::default()),
            Ok(Value::Int(_))
        ));
    }
    assert_eq!(read(W::default().code(0xFF)), Value::Int(-1));
    // 0x40 holds the high bits -16: -16 * 256 + 0x01.
    assert_eq!(read(W::default().code(0x40).code(0x01)), Value::Int(-4095));
}

#[test]
fn scalars() {
    use Value::*;
    assert_eq!(read(W::default().code(code::NULL)), Nil);
    assert_eq!(read(W::default().code(code::TRUE)), Bool(true));
    assert_eq!(read(W::default().code(code::FALSE)), Bool(false));
    assert_eq!(read(W::default().code(code::DOUBLE_0)), Double(0.0));
    assert_eq!(read(W::default().code(code::DOUBLE_1)), Double(1.0));
    let d = W::default()
        .code(code::DOUBLE)
        .raw(2.5f64.to_bits(), 8)
        .0
        .clone();
    assert_eq!(decode(&d, Limits::default()), Ok(Double(2.5)));
    let f = W::default()
        .code(code::FLOAT)
        .raw(u64::from(1.5f32.to_bits()), 4)
        .0
        .clone();
    assert_eq!(decode(&f, Limits::default()), Ok(Double(1.5)));
}

#[test]
fn strings_packed_counted_and_chunked() {
    for s in [
        "",
        "a",
        "seven!!",
        "eight!!!",
        "héllo wörld",
        "日本語",
        "emoji 😀 pair",
    ] {
        assert_eq!(read(W::default().string(s)), Value::Str(s.into()), "{s}");
    }
    // Chunks of four bytes: a surrogate pair split between two chunks
    // (each surrogate is three bytes) still makes one character.
    let s = "ab😀cdefghijk";
    let w = W::default().string_chunked(s, 4).0.clone();
    assert_eq!(w[0], code::STRING_CHUNK, "{w:02X?}");
    assert_eq!(decode(&w, Limits::default()), Ok(Value::Str(s.into())));
    // A chunk followed by something that is not a string piece.
    assert!(matches!(
        err(&[code::STRING_CHUNK, 1, b'a', code::NULL]),
        Problem::Chunk(..)
    ));
    // A lead byte no UTF-8 character starts with.
    assert_eq!(err(&[0xDB, 0x80]), Problem::Utf8(0x80));
    // A length past the end.
    assert!(matches!(
        err(&[code::STRING, 0x50, 0xFF, b'a']),
        Problem::Length(..)
    ));
}

#[test]
fn bytes_packed_counted_and_chunked() {
    assert_eq!(
        read(W::default().bytes(&[1, 2, 3])),
        Value::Bytes(vec![1, 2, 3])
    );
    let long: Vec<u8> = (0..20).collect();
    assert_eq!(read(W::default().bytes(&long)), Value::Bytes(long.clone()));
    let mut w = W::default();
    w.code(code::BYTES_CHUNK).int(2).0.extend([1, 2]);
    w.code(code::BYTES_CHUNK).int(1).0.push(3);
    w.code(code::BYTES).int(2).0.extend([4, 5]);
    assert_eq!(read(&w), Value::Bytes(vec![1, 2, 3, 4, 5]));
    assert!(matches!(
        err(&[code::BYTES_CHUNK, 1, 9, code::NULL]),
        Problem::Chunk(code::NULL, _)
    ));
}

#[test]
fn lists_packed_counted_closed_and_open() {
    use Value::*;
    let mut w = W::default();
    w.list(3).int(1).int(2).int(3);
    assert_eq!(read(&w), List(vec![Int(1), Int(2), Int(3)]));
    let mut w = W::default();
    w.list(9);
    for i in 0..9 {
        w.int(i);
    }
    assert_eq!(read(&w), List((0..9).map(Int).collect()));
    let mut w = W::default();
    w.code(code::BEGIN_CLOSED_LIST)
        .int(7)
        .code(code::NULL)
        .code(code::END_COLLECTION);
    assert_eq!(read(&w), List(vec![Int(7), Nil]));
    let mut w = W::default();
    w.code(code::BEGIN_OPEN_LIST).int(7).int(8);
    assert_eq!(read(&w), List(vec![Int(7), Int(8)]));
    // A closed list the bytes end inside.
    assert_eq!(err(&[code::BEGIN_CLOSED_LIST, 1]), Problem::Truncated);
    // A count larger than the bytes left allocates nothing.
    assert!(matches!(
        err(&[code::LIST, code::INT, 0, 0, 0, 0, 0x7F, 0xFF, 0xFF, 0xFF]),
        Problem::Length(..)
    ));
}

#[test]
fn maps_sets_keywords_and_symbols() {
    use Value::*;
    let mut w = W::default();
    w.map(2).key(None, "name").string("x");
    w.key(Some("jepsen"), "models")
        .code(code::SET)
        .list(1)
        .code(code::SYM)
        .code(code::NULL)
        .string("s");
    let want = Map(vec![
        (kw("name"), Str("x".into())),
        (
            Keyword {
                ns: Some("jepsen".into()),
                name: "models".into(),
            },
            Set(vec![Symbol {
                ns: None,
                name: "s".into(),
            }]),
        ),
    ]);
    assert_eq!(read(&w), want);
    assert_eq!(want_edn(&w), "{:name \"x\" :jepsen/models #{s}}");
}

fn want_edn(w: &W) -> String {
    read(w).to_edn()
}

#[test]
fn the_standard_extension_types() {
    use Value::*;
    let mut w = W::default();
    w.code(code::INST).int(1_700_000_000_000);
    assert_eq!(read(&w), Inst(1_700_000_000_000));
    let id: Vec<u8> = (0..16).collect();
    let mut w = W::default();
    w.code(code::UUID).bytes(&id);
    assert_eq!(
        want_edn(&w),
        "#uuid \"00010203-0405-0607-0809-0a0b0c0d0e0f\""
    );
    let mut w = W::default();
    w.code(code::BIGINT).bytes(&[0xFF, 0x00]);
    assert_eq!(want_edn(&w), "-256N");
    let mut w = W::default();
    w.code(code::BIGINT)
        .bytes(&[0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]);
    assert_eq!(want_edn(&w), "18446744073709551616N");
    let mut w = W::default();
    w.code(code::BIGDEC).bytes(&[0x30, 0x39]).int(2);
    assert_eq!(want_edn(&w), "12345E-2M");
    let mut w = W::default();
    w.code(code::REGEX).string("a+");
    assert_eq!(read(&w), Regex("a+".into()));
    let mut w = W::default();
    w.code(code::URI).string("http://x");
    assert_eq!(read(&w), Uri("http://x".into()));
    let mut w = W::default();
    w.code(code::INT_ARRAY).int(2).int(5).int(6);
    assert_eq!(read(&w), List(vec![Int(5), Int(6)]));
    let mut w = W::default();
    w.code(code::OBJECT_ARRAY).int(1).string("o");
    assert_eq!(read(&w), List(vec![Str("o".into())]));
}

#[test]
fn clojure_and_jepsen_tags_by_struct_type() {
    use Value::*;
    // A struct type defines the tag once; packed and STRUCT references
    // reuse it.
    let mut w = W::default();
    w.list(3);
    w.code(code::STRUCTTYPE).string("char").int(1).int(0x41);
    w.code(code::STRUCT_CACHE_PACKED_START).int(0x42);
    w.code(code::STRUCT).int(0).int(0x43);
    assert_eq!(read(&w), List(vec![Char(0x41), Char(0x42), Char(0x43)]));
    let mut w = W::default();
    w.code(code::STRUCTTYPE)
        .string("persistent-hash-set")
        .int(1)
        .list(1)
        .key(None, "G1");
    assert_eq!(read(&w), Set(vec![kw("G1")]));
    let mut w = W::default();
    w.code(code::STRUCTTYPE)
        .string("ratio")
        .int(2)
        .int(1)
        .int(3);
    assert_eq!(want_edn(&w), "#fressian/ratio [1 3]");
    let mut w = W::default();
    w.code(code::STRUCTTYPE)
        .string("date-time")
        .int(1)
        .string("20240101T120000.000Z");
    assert_eq!(want_edn(&w), "#jepsen/date-time \"20240101T120000.000Z\"");
    let mut w = W::default();
    w.code(code::STRUCTTYPE).string("record").int(2);
    w.code(code::SYM)
        .code(code::NULL)
        .string("my.Rec")
        .map(1)
        .key(None, "a")
        .int(1);
    assert!(matches!(read(&w), Record(..)), "{:?}", read(&w));
}

#[test]
fn an_unknown_tag_is_kept_and_the_read_goes_on() {
    use Value::*;
    let mut w = W::default();
    w.list(3);
    w.code(code::STRUCTTYPE)
        .string("jepsen.history.Op")
        .int(2)
        .int(1)
        .key(None, "ok");
    w.code(code::STRUCT_CACHE_PACKED_START)
        .int(2)
        .key(None, "fail");
    w.key(None, "after");
    let want = List(vec![
        Tagged {
            tag: "jepsen.history.Op".into(),
            fields: vec![Int(1), kw("ok")],
        },
        Tagged {
            tag: "jepsen.history.Op".into(),
            fields: vec![Int(2), kw("fail")],
        },
        kw("after"),
    ]);
    assert_eq!(read(&w), want);
    // A known tag with fields of another shape is opaque too.
    let mut w = W::default();
    w.code(code::KEY).int(1).int(2);
    assert!(matches!(read(&w), Tagged { .. }));
    // A struct reference to no struct type.
    assert_eq!(
        err(&[code::STRUCT_CACHE_PACKED_START + 3]),
        Problem::StructMiss(3)
    );
}

#[test]
fn priority_cache_put_packed_and_get() {
    use Value::*;
    let mut w = W::default();
    w.list(4);
    w.code(code::PUT_PRIORITY_CACHE)
        .string("consistency-models");
    w.code(code::PRIORITY_CACHE_PACKED_START);
    // Entries 1..=32, then entry 32 by GET_PRIORITY_CACHE.
    w.code(code::BEGIN_CLOSED_LIST);
    for i in 1..=32 {
        w.code(code::PUT_PRIORITY_CACHE).string(&format!("s{i}"));
    }
    w.code(code::END_COLLECTION);
    w.code(code::GET_PRIORITY_CACHE).int(32);
    let v = read(&w);
    let List(items) = v else { panic!("{v:?}") };
    assert_eq!(items[0], Str("consistency-models".into()));
    assert_eq!(items[1], Str("consistency-models".into()));
    assert_eq!(items[3], Str("s32".into()));
    // A reference past the cache, and one to the entry being read.
    assert_eq!(
        err(&[code::PRIORITY_CACHE_PACKED_START + 2]),
        Problem::CacheMiss(2)
    );
    assert_eq!(
        err(&[code::PUT_PRIORITY_CACHE, code::PRIORITY_CACHE_PACKED_START]),
        Problem::CacheCycle(0)
    );
}

#[test]
fn reset_caches_forgets_entries() {
    let mut w = W::default();
    w.list(2).code(code::PUT_PRIORITY_CACHE).string("x");
    w.code(code::RESET_CACHES)
        .code(code::PRIORITY_CACHE_PACKED_START);
    assert_eq!(
        decode(&w.0, Limits::default()).map_err(|e| e.problem),
        Err(Problem::CacheMiss(0))
    );
}

/// A value, then `FOOTER_MAGIC`, its length and the Adler-32 of all that.
fn with_footer(mut body: Vec<u8>) -> Vec<u8> {
    let len = body.len() as u32;
    body.extend(code::FOOTER_MAGIC.to_be_bytes());
    body.extend(len.to_be_bytes());
    let mut a = adler2::Adler32::new();
    a.write_slice(&body);
    body.extend(a.checksum().to_be_bytes());
    body
}

#[test]
fn footers_are_checked() {
    let mut w = W::default();
    w.map(1).key(None, "a").int(1);
    let good = with_footer(w.0.clone());
    assert!(decode(&good, Limits::default()).is_ok());
    let mut bad_sum = good.clone();
    if let Some(last) = bad_sum.last_mut() {
        *last ^= 1;
    }
    assert!(matches!(err(&bad_sum), Problem::FooterChecksum(..)));
    let mut bad_len = good.clone();
    let at = w.0.len() + 7;
    bad_len[at] ^= 1;
    assert!(matches!(err(&bad_len), Problem::FooterLength(..)));
    // Two values each with its footer: the second's caches start empty.
    let mut stream = good.clone();
    stream.extend(with_footer(W::default().string("second").0.clone()));
    let all = decode_all(&stream, Limits::default()).expect("stream");
    assert_eq!(all.len(), 2);
}

#[test]
fn unknown_codes_are_errors_with_their_offset() {
    for code in [0xC2u8, 0xCB, 0xCE, 0xF1, 0xF2, 0xF3, 0xF4, 0xFD] {
        let e = decode(&[0xE6, 0x01, code], Limits::default()).expect_err("unknown");
        assert_eq!((e.at, e.problem), (2, Problem::UnknownCode(code)));
    }
}

#[test]
fn kept_keys_are_built_and_the_others_walked() {
    use Value::*;
    let mut w = W::default();
    w.map(3);
    w.key(None, "history").list(2);
    w.code(code::PUT_PRIORITY_CACHE).string("ok").string("big");
    w.key(None, "name").code(code::PRIORITY_CACHE_PACKED_START);
    w.key(None, "results")
        .map(1)
        .key(None, "valid?")
        .code(code::TRUE);
    let keep = |k: &Value| *k == kw("name");
    let v = decode_map(&w.0, Limits::default(), &keep).expect("map");
    assert_eq!(
        v,
        Map(vec![
            (kw("history"), Skipped),
            (kw("name"), Str("ok".into())),
            (kw("results"), Skipped),
        ])
    );
    // Entries in a closed list; a key without a value.
    let mut w = W::default();
    w.code(code::MAP)
        .code(code::BEGIN_CLOSED_LIST)
        .key(None, "name")
        .string("n");
    w.code(code::END_COLLECTION);
    let v = decode_map(&w.0, Limits::default(), &keep).expect("map");
    assert_eq!(v, Map(vec![(kw("name"), Str("n".into()))]));
    let mut w = W::default();
    w.code(code::MAP)
        .code(code::BEGIN_CLOSED_LIST)
        .key(None, "name")
        .code(code::END_COLLECTION);
    assert_eq!(
        decode_map(&w.0, Limits::default(), &keep).map_err(|e| e.problem),
        Err(Problem::OddMap)
    );
}

/// A cached list referred to 32 times, that list cached and referred to
/// 32 times, ...: a few hundred bytes that would build 32^5 values.
#[test]
fn cache_expansion_is_bounded() {
    let mut w = W::default();
    let levels = 5;
    for _ in 0..levels {
        w.list(32).code(code::PUT_PRIORITY_CACHE);
    }
    w.list(32);
    for _ in 0..32 {
        w.string("xxxxxxxxxxxxxxxxxxxxxxxx");
    }
    // Fill the outer lists' remaining 31 items with references to the
    // list just below them, innermost first.
    for level in (0..levels).rev() {
        for _ in 0..31 {
            w.code(code::PRIORITY_CACHE_PACKED_START + level as u8);
        }
    }
    let e = decode(&w.0, Limits::default()).expect_err("bounded");
    assert!(matches!(e.problem, Problem::TooLarge(_)), "{e}");
}

/// A struct type whose tag is two values of the type before it, and so
/// on: a tag that is not a string is written out as text, twice as long at
/// each level (the fuzzer's out-of-memory, `fixtures/fuzz-regressions/`).
#[test]
fn struct_tags_written_out_are_paid_for() {
    let mut w = W::default();
    let levels = 16;
    w.list(levels + 1);
    w.code(code::STRUCTTYPE).string(&"x".repeat(1000)).int(0);
    for level in 0..levels {
        let below = code::STRUCT_CACHE_PACKED_START + level as u8;
        // A struct type with no fields, tagged by a list of two.
        w.code(code::STRUCTTYPE)
            .list(2)
            .code(below)
            .code(below)
            .int(0);
    }
    let e = decode(&w.0, Limits::default()).expect_err("bounded");
    assert!(matches!(e.problem, Problem::TooLarge(_)), "{e}");
}

/// A list put in the cache, inside a put, inside a put...: each put keeps
/// one copy and hands out another, so each is paid for.
#[test]
fn nested_puts_are_paid_for() {
    let mut w = W::default();
    for _ in 0..90 {
        w.code(code::PUT_PRIORITY_CACHE);
    }
    w.list(2000);
    for _ in 0..2000 {
        w.int(1);
    }
    let e = decode(&w.0, Limits::default()).expect_err("bounded");
    assert!(matches!(e.problem, Problem::TooLarge(_)), "{e}");
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let bytes = vec![0xE5; 100_000];
    assert!(matches!(err(&bytes), Problem::TooDeep(_)));
}

#[test]
fn edn_of_values_reads_back() {
    use Value::*;
    let v = Map(vec![
        (kw("f"), Double(1.5)),
        (kw("nan"), Double(f64::NAN)),
        (kw("inf"), Double(f64::NEG_INFINITY)),
        (kw("s"), Str("a\"b\\c\n\u{1}".into())),
        (
            kw("odd"),
            Keyword {
                ns: None,
                name: "has space".into(),
            },
        ),
        (kw("set"), Set(vec![Int(1), Int(1)])),
        (kw("c"), Char(u32::from('x'))),
        (kw("b"), Bytes(vec![1, 255])),
        (
            kw("t"),
            Tagged {
                tag: "block-ref".into(),
                fields: vec![Int(3)],
            },
        ),
    ]);
    let text = v.to_edn();
    let forms = crate::history::edn::read_all(&text).unwrap_or_else(|e| panic!("{text}: {e:?}"));
    assert_eq!(forms.len(), 1, "{text}");
    assert!(text.contains(":odd \"has space\""), "{text}");
    assert!(text.contains("#{1}"), "{text}");
}

/// Values to write: a recursive strategy over the writer's forms.
fn arb_bytes() -> impl Strategy<Value = Vec<u8>> {
    let leaf = prop_oneof![
        any::<i64>().prop_map(|n| W::default().int(n).0.clone()),
        "[a-z😀é]{0,12}".prop_map(|s| W::default().string_chunked(&s, 5).0.clone()),
        Just(vec![code::NULL]),
        Just(vec![code::PUT_PRIORITY_CACHE, 0xDB, b'k']),
        Just(vec![code::PRIORITY_CACHE_PACKED_START]),
        Just(vec![code::STRUCTTYPE, 0xDB, b't', 1, 5]),
        Just(vec![code::STRUCT_CACHE_PACKED_START, 6]),
        Just(vec![code::KEY, code::NULL, 0xDB, b'k']),
    ];
    leaf.prop_recursive(4, 64, 8, |inner| {
        prop::collection::vec(inner, 0..8).prop_map(|items| {
            let mut w = W::default();
            w.list(items.len());
            for i in items {
                w.0.extend(i);
            }
            w.0
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Random bytes: an answer or an error, never a panic, and the units
    /// spent within the limit.
    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        let limits = Limits { max_units: 10_000, max_depth: 64 };
        let _ = decode(&bytes, limits);
        let _ = decode_all(&bytes, limits);
        let _ = decode_map(&bytes, limits, &|_| false);
    }

    /// Every truncation and one flipped byte of well-formed values: never
    /// a panic; the whole value reads.
    #[test]
    fn truncations_and_flips_never_panic(bytes in arb_bytes(), flip in any::<(usize, u8)>()) {
        let limits = Limits::default();
        prop_assert!(decode(&bytes, limits).is_ok() || bytes.contains(&code::PRIORITY_CACHE_PACKED_START)
            || bytes.contains(&code::STRUCT_CACHE_PACKED_START));
        for end in 0..bytes.len() {
            let _ = decode(&bytes[..end], limits);
        }
        let mut flipped = bytes.clone();
        if !flipped.is_empty() {
            let i = flip.0 % flipped.len();
            flipped[i] ^= flip.1;
            let _ = decode(&flipped, limits);
            let _ = decode_map(&flipped, limits, &|_| true);
        }
    }
}

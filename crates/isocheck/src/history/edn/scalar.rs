//! Clojure's `=` on the EDN scalars that one value can be spelled in several
//! ways: BigDecimals (`10M` and `1E1M`: `=` ignores the scale), `#inst`
//! (a `java.util.Date`: the instant to the millisecond, whatever the offset
//! or the precision written) and `#uuid` (128 bits, in either case). The
//! reader accepts what Clojure's reads of them (less, where Java versions
//! disagree) and [`super::Node::canonical`] writes each value one way.
//! `tests/value_equality.rs` holds these rules to what real Clojure answered
//! (`tests/data/clojure-values.tsv`, written by `scripts/clojure-values.clj`).

use std::fmt::Write;

/// A BigDecimal as `=` sees it: `digits × 10^exponent`, the digits without
/// leading or trailing zeros (empty for zero, which has no sign).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decimal {
    /// A minus sign was written.
    pub negative: bool,
    /// The significant digits, without leading zeros.
    pub digits: String,
    /// The power of ten the digits are scaled by.
    pub exponent: i64,
}

/// The value of a BigDec's text (without its `M`) as `java.math.BigDecimal`
/// reads it, or `None` where Java refuses it: an exponent beyond 32 bits
/// ("Exponent overflow"), or a scale (fraction digits minus exponent) beyond
/// 32 bits ("Scale out of range"). `1E-2147483648M` is refused, `1E2147483647M`
/// is not.
pub fn decimal(text: &str) -> Option<Decimal> {
    let (negative, body) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(at) => (&body[..at], java_exponent(&body[at + 1..])?),
        None => (body, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if int.is_empty() || !all_digits(int) || !all_digits(frac) {
        return None;
    }
    let scale = i64::try_from(frac.len()).ok()?.checked_sub(exponent)?;
    i32::try_from(scale).ok()?;
    let all = format!("{int}{frac}");
    let significant = all.trim_start_matches('0');
    let digits = significant.trim_end_matches('0');
    if digits.is_empty() {
        return Some(Decimal {
            negative: false,
            digits: String::new(),
            exponent: 0,
        });
    }
    // Both terms are within 2^31 and the text's length: no overflow.
    let stripped = (significant.len() - digits.len()) as i64;
    Some(Decimal {
        negative,
        digits: digits.to_string(),
        exponent: stripped - scale,
    })
}

/// A BigDecimal exponent as Java reads it: a sign, then digits of which at
/// most ten follow the leading zeros, the value within 32 bits.
fn java_exponent(text: &str) -> Option<i64> {
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let significant = digits.trim_start_matches('0');
    if significant.len() > 10 {
        return None;
    }
    let n: i64 = match significant {
        "" => 0,
        s => s.parse().ok()?,
    };
    let n = if negative { -n } else { n };
    i32::try_from(n).ok().map(i64::from)
}

/// Exponents up to this many zeros are written out: `100M`, `0.001M`;
/// beyond it the value is written `12E-50M`.
const PLAIN_ZEROS: i64 = 20;

/// Appends the canonical text of `d`, with its `M`: the same for every
/// spelling of the value (`10M`, `1E1M`, `10.00M` are all `10M`).
pub fn write_decimal(d: &Decimal, out: &mut String) {
    if d.digits.is_empty() {
        out.push_str("0M");
        return;
    }
    if d.negative {
        out.push('-');
    }
    let digits = d.digits.as_str();
    // Digits before the point; the exponent is within 2^32 of zero.
    let point = digits.len() as i64 + d.exponent;
    let zeros = |n: i64| "0".repeat(n as usize);
    if (0..=PLAIN_ZEROS).contains(&d.exponent) {
        out.push_str(digits);
        out.push_str(&zeros(d.exponent));
    } else if d.exponent < 0 && point > 0 {
        let (int, frac) = digits.split_at(point as usize);
        let _ = write!(out, "{int}.{frac}");
    } else if d.exponent < 0 && -point <= PLAIN_ZEROS {
        let _ = write!(out, "0.{}{digits}", zeros(-point));
    } else {
        let _ = write!(out, "{digits}E{}", d.exponent);
    }
    out.push('M');
}

/// The instant a `#inst` string names, in milliseconds since 1970-01-01 UTC,
/// as `clojure.instant/read-instant-date` (the reader of `#inst`) reads it:
/// `yyyy[-MM[-dd[THH[:mm[:ss[.fraction]]]]]]` then `Z`, `±HH:mm` or nothing
/// (UTC), fields checked as it checks them, the fraction cut to milliseconds,
/// a second 60 (allowed after minute 59) the next minute's first, and dates
/// before 1582-10-15 in the Julian calendar, as `java.util.GregorianCalendar`
/// counts them. `Err` says why the text is refused.
pub fn inst_millis(text: &str) -> Result<i64, String> {
    let t = Timestamp::parse(text).ok_or_else(|| {
        "not a timestamp clojure.instant reads (yyyy-MM-ddTHH:mm:ss.fff±HH:mm, \
         trailing parts optional)"
            .to_string()
    })?;
    t.check()?;
    Ok(t.millis())
}

/// The fields of a `#inst` string, defaults filled in.
#[derive(Debug, Default)]
struct Timestamp {
    year: i64,
    month: i64,
    day: i64,
    hour: i64,
    minute: i64,
    second: i64,
    millis: i64,
    /// The offset from UTC in minutes, signed.
    offset: i64,
    offset_hours: i64,
    offset_minutes: i64,
}

/// `n` ASCII digits at the start of `s` (Java's `\d` is ASCII only).
fn digits(s: &[u8], n: usize) -> Option<i64> {
    let d = s.get(..n)?;
    d.iter()
        .all(u8::is_ascii_digit)
        .then(|| d.iter().fold(0, |a, &b| a * 10 + i64::from(b - b'0')))
}

impl Timestamp {
    /// clojure.instant's pattern, matched as `re-matches` does: the nested
    /// optional parts are taken greedily, and when what follows the longest
    /// run is no offset, shorter runs are tried (`2020-12:30` is the year
    /// 2020 at offset -12:30).
    fn parse(text: &str) -> Option<Timestamp> {
        let s = text.as_bytes();
        let mut t = Timestamp {
            year: digits(s, 4)?,
            month: 1,
            day: 1,
            ..Timestamp::default()
        };
        // The end of each part read: year, month, day, hour, minute, second, fraction.
        let mut ends = vec![4];
        let seps = [b'-', b'-', b'T', b':', b':'];
        let mut fields = [0i64; 5];
        for (i, &sep) in seps.iter().enumerate() {
            let at = ends[i];
            match (s.get(at), s.get(at + 1..).and_then(|rest| digits(rest, 2))) {
                (Some(&c), Some(n)) if c == sep => {
                    fields[i] = n;
                    ends.push(at + 3);
                }
                _ => break,
            }
        }
        if ends.len() == 6 && s.get(ends[5]) == Some(&b'.') {
            let n = s[ends[5] + 1..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            if n > 0 {
                let ms = &s[ends[5] + 1..ends[5] + 1 + n.min(3)];
                let ms = ms.iter().fold(0, |a, &b| a * 10 + i64::from(b - b'0'));
                t.millis = ms * 10i64.pow(3 - n.min(3) as u32);
                ends.push(ends[5] + 1 + n);
            }
        }
        // The longest run followed by an offset (or nothing) wins.
        let parts = (0..ends.len())
            .rev()
            .find(|&k| offset(&s[ends[k]..]).is_some())?;
        let (sign, hours, minutes) = offset(&s[ends[parts]..])?;
        let field = |k: usize, default: i64| if parts > k { fields[k] } else { default };
        t.month = field(0, 1);
        t.day = field(1, 1);
        t.hour = field(2, 0);
        t.minute = field(3, 0);
        t.second = field(4, 0);
        if parts < 6 {
            t.millis = 0;
        }
        t.offset_hours = hours;
        t.offset_minutes = minutes;
        t.offset = sign * (hours * 60 + minutes);
        Some(t)
    }

    /// clojure.instant's `validated`, in its order, with its limits.
    fn check(&self) -> Result<(), String> {
        let leap = self.year % 4 == 0 && (self.year % 100 != 0 || self.year % 400 == 0);
        // A month outside 1 to 12 fails the first check, before this one counts.
        let month_days = match self.month {
            2 if leap => 29,
            2 => 28,
            4 | 6 | 9 | 11 => 30,
            _ => 31,
        };
        let last_second = if self.minute == 59 { 60 } else { 59 };
        let checks = [
            ((1..=12).contains(&self.month), "the month is not 01 to 12"),
            (
                (1..=month_days).contains(&self.day),
                "the month has no such day",
            ),
            ((0..=23).contains(&self.hour), "the hour is not 00 to 23"),
            (
                (0..=59).contains(&self.minute),
                "the minute is not 00 to 59",
            ),
            (
                (0..=last_second).contains(&self.second),
                "the second is not 00 to 59 (60 only after minute 59)",
            ),
            (
                (0..=23).contains(&self.offset_hours),
                "the offset's hours are not 00 to 23",
            ),
            (
                (0..=59).contains(&self.offset_minutes),
                "the offset's minutes are not 00 to 59",
            ),
        ];
        match checks.iter().find(|c| !c.0) {
            Some((_, why)) => Err(why.to_string()),
            None => Ok(()),
        }
    }

    /// Milliseconds since 1970 UTC. Every field has at most four digits, so
    /// nothing here can overflow.
    fn millis(&self) -> i64 {
        let days = if (self.year, self.month, self.day) < (1582, 10, 15) {
            julian_days(self.year, self.month, self.day)
        } else {
            gregorian_days(self.year, self.month, self.day)
        };
        let seconds =
            days * 86_400 + self.hour * 3600 + self.minute * 60 + self.second - self.offset * 60;
        seconds * 1000 + self.millis
    }
}

/// `Z`, `±HH:mm` or nothing, then the end: (sign, hours, minutes).
fn offset(s: &[u8]) -> Option<(i64, i64, i64)> {
    match s {
        [] | [b'Z'] => Some((0, 0, 0)),
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
            let sign = if *sign == b'-' { -1 } else { 1 };
            Some((sign, digits(&[*h1, *h2], 2)?, digits(&[*m1, *m2], 2)?))
        }
        _ => None,
    }
}

/// The first instant of the Gregorian calendar, 1582-10-15T00:00Z, in ms.
const GREGORIAN_START: i64 = -12_219_292_800_000;
const DAY_MS: i64 = 86_400_000;
/// Days from the Julian calendar's March-based day count to 1970-01-01.
const JULIAN_EPOCH: i64 = 719_470;

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's
/// `days_from_civil`).
fn gregorian_days(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((m + 9) % 12) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Days since 1970-01-01 of a Julian date (year 0 is 1 BC, a leap year).
fn julian_days(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let doy = (153 * ((m + 9) % 12) + 2) / 5 + d - 1;
    365 * y + y.div_euclid(4) + doy - JULIAN_EPOCH
}

/// The date of a day since 1970-01-01 in the Gregorian calendar.
fn gregorian_date(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    month_day(yoe + era * 400, doy)
}

/// The date of a day since 1970-01-01 in the Julian calendar.
fn julian_date(days: i64) -> (i64, i64, i64) {
    let z = days + JULIAN_EPOCH;
    // Four-year cycles from March of a leap year's predecessor: 365, 365,
    // 365 and 366 days (the last holds February 29).
    let cycle = z.div_euclid(1461);
    let day = z.rem_euclid(1461);
    let year = (day / 365).min(3);
    month_day(cycle * 4 + year, day - year * 365)
}

/// Year, month and day from a March-based year and its day (0 is March 1).
fn month_day(march_year: i64, doy: i64) -> (i64, i64, i64) {
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (march_year + i64::from(month <= 2), month, day)
}

/// Appends the canonical text of an instant: `#inst` and the UTC time to
/// the millisecond, as Clojure prints a `Date` (the Julian calendar before
/// 1582-10-15; a year before 1 written with a minus, year 0 being 1 BC).
pub fn write_inst(millis: i64, out: &mut String) {
    let (days, ms) = (millis.div_euclid(DAY_MS), millis.rem_euclid(DAY_MS));
    let (y, m, d) = match millis < GREGORIAN_START {
        true => julian_date(days),
        false => gregorian_date(days),
    };
    let sign = if y < 0 { "-" } else { "" };
    let _ = write!(
        out,
        "#inst \"{sign}{:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}-00:00\"",
        y.abs(),
        ms / 3_600_000,
        ms / 60_000 % 60,
        ms / 1000 % 60,
        ms % 1000
    );
}

/// The 128 bits of a `#uuid` string in the form `java.util.UUID` writes,
/// 8-4-4-4-12 hex digits, in either case. Java also reads shorter groups
/// (`1-2-3-4-5`), and how it reads overlong ones changed between versions
/// (Java 17 drops the excess digits of `123456789-1-1-1-1`): those are
/// refused rather than guessed at.
pub fn uuid(text: &str) -> Option<u128> {
    let s = text.as_bytes();
    if s.len() != 36 {
        return None;
    }
    let mut bits = 0u128;
    for (i, &c) in s.iter().enumerate() {
        match i {
            8 | 13 | 18 | 23 if c == b'-' => {}
            8 | 13 | 18 | 23 => return None,
            _ => bits = bits << 4 | u128::from(char::from(c).to_digit(16)?),
        }
    }
    Some(bits)
}

/// Appends the canonical text of a UUID: `#uuid` and lower-case hex.
pub fn write_uuid(bits: u128, out: &mut String) {
    let hex = format!("{bits:032x}");
    let _ = write!(
        out,
        "#uuid \"{}-{}-{}-{}-{}\"",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canon_dec(text: &str) -> Option<String> {
        let mut s = String::new();
        write_decimal(&decimal(text)?, &mut s);
        Some(s)
    }

    #[test]
    fn decimals_are_written_one_way() {
        for (text, canon) in [
            ("10", "10M"),
            ("1E1", "10M"),
            ("10.00", "10M"),
            ("+1.50", "1.5M"),
            ("-0.00", "0M"),
            ("0E5", "0M"),
            ("0.001", "0.001M"),
            ("1E-3", "0.001M"),
            ("1E21", "1E21M"),
            ("120E-50", "12E-49M"),
            ("-123.456E-3", "-0.123456M"),
        ] {
            assert_eq!(canon_dec(text).as_deref(), Some(canon), "{text}");
        }
        // Java's limits: an exponent or a scale beyond 32 bits.
        for text in [
            "1E2147483648",
            "1E-2147483648",
            "0.1E-2147483647",
            "1E99999999999",
        ] {
            assert_eq!(decimal(text), None, "{text}");
        }
        assert!(decimal("1E00000000002147483647").is_some());
    }

    fn inst(text: &str) -> String {
        let mut s = String::new();
        write_inst(
            inst_millis(text).unwrap_or_else(|e| panic!("{text}: {e}")),
            &mut s,
        );
        s
    }

    #[test]
    fn instants_are_written_in_utc_to_the_millisecond() {
        let t = "#inst \"2020-01-01T00:00:00.000-00:00\"";
        assert_eq!(inst("2020"), t);
        assert_eq!(inst("2020-01-01T01:00:00+01:00"), t);
        assert_eq!(inst("2019-12-31T23:00:00.0009-01:00"), t);
        assert_eq!(inst("2019-12-31T23:59:60Z"), t);
        assert_eq!(
            inst("2020-12:30"),
            "#inst \"2020-01-01T12:30:00.000-00:00\""
        );
        assert_eq!(
            inst("1582-10-05"),
            "#inst \"1582-10-15T00:00:00.000-00:00\""
        );
        assert_eq!(
            inst("1582-10-04T23:00:00-02:00"),
            "#inst \"1582-10-15T01:00:00.000-00:00\""
        );
        assert_eq!(
            inst("1582-10-15T01:00:00+02:00"),
            "#inst \"1582-10-04T23:00:00.000-00:00\""
        );
        assert_eq!(
            inst("0000-01-01T00:00:00+00:01"),
            "#inst \"-0001-12-31T23:59:00.000-00:00\""
        );
        for bad in [
            "2020-13",
            "2020-02-30",
            "1900-02-29",
            "2020-01-01T00:58:60",
            "2020-01-01T00:00:00.",
            "20201",
        ] {
            assert!(inst_millis(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn uuids_are_lower_case() {
        let bits = uuid("6BA7B810-9dad-11D1-80b4-00c04fd430c8");
        let mut s = String::new();
        write_uuid(bits.unwrap_or_default(), &mut s);
        assert_eq!(s, "#uuid \"6ba7b810-9dad-11d1-80b4-00c04fd430c8\"");
        for bad in [
            "1-2-3-4-5",
            "+ba7b810-9dad-11d1-80b4-00c04fd430c8",
            "6ba7b8109dad11d180b400c04fd430c8",
        ] {
            assert_eq!(uuid(bad), None, "{bad}");
        }
    }
}

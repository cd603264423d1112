//! Doubles ↔ decimal text for both JSON codecs (the catalog's
//! [`super::write_f64`] and `generic::json`), without std's formatter or
//! parser on the common path: [`format::shortest`] gives the shortest
//! round-trip digits (one product, else Schubfach), [`parse::parse`] the
//! nearest double of a decimal (Clinger, then Eisel–Lemire, else `None`
//! for std's parse). Both scale by the one table of 128-bit powers of ten
//! in [`table`]; [`text`] lays the digits out as serde_json does, breaking
//! the rare exact ties as serde_json's formatter does. Their answers equal
//! std's (`{:e}` digits, `str::parse`) and serde_json's spelling: the tests
//! here, in `float/text.rs` and in `tests/reference_json.rs` compare them on
//! random bit patterns and the hard cases.

pub mod format;
pub mod parse;
pub mod table;
pub mod text;

/// The double nearest the JSON number `text`: [`parse::parse`], else std's
/// parse (`None` when std refuses the text).
pub fn parse_or_std(text: &str) -> Option<f64> {
    match parse::parse(text.as_bytes()) {
        Some(v) => Some(v),
        None => text.parse().ok(),
    }
}

/// How many random values a float test draws: `WIREBENCH_FLOAT_CASES`
/// when set, else `default`.
#[cfg(test)]
pub(crate) fn test_cases(default: usize) -> usize {
    std::env::var("WIREBENCH_FLOAT_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// The first five of `values` where `got` differs from `want`, each with
/// both answers: what every float test compares (it passes when empty).
#[cfg(test)]
pub(crate) fn disagreements<T: std::fmt::Debug, W: PartialEq + std::fmt::Debug>(
    values: impl IntoIterator<Item = T>,
    want: impl Fn(&T) -> W,
    got: impl Fn(&T) -> W,
) -> Vec<String> {
    let differ = |v: T| {
        let (w, g) = (want(&v), got(&v));
        (w != g).then(|| format!("{v:?}: want {w:?}, got {g:?}"))
    };
    values.into_iter().filter_map(differ).take(5).collect()
}

#[cfg(test)]
mod tests {
    use super::disagreements;
    use super::format::{floor_log10_pow2, shortest};
    use super::table::{G, N_MIN, floor_log2_pow10};
    use crate::prng::Rng;

    /// How many random bit patterns each differential test draws: 200 000
    /// by default (a second or two in a debug build).
    fn cases() -> usize {
        super::test_cases(200_000)
    }

    /// std's shortest digits of positive finite `v` (`{:e}`) as `(d, e)`,
    /// `v = d · 10^e`.
    fn std_shortest(v: f64) -> (u64, i32) {
        let t = format!("{v:e}");
        let (m, x) = t.split_once('e').unwrap();
        let x: i32 = x.parse().unwrap();
        let frac = m.split_once('.').map_or(0, |(_, f)| f.len()) as i32;
        let d: u64 = m.replace('.', "").parse().unwrap();
        (d, x - frac)
    }

    /// The values every differential test starts from: subnormals, the
    /// normal limits, powers of two and ten, halfway-looking decimals,
    /// 17-digit values and their neighbours.
    fn hard_doubles() -> Vec<f64> {
        let mut v = vec![
            f64::MIN_POSITIVE,
            f64::MAX,
            f64::from_bits(1),
            f64::from_bits(2),
            f64::from_bits((1 << 52) - 1),
            f64::from_bits(1 << 52),
            f64::EPSILON,
            0.1,
            0.2,
            0.3,
            1.0 / 3.0,
            2.0 / 3.0,
            5e-324,
            1.7976931348623157e308,
            2.2250738585072014e-308,
            9007199254740993.0,
            4.35679e-10,
            1.2345678901234567e-300,
            123456789012345680.0,
            5.5251406440042005e-120,
            -2.1322503863672714e+47,
        ];
        for e in -1074..=1023 {
            v.push(2f64.powi(e));
        }
        for e in -323..=308 {
            if let Ok(x) = format!("1e{e}").parse::<f64>() {
                v.push(x);
            }
        }
        let n = v.len();
        for i in 0..n {
            let b = v[i].abs().to_bits();
            v.push(f64::from_bits(b.saturating_add(1)));
            v.push(f64::from_bits(b.saturating_sub(1)));
        }
        v.into_iter()
            .map(f64::abs)
            .filter(|x| x.is_finite() && *x > 0.0)
            .collect()
    }

    /// A finite positive double from 64 random bits.
    fn random_double(rng: &mut Rng) -> f64 {
        loop {
            let v = f64::from_bits(rng.next_u64() & !(1 << 63));
            if v.is_finite() && v > 0.0 {
                return v;
            }
        }
    }

    /// Where `shortest` and std disagree among `values` (at most 5 shown).
    fn shortest_disagreements(values: &[f64], ours: impl Fn(f64) -> Option<(u64, i32)>) -> Vec<String> {
        disagreements(values, |&&v| Some(std_shortest(v)), |&&v| ours(v))
    }

    #[test]
    fn shortest_digits_are_std_digits() {
        let mut values = hard_doubles();
        let mut rng = Rng::new(0x5C4B);
        for _ in 0..cases() {
            values.push(random_double(&mut rng));
        }
        // 17-digit and short decimals as a writer would meet them.
        for _ in 0..cases() / 10 {
            let d = rng.range_i64(10_000_000_000_000_000, 99_999_999_999_999_999);
            let e = rng.range_i64(-340, 290);
            if let Ok(v) = format!("{d}e{e}").parse::<f64>() {
                values.push(v);
            }
            let d = rng.range_i64(1, 999_999);
            if let Ok(v) = format!("{d}e{}", rng.range_i64(-12, 12)).parse::<f64>() {
                values.push(v);
            }
        }
        values.retain(|v| v.is_finite() && *v > 0.0);
        let bad = shortest_disagreements(&values, shortest);
        assert!(bad.is_empty(), "{bad:#?}");
    }

    /// The comparison above fails on a formatter that is off by one digit
    /// or keeps a trailing zero.
    #[test]
    fn the_shortest_check_catches_a_wrong_formatter() {
        let values = hard_doubles();
        let off_by_one = |v: f64| shortest(v).map(|(d, e)| (d + u64::from(d % 7 == 3), e));
        assert!(!shortest_disagreements(&values, off_by_one).is_empty());
        let trailing_zero = |v: f64| shortest(v).map(|(d, e)| (d * 10, e - 1));
        assert!(!shortest_disagreements(&values, trailing_zero).is_empty());
    }

    #[test]
    fn shortest_refuses_what_it_cannot_write() {
        for v in [0.0, -0.0, -1.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert_eq!(shortest(v), None, "{v}");
        }
    }

    /// Texts the parser meets: every hard double in several spellings, and
    /// random decimals of 1 to 20 digits with random exponents.
    fn parse_texts(rng: &mut Rng) -> Vec<String> {
        // Limits, halfway cases either side of the subnormal and normal
        // edges and of 2^53, exponents past the table, every spelling.
        let hand = "0 -0 0.0 -0.0 1 -1 0.1 1e308 1.7976931348623157e308 1.7976931348623159e308 2e308 1e-400 \
            4.9e-324 2.4703282292062327e-324 2.4703282292062328e-324 2.2250738585072011e-308 \
            2.2250738585072012e-308 9007199254740993 9007199254740992.5 9007199254740993.0000000001 \
            18014398509481985 1e23 8.5e22 123456789012345678901234567890 0.000000000000000000000000000001 1E5 \
            1e+5 1.5E-5 100000000000000000000000 7.3177701707893310e+15 1e0000001 -5.5251406440042005e-120";
        let mut t: Vec<String> = hand.split_whitespace().map(String::from).collect();
        for v in hard_doubles() {
            t.push(format!("{v:e}"));
            t.push(format!("{v}"));
            t.push(format!("{v:.3e}"));
        }
        for _ in 0..cases() {
            let digits = 1 + rng.below(20) as u32;
            let d = rng.next_u64() % 10u64.pow(digits.min(19));
            let e = rng.range_i64(-330, 310);
            t.push(match rng.below(3) {
                0 => format!("{d}e{e}"),
                1 => format!("-{d}.{}e{e}", rng.below(1000)),
                _ => format!("{d}"),
            });
            // A midpoint between two neighbours, spelled exactly enough to
            // need more than the product's first word.
            let v = random_double(rng);
            let next = f64::from_bits(v.to_bits() + 1);
            if next.is_finite() {
                t.push(format!("{:e}", (v + next) / 2.0));
            }
            t.push(format!("{:e}", random_double(rng)));
        }
        t
    }

    /// Where `parse` and std's parse disagree among `texts` (at most 5).
    fn parse_disagreements(texts: &[String], ours: impl Fn(&str) -> Option<f64>) -> Vec<String> {
        let bits = |v: Option<f64>| v.map(f64::to_bits);
        disagreements(texts, |t| bits(t.parse().ok()), |t| bits(ours(t)))
    }

    #[test]
    fn parsed_doubles_are_std_doubles() {
        let mut rng = Rng::new(0xE15E);
        let texts = parse_texts(&mut rng);
        let bad = parse_disagreements(&texts, super::parse_or_std);
        assert!(bad.is_empty(), "{bad:#?}");
        // Most texts take the fast path (the check above is not all std's).
        let fast = texts
            .iter()
            .filter(|t| super::parse::parse(t.as_bytes()).is_some())
            .count();
        assert!(fast * 10 > texts.len() * 9, "{fast} of {}", texts.len());
    }

    /// The comparison above fails on a parser that rounds a midpoint the
    /// wrong way or misses the last bit.
    #[test]
    fn the_parse_check_catches_a_wrong_parser() {
        let mut rng = Rng::new(3);
        let texts = parse_texts(&mut rng);
        let last_bit = |t: &str| super::parse_or_std(t).map(|v| f64::from_bits(v.to_bits() ^ u64::from(v > 1e300)));
        assert!(!parse_disagreements(&texts, last_bit).is_empty());
        let up = |t: &str| {
            super::parse_or_std(t).map(|v| {
                if t.len() > 20 {
                    f64::from_bits(v.to_bits() + 1)
                } else {
                    v
                }
            })
        };
        assert!(!parse_disagreements(&texts, up).is_empty());
    }

    /// Where [`parse::json_number`] disagrees with the JSON lexer's token
    /// (its end) and std's parse of it, among `texts` followed by what may
    /// follow a number (every suffix for the first 20 000, a comma after
    /// the rest), at most 5.
    fn json_number_disagreements(texts: &[String], ours: impl Fn(&[u8]) -> Option<(f64, usize)>) -> Vec<String> {
        let mut bad = Vec::new();
        for (i, t) in texts.iter().enumerate() {
            if bad.len() >= 5 {
                break;
            }
            let all: &[&str] = &["", ",", "]", "}", " ", "x", "e", ".", "-"];
            for &suffix in if i < 20_000 { all } else { &all[1..2] } {
                let text = format!("{t}{suffix}");
                let Some((v, end)) = ours(text.as_bytes()) else {
                    continue;
                };
                let mut lx = crate::codec::json::lexer::Lexer::new(&text);
                let want = lx.number_token("number").ok().and_then(|(s, e, _)| {
                    let after_digit = matches!(text.as_bytes().get(e), Some(b'0'..=b'9'));
                    let v = text[s..e].parse::<f64>().ok()?;
                    (!after_digit && v.is_finite()).then_some((v.to_bits(), e))
                });
                if want != Some((v.to_bits(), end)) && bad.len() < 5 {
                    bad.push(format!(
                        "{text:?}: lexer and std {want:x?}, ours {:x?}",
                        (v.to_bits(), end)
                    ));
                }
            }
        }
        bad
    }

    /// Texts a JSON reader meets that are not numbers, or not quite.
    const MALFORMED: [&str; 16] = [
        "01",
        "-01",
        "00.5",
        "1.",
        "-",
        ".5",
        "1.e5",
        "--1",
        "+1",
        "1e",
        "1e+",
        "1E-",
        "-x",
        "-.5",
        "1e1234567",
        "",
    ];

    #[test]
    fn json_numbers_are_the_lexers_tokens_and_stds_doubles() {
        let mut rng = Rng::new(0x15E);
        let mut texts: Vec<String> = MALFORMED.map(String::from).to_vec();
        texts.extend(parse_texts(&mut rng));
        let bad = json_number_disagreements(&texts, |b| super::parse::json_number(b, 0));
        assert!(bad.is_empty(), "{bad:#?}");
        // It answers for most of them (the check is not vacuous), and for
        // none of the malformed.
        let some = texts
            .iter()
            .filter(|t| super::parse::json_number(t.as_bytes(), 0).is_some())
            .count();
        assert!(some * 10 > texts.len() * 8, "{some} of {}", texts.len());
        for t in MALFORMED {
            assert_eq!(super::parse::json_number(t.as_bytes(), 0), None, "{t}");
        }
    }

    /// The comparison above fails on a scanner that stops one byte early,
    /// takes a leading zero, or misses the last bit.
    #[test]
    fn the_json_number_check_catches_a_wrong_scanner() {
        let mut rng = Rng::new(5);
        let mut texts: Vec<String> = MALFORMED.map(String::from).to_vec();
        texts.extend(parse_texts(&mut rng));
        let early = |b: &[u8]| super::parse::json_number(b, 0).map(|(v, e)| (v, e - usize::from(e > 3)));
        assert!(!json_number_disagreements(&texts, early).is_empty());
        let leading_zero = |b: &[u8]| match b {
            [b'0', b'1', ..] => Some((1.0, 2)),
            _ => super::parse::json_number(b, 0),
        };
        assert!(!json_number_disagreements(&texts, leading_zero).is_empty());
        let last_bit = |b: &[u8]| super::parse::json_number(b, 0).map(|(v, e)| (f64::from_bits(v.to_bits() ^ 1), e));
        assert!(!json_number_disagreements(&texts, last_bit).is_empty());
    }

    #[test]
    fn parse_leaves_to_std_what_is_not_a_number() {
        for t in [
            "", "-", ".", "e5", "1e", "1e+", "1.2.3", "--1", "1x", "0x10", "inf", "NaN",
        ] {
            assert_eq!(super::parse::parse(t.as_bytes()), None, "{t}");
        }
    }

    /// Little-endian 32-bit limbs: just enough arithmetic to check the table.
    struct Big(Vec<u32>);

    impl Big {
        /// `v · 10^n · 2^s`.
        fn new(v: u128, n: u32, s: u32) -> Big {
            let mut b = Big((0..4).map(|i| (v >> (32 * i)) as u32).collect());
            for m in std::iter::repeat_n(10, n as usize).chain(std::iter::repeat_n(2, s as usize)) {
                let mut carry = 0u64;
                for l in &mut b.0 {
                    let p = u64::from(*l) * m + carry;
                    *l = p as u32;
                    carry = p >> 32;
                }
                if carry > 0 {
                    b.0.push(carry as u32);
                }
            }
            b
        }
        fn less(&self, o: &Big) -> bool {
            let limb = |b: &Big, i: usize| b.0.get(i).copied().unwrap_or(0);
            let top = self.0.len().max(o.0.len());
            (0..top)
                .rev()
                .map(|i| limb(self, i).cmp(&limb(o, i)))
                .find(|c| c.is_ne())
                == Some(std::cmp::Ordering::Less)
        }
    }

    /// Whether `g` is `g(n)`: `(g - 1) · 2^r <= 10^n < g · 2^r` with
    /// `r = floor(log2 10^n) - 127`, and `2^127 <= g < 2^128`.
    fn is_entry(n: i32, g: u128) -> bool {
        if g >> 127 != 1 {
            return false;
        }
        let r = floor_log2_pow10(n) - 127;
        // Both sides times 2^-r (r < 0) or 10^-n (n < 0), to stay integral.
        let (n10, r2) = (n.unsigned_abs(), r.unsigned_abs());
        let x = Big::new(1, if n >= 0 { n10 } else { 0 }, if r < 0 { r2 } else { 0 });
        let side = |g: u128| Big::new(g, if n < 0 { n10 } else { 0 }, if r >= 0 { r2 } else { 0 });
        !x.less(&side(g - 1)) && x.less(&side(g))
    }

    #[test]
    fn table_entries_bound_the_powers_of_ten() {
        for (i, &g) in G.iter().enumerate() {
            let n = N_MIN + i as i32;
            assert!(is_entry(n, g), "entry for 10^{n}: {g:#x}");
        }
        // The check fails on an entry one off either way, or a neighbour's.
        for n in [-292, -1, 0, 1, 27, 28, 55, 56, 324] {
            let g = G[(n - N_MIN) as usize];
            assert!(!is_entry(n, g + 1) && !is_entry(n, g - 1), "{n}");
        }
        assert!(!is_entry(5, G[(4 - N_MIN) as usize]));
    }

    #[test]
    fn the_logarithm_shortcuts_are_floors() {
        for e in -1100..=1100 {
            let l10 = (f64::from(e) * 2f64.log10()).floor() as i32;
            assert_eq!(floor_log10_pow2(e), l10, "log10 2^{e}");
            let l2 = (f64::from(e) * 10f64.log2()).floor() as i32;
            assert_eq!(floor_log2_pow10(e), l2, "log2 10^{e}");
        }
    }
}

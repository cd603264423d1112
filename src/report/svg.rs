//! Std-only SVG charts for the report: grouped bar charts, stacked bar
//! charts and line charts.
//!
//! Plain SVG 1.1 text, no scripts or external fonts, so it renders on GitHub
//! and in any browser. Every value is labelled as a number as well as drawn,
//! because a chart without its numbers invites misreading. Missing values
//! (`None`) leave a gap labelled "n/a", never a zero bar.

use std::fmt::Write as _;

/// One named series; `values[i]` belongs to category (or x) `i`.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub name: String,
    pub values: Vec<Option<f64>>,
}

impl Series {
    pub fn new(name: impl Into<String>, values: Vec<Option<f64>>) -> Series {
        Series {
            name: name.into(),
            values,
        }
    }
}

const COLORS: [&str; 6] = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1"];
const W: f64 = 760.0;
const H: f64 = 360.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 70.0;

/// Escapes text for SVG content and attributes.
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A "nice" axis maximum and step (1, 2 or 5 × 10^k) covering `max` in about 5 ticks.
pub fn nice_axis(max: f64) -> (f64, f64) {
    if max.is_nan() || max <= 0.0 {
        return (1.0, 0.2);
    }
    let raw = max / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    ((max / step).ceil() * step, step)
}

/// A compact number: 1234567 → "1.23M", 0.0123 → "0.0123".
pub fn short(x: f64) -> String {
    let a = x.abs();
    if a >= 1e9 {
        format!("{:.2}G", x / 1e9)
    } else if a >= 1e6 {
        format!("{:.2}M", x / 1e6)
    } else if a >= 1e4 {
        format!("{:.1}k", x / 1e3)
    } else if a >= 100.0 || x.fract() == 0.0 {
        format!("{x:.0}")
    } else if a >= 1.0 {
        format!("{x:.2}")
    } else if a == 0.0 {
        "0".into()
    } else {
        format!("{x:.3}")
    }
}

fn open(out: &mut String, title: &str) {
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{W}\" height=\"{H}\" viewBox=\"0 0 {W} {H}\" font-family=\"sans-serif\" font-size=\"11\">\n<rect width=\"{W}\" height=\"{H}\" fill=\"white\"/>\n<text x=\"{}\" y=\"22\" text-anchor=\"middle\" font-size=\"14\" font-weight=\"bold\">{}</text>\n",
        W / 2.0,
        escape(title)
    );
}

/// Opens a chart and draws its y axis over a nice axis covering `max`:
/// the plot's height and the y of a value.
fn open_plot(out: &mut String, title: &str, unit: &str, max: f64) -> (f64, impl Fn(f64) -> f64 + Copy + use<>) {
    open(out, title);
    let (top, step) = nice_axis(max);
    let plot_h = H - TOP - BOTTOM;
    let y_of = move |v: f64| TOP + plot_h * (1.0 - v / top);
    y_axis(out, top, step, unit, y_of);
    (plot_h, y_of)
}

/// The axis' maximum of `series` over its first `n` points: the largest
/// value or interval top (`errors[i][x]`, as the charts take them).
fn data_max(series: &[Series], errors: &[Vec<Option<(f64, f64)>>], n: usize) -> f64 {
    let tops = errors
        .iter()
        .take(series.len())
        .flat_map(|e| e.iter().take(n).flatten().map(|e| e.1));
    series
        .iter()
        .flat_map(|s| s.values.iter().flatten())
        .copied()
        .chain(tops)
        .fold(0.0, f64::max)
}

fn y_axis(out: &mut String, max: f64, step: f64, unit: &str, y_of: impl Fn(f64) -> f64) {
    let mut v = 0.0;
    while v <= max + step / 2.0 {
        let y = y_of(v);
        let _ = writeln!(
            out,
            "<line x1=\"{LEFT}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"#ddd\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            W - RIGHT,
            LEFT - 6.0,
            y + 4.0,
            escape(&short(v))
        );
        v += step;
    }
    let _ = writeln!(
        out,
        "<text x=\"14\" y=\"{:.1}\" transform=\"rotate(-90 14 {:.1})\" text-anchor=\"middle\">{}</text>",
        TOP + (H - TOP - BOTTOM) / 2.0,
        TOP + (H - TOP - BOTTOM) / 2.0,
        escape(unit)
    );
}

fn legend(out: &mut String, series: &[Series]) {
    let mut x = LEFT;
    for (i, s) in series.iter().enumerate() {
        let _ = writeln!(
            out,
            "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"10\" height=\"10\" fill=\"{}\"/><text x=\"{:.1}\" y=\"{:.1}\">{}</text>",
            H - 18.0,
            COLORS[i % COLORS.len()],
            x + 14.0,
            H - 9.0,
            escape(&s.name)
        );
        x += 24.0 + 7.0 * s.name.chars().count() as f64;
    }
}

/// A grouped bar chart: one group per category, one bar per series, with an
/// error bar per value: `errors[i][c]` is the `(lo, hi)` interval of series
/// `i` at category `c` (a vertical line with caps); a missing entry draws none.
pub fn bars(
    title: &str,
    unit: &str,
    categories: &[String],
    series: &[Series],
    errors: &[Vec<Option<(f64, f64)>>],
) -> String {
    let mut out = String::new();
    let err = |i: usize, c: usize| errors.get(i).and_then(|e| e.get(c)).copied().flatten();
    let (plot_h, y_of) = open_plot(&mut out, title, unit, data_max(series, errors, categories.len()));
    let group_w = (W - LEFT - RIGHT) / categories.len().max(1) as f64;
    let bar_w = (group_w * 0.8) / series.len().max(1) as f64;
    for (c, cat) in categories.iter().enumerate() {
        let gx = LEFT + group_w * c as f64 + group_w * 0.1;
        for (i, s) in series.iter().enumerate() {
            let x = gx + bar_w * i as f64;
            match s.values.get(c).copied().flatten() {
                Some(v) => {
                    let y = y_of(v.max(0.0));
                    let _ = writeln!(
                        out,
                        "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{}\"><title>{}: {}</title></rect><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"9\">{}</text>",
                        bar_w * 0.95,
                        (TOP + plot_h - y).max(0.0),
                        COLORS[i % COLORS.len()],
                        escape(&s.name),
                        escape(&short(v)),
                        x + bar_w * 0.475,
                        y - 3.0,
                        escape(&short(v))
                    );
                    if let Some((lo, hi)) = err(i, c) {
                        whisker(&mut out, x + bar_w * 0.475, lo, hi, y_of);
                    }
                }
                None => {
                    let _ = writeln!(
                        out,
                        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"9\">n/a</text>",
                        x + bar_w * 0.475,
                        TOP + plot_h - 3.0
                    );
                }
            }
        }
        let _ = writeln!(
            out,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            LEFT + group_w * (c as f64 + 0.5),
            TOP + plot_h + 16.0,
            escape(cat)
        );
    }
    legend(&mut out, series);
    out.push_str("</svg>\n");
    out
}

/// A 95% interval whisker at `cx` from `lo` to `hi` (values, mapped by `y_of`).
fn whisker(out: &mut String, cx: f64, lo: f64, hi: f64, y_of: impl Fn(f64) -> f64) {
    let (ylo, yhi) = (y_of(lo.max(0.0)), y_of(hi.max(0.0)));
    let _ = writeln!(
        out,
        "<path d=\"M{cx:.1},{ylo:.1}V{yhi:.1}M{:.1},{ylo:.1}H{:.1}M{:.1},{yhi:.1}H{:.1}\" stroke=\"#000\" fill=\"none\"><title>95% interval {}–{}</title></path>",
        cx - 3.0,
        cx + 3.0,
        cx - 3.0,
        cx + 3.0,
        escape(&short(lo)),
        escape(&short(hi))
    );
}

/// A stacked bar chart: one bar per category, the series stacked bottom to
/// top; a missing or non-positive value adds no segment, a segment of at
/// least 12 px carries its value. `measured[i]`, when given, is the total the
/// parts should add up to: a black line marks it and labels the bar (else
/// the sum of its parts does).
pub fn stacked(
    title: &str,
    unit: &str,
    categories: &[String],
    series: &[Series],
    measured: &[Option<f64>],
    measured_ci: &[Option<(f64, f64)>],
    axis_max: Option<f64>,
) -> String {
    let ci = |c: usize| measured_ci.get(c).copied().flatten();
    let mut out = String::new();
    let seg = |s: &Series, c: usize| s.values.get(c).copied().flatten().filter(|v| *v > 0.0);
    let total = |c: usize| series.iter().filter_map(|s| seg(s, c)).sum::<f64>();
    let mark = |c: usize| {
        measured
            .get(c)
            .copied()
            .flatten()
            .filter(|v| v.is_finite() && *v >= 0.0)
    };
    let max = (0..categories.len())
        .map(|c| total(c).max(mark(c).unwrap_or(0.0)).max(ci(c).map_or(0.0, |e| e.1)))
        .fold(axis_max.unwrap_or(0.0), f64::max);
    let (plot_h, y_of) = open_plot(&mut out, title, unit, max);
    let slot = (W - LEFT - RIGHT) / categories.len().max(1) as f64;
    let bar_w = slot * 0.6;
    for (c, cat) in categories.iter().enumerate() {
        let x = LEFT + slot * c as f64 + slot * 0.2;
        let mut base = 0.0;
        for (i, s) in series.iter().enumerate() {
            let Some(v) = seg(s, c) else { continue };
            let (y0, y1) = (y_of(base), y_of(base + v));
            let _ = writeln!(
                out,
                "<rect x=\"{x:.1}\" y=\"{y1:.1}\" width=\"{bar_w:.1}\" height=\"{:.1}\" fill=\"{}\"><title>{}: {}</title></rect>",
                (y0 - y1).max(0.0),
                COLORS[i % COLORS.len()],
                escape(&s.name),
                escape(&short(v))
            );
            if y0 - y1 >= 12.0 {
                let _ = writeln!(
                    out,
                    "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"9\" fill=\"white\">{}</text>",
                    x + bar_w / 2.0,
                    (y0 + y1) / 2.0 + 3.0,
                    escape(&short(v))
                );
            }
            base += v;
        }
        let (label, top_y) = match mark(c) {
            Some(m) => {
                let y = y_of(m);
                let _ = writeln!(
                    out,
                    "<line x1=\"{:.1}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"black\" stroke-width=\"2\"><title>measured: {}</title></line>",
                    x - 4.0,
                    x + bar_w + 4.0,
                    escape(&short(m))
                );
                if let Some((lo, hi)) = ci(c) {
                    whisker(&mut out, x + bar_w / 2.0, lo, hi, y_of);
                }
                (
                    format!("measured {}", short(m)),
                    y.min(y_of(base)).min(y_of(ci(c).map_or(0.0, |e| e.1))),
                )
            }
            None if base > 0.0 => (short(base), y_of(base)),
            None => ("n/a".into(), y_of(0.0)),
        };
        let _ = writeln!(
            out,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"10\">{}</text>\n<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            x + bar_w / 2.0,
            top_y - 4.0,
            escape(&label),
            x + bar_w / 2.0,
            TOP + plot_h + 16.0,
            escape(cat)
        );
    }
    legend(&mut out, series);
    out.push_str("</svg>\n");
    out
}

/// A line chart over `xs` (log₁₀ x axis when `log_x`), one polyline per
/// series, with a 95% interval whisker per point: `errors[i][x]` for series
/// `i` at `xs[x]`.
pub fn lines(
    title: &str,
    x_label: &str,
    unit: &str,
    xs: &[f64],
    series: &[Series],
    log_x: bool,
    errors: &[Vec<Option<(f64, f64)>>],
) -> String {
    let mut out = String::new();
    let err = |i: usize, x: usize| errors.get(i).and_then(|e| e.get(x)).copied().flatten();
    let (plot_h, y_of) = open_plot(&mut out, title, unit, data_max(series, errors, xs.len()));
    let plot_w = W - LEFT - RIGHT - 40.0;
    let t = |x: f64| if log_x { x.max(1e-12).log10() } else { x };
    let (lo, hi) = xs.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
        (a.min(t(x)), b.max(t(x)))
    });
    let span = if hi > lo { hi - lo } else { 1.0 };
    let x_of = |x: f64| LEFT + 20.0 + plot_w * (t(x) - if lo.is_finite() { lo } else { 0.0 }) / span;
    for &x in xs {
        let _ = writeln!(
            out,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            x_of(x),
            TOP + plot_h + 16.0,
            escape(&short(x))
        );
    }
    let _ = writeln!(
        out,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
        LEFT + plot_w / 2.0,
        TOP + plot_h + 34.0,
        escape(x_label)
    );
    for (i, s) in series.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let pts: Vec<(f64, f64)> = xs
            .iter()
            .zip(&s.values)
            .filter_map(|(&x, v)| v.map(|v| (x_of(x), y_of(v.max(0.0)))))
            .collect();
        if pts.len() > 1 {
            let p: Vec<String> = pts.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
            let _ = writeln!(
                out,
                "<polyline points=\"{}\" fill=\"none\" stroke=\"{color}\" stroke-width=\"2\"/>",
                p.join(" ")
            );
        }
        for (k, &x) in xs.iter().enumerate() {
            if let (Some(Some(_)), Some((lo, hi))) = (s.values.get(k), err(i, k)) {
                whisker(&mut out, x_of(x), lo, hi, y_of);
            }
        }
        for ((x, y), v) in pts.iter().zip(s.values.iter().flatten()) {
            let _ = writeln!(
                out,
                "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"3\" fill=\"{color}\"><title>{}: {}</title></circle>",
                escape(&s.name),
                escape(&short(*v))
            );
        }
    }
    legend(&mut out, series);
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_and_numbers() {
        assert_eq!(nice_axis(0.0), (1.0, 0.2));
        assert_eq!(nice_axis(9.0), (10.0, 2.0));
        assert_eq!(nice_axis(1234.0), (1500.0, 500.0));
        assert_eq!(short(1_500_000.0), "1.50M");
        assert_eq!(short(12_345.0), "12.3k");
        assert_eq!(short(0.5), "0.500");
        assert_eq!(escape("a<b&\"c\">"), "a&lt;b&amp;&quot;c&quot;&gt;");
    }

    #[test]
    fn stacked_bars_sum_their_segments() {
        let s = |name: &str, values: &[Option<f64>]| Series::new(name, values.to_vec());
        let svg = stacked(
            "t",
            "µs",
            &["server".into(), "client".into()],
            &[
                s("encode", &[Some(300.0), None]),
                s("rest", &[Some(-5.0), Some(120.0)]),
                s("decode", &[None, Some(900.0)]),
            ],
            &[None, Some(800.0)],
            &[],
            None,
        );
        // The sum labels a bar without a measured total; a measured total is
        // marked and labels its bar even when the parts overshoot it.
        assert!(
            svg.contains(">300</text>") && svg.contains(">measured 800</text>"),
            "{svg}"
        );
        assert!(svg.contains("<title>measured: 800</title></line>"), "{svg}");
        assert!(!svg.contains(">1020</text>"), "{svg}");
        assert_eq!(svg.matches("<rect x=").count(), 3 + 3, "3 segments + 3 legend boxes");
        assert!(!svg.contains("-5"));
    }

    #[test]
    fn error_bars_are_drawn_and_widen_the_axis() {
        let s = [Series::new("none", vec![Some(100.0), None])];
        let cats = ["a".to_string(), "b".to_string()];
        let plain = bars("t", "u", &cats, &s, &[]);
        assert!(!plain.contains("95% interval"));
        let with = bars("t", "u", &cats, &s, &[vec![Some((90.0, 260.0)), Some((1.0, 2.0))]]);
        assert_eq!(with.matches("95% interval").count(), 1, "none for a missing value");
        assert!(with.contains("95% interval 90–260"), "{with}");
        // The axis reaches the interval's top (300 for 260), not just the bar's 100.
        assert!(with.contains(">300<") || with.contains(">300 "), "{with}");
        let a = stacked("t", "u", &cats, &s, &[], &[], Some(1000.0));
        assert!(a.contains(">1000<") || a.contains(">1k<") || a.contains("1,000"), "{a}");
        // The stacked chart's measured total and the line chart's points carry theirs.
        let st = stacked(
            "t",
            "u",
            &cats,
            &s,
            &[Some(100.0), None],
            &[Some((95.0, 420.0)), Some((1.0, 2.0))],
            None,
        );
        assert_eq!(
            st.matches("95% interval").count(),
            1,
            "only where a total was measured: {st}"
        );
        assert!(st.contains("95% interval 95–420") && st.contains(">500<"), "{st}");
        let ln = lines(
            "t",
            "x",
            "u",
            &[1.0, 10.0],
            &s,
            true,
            &[vec![Some((80.0, 130.0)), Some((1.0, 2.0))]],
        );
        assert_eq!(ln.matches("95% interval").count(), 1, "{ln}");
        assert!(!lines("t", "x", "u", &[1.0, 10.0], &s, true, &[]).contains("95% interval"));
    }
}

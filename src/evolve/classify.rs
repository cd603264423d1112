//! Classifies one cell: what the writer meant against what the reader got.
//!
//! Products are compared field by field, fields matched by name (through the
//! step's rename, if any). Values compare by meaning, not by representation:
//! a union's value is bare, `Int(5)` equals `Long(5)`, an enum compares by
//! symbol. The worst finding of any product decides the cell:
//!
//! 1. **wrong value** — a field both sides have reads differently;
//! 2. **drops data** — a field the writer wrote has no place in the reader;
//! 3. **default** — a field the reader has and the writer did not write is
//!    filled with the reader's default (a written `null` read as the
//!    reader's zero counts here too: the reader has no "absent");
//! 4. **correct** — everything the writer wrote reads back as written.
//!
//! An error from the reader is **refuses**, with its message.

use crate::generic::datum::Datum;
use std::fmt;

/// The outcome of one cell.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Correct,
    /// Reader fields filled with defaults: `field = value`.
    Default(Vec<String>),
    /// Writer fields with no place in the reader.
    Drops(Vec<String>),
    /// `field: written → read`.
    Wrong(Vec<String>),
    /// The reader's error message.
    Refuses(String),
}

/// The five classes, for tests and the summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Correct,
    Default,
    Drops,
    Wrong,
    Refuses,
}

impl Outcome {
    pub fn class(&self) -> Class {
        match self {
            Outcome::Correct => Class::Correct,
            Outcome::Default(_) => Class::Default,
            Outcome::Drops(_) => Class::Drops,
            Outcome::Wrong(_) => Class::Wrong,
            Outcome::Refuses(_) => Class::Refuses,
        }
    }

    /// Silent data loss or a misread: the cells that must stand out.
    pub fn is_silent_damage(&self) -> bool {
        matches!(self, Outcome::Drops(_) | Outcome::Wrong(_))
    }
}

impl fmt::Display for Outcome {
    /// The Markdown of a matrix cell.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Correct => f.write_str("reads correctly"),
            Outcome::Default(d) => write!(f, "reads with the default: {}", d.join(", ")),
            Outcome::Drops(d) => write!(f, "**⚠ silently drops data**: {}", d.join(", ")),
            Outcome::Wrong(d) => write!(f, "**⚠ silently reads a wrong value**: {}", d.join(", ")),
            Outcome::Refuses(e) => {
                // One line in a table cell: whitespace runs (the verifier's
                // multi-line trace) become single spaces.
                let one_line = e.split_whitespace().collect::<Vec<_>>().join(" ");
                write!(f, "refuses: `{}`", one_line.replace('`', "'").replace('|', "\\|"))
            }
        }
    }
}

/// Whether two values mean the same (see the module doc).
pub fn same(a: &Datum, b: &Datum) -> bool {
    let (a, b) = (a.unwrapped(), b.unwrapped());
    if let (Some(x), Some(y)) = (a.array_items(), b.array_items()) {
        return x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| same(p, q));
    }
    match (a, b) {
        (Datum::Int(_) | Datum::Long(_), Datum::Int(_) | Datum::Long(_)) => as_i64(a) == as_i64(b),
        (Datum::Float(_) | Datum::Double(_), Datum::Float(_) | Datum::Double(_)) => as_f64(a) == as_f64(b),
        (Datum::Enum(_, x), Datum::Enum(_, y)) => x.eq_ignore_ascii_case(y),
        (Datum::Record(x), Datum::Record(y)) => {
            x.len() == y.len() && x.iter().all(|(n, v)| y.iter().any(|(m, w)| m == n && same(v, w)))
        }
        _ => a == b,
    }
}

fn as_i64(d: &Datum) -> i64 {
    match d {
        Datum::Int(v) => i64::from(*v),
        Datum::Long(v) => *v,
        _ => 0,
    }
}

fn as_f64(d: &Datum) -> f64 {
    match d {
        Datum::Float(v) => f64::from(*v),
        Datum::Double(v) => *v,
        _ => 0.0,
    }
}

/// A reader's zero value: what a reader without "absent" puts for a null.
fn is_zero(d: &Datum) -> bool {
    match d.unwrapped() {
        Datum::Null => true,
        Datum::Int(0) | Datum::Long(0) | Datum::Boolean(false) => true,
        Datum::String(s) => s.is_empty(),
        _ => false,
    }
}

/// Short text of a value for a cell.
pub fn brief(d: &Datum) -> String {
    let s = d.to_json();
    if s.chars().count() > 40 {
        let cut: String = s.chars().take(37).collect();
        format!("{cut}…")
    } else {
        s
    }
}

/// Classifies reading `written` (a catalog datum in the writer's field
/// names) as `read` (in the reader's), where `rename` maps a writer field
/// name to the reader's.
pub fn classify(written: &Datum, read: &Result<Datum, String>, rename: Option<(&str, &str)>) -> Outcome {
    let read = match read {
        Ok(d) => d,
        Err(e) => return Outcome::Refuses(e.clone()),
    };
    let (mut wrong, mut drops, mut defaults) = (Vec::new(), Vec::new(), Vec::new());
    let empty = Vec::new();
    let products = |d: &Datum| match d.field("products").map(Datum::unwrapped) {
        Some(Datum::Array(items)) => items.clone(),
        _ => empty.clone(),
    };
    let (wp, rp) = (products(written), products(read));
    if wp.len() != rp.len() {
        return Outcome::Wrong(vec![format!("products: {} written, {} read", wp.len(), rp.len())]);
    }
    let push = |list: &mut Vec<String>, s: String| {
        if !list.contains(&s) {
            list.push(s);
        }
    };
    for (w, r) in wp.iter().zip(&rp) {
        let (Datum::Record(wf), Datum::Record(rf)) = (w, r) else {
            push(&mut wrong, "product: not a record".to_string());
            continue;
        };
        let mut matched = Vec::new();
        for (name, wv) in wf {
            let rname = match rename {
                Some((from, to)) if from == &**name => to,
                _ => &**name,
            };
            match rf.iter().find(|(n, _)| &***n == rname) {
                Some((_, rv)) => {
                    matched.push(rname.to_string());
                    if same(wv, rv) {
                        continue;
                    }
                    if matches!(wv.unwrapped(), Datum::Null) && is_zero(rv) {
                        push(&mut defaults, format!("{rname} = {} (written: null)", brief(rv)));
                    } else {
                        push(&mut wrong, format!("{name} {} → {}", brief(wv), brief(rv)));
                    }
                }
                None => push(&mut drops, name.to_string()),
            }
        }
        for (name, rv) in rf {
            if !matched.iter().any(|m| **m == **name) {
                push(&mut defaults, format!("{name} = {}", brief(rv)));
            }
        }
    }
    if !wrong.is_empty() {
        Outcome::Wrong(wrong)
    } else if !drops.is_empty() {
        Outcome::Drops(drops)
    } else if !defaults.is_empty() {
        Outcome::Default(defaults)
    } else {
        Outcome::Correct
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cat(fields: Vec<(&str, Datum)>) -> Datum {
        let p = Datum::Record(fields.into_iter().map(|(n, d)| (n.into(), d)).collect());
        Datum::record(vec![("products".into(), Datum::Array(vec![p]))])
    }

    #[test]
    fn each_class() {
        let w = cat(vec![("a", Datum::Int(1)), ("b", Datum::String("x".into()))]);
        let same_w = Ok(cat(vec![("b", Datum::String("x".into())), ("a", Datum::Long(1))]));
        assert_eq!(classify(&w, &same_w, None), Outcome::Correct);
        let extra = Ok(cat(vec![
            ("a", Datum::Int(1)),
            ("b", Datum::String("x".into())),
            ("c", Datum::String(String::new())),
        ]));
        assert_eq!(classify(&w, &extra, None), Outcome::Default(vec!["c = \"\"".into()]));
        let fewer = Ok(cat(vec![("a", Datum::Int(1))]));
        assert_eq!(classify(&w, &fewer, None), Outcome::Drops(vec!["b".into()]));
        let wrong = Ok(cat(vec![("a", Datum::Int(2)), ("b", Datum::String("x".into()))]));
        assert_eq!(classify(&w, &wrong, None), Outcome::Wrong(vec!["a 1 → 2".into()]));
        let renamed = Ok(cat(vec![("z", Datum::Int(1)), ("b", Datum::String("x".into()))]));
        assert_eq!(classify(&w, &renamed, Some(("a", "z"))), Outcome::Correct);
        assert_eq!(classify(&w, &Err("no".into()), None), Outcome::Refuses("no".into()));
        let null = cat(vec![("a", Datum::Union(0, Box::new(Datum::Null)))]);
        assert_eq!(
            classify(&null, &Ok(cat(vec![("a", Datum::Int(0))])), None),
            Outcome::Default(vec!["a = 0 (written: null)".into()])
        );
        assert_eq!(
            classify(&cat(vec![("a", Datum::Int(0))]), &Ok(null), None),
            Outcome::Wrong(vec!["a 0 → null".into()])
        );
    }
}

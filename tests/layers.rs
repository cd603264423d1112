//! The module graph of `src/`, checked: no import cycles anywhere, and every
//! top-level module imports only layers below its own (docs/ARCHITECTURE.md,
//! "Layers").
//!
//! An import is any path that starts with `crate::`, `super::` or
//! `wirebench::` outside comments and outside the `#[cfg(test)] mod tests`
//! block at the end of a file, resolved to the longest module it names
//! (`crate::load::round::RoundStats` → `load::round`). A parent module naming
//! its children by their bare names (`pub use config::Config;`) is the
//! module tree itself, not an import, and is not counted.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Top-level modules by layer: a module may import only modules of a lower
/// layer. Modules of one layer never import each other.
const LAYERS: &[(usize, &[&str])] = &[
    (0, &["prng", "crc32", "sha256", "cli", "model", "measure"]),
    (1, &["codec", "gzip"]),
    (2, &["fixtures", "generic"]),
    (3, &["explain"]),
    (4, &["http"]),
    (5, &["bench", "load", "evolve", "decode", "digests"]),
    (6, &["report"]),
    (7, &["compare"]),
    (8, &["main"]),
];

fn layer_of(top: &str) -> Option<usize> {
    LAYERS.iter().find(|(_, names)| names.contains(&top)).map(|(l, _)| *l)
}

/// Module path (`load::round`; `main` for the binary; `` for lib.rs) → source.
fn modules() -> BTreeMap<String, String> {
    fn walk(dir: &Path, base: &Path, out: &mut BTreeMap<String, String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, base, out);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path.strip_prefix(base).unwrap().to_string_lossy().replace('\\', "/");
            let name = match rel.as_str() {
                "lib.rs" => String::new(),
                "main.rs" => "main".to_string(),
                r => {
                    let m = r.trim_end_matches(".rs").replace('/', "::");
                    m.strip_suffix("::mod").map(str::to_string).unwrap_or(m)
                }
            };
            out.insert(name, std::fs::read_to_string(&path).unwrap());
        }
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = BTreeMap::new();
    walk(&src, &src, &mut out);
    out
}

/// The code that counts: no comments, no trailing unit-test module.
fn code(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(i) => &text[..i],
        None => text,
    };
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let line = match line.find("//") {
            // A `//` inside a string literal ("http://…") is rare in paths
            // we care about; cutting there only ever removes text.
            Some(i) => &line[..i],
            None => line,
        };
        out.push_str(line);
        out.push('\n');
    }
    out
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Every path named after a `crate::`, `super::` or `wirebench::` root,
/// with one `{a, b::c}` group level expanded (recursively), as
/// `(root, segments)`.
fn paths(code: &str) -> Vec<(&'static str, Vec<String>)> {
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    for root in ["crate", "super", "wirebench"] {
        let pat = format!("{root}::");
        let mut from = 0;
        while let Some(pos) = code[from..].find(&pat) {
            let start = from + pos;
            from = start + pat.len();
            if start > 0 && (is_ident(bytes[start - 1]) || bytes[start - 1] == b':') {
                continue; // part of a longer path, e.g. `super::super::`
            }
            let root: &'static str = match root {
                "crate" | "wirebench" => "crate",
                _ => "super",
            };
            expand(&code[start + pat.len()..], Vec::new(), &mut |segs| {
                out.push((root, segs))
            });
        }
    }
    out
}

fn expand(rest: &str, prefix: Vec<String>, emit: &mut dyn FnMut(Vec<String>)) {
    let mut segs = prefix;
    let mut s = rest;
    loop {
        if let Some(group) = s.strip_prefix('{') {
            let mut depth = 0;
            let mut item = String::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        expand(item.trim(), segs.clone(), emit);
                        item.clear();
                        continue;
                    }
                    _ => {}
                }
                item.push(c);
            }
            if !item.trim().is_empty() {
                expand(item.trim(), segs, emit);
            }
            return;
        }
        let end = s.bytes().position(|b| !is_ident(b)).unwrap_or(s.len());
        if end > 0 {
            segs.push(s[..end].to_string());
        }
        s = &s[end..];
        match s.strip_prefix("::") {
            Some(r) => s = r,
            None => {
                emit(segs);
                return;
            }
        }
    }
}

/// Module → the other modules it imports.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let mods = modules();
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (name, text) in &mods {
        let own: Vec<&str> = if name.is_empty() || name == "main" {
            vec![]
        } else {
            name.split("::").collect()
        };
        let deps = g.entry(name.clone()).or_default();
        for (root, segs) in paths(&code(text)) {
            let mut base: Vec<String> = Vec::new();
            let mut segs = segs.as_slice();
            if root == "super" {
                // `super` is the parent module, whether the module is a file
                // (`load/round.rs` → `load`) or a directory (`load/mod.rs` → the crate).
                let mut b: Vec<String> = own.iter().map(|s| s.to_string()).collect();
                b.pop();
                while let Some((first, rest)) = segs.split_first() {
                    if first != "super" {
                        break;
                    }
                    b.pop();
                    segs = rest;
                }
                base = b;
            }
            let mut target = base.join("::");
            let mut full = base;
            for s in segs {
                full.push(s.clone());
                let candidate = full.join("::");
                if mods.contains_key(&candidate) {
                    target = candidate;
                } else {
                    break;
                }
            }
            if !target.is_empty() && &target != name {
                deps.insert(target);
            }
        }
    }
    g
}

fn top(m: &str) -> &str {
    m.split("::").next().unwrap_or(m)
}

#[test]
fn no_import_cycles_anywhere_in_src() {
    let g = graph();
    // Depth-first search with colours; report the first cycle as a path.
    #[derive(Clone, Copy, PartialEq)]
    enum Colour {
        White,
        Grey,
        Black,
    }
    let mut colour: BTreeMap<&str, Colour> = g.keys().map(|k| (k.as_str(), Colour::White)).collect();
    fn visit<'a>(
        n: &'a str,
        g: &'a BTreeMap<String, BTreeSet<String>>,
        colour: &mut BTreeMap<&'a str, Colour>,
        stack: &mut Vec<&'a str>,
    ) -> Option<Vec<String>> {
        colour.insert(n, Colour::Grey);
        stack.push(n);
        for d in g.get(n).into_iter().flatten() {
            match colour.get(d.as_str()).copied().unwrap_or(Colour::Black) {
                Colour::Grey => {
                    let from = stack.iter().position(|s| *s == d).unwrap();
                    let mut cycle: Vec<String> = stack[from..].iter().map(|s| s.to_string()).collect();
                    cycle.push(d.clone());
                    return Some(cycle);
                }
                Colour::White => {
                    if let Some(c) = visit(d, g, colour, stack) {
                        return Some(c);
                    }
                }
                Colour::Black => {}
            }
        }
        stack.pop();
        colour.insert(n, Colour::Black);
        None
    }
    let names: Vec<&str> = g.keys().map(String::as_str).collect();
    for n in names {
        if colour[n] == Colour::White {
            let mut stack = Vec::new();
            if let Some(cycle) = visit(n, &g, &mut colour, &mut stack) {
                panic!("import cycle in src/: {}", cycle.join(" → "));
            }
        }
    }
}

#[test]
fn imports_only_point_down_the_layers() {
    let g = graph();
    let mut wrong = Vec::new();
    for (from, deps) in &g {
        let from_top = if from.is_empty() { continue } else { top(from) };
        let Some(lf) = layer_of(from_top) else {
            wrong.push(format!(
                "{from}: top-level module `{from_top}` is not in LAYERS (tests/layers.rs)"
            ));
            continue;
        };
        for d in deps {
            let to_top = top(d);
            if to_top == from_top {
                continue;
            }
            match layer_of(to_top) {
                Some(lt) if lt < lf => {}
                Some(lt) => wrong.push(format!(
                    "{from} (layer {lf}) imports {d} (layer {lt}): imports must point to a lower layer"
                )),
                None => wrong.push(format!("{d}: top-level module `{to_top}` is not in LAYERS")),
            }
        }
    }
    assert!(wrong.is_empty(), "layering violations:\n{}", wrong.join("\n"));
}

/// The checker itself must see what it is meant to see.
#[test]
fn the_checker_resolves_paths_and_groups() {
    let code = code(
        "use super::{client::Client, verify::Target};\nuse crate::measure::histogram::Histogram; // crate::report\nfn f() { super::super::x::y(); }\n",
    );
    let got: Vec<(&str, String)> = paths(&code).into_iter().map(|(r, s)| (r, s.join("::"))).collect();
    assert!(got.contains(&("super", "client::Client".into())), "{got:?}");
    assert!(got.contains(&("super", "verify::Target".into())), "{got:?}");
    assert!(
        got.contains(&("crate", "measure::histogram::Histogram".into())),
        "{got:?}"
    );
    assert!(got.contains(&("super", "super::x::y".into())), "{got:?}");
    assert!(
        !got.iter().any(|(_, p)| p.starts_with("report")),
        "comments are not imports: {got:?}"
    );

    let g = graph();
    assert!(g["load::closed"].contains("load::round"), "{:?}", g["load::closed"]);
    assert!(g["report"].contains("measure::stats"), "{:?}", g["report"]);
    assert!(g["main"].contains("load"), "{:?}", g["main"]);
}

//! The file graph of `src/`, checked: no import cycle between files
//! anywhere, and every top-level module imports only layers below its own
//! (docs/ARCHITECTURE.md, "Layers").
//!
//! An import is any path outside comments and outside the `#[cfg(test)] mod
//! tests` block at the end of a file that starts at a root the file can
//! name: `crate::`, `wirebench::`, `super::`, `self::`, a child module by its
//! bare name (`mod view;` then `view::X` or `pub use view::X;`), or a name one
//! of its `use`s binds. It is resolved to the file that holds what it names:
//! the longest module path, then through `use` bindings and re-exports
//! (`super::DecodeError` from a format → `codec::error`, where `codec`'s
//! `pub use error::DecodeError;` points). A `mod x;` declaration alone is the
//! module tree, not an import.
//!
//! The map is checked too: docs/ARCHITECTURE.md's "Layers" table equals
//! `LAYERS`, `LAYERS` names exactly `src/lib.rs`'s top-level modules and
//! `main`, and its "Code map" names every folder and file of `src/`,
//! `benches/` and `examples/` and nothing that does not exist; a failure lists the names missing and extra.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Top-level modules by layer: a module may import only modules of a lower
/// layer. Modules of one layer never import each other.
const LAYERS: &[(usize, &[&str])] = &[
    (0, &["prng", "crc32", "sha256", "cli", "model", "measure"]),
    (1, &["codec", "gzip"]),
    (2, &["fixtures", "generic", "http"]),
    (3, &["explain"]),
    (4, &["payload"]),
    (5, &["serve"]),
    (6, &["bench", "load", "evolve", "digests"]),
    (7, &["report"]),
    (8, &["compare"]),
    (9, &["main"]),
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

/// A module's `use` bindings: the name each `use` brings into scope → the
/// path it names, as `(root, segments)` (`pub use error::DecodeError;` →
/// `DecodeError` → `("error", [DecodeError])` with `error` a bare root).
/// Private `use`s count too: a child reaches them through `super::`.
/// A `use` inside an inline `mod name { … }` binds in that block only and
/// is left out.
fn bindings(code: &str) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    let bytes = code.as_bytes();
    let inline = inline_modules(code);
    let mut from = 0;
    while let Some(pos) = code[from..].find("use ") {
        let start = from + pos;
        from = start + 4;
        if start > 0 && is_ident(bytes[start - 1]) {
            continue; // `reuse `, `r#use `
        }
        if inline.iter().any(|(a, b)| (*a..*b).contains(&start)) {
            continue;
        }
        let Some(len) = code[from..].find(';') else { break };
        let tree = code[from..from + len].trim().trim_start_matches("::");
        use_tree(tree, Vec::new(), &mut |segs, name| {
            out.insert(name, segs);
        });
    }
    out
}

/// Flattens a use tree (`a::{b, c::d as e, self}`) into `(path, bound name)`.
fn use_tree(tree: &str, prefix: Vec<String>, emit: &mut dyn FnMut(Vec<String>, String)) {
    let tree = tree.trim();
    if let Some(inner) = tree.strip_prefix('{').and_then(|t| t.strip_suffix('}')) {
        let (mut depth, mut item) = (0, String::new());
        for c in inner.chars().chain([',']) {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    if !item.trim().is_empty() {
                        use_tree(&item, prefix.clone(), emit);
                    }
                    item.clear();
                    continue;
                }
                _ => {}
            }
            item.push(c);
        }
        return;
    }
    let (path, alias) = match tree.split_once(" as ") {
        Some((p, a)) => (p.trim(), Some(a.trim())),
        None => (tree, None),
    };
    if let Some((head, rest)) = path.split_once("::") {
        let mut p = prefix;
        p.push(head.trim().to_string());
        if let Some(a) = alias {
            // `use a::b as c;` with no group: the last segment is renamed.
            let mut segs = p;
            segs.extend(rest.split("::").map(|s| s.trim().to_string()));
            emit(segs, a.to_string());
            return;
        }
        return use_tree(rest, p, emit);
    }
    let mut segs = prefix;
    let name = if path == "self" {
        segs.last().cloned().unwrap_or_default()
    } else {
        segs.push(path.to_string());
        path.to_string()
    };
    if name == "*" || name == "_" || name.is_empty() {
        return;
    }
    emit(segs, alias.map(str::to_string).unwrap_or(name));
}

/// The module tree and every module's `use` bindings, for resolving paths.
struct Tree<'m> {
    mods: &'m BTreeMap<String, String>,
    uses: BTreeMap<String, BTreeMap<String, Vec<String>>>,
}

fn join(v: &[String]) -> String {
    v.join("::")
}

impl Tree<'_> {
    fn new(mods: &BTreeMap<String, String>) -> Tree<'_> {
        let uses = mods.iter().map(|(n, t)| (n.clone(), bindings(&code(t)))).collect();
        Tree { mods, uses }
    }

    fn own(name: &str) -> Vec<String> {
        if name.is_empty() || name == "main" {
            vec![]
        } else {
            name.split("::").map(str::to_string).collect()
        }
    }

    /// Is `seg` a child module of `module` (a bare path root)?
    fn is_child(&self, module: &str, seg: &str) -> bool {
        let mut c = Tree::own(module);
        c.push(seg.to_string());
        module != "main" && self.mods.contains_key(&join(&c))
    }

    /// The file a path written in `module` lands in: the longest module it
    /// names, following `use` bindings (re-exports included) through every
    /// module it passes. `None` for a path outside the crate.
    fn resolve(&self, module: &str, segs: &[String], depth: usize) -> Option<String> {
        if depth > 32 {
            return None; // a `use` loop: rustc refuses it anyway
        }
        let (first, rest) = segs.split_first()?;
        let mut cur = match first.as_str() {
            "crate" | "wirebench" => vec![],
            "self" => Tree::own(module),
            "super" => {
                // `super` is the parent module, whether the module is a file
                // (`load/round.rs` → `load`) or a directory (`load/mod.rs` → the crate).
                let mut b = Tree::own(module);
                b.pop();
                b
            }
            child if self.is_child(module, child) => {
                let mut b = Tree::own(module);
                b.push(child.to_string());
                b
            }
            name => {
                // A name a `use` of this module binds (`use super::view;` then `view::X`).
                let target = self.uses.get(module)?.get(name)?.clone();
                if target.first().is_some_and(|f| f == name) && !self.is_child(module, name) {
                    return None; // an extern crate (`use std::fmt;` binds `fmt` to itself)
                }
                let mut t = target;
                t.extend(rest.iter().cloned());
                return self.resolve(module, &t, depth + 1);
            }
        };
        let mut rest = rest;
        while let Some(("super", r)) = rest.split_first().map(|(f, r)| (f.as_str(), r)) {
            cur.pop();
            rest = r;
        }
        for (i, s) in rest.iter().enumerate() {
            let mut next = cur.clone();
            next.push(s.clone());
            if self.mods.contains_key(&join(&next)) {
                cur = next;
                continue;
            }
            // An item the module brings in by `use`: follow it to its file.
            let here = join(&cur);
            if let Some(target) = self.uses.get(&here).and_then(|u| u.get(s)) {
                let mut t = target.clone();
                t.extend(rest[i + 1..].iter().cloned());
                if let Some(r) = self.resolve(&here, &t, depth + 1) {
                    return Some(r);
                }
            }
            break;
        }
        Some(join(&cur))
    }
}

/// Every path of `code` that starts at a root the module can name: `crate::`,
/// `wirebench::`, `super::`, `self::`, a child module by its bare name
/// (`mod view; view::X`), or a name one of its `use`s binds.
///
/// Inside an inline `mod name { … }` block, each leading `super::` leaves
/// that block first: `super::X` there names the file's own `X`, so it is
/// read as `self::X`.
fn module_paths(tree: &Tree<'_>, module: &str, code: &str) -> Vec<Vec<String>> {
    let bytes = code.as_bytes();
    let inline = inline_modules(code);
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        if !is_ident(bytes[i]) || (start > 0 && (is_ident(bytes[start - 1]) || bytes[start - 1] == b':')) {
            i += 1;
            continue;
        }
        let end = start
            + bytes[start..]
                .iter()
                .position(|b| !is_ident(*b))
                .unwrap_or(bytes.len() - start);
        i = end;
        if !code[end..].starts_with("::") {
            continue;
        }
        let root = &code[start..end];
        let known = matches!(root, "crate" | "wirebench" | "super" | "self")
            || tree.is_child(module, root)
            || tree.uses.get(module).is_some_and(|u| u.contains_key(root));
        if !known {
            continue;
        }
        let inside = inline.iter().filter(|(a, b)| (*a..*b).contains(&start)).count();
        expand(&code[end + 2..], vec![root.to_string()], &mut |mut segs| {
            let (mut depth, mut left_inline) = (inside, false);
            while depth > 0 && segs.first().is_some_and(|s| s == "super") {
                segs.remove(0);
                depth -= 1;
                left_inline = true;
            }
            if left_inline && segs.first().is_none_or(|s| s != "super") {
                segs.insert(0, "self".to_string());
            }
            out.push(segs)
        });
    }
    out
}

/// The byte ranges of the inline `mod name { … }` blocks of `code`.
fn inline_modules(code: &str) -> Vec<(usize, usize)> {
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(pos) = code[from..].find("mod ") {
        let start = from + pos;
        from = start + 4;
        if start > 0 && is_ident(bytes[start - 1]) {
            continue;
        }
        let rest = &code[from..];
        let name_end = rest.bytes().position(|b| !is_ident(b)).unwrap_or(rest.len());
        if name_end == 0 || !rest[name_end..].trim_start().starts_with('{') {
            continue; // `mod name;`: a file of its own
        }
        let open = from + name_end + rest[name_end..].find('{').unwrap_or(0);
        // Braces in string and character literals (`b'{'`, "{}") do not count.
        let (mut depth, mut i) = (0usize, open);
        while i < bytes.len() {
            match bytes[i] {
                b'"' => {
                    i += 1;
                    while i < bytes.len() && bytes[i] != b'"' {
                        i += if bytes[i] == b'\\' { 2 } else { 1 };
                    }
                }
                b'\'' if bytes.get(i + 2) == Some(&b'\'') => i += 2,
                b'\'' if bytes.get(i + 1) == Some(&b'\\') && bytes.get(i + 3) == Some(&b'\'') => i += 3,
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        out.push((open, i));
                        break;
                    }
                }
                _ => {}
            }
            i += 1;
        }
    }
    out
}

/// `code` with every `pub use …;` blanked out. A re-export is a name, not a
/// use: the file that names it through the re-export imports the file that
/// defines it ([`Tree::resolve`]). A private `use` is an import.
fn without_reexports(code: &str) -> String {
    let mut out = code.to_string();
    let mut from = 0;
    while let Some(pos) = code[from..].find("pub") {
        let start = from + pos;
        from = start + 3;
        if start > 0 && is_ident(code.as_bytes()[start - 1]) {
            continue;
        }
        let mut rest = code[from..].trim_start();
        if let Some(r) = rest.strip_prefix('(') {
            let Some(close) = r.find(')') else { continue };
            rest = r[close + 1..].trim_start();
        }
        if !rest.starts_with("use ") {
            continue;
        }
        let use_at = code.len() - rest.len();
        let Some(len) = code[use_at..].find(';') else { break };
        let blank = " ".repeat(use_at + len - start);
        out.replace_range(start..use_at + len, &blank);
    }
    out
}

/// File → the other files it imports (each module is one file).
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    graph_of(&modules())
}

fn graph_of(mods: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let tree = Tree::new(mods);
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (name, text) in mods {
        let deps = g.entry(name.clone()).or_default();
        for segs in module_paths(&tree, name, &without_reexports(&code(text))) {
            if let Some(target) = tree.resolve(name, &segs, 0)
                && !target.is_empty()
                && &target != name
            {
                deps.insert(target);
            }
        }
    }
    g
}

/// The first import cycle of `g`, as a path that ends where it starts.
fn find_cycle(g: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    // Depth-first search with colours.
    #[derive(Clone, Copy, PartialEq)]
    enum Colour {
        White,
        Grey,
        Black,
    }
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
    let mut colour: BTreeMap<&str, Colour> = g.keys().map(|k| (k.as_str(), Colour::White)).collect();
    for n in g.keys() {
        if colour[n.as_str()] == Colour::White {
            let mut stack = Vec::new();
            if let Some(c) = visit(n, g, &mut colour, &mut stack) {
                return Some(c);
            }
        }
    }
    None
}

fn top(m: &str) -> &str {
    m.split("::").next().unwrap_or(m)
}

/// Cycles of files the check lets pass: none. A cycle could be listed here
/// while it is being broken (the types both sides share moved to a file of
/// their own, below both); the test fails once a listed cycle is gone, until
/// it is removed from this list.
const KNOWN_CYCLES: &[&[&str]] = &[];

/// The strongly connected components of `g` with more than one file: every
/// set of files that import each other through some cycle (Tarjan's).
fn cycles(g: &BTreeMap<String, BTreeSet<String>>) -> BTreeSet<BTreeSet<String>> {
    struct State<'a> {
        g: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        out: BTreeSet<BTreeSet<String>>,
    }
    fn visit<'a>(n: &'a str, s: &mut State<'a>) {
        let i = s.index.len();
        s.index.insert(n, i);
        s.low.insert(n, i);
        s.stack.push(n);
        let g = s.g;
        for d in g.get(n).into_iter().flatten() {
            let d = d.as_str();
            if !s.index.contains_key(d) {
                visit(d, s);
                let l = s.low[d].min(s.low[n]);
                s.low.insert(n, l);
            } else if s.stack.contains(&d) {
                let l = s.index[d].min(s.low[n]);
                s.low.insert(n, l);
            }
        }
        if s.low[n] == s.index[n] {
            let mut scc = BTreeSet::new();
            while let Some(m) = s.stack.pop() {
                scc.insert(m.to_string());
                if m == n {
                    break;
                }
            }
            if scc.len() > 1 {
                s.out.insert(scc);
            }
        }
    }
    let mut s = State {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        out: BTreeSet::new(),
    };
    for n in g.keys() {
        if !s.index.contains_key(n.as_str()) {
            visit(n, &mut s);
        }
    }
    s.out
}

#[test]
fn no_import_cycles_anywhere_in_src() {
    let g = graph();
    let known: BTreeSet<BTreeSet<String>> = KNOWN_CYCLES
        .iter()
        .map(|c| c.iter().map(|s| s.to_string()).collect())
        .collect();
    let found = cycles(&g);
    let new: Vec<String> = found
        .difference(&known)
        .map(|c| {
            let sub: BTreeMap<String, BTreeSet<String>> = c
                .iter()
                .map(|n| (n.clone(), g[n].intersection(c).cloned().collect()))
                .collect();
            let members: Vec<&str> = c.iter().map(String::as_str).collect();
            format!(
                "{} (files: {members:?})",
                find_cycle(&sub).unwrap_or_default().join(" → ")
            )
        })
        .collect();
    assert!(new.is_empty(), "import cycles in src/:\n{}", new.join("\n"));
    let gone: Vec<_> = known.difference(&found).collect();
    assert!(gone.is_empty(), "no longer cycles, remove from KNOWN_CYCLES: {gone:?}");
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

/// A crate of files given as `(module path, source)`.
fn crate_of(files: &[(&str, &str)]) -> BTreeMap<String, String> {
    files.iter().map(|(n, t)| (n.to_string(), t.to_string())).collect()
}

/// The checker itself must see what it is meant to see.
#[test]
fn the_checker_resolves_paths_and_groups() {
    let mods = crate_of(&[
        ("load", "mod client; mod verify; pub use verify::Target;\n"),
        ("load::client", "pub struct Client;\n"),
        ("load::verify", "pub struct Target;\n"),
        (
            "load::closed",
            "use super::{client::Client, verify::Target};\nuse crate::measure::histogram::Histogram; // crate::report\nfn f() { super::super::x::y(); }\n",
        ),
        ("measure", "pub mod histogram;\n"),
        ("measure::histogram", "pub struct Histogram;\n"),
        ("report", "use crate::load::Target;\n"),
        ("x", "pub fn y() {}\n"),
    ]);
    let g = graph_of(&mods);
    let set = |xs: &[&str]| xs.iter().map(|s| s.to_string()).collect::<BTreeSet<String>>();
    assert_eq!(
        g["load::closed"],
        set(&["load::client", "load::verify", "measure::histogram", "x"]),
        "groups, `super::super::`, comments"
    );
    assert_eq!(g["load"], set(&[]), "a re-export alone is a name, not an import");
    assert_eq!(
        g["report"],
        set(&["load::verify"]),
        "a re-export is followed to its file"
    );

    let g = graph();
    assert!(g["load::closed"].contains("load::round"), "{:?}", g["load::closed"]);
    assert!(
        g["report::inputs"].contains("measure::stats"),
        "{:?}",
        g["report::inputs"]
    );
    assert!(g["main"].contains("load"), "{:?}", g["main"]);
}

/// Each form a cycle can take in Rust is seen: a bare child path, `self::`,
/// a name bound by a `use`, and paths through one or two re-exports; and
/// following re-exports adds no false edge.
#[test]
fn the_checker_sees_every_form_of_cycle() {
    let cyclic: &[(&str, &[(&str, &str)])] = &[
        (
            "a bare child path",
            &[
                ("a", "mod b; pub fn helper() {}\nfn f() { b::g(); }\n"),
                ("a::b", "pub fn g() { super::helper(); }\n"),
            ],
        ),
        (
            "self::",
            &[
                ("a", "mod b; pub struct H;\nfn f() { self::b::g(); }\n"),
                ("a::b", "use super::H;\npub fn g() {}\n"),
            ],
        ),
        (
            "a name bound by use",
            &[
                ("p", "use crate::q;\nfn f() { q::g(); }\npub struct P;\n"),
                ("q", "pub fn g() { let _ = crate::p::P; }\n"),
            ],
        ),
        (
            "a re-export",
            &[
                ("p", "use crate::q::Z;\npub struct P;\n"),
                ("q", "mod inner; pub use inner::Z;\n"),
                ("q::inner", "pub struct Z(crate::p::P);\n"),
            ],
        ),
        (
            "two re-exports",
            &[
                ("p", "fn f() { let _ = crate::q::Z; }\npub struct P;\n"),
                ("q", "pub(crate) use crate::r::Z;\n"),
                ("r", "mod s; pub use self::s::Z;\n"),
                ("r::s", "pub struct Z;\nfn g() { let _ = super::super::p::P; }\n"),
            ],
        ),
    ];
    for (form, files) in cyclic {
        let g = graph_of(&crate_of(files));
        assert!(find_cycle(&g).is_some(), "a cycle through {form} is not seen: {g:?}");
        assert_eq!(cycles(&g).len(), 1, "{form}: {g:?}");
    }
    // `q` re-exports an item of `z`; `p` uses it and `q` uses `p`: no file cycle.
    let acyclic = crate_of(&[
        ("p", "use crate::q::Z;\npub struct P;\n"),
        ("q", "pub use crate::z::Z;\nfn f() { let _ = crate::p::P; }\n"),
        ("z", "pub struct Z;\n"),
        (
            "s",
            "use std::fmt;\nuse flatbuffers::Verifier;\nfn f() -> fmt::Result { Ok(()) }\n",
        ),
        ("t", "mod u;\nfn f() { u::g(); }\n"),
        (
            "t::u",
            "const K: u8 = 1;\nmod inner {\n    use super::{K, g};\n    fn h() -> u8 { if b'{' == 0 { g() } super::K }\n}\npub fn g() {}\n",
        ),
    ]);
    let g = graph_of(&acyclic);
    assert_eq!(find_cycle(&g), None, "{g:?}");
    assert!(cycles(&g).is_empty(), "{g:?}");
    assert!(g["p"].contains("z") && !g["p"].contains("q"), "{g:?}");
    assert!(g["s"].is_empty(), "extern crates are not files: {g:?}");
    assert!(
        g["t::u"].is_empty(),
        "`super::` in an inline module names its own file: {g:?}"
    );
}

// ---------------------------------------------------------------------------
// docs/ARCHITECTURE.md against the tree: its "Layers" table equals `LAYERS`,
// `LAYERS` names exactly the top-level modules, and its "Code map" names every
// folder and file of `src/` and nothing that does not exist.
// ---------------------------------------------------------------------------

/// The rows of the first Markdown table under `## heading`, as cells.
fn table_rows(md: &str, heading: &str) -> Vec<Vec<String>> {
    let start = md
        .find(&format!("\n## {heading}\n"))
        .unwrap_or_else(|| panic!("docs/ARCHITECTURE.md has no heading \"{heading}\""));
    let body = &md[start + heading.len() + 5..];
    let body = &body[..body.find("\n## ").unwrap_or(body.len())];
    body.lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2) // the header and its `|---|` line
        .map(|l| {
            l.trim()
                .trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

/// The `backticked` spans of a cell.
fn ticked(cell: &str) -> impl Iterator<Item = &str> {
    cell.split('`').skip(1).step_by(2)
}

/// `a/{b,c}.rs` → `a/b.rs`, `a/c.rs` (one brace group).
fn brace_expand(path: &str) -> Vec<String> {
    match (path.find('{'), path.find('}')) {
        (Some(open), Some(close)) if open < close => path[open + 1..close]
            .split(',')
            .map(|alt| format!("{}{}{}", &path[..open], alt.trim(), &path[close + 1..]))
            .collect(),
        _ => vec![path.to_string()],
    }
}

/// The layers table as (layer, modules); `main.rs` is the module `main`.
fn doc_layers(md: &str) -> Vec<(usize, BTreeSet<String>)> {
    table_rows(md, "Layers")
        .iter()
        .map(|row| {
            let layer = row[0]
                .parse()
                .unwrap_or_else(|_| panic!("layer {:?} is not a number", row[0]));
            let mods = ticked(&row[1]).map(|m| m.trim_end_matches(".rs").to_string()).collect();
            (layer, mods)
        })
        .collect()
}

/// Where the layers table, `layers` (the `LAYERS` list) and the crate's
/// top-level modules (`tops`, `main` included) disagree, one line each.
fn layer_mismatches(md: &str, layers: &[(usize, &[&str])], tops: &BTreeSet<String>) -> Vec<String> {
    let mut bad = Vec::new();
    let doc: BTreeMap<usize, BTreeSet<String>> = doc_layers(md).into_iter().collect();
    let code: BTreeMap<usize, BTreeSet<String>> = layers
        .iter()
        .map(|(l, names)| (*l, names.iter().map(|s| s.to_string()).collect()))
        .collect();
    for l in doc.keys().chain(code.keys()).collect::<BTreeSet<_>>() {
        let (d, c) = (
            doc.get(l).cloned().unwrap_or_default(),
            code.get(l).cloned().unwrap_or_default(),
        );
        let only_doc: Vec<_> = d.difference(&c).collect();
        let only_code: Vec<_> = c.difference(&d).collect();
        if !only_doc.is_empty() {
            bad.push(format!(
                "layer {l}: docs/ARCHITECTURE.md, \"Layers\" has {only_doc:?}, LAYERS does not"
            ));
        }
        if !only_code.is_empty() {
            bad.push(format!(
                "layer {l}: LAYERS has {only_code:?}, docs/ARCHITECTURE.md, \"Layers\" does not"
            ));
        }
    }
    let listed: BTreeSet<String> = code.values().flatten().cloned().collect();
    let stale: Vec<_> = listed.difference(tops).collect();
    let missing: Vec<_> = tops.difference(&listed).collect();
    if !stale.is_empty() {
        bad.push(format!(
            "LAYERS names {stale:?}, which are not top-level modules of src/"
        ));
    }
    if !missing.is_empty() {
        bad.push(format!("top-level modules {missing:?} are in no layer of LAYERS"));
    }
    bad
}

/// Extensions of the names the code map gives in backticks; a name ending in
/// `/` is a folder.
const NAMED: &[&str] = &[".rs", ".js", ".html", ".css", ".sh", ".py", ".lua", ".toml", "/"];

/// Top folders: a name starting with one of them is a path from the root;
/// any other name is relative to its row's folder.
const ROOTS: &[&str] = &[
    "src/",
    "tests/",
    "benches/",
    "examples/",
    "fuzz/",
    "fixtures/",
    "schemas/",
    "locust/",
    "docs/",
];

/// Every path the code map names, from the root (folders end in `/`): the
/// first cell's paths, and in the second cell each backticked file or folder
/// name, resolved against the row's folder (the row's path if a folder, its
/// parent if a file) unless it starts at a top folder.
fn codemap_names(md: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for row in table_rows(md, "Code map") {
        let paths: Vec<String> = ticked(&row[0]).flat_map(brace_expand).collect();
        let Some(first) = paths.first() else { continue };
        let base = match first.rfind('/') {
            Some(i) if i + 1 == first.len() => first.clone(),
            Some(i) => first[..=i].to_string(),
            None => String::new(),
        };
        out.extend(paths.iter().cloned());
        for name in row.get(1).map(|c| ticked(c).collect::<Vec<_>>()).unwrap_or_default() {
            if name.starts_with('/') // a route, e.g. `/schemas/`
                || name.contains(['<', '*', '…', '$', ' ', ':'])
                || !NAMED.iter().any(|e| name.ends_with(e))
            {
                continue;
            }
            for name in brace_expand(name) {
                let full = if ROOTS.iter().any(|r| name.starts_with(r)) {
                    name
                } else {
                    format!("{base}{name}")
                };
                out.insert(full);
            }
        }
    }
    out
}

/// The folders whose every file and folder the code map must name.
const TREES: &[&str] = &["src/", "benches/", "examples/"];

/// The folders (ending in `/`) and files under `dir`, from the root.
fn src_tree(dir: &Path, rel: &str, out: &mut BTreeSet<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.path().is_dir() {
            let sub = format!("{rel}{name}/");
            out.insert(sub.clone());
            src_tree(&entry.path(), &sub, out);
        } else {
            out.insert(format!("{rel}{name}"));
        }
    }
}

/// (files and folders of `tree` the code map does not name, names in the code
/// map that are not in `tree` or, outside `TREES`, not on disk). A folder's
/// `mod.rs` is named with its folder; a folder named `generated/` names all
/// it holds.
fn codemap_mismatches(
    names: &BTreeSet<String>,
    tree: &BTreeSet<String>,
    exists: &dyn Fn(&str) -> bool,
) -> (Vec<String>, Vec<String>) {
    let covered = |p: &str| {
        if names.contains(p) {
            return true;
        }
        if let Some(dir) = p.strip_suffix("mod.rs") {
            if names.contains(dir) {
                return true;
            }
        }
        let mut at = 0;
        while let Some(i) = p[at..].find("generated/") {
            let dir = &p[..at + i + "generated/".len()];
            if dir != p && names.contains(dir) {
                return true;
            }
            at += i + 1;
        }
        false
    };
    let missing = tree.iter().filter(|p| !covered(p)).cloned().collect();
    let extra = names
        .iter()
        .filter(|n| {
            if TREES.iter().any(|t| n.starts_with(t)) {
                !TREES.contains(&n.as_str()) && !tree.contains(n.as_str())
            } else {
                !exists(n)
            }
        })
        .cloned()
        .collect();
    (missing, extra)
}

fn architecture_problems(
    md: &str,
    layers: &[(usize, &[&str])],
    tops: &BTreeSet<String>,
    tree: &BTreeSet<String>,
    exists: &dyn Fn(&str) -> bool,
) -> Vec<String> {
    let mut bad = layer_mismatches(md, layers, tops);
    let (missing, extra) = codemap_mismatches(&codemap_names(md), tree, exists);
    if !missing.is_empty() {
        bad.push(format!(
            "docs/ARCHITECTURE.md, \"Code map\" does not name:\n  {}",
            missing.join("\n  ")
        ));
    }
    if !extra.is_empty() {
        bad.push(format!(
            "docs/ARCHITECTURE.md, \"Code map\" names what does not exist:\n  {}",
            extra.join("\n  ")
        ));
    }
    bad
}

/// `pub mod` names of `src/lib.rs`, and `main`.
fn top_modules() -> BTreeSet<String> {
    let lib = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs")).unwrap();
    let mut tops: BTreeSet<String> = lib
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub mod ")?.strip_suffix(';').map(str::to_string))
        .collect();
    tops.insert("main".to_string());
    tops
}

#[test]
fn architecture_md_names_the_tree_and_its_layers() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let md = std::fs::read_to_string(root.join("docs/ARCHITECTURE.md")).unwrap();
    let mut tree = BTreeSet::new();
    for dir in TREES {
        src_tree(&root.join(dir), dir, &mut tree);
    }
    assert!(tree.contains("src/codec/mod.rs") && tree.len() > 100, "{tree:?}");
    let bad = architecture_problems(&md, LAYERS, &top_modules(), &tree, &|p| root.join(p).exists());
    assert!(
        bad.is_empty(),
        "docs/ARCHITECTURE.md or LAYERS is stale:\n{}",
        bad.join("\n")
    );
}

/// The check fails on a doctored copy: a stale layer name, a module missing
/// from a layer, an unnamed file, a named file that does not exist.
#[test]
fn architecture_check_can_fail() {
    let md = "# A\n\n## Layers\n\n| layer | modules | may use |\n|---|---|---|\n| 0 | `model`, `decode` | std |\n| 1 | `main.rs` | all |\n\n\
              ## Code map\n\n| path | what |\n|---|---|\n| `src/model.rs` | model |\n| `src/codec/` | `{view,gone}.rs`, `json/`; `json/lexer.rs` |\n| `src/{a,b}.rs` | two |\n| `tests/` | `nope.rs`, `src/x/` |\n";
    let layers: &[(usize, &[&str])] = &[(0, &["model", "codec"]), (1, &["main"])];
    let tops: BTreeSet<String> = ["model", "main"].iter().map(|s| s.to_string()).collect();
    let tree: BTreeSet<String> = [
        "benches/peers.rs",
        "src/model.rs",
        "src/codec/",
        "src/codec/mod.rs",
        "src/codec/view.rs",
        "src/codec/json/",
        "src/codec/json/mod.rs",
        "src/codec/json/lexer.rs",
        "src/codec/json/write.rs",
        "src/a.rs",
        "src/b.rs",
        "src/gen/",
        "src/gen/generated/",
        "src/gen/generated/x.rs",
        "src/gen/generated/mod.rs",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let md = md.to_string() + "| `src/gen/` | `generated/` |\n";
    let bad = architecture_problems(&md, layers, &tops, &tree, &|p| p == "tests/");
    assert_eq!(
        bad,
        [
            "layer 0: docs/ARCHITECTURE.md, \"Layers\" has [\"decode\"], LAYERS does not",
            "layer 0: LAYERS has [\"codec\"], docs/ARCHITECTURE.md, \"Layers\" does not",
            "LAYERS names [\"codec\"], which are not top-level modules of src/",
            "docs/ARCHITECTURE.md, \"Code map\" does not name:\n  benches/peers.rs\n  src/codec/json/write.rs",
            "docs/ARCHITECTURE.md, \"Code map\" names what does not exist:\n  src/codec/gone.rs\n  src/x/\n  tests/nope.rs",
        ]
    );
    let fixed = md
        .replace("`decode`", "`codec`")
        .replace("`{view,gone}.rs`", "`view.rs`, `json/write.rs`")
        .replace("`nope.rs`, `src/x/`", "tests")
        + "| `benches/` | `peers.rs` |\n";
    let tops: BTreeSet<String> = ["model", "main", "codec"].iter().map(|s| s.to_string()).collect();
    assert!(architecture_problems(&fixed, layers, &tops, &tree, &|p| p == "tests/").is_empty());
}

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

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Top-level modules by layer: a module may import only modules of a lower
/// layer. Modules of one layer never import each other.
const LAYERS: &[(usize, &[&str])] = &[
    (0, &["prng", "crc32", "sha256", "cli", "model", "measure"]),
    (1, &["codec", "gzip"]),
    (2, &["fixtures", "generic"]),
    (3, &["explain"]),
    (4, &["payload"]),
    (5, &["http"]),
    (6, &["bench", "load", "evolve", "decode", "digests"]),
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
    assert!(g["report::data"].contains("measure::stats"), "{:?}", g["report::data"]);
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

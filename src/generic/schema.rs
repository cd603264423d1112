//! Avro schemas: `.avsc` JSON text parsed into an arena of [`Node`]s.
//!
//! Follows the Avro specification's "Schema Declaration" section (primitive
//! and complex types, "Names", "Aliases") and the field-default table under
//! "Complex Types" → "Records". Named types may be referenced by name after
//! their definition, recursion included, so types live in an arena and refer
//! to each other by [`NodeId`]. Field defaults are converted to [`Datum`]s of
//! the field's type when the schema is parsed, so a bad default is a schema
//! error, not a surprise at read time.
//!
//! The text is parsed with the project's own JSON reader
//! ([`crate::generic::value::json`]), which bounds nesting; every error names
//! the place in the schema (`Catalog.products.stock`).

use super::datum::{Datum, FieldNames, Name};
use super::value::json::{self as value, JsonValue, Number};
use crate::codec::msgpack::write::{Header, str_header};
use std::collections::HashMap;
use std::fmt;

/// Index of a type in [`Schema`]'s arena.
pub type NodeId = usize;

/// Most types one schema may define (a hostile schema stays small).
pub const MAX_NODES: usize = 100_000;
/// Deepest a default value may nest (also stops self-referential defaults).
const MAX_DEFAULT_DEPTH: usize = 64;
/// Most datum values all defaults together may expand to (a record default
/// falls back to its fields' defaults, which can fan out).
const MAX_DEFAULT_WORK: usize = 1_000_000;

/// A parsed schema: an arena of types and the root.
#[derive(Clone, Debug)]
pub struct Schema {
    nodes: Vec<Node>,
    root: NodeId,
    /// [`Schema::min_sizes`], found once when the schema is parsed.
    min: Vec<u64>,
    /// [`Schema::null_branch`] of each type (`u32::MAX`: none).
    nulls: Vec<u32>,
    /// [`Schema::proto_width`] of each type.
    proto_widths: Vec<u32>,
    /// [`Schema::fbs_width`] of each type.
    fbs_widths: Vec<u16>,
    /// [`Schema::kinds`]: each type's [`Kind`].
    kinds: Vec<Kind>,
}

/// Declares [`Node`] and [`Kind`], its variants alone, from one list.
macro_rules! nodes {
    ($($variant:ident $(($inner:ty))?,)*) => {
        /// One type.
        #[derive(Clone, Debug)]
        pub enum Node {
            $($variant $(($inner))?,)*
        }

        /// A [`Node`]'s variant alone, one byte: what a decoder's dispatch on
        /// a type reads ([`Schema::kinds`]) in place of the node, whose variant
        /// is stored in the niche of a field and takes a few steps to decode.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[repr(u8)]
        pub enum Kind {
            $($variant,)*
        }

        impl Kind {
            /// Whether this is one of the eight [`PRIMITIVES`].
            pub fn is_primitive(self) -> bool {
                (self as usize) < PRIMITIVES.len()
            }

            /// The variant of `node`.
            pub fn of(node: &Node) -> Kind {
                match node {
                    $(Node::$variant { .. } => Kind::$variant,)*
                }
            }
        }
    };
}

nodes! {
    Null, Boolean, Int, Long, Float, Double, Bytes, String,
    Array(NodeId), Map(NodeId), Union(Vec<NodeId>), Record(Record), Enum(EnumType), Fixed(FixedType),
}

/// The name of a named type: its fullname and its aliases (fullnames too).
#[derive(Clone, Debug)]
pub struct Named {
    pub fullname: String,
    pub aliases: Vec<String>,
}

impl Named {
    /// The name without its namespace.
    pub fn short(&self) -> &str {
        unqualified(&self.fullname)
    }
}

/// The part of a fullname after its last dot.
pub fn unqualified(fullname: &str) -> &str {
    fullname.rsplit('.').next().unwrap_or(fullname)
}

#[derive(Clone, Debug)]
pub struct Record {
    pub name: Named,
    pub fields: Vec<Field>,
    /// The fields' names in order, the one copy every decoded record of
    /// this type shares ([`super::datum::Fields`]).
    pub names: FieldNames,
}

#[derive(Clone, Debug)]
pub struct Field {
    pub name: Name,
    pub aliases: Vec<String>,
    pub ty: NodeId,
    /// The default converted to the field's type; `None` without one.
    pub default: Option<Datum>,
    /// The key that spells this field in JSON and MessagePack when it is not
    /// [`Field::name`]: the `"wirebench.key"` attribute, which `schema infer`
    /// writes for a key renamed to a valid name (docs/DATA.md).
    pub key: Option<String>,
    /// [`Field::key`] as a MessagePack str (its marker and length, then the
    /// bytes), spelled once when the schema is parsed so that an encoder
    /// writes a record's key with one copy.
    pub msgpack_key: Box<[u8]>,
    /// [`Field::key`] as a JSON member prefix: a comma, the key as a JSON
    /// string (escaped as `crate::codec::json::write_str` escapes it) and
    /// the colon, `,"key":`. The first member of an object is the bytes
    /// after the comma; the encoder writes either with one copy.
    pub json_key: Box<[u8]>,
}

/// `key` as a JSON member prefix `,"key":` (see [`Field::json_key`]).
fn json_member(key: &str) -> Box<[u8]> {
    let mut b = vec![b','];
    crate::codec::json::write_str(&mut b, key);
    b.push(b':');
    b.into_boxed_slice()
}

/// `key` as a MessagePack str: the header of [`str_header`], then the bytes.
/// Empty for a key no str can hold (longer than `u32::MAX` bytes), which an
/// encoder spells (and refuses) itself.
fn msgpack_str(key: &str) -> Box<[u8]> {
    match str_header(key.len()) {
        Ok(Header(h, n)) => {
            let mut b = h.to_le_bytes()[..n].to_vec();
            b.extend_from_slice(key.as_bytes());
            b.into_boxed_slice()
        }
        Err(_) => Box::default(),
    }
}

impl Field {
    /// The member key of this field in JSON and MessagePack.
    pub fn key(&self) -> &str {
        self.key.as_deref().unwrap_or(&self.name)
    }
}

#[derive(Clone, Debug)]
pub struct EnumType {
    pub name: Named,
    pub symbols: Vec<Name>,
    /// Each symbol in ASCII lowercase: the spelling JSON documents often
    /// use (the catalog's `"active"`), shared by the datums read from them.
    pub lowercase: Vec<Name>,
    /// Index of the default symbol ("Enums": used by schema resolution).
    pub default: Option<u32>,
}

impl EnumType {
    /// Symbol `i` as `read` spells it (a text format matches symbols
    /// ignoring ASCII case): the schema's own name when the spelling is the
    /// symbol's or its lowercase, so the datum allocates nothing.
    pub fn spelled(&self, i: u32, read: &str) -> Name {
        let i = i as usize;
        match (self.symbols.get(i), self.lowercase.get(i)) {
            (Some(s), _) if **s == *read => s.clone(),
            (_, Some(l)) if **l == *read => l.clone(),
            _ => read.into(),
        }
    }
}

#[derive(Clone, Debug)]
pub struct FixedType {
    pub name: Named,
    pub size: usize,
}

/// Fewest bytes a value of each type takes in Avro binary: a lower bound,
/// found by iterating from 0 (so a recursive record that never ends stays
/// finite, and the work is bounded by passes × schema size, whatever the
/// schema).
fn min_sizes(nodes: &[Node]) -> Vec<u64> {
    let n = nodes.len();
    let mut m = vec![0u64; n];
    for _ in 0..MIN_SIZE_PASSES {
        let mut changed = false;
        for id in 0..n {
            let v = match &nodes[id] {
                Node::Null => 0,
                Node::Float => 4,
                Node::Double => 8,
                Node::Fixed(f) => f.size as u64,
                Node::Record(r) => r.fields.iter().map(|f| m[f.ty]).fold(0u64, u64::saturating_add),
                _ => 1,
            };
            if v != m[id] {
                m[id] = v;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    m
}

/// Passes of [`min_sizes`]: enough for any schema nested this deep.
const MIN_SIZE_PASSES: usize = 64;

/// A refusal and where it was made: a place in a schema
/// ([`SchemaError`], e.g. `Catalog.products.stock`)
/// or a byte offset ([`ResolveError`](super::resolve::ResolveError)).
#[derive(Clone, Debug, PartialEq)]
pub struct Refusal<At> {
    pub at: At,
    pub message: String,
}

impl<At> Refusal<At> {
    #[cold]
    pub fn new(at: At, message: impl Into<String>) -> Refusal<At> {
        let message = message.into();
        Refusal { at, message }
    }
}

impl fmt::Display for Refusal<String> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "schema error at {}: {}", self.at, self.message)
    }
}

impl fmt::Display for Refusal<usize> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at byte {})", self.message, self.at)
    }
}

impl<At: fmt::Debug> std::error::Error for Refusal<At> where Refusal<At>: fmt::Display {}

/// A schema that cannot be parsed: the place in the schema, e.g.
/// `Catalog.products.stock`, or `(JSON)`, and why.
pub type SchemaError = Refusal<String>;

impl Schema {
    /// A test's schema text, which must parse.
    #[cfg(test)]
    pub(crate) fn of(text: &str) -> Schema {
        Schema::parse(text.as_bytes()).unwrap_or_else(|e| panic!("{e}\n{text}"))
    }

    /// Parses `.avsc` text.
    ///
    /// ```
    /// let s = wirebench::generic::schema::Schema::parse(br#"{"type":"array","items":"long"}"#).unwrap();
    /// assert_eq!(s.describe(s.root()), "array<long>");
    /// ```
    pub fn parse(text: &[u8]) -> Result<Schema, SchemaError> {
        let json = value::parse(text).map_err(|e| SchemaError::new("(JSON)".into(), e.to_string()))?;
        let mut p = Parser {
            nodes: Vec::new(),
            names: HashMap::new(),
            pending: Defaults::new(),
        };
        let root = p.parse_type(&json, "", "")?;
        // Defaults are converted once every named type is complete.
        let pending = std::mem::take(&mut p.pending);
        let mut converted = Vec::with_capacity(pending.len());
        let mut work = 0usize;
        for ((node, index), (json, path)) in &pending {
            let ty = match &p.nodes[*node] {
                Node::Record(r) => r.fields[*index].ty,
                _ => return Err(err(path, "a default outside a record field")),
            };
            let d = default_datum(&p.nodes, &pending, ty, json, path, 0, &mut work)?;
            converted.push((*node, *index, d));
        }
        for (node, index, d) in converted {
            if let Node::Record(r) = &mut p.nodes[node] {
                r.fields[index].default = Some(d);
            }
        }
        let min = min_sizes(&p.nodes);
        let nulls = p
            .nodes
            .iter()
            .map(|n| match n {
                Node::Union(branches) => branches
                    .iter()
                    .position(|&b| matches!(p.nodes[b], Node::Null))
                    .map_or(u32::MAX, |i| i as u32),
                _ => u32::MAX,
            })
            .collect::<Vec<u32>>();
        // A union other than `["null", T]` with `k` branches besides null is
        // a `oneof` of `k` members (at least one number) and a FlatBuffers
        // union (two slots, when it has a member); any other type takes one.
        let members = |id: NodeId| match &p.nodes[id] {
            Node::Union(b) if !(b.len() == 2 && nulls[id] != u32::MAX) => {
                Some(b.len() - usize::from(nulls[id] != u32::MAX))
            }
            _ => None,
        };
        let proto_widths = (0..p.nodes.len())
            .map(|id| members(id).map_or(1, |k| k.max(1) as u32))
            .collect();
        let fbs_widths = (0..p.nodes.len())
            .map(|id| if members(id).is_some_and(|k| k > 0) { 2 } else { 1 })
            .collect();
        let kinds = p.nodes.iter().map(Kind::of).collect();
        Ok(Schema {
            nodes: p.nodes,
            root,
            min,
            nulls,
            proto_widths,
            fbs_widths,
            kinds,
        })
    }

    /// Each type's [`Kind`], by [`NodeId`] (found once when the schema is
    /// parsed).
    pub fn kinds(&self) -> &[Kind] {
        &self.kinds
    }

    /// Protobuf field numbers a field of type `id` takes (a `oneof`: one
    /// per non-null branch, at least one); found once when the schema is
    /// parsed, the rule of [`super::derive`]'s field numbering.
    #[inline]
    pub fn proto_width(&self, id: NodeId) -> u32 {
        self.proto_widths[id]
    }

    /// FlatBuffers vtable slots a field of type `id` takes (a union with a
    /// member: two, its `_type` and its value); found once when the schema
    /// is parsed.
    #[inline]
    pub fn fbs_width(&self, id: NodeId) -> u16 {
        self.fbs_widths[id]
    }

    /// The index of the `null` branch of the union `id`, if it is a union
    /// with one (found once when the schema is parsed).
    #[inline]
    pub fn null_branch(&self, id: NodeId) -> Option<u32> {
        match self.nulls[id] {
            u32::MAX => None,
            i => Some(i),
        }
    }

    /// Fewest bytes an Avro binary value of each type takes, by [`NodeId`]:
    /// a lower bound, what a decoder checks a count against before
    /// reserving for it.
    pub fn min_sizes(&self) -> &[u64] {
        &self.min
    }

    pub fn root(&self) -> NodeId {
        self.root
    }

    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id]
    }

    /// How many types the arena holds (every [`NodeId`] is below this).
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Never true: a parsed schema has at least its root.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The root's name for paths: a named type's short name, else `$`.
    pub fn root_name(&self) -> String {
        self.name_of(self.root)
            .map_or_else(|| "$".to_string(), |n| n.short().to_string())
    }

    /// The name of a named type.
    pub fn name_of(&self, id: NodeId) -> Option<&Named> {
        match &self.nodes[id] {
            Node::Record(r) => Some(&r.name),
            Node::Enum(e) => Some(&e.name),
            Node::Fixed(f) => Some(&f.name),
            _ => None,
        }
    }

    /// A short human description: `int`, `array<string>`, `record wirebench.Product`, `union[null,int]`.
    pub fn describe(&self, id: NodeId) -> String {
        self.describe_depth(id, 0)
    }

    fn describe_depth(&self, id: NodeId, depth: usize) -> String {
        if depth > 8 {
            return "…".to_string();
        }
        if let Some(name) = PRIMITIVES.get(self.kinds[id] as usize) {
            return name.to_string();
        }
        match &self.nodes[id] {
            Node::Array(i) => format!("array<{}>", self.describe_depth(*i, depth + 1)),
            Node::Map(v) => format!("map<{}>", self.describe_depth(*v, depth + 1)),
            Node::Union(b) => {
                let parts: Vec<String> = b.iter().map(|&x| self.describe_depth(x, depth + 1)).collect();
                format!("union[{}]", parts.join(","))
            }
            Node::Record(r) => format!("record {}", r.name.fullname),
            Node::Enum(e) => format!("enum {}", e.name.fullname),
            Node::Fixed(f) => format!("fixed {}({})", f.name.fullname, f.size),
            _ => unreachable!("primitives are named above"),
        }
    }
}

type Defaults = std::collections::BTreeMap<(NodeId, usize), (JsonValue, String)>;

struct Parser {
    nodes: Vec<Node>,
    names: HashMap<String, NodeId>,
    /// (record node, field index) → (default JSON, path), converted at the end.
    pending: Defaults,
}

fn err(path: &str, message: impl Into<String>) -> SchemaError {
    SchemaError::new(if path.is_empty() { "$" } else { path }.to_string(), message)
}

/// "Names": `[A-Za-z_][A-Za-z0-9_]*`.
pub(crate) fn valid_name(s: &str) -> bool {
    let mut b = s.bytes();
    matches!(b.next(), Some(c) if c.is_ascii_alphabetic() || c == b'_')
        && b.all(|c| c.is_ascii_alphanumeric() || c == b'_')
}

/// The primitive types' names, in [`Kind`] order (the first eight kinds).
pub(crate) const PRIMITIVES: [&str; 8] = ["null", "boolean", "int", "long", "float", "double", "bytes", "string"];

fn primitive(name: &str) -> Option<Node> {
    Some(match name {
        "null" => Node::Null,
        "boolean" => Node::Boolean,
        "int" => Node::Int,
        "long" => Node::Long,
        "float" => Node::Float,
        "double" => Node::Double,
        "bytes" => Node::Bytes,
        "string" => Node::String,
        _ => return None,
    })
}

fn join(path: &str, part: &str) -> String {
    if path.is_empty() {
        part.to_string()
    } else {
        format!("{path}.{part}")
    }
}

impl Parser {
    fn push(&mut self, node: Node, path: &str) -> Result<NodeId, SchemaError> {
        if self.nodes.len() >= MAX_NODES {
            return Err(err(path, format!("more than {MAX_NODES} types")));
        }
        self.nodes.push(node);
        Ok(self.nodes.len() - 1)
    }

    /// "Names": a name with a dot is a fullname; otherwise the namespace is
    /// the `namespace` attribute, else the enclosing one.
    fn fullname(
        &self,
        name: &str,
        namespace: Option<&str>,
        enclosing: &str,
        path: &str,
    ) -> Result<String, SchemaError> {
        let full = if name.contains('.') {
            name.to_string()
        } else {
            match namespace.unwrap_or(enclosing) {
                "" => name.to_string(),
                ns => format!("{ns}.{name}"),
            }
        };
        if !full.split('.').all(valid_name) {
            return Err(err(
                path,
                format!("{full:?} is not a valid name (\"Names\": [A-Za-z_][A-Za-z0-9_]* separated by dots)"),
            ));
        }
        if primitive(unqualified(&full)).is_some() && !full.contains('.') {
            return Err(err(
                path,
                format!("{full:?} is a primitive type name and cannot name a type"),
            ));
        }
        Ok(full)
    }

    fn named(&mut self, obj: &JsonValue, enclosing: &str, path: &str) -> Result<(Named, String), SchemaError> {
        let name = obj
            .get("name")
            .and_then(JsonValue::as_str)
            .ok_or_else(|| err(path, "a named type needs a string \"name\""))?;
        let namespace = match obj.get("namespace") {
            None | Some(JsonValue::Null) => None,
            Some(JsonValue::String(s)) => Some(s.as_str()),
            Some(other) => {
                return Err(err(
                    path,
                    format!("\"namespace\" must be a string, found {}", other.kind()),
                ));
            }
        };
        let fullname = self.fullname(name, namespace, enclosing, path)?;
        let ns = match fullname.rfind('.') {
            Some(i) => fullname[..i].to_string(),
            None => String::new(),
        };
        let aliases = self.aliases(obj, &ns, path)?;
        if self.names.contains_key(&fullname) {
            return Err(err(path, format!("type {fullname} is defined twice")));
        }
        Ok((Named { fullname, aliases }, ns))
    }

    fn aliases(&self, obj: &JsonValue, ns: &str, path: &str) -> Result<Vec<String>, SchemaError> {
        match obj.get("aliases") {
            None => Ok(Vec::new()),
            Some(JsonValue::Array(items)) => items
                .iter()
                .map(|a| match a.as_str() {
                    Some(s) => self.fullname(s, None, ns, path),
                    None => Err(err(path, "\"aliases\" must be an array of strings")),
                })
                .collect(),
            Some(_) => Err(err(path, "\"aliases\" must be an array of strings")),
        }
    }

    fn parse_type(&mut self, json: &JsonValue, ns: &str, path: &str) -> Result<NodeId, SchemaError> {
        match json {
            JsonValue::String(name) => self.reference(name, ns, path),
            JsonValue::Array(branches) => self.union(branches, ns, path),
            JsonValue::Object(_) => self.complex(json, ns, path),
            other => Err(err(
                path,
                format!("a type must be a string, an object or an array, found {}", other.kind()),
            )),
        }
    }

    fn reference(&mut self, name: &str, ns: &str, path: &str) -> Result<NodeId, SchemaError> {
        if let Some(p) = primitive(name) {
            return self.push(p, path);
        }
        let candidates = if name.contains('.') || ns.is_empty() {
            vec![name.to_string()]
        } else {
            vec![format!("{ns}.{name}"), name.to_string()]
        };
        candidates
            .iter()
            .find_map(|c| self.names.get(c).copied())
            .ok_or_else(|| {
                err(
                    path,
                    format!("unknown type {name:?} (a named type must be defined before it is used)"),
                )
            })
    }

    fn union(&mut self, branches: &[JsonValue], ns: &str, path: &str) -> Result<NodeId, SchemaError> {
        let mut ids = Vec::with_capacity(branches.len());
        let mut seen: Vec<String> = Vec::new();
        for (i, b) in branches.iter().enumerate() {
            let bpath = format!("{}[{i}]", if path.is_empty() { "$" } else { path });
            let id = self.parse_type(b, ns, &bpath)?;
            // "Unions": no nested unions, no two branches of the same type
            // (named types count by fullname).
            let key = match &self.nodes[id] {
                Node::Union(_) => return Err(err(&bpath, "a union may not directly contain another union")),
                Node::Record(r) => r.name.fullname.clone(),
                Node::Enum(e) => e.name.fullname.clone(),
                Node::Fixed(f) => f.name.fullname.clone(),
                Node::Array(_) => "array".into(),
                Node::Map(_) => "map".into(),
                other => format!("{other:?}"),
            };
            if seen.contains(&key) {
                return Err(err(&bpath, format!("the union holds {key} twice")));
            }
            seen.push(key);
            ids.push(id);
        }
        self.push(Node::Union(ids), path)
    }

    fn complex(&mut self, obj: &JsonValue, ns: &str, path: &str) -> Result<NodeId, SchemaError> {
        let ty = match obj.get("type") {
            Some(JsonValue::String(t)) => t.as_str(),
            // `{"type": {...}}` / `{"type": [...]}`: the inner type itself.
            Some(inner @ (JsonValue::Object(_) | JsonValue::Array(_))) => return self.parse_type(inner, ns, path),
            Some(other) => return Err(err(path, format!("\"type\" must be a string, found {}", other.kind()))),
            None => return Err(err(path, "an object type needs a \"type\"")),
        };
        match ty {
            "record" | "error" => self.record(obj, ns, path),
            "enum" => self.enumeration(obj, ns, path),
            "fixed" => {
                let (name, _) = self.named(obj, ns, path)?;
                let size = match obj.get("size") {
                    Some(JsonValue::Number(Number::Int(n))) if *n >= 0 => *n as usize,
                    _ => return Err(err(path, "\"size\" must be a non-negative integer")),
                };
                let full = name.fullname.clone();
                let id = self.push(Node::Fixed(FixedType { name, size }), path)?;
                self.names.insert(full, id);
                Ok(id)
            }
            "array" => {
                let items = obj.get("items").ok_or_else(|| err(path, "an array needs \"items\""))?;
                let id = self.parse_type(items, ns, &format!("{}[]", if path.is_empty() { "$" } else { path }))?;
                self.push(Node::Array(id), path)
            }
            "map" => {
                let values = obj.get("values").ok_or_else(|| err(path, "a map needs \"values\""))?;
                let id = self.parse_type(values, ns, &format!("{}{{}}", if path.is_empty() { "$" } else { path }))?;
                self.push(Node::Map(id), path)
            }
            // Any other attributes (logicalType, doc, ...) are metadata.
            other => self.reference(other, ns, path),
        }
    }

    fn record(&mut self, obj: &JsonValue, ns: &str, path: &str) -> Result<NodeId, SchemaError> {
        let (name, inner_ns) = self.named(obj, ns, path)?;
        let path = if path.is_empty() {
            name.short().to_string()
        } else {
            path.to_string()
        };
        let Some(JsonValue::Array(fields_json)) = obj.get("fields") else {
            return Err(err(&path, "a record needs a \"fields\" array"));
        };
        // Registered before the fields so they may refer to the record itself.
        let full = name.fullname.clone();
        let id = self.push(
            Node::Record(Record {
                name,
                fields: Vec::new(),
                names: FieldNames::default(),
            }),
            &path,
        )?;
        self.names.insert(full, id);
        let mut fields: Vec<Field> = Vec::with_capacity(fields_json.len());
        for f in fields_json {
            let fname = f
                .get("name")
                .and_then(JsonValue::as_str)
                .ok_or_else(|| err(&path, "every field needs a string \"name\""))?;
            let fpath = join(&path, fname);
            if !valid_name(fname) {
                return Err(err(&fpath, format!("{fname:?} is not a valid field name")));
            }
            if fields.iter().any(|x| &*x.name == fname) {
                return Err(err(&fpath, "the record has two fields of this name"));
            }
            let ty_json = f.get("type").ok_or_else(|| err(&fpath, "a field needs a \"type\""))?;
            let ty = self.parse_type(ty_json, &inner_ns, &fpath)?;
            let aliases = match f.get("aliases") {
                None => Vec::new(),
                Some(JsonValue::Array(a)) => a
                    .iter()
                    .map(|x| {
                        x.as_str()
                            .map(str::to_string)
                            .ok_or_else(|| err(&fpath, "\"aliases\" must be strings"))
                    })
                    .collect::<Result<_, _>>()?,
                Some(_) => return Err(err(&fpath, "\"aliases\" must be an array of strings")),
            };
            if let Some(d) = f.get("default") {
                self.pending.insert((id, fields.len()), (d.clone(), fpath.clone()));
            }
            let key = match f.get("wirebench.key") {
                None => None,
                Some(JsonValue::String(k)) => Some(k.clone()),
                Some(_) => return Err(err(&fpath, "\"wirebench.key\" must be a string")),
            };
            if let Some(k) = &key
                && fields.iter().any(|x| x.key() == k)
            {
                return Err(err(&fpath, format!("two fields have the JSON key {k:?}")));
            }
            let msgpack_key = msgpack_str(key.as_deref().unwrap_or(fname));
            let json_key = json_member(key.as_deref().unwrap_or(fname));
            fields.push(Field {
                name: fname.into(),
                aliases,
                ty,
                default: None,
                key,
                msgpack_key,
                json_key,
            });
        }
        if let Node::Record(r) = &mut self.nodes[id] {
            r.names = std::sync::Arc::new(fields.iter().map(|f| f.name.clone()).collect());
            r.fields = fields;
        }
        Ok(id)
    }

    fn enumeration(&mut self, obj: &JsonValue, ns: &str, path: &str) -> Result<NodeId, SchemaError> {
        let (name, _) = self.named(obj, ns, path)?;
        let Some(JsonValue::Array(syms)) = obj.get("symbols") else {
            return Err(err(path, "an enum needs a \"symbols\" array"));
        };
        let mut symbols: Vec<Name> = Vec::with_capacity(syms.len());
        for s in syms {
            let s = s.as_str().ok_or_else(|| err(path, "enum symbols must be strings"))?;
            if !valid_name(s) {
                return Err(err(path, format!("enum symbol {s:?} is not a valid name")));
            }
            if symbols.iter().any(|x| &**x == s) {
                return Err(err(path, format!("enum symbol {s:?} appears twice")));
            }
            symbols.push(s.into());
        }
        let default = match obj.get("default") {
            None => None,
            Some(JsonValue::String(d)) => Some(
                symbols
                    .iter()
                    .position(|s| **s == **d)
                    .ok_or_else(|| err(path, format!("enum default {d:?} is not one of its symbols")))?
                    as u32,
            ),
            Some(other) => {
                return Err(err(
                    path,
                    format!("enum default must be a string, found {}", other.kind()),
                ));
            }
        };
        let full = name.fullname.clone();
        let lowercase = symbols.iter().map(|s| Name::from(s.to_ascii_lowercase())).collect();
        let id = self.push(
            Node::Enum(EnumType {
                name,
                symbols,
                lowercase,
                default,
            }),
            path,
        )?;
        self.names.insert(full, id);
        Ok(id)
    }
}

/// Converts a field's JSON default to a datum of type `ty`, by the table in
/// "Complex Types" → "Records": a union's default belongs to its first
/// branch; `bytes` and `fixed` defaults are strings of code points 0–255.
#[allow(clippy::too_many_arguments)]
fn default_datum(
    nodes: &[Node],
    pending: &Defaults,
    ty: NodeId,
    json: &JsonValue,
    path: &str,
    depth: usize,
    work: &mut usize,
) -> Result<Datum, SchemaError> {
    *work += 1;
    if *work > MAX_DEFAULT_WORK {
        return Err(err(
            path,
            format!("defaults expand to more than {MAX_DEFAULT_WORK} values"),
        ));
    }
    if depth > MAX_DEFAULT_DEPTH {
        return Err(err(
            path,
            format!("default nests deeper than {MAX_DEFAULT_DEPTH} levels"),
        ));
    }
    let bad = || {
        err(
            path,
            format!("default {} does not fit the field's type", json_brief(json)),
        )
    };
    let bytes = |s: &str| -> Result<Vec<u8>, SchemaError> {
        s.chars()
            .map(|c| {
                u8::try_from(u32::from(c)).map_err(|_| {
                    err(
                        path,
                        format!("bytes default has code point U+{:04X} above 255", u32::from(c)),
                    )
                })
            })
            .collect()
    };
    Ok(match (&nodes[ty], json) {
        (Node::Null, JsonValue::Null) => Datum::Null,
        (Node::Boolean, JsonValue::Bool(b)) => Datum::Boolean(*b),
        (Node::Int, JsonValue::Number(Number::Int(i))) => Datum::Int(i32::try_from(*i).map_err(|_| bad())?),
        (Node::Long, JsonValue::Number(Number::Int(i))) => Datum::Long(*i),
        (Node::Float, JsonValue::Number(n)) => Datum::Float(n.as_f64() as f32),
        (Node::Double, JsonValue::Number(n)) => Datum::Double(n.as_f64()),
        (Node::Bytes, JsonValue::String(s)) => Datum::Bytes(bytes(s)?),
        (Node::String, JsonValue::String(s)) => Datum::String(s.clone()),
        (Node::Fixed(f), JsonValue::String(s)) => {
            let b = bytes(s)?;
            if b.len() != f.size {
                return Err(err(
                    path,
                    format!("fixed default has {} bytes, the type {}", b.len(), f.size),
                ));
            }
            Datum::Fixed(b)
        }
        (Node::Enum(e), JsonValue::String(s)) => match e.symbols.iter().position(|x| **x == **s) {
            Some(i) => Datum::Enum(i as u32, e.symbols[i].clone()),
            None => {
                return Err(err(
                    path,
                    format!("default {s:?} is not a symbol of {}", e.name.fullname),
                ));
            }
        },
        (Node::Union(branches), _) => match branches.first() {
            Some(&first) => Datum::Union(
                0,
                Box::new(default_datum(nodes, pending, first, json, path, depth + 1, work)?),
            ),
            None => return Err(bad()),
        },
        (Node::Array(items), JsonValue::Array(values)) => Datum::Array(
            values
                .iter()
                .map(|v| default_datum(nodes, pending, *items, v, path, depth + 1, work))
                .collect::<Result<_, _>>()?,
        ),
        (Node::Map(vt), JsonValue::Object(members)) => Datum::Map(
            members
                .iter()
                .map(|(k, v)| Ok((k.clone(), default_datum(nodes, pending, *vt, v, path, depth + 1, work)?)))
                .collect::<Result<_, SchemaError>>()?,
        ),
        (Node::Record(r), JsonValue::Object(members)) => {
            let mut out = Vec::with_capacity(r.fields.len());
            for (i, f) in r.fields.iter().enumerate() {
                let fpath = join(path, &f.name);
                let v = match members.iter().find(|(k, _)| **k == *f.name) {
                    Some((_, v)) => default_datum(nodes, pending, f.ty, v, &fpath, depth + 1, work)?,
                    None => match pending.get(&(ty, i)) {
                        Some((d, own)) => default_datum(nodes, pending, f.ty, d, own, depth + 1, work)?,
                        None => {
                            return Err(err(
                                &fpath,
                                "the record default has no value for this field, and the field has no default",
                            ));
                        }
                    },
                };
                out.push((f.name.clone(), v));
            }
            Datum::Record(out.into())
        }
        _ => return Err(bad()),
    })
}

fn json_brief(j: &JsonValue) -> String {
    match j {
        JsonValue::Null => "null".into(),
        JsonValue::Bool(b) => b.to_string(),
        JsonValue::Number(Number::Int(i)) => i.to_string(),
        JsonValue::Number(Number::Float(f)) => f.to_string(),
        JsonValue::String(s) if s.len() <= 40 => format!("{s:?}"),
        other => other.kind().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Schema, SchemaError> {
        Schema::parse(s.as_bytes())
    }

    #[test]
    fn parses_the_catalog_schema() {
        let s = parse(crate::codec::avro::SCHEMA).unwrap();
        let Node::Record(cat) = s.node(s.root()) else { panic!() };
        assert_eq!(cat.name.fullname, "wirebench.Catalog");
        let Node::Array(items) = s.node(cat.fields[0].ty) else {
            panic!()
        };
        let Node::Record(p) = s.node(*items) else { panic!() };
        assert_eq!(p.name.fullname, "wirebench.Product");
        assert_eq!(p.fields.len(), 17);
        assert_eq!(p.fields[14].default, Some(Datum::Union(0, Box::new(Datum::Null))));
    }

    #[test]
    fn names_namespaces_references_and_recursion() {
        let s = parse(
            r#"{"type":"record","name":"List","namespace":"a.b","fields":[
                {"name":"next","type":["null","List"],"default":null},
                {"name":"e","type":{"type":"enum","name":"E","symbols":["X","Y"],"default":"Y"}},
                {"name":"e2","type":"a.b.E","default":"X"},
                {"name":"f","type":{"type":"fixed","name":"c.F","size":2},"default":"\u00ff\u0000"}
            ]}"#,
        )
        .unwrap();
        let Node::Record(r) = s.node(s.root()) else { panic!() };
        let Node::Union(b) = s.node(r.fields[0].ty) else {
            panic!()
        };
        assert_eq!(b[1], s.root(), "a self-reference points back at the record");
        assert_eq!(s.describe(r.fields[3].ty), "fixed c.F(2)");
        assert_eq!(r.fields[2].default, Some(Datum::Enum(0, "X".into())));
        assert_eq!(r.fields[3].default, Some(Datum::Fixed(vec![255, 0])));
        let Node::Enum(e) = s.node(r.fields[1].ty) else {
            panic!()
        };
        assert_eq!(e.default, Some(1));
    }

    /// Field numbers and slots per type: `["null", T]` is one of each, any
    /// other union one number per non-null branch (at least one) and two
    /// slots when it has such a branch.
    #[test]
    fn union_widths_follow_the_derivation_rule() {
        let cases = [
            (r#""int""#, 1, 1),
            (r#"["null","int"]"#, 1, 1),
            (r#"["int","null"]"#, 1, 1),
            (r#"["int"]"#, 1, 2),
            (r#"["null"]"#, 1, 1),
            (r#"["int","string"]"#, 2, 2),
            (r#"["null","int","string"]"#, 2, 2),
            (r#"["int","null","string","double"]"#, 3, 2),
        ];
        for (text, proto, fbs) in cases {
            let s = parse(text).unwrap();
            assert_eq!((s.proto_width(s.root()), s.fbs_width(s.root())), (proto, fbs), "{text}");
        }
    }

    #[test]
    fn kinds_name_each_nodes_variant() {
        let cases = [
            ("\"null\"", Kind::Null),
            ("\"boolean\"", Kind::Boolean),
            ("\"int\"", Kind::Int),
            ("\"long\"", Kind::Long),
            ("\"float\"", Kind::Float),
            ("\"double\"", Kind::Double),
            ("\"bytes\"", Kind::Bytes),
            ("\"string\"", Kind::String),
            (r#"{"type":"array","items":"int"}"#, Kind::Array),
            (r#"{"type":"map","values":"int"}"#, Kind::Map),
            (r#"["null","int"]"#, Kind::Union),
            (r#"{"type":"record","name":"R","fields":[]}"#, Kind::Record),
            (r#"{"type":"enum","name":"E","symbols":["A"]}"#, Kind::Enum),
            (r#"{"type":"fixed","name":"F","size":2}"#, Kind::Fixed),
        ];
        for (text, kind) in cases {
            let s = parse(text).unwrap();
            assert_eq!(s.kinds()[s.root()], kind, "{text}");
            assert_eq!(s.kinds().len(), s.len(), "{text}");
            for id in 0..s.len() {
                assert_eq!(s.kinds()[id], Kind::of(s.node(id)), "{text} node {id}");
            }
        }
    }

    #[test]
    fn bad_schemas_name_the_place() {
        let cases = [
            (
                r#"{"type":"record","name":"R","fields":[{"name":"a","type":"Nope"}]}"#,
                "schema error at R.a: unknown type \"Nope\" (a named type must be defined before it is used)",
            ),
            (
                r#"{"type":"record","name":"R","fields":[{"name":"a","type":"int","default":"x"}]}"#,
                "schema error at R.a: default \"x\" does not fit the field's type",
            ),
            (
                r#"{"type":"record","name":"R","fields":[{"name":"a","type":"int","default":3000000000}]}"#,
                "schema error at R.a: default 3000000000 does not fit the field's type",
            ),
            (r#"["int","int"]"#, "schema error at $[1]: the union holds Int twice"),
            (
                r#"["null",["int"]]"#,
                "schema error at $[1]: a union may not directly contain another union",
            ),
            (
                r#"{"type":"enum","name":"E","symbols":["A","A"]}"#,
                "schema error at $: enum symbol \"A\" appears twice",
            ),
            (
                r#"{"type":"enum","name":"E","symbols":["A"],"default":"B"}"#,
                "schema error at $: enum default \"B\" is not one of its symbols",
            ),
            (
                r#"{"type":"fixed","name":"F","size":-1}"#,
                "schema error at $: \"size\" must be a non-negative integer",
            ),
            (
                r#"{"type":"record","name":"1R","fields":[]}"#,
                "schema error at $: \"1R\" is not a valid name (\"Names\": [A-Za-z_][A-Za-z0-9_]* separated by dots)",
            ),
            (
                r#"{"type":"record","name":"R","fields":[{"name":"r","type":{"type":"record","name":"R","fields":[]}}]}"#,
                "schema error at R.r: type R is defined twice",
            ),
            (
                r#"{"type":"record","name":"R","fields":[{"name":"r","type":"R","default":{}}]}"#,
                "schema error at R.r: default nests deeper than 64 levels",
            ),
            (
                "{",
                "schema error at (JSON): unexpected end of input, expected object key at byte 1",
            ),
        ];
        for (text, want) in cases {
            assert_eq!(parse(text).unwrap_err().to_string(), want, "{text}");
        }
    }
}

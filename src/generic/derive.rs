//! `wirebench schema derive S.avsc --to proto|fbs`: the proto3 and
//! FlatBuffers schemas equivalent to an Avro schema, and the shape rules
//! the schema-driven Protobuf ([`super::protobuf`]) and FlatBuffers
//! ([`super::flatbuffers`]) codecs share with them.
//!
//! The conventions (docs/DATA-SCHEMAS.md has the full table):
//!
//! - A record is a `message` / `table`; a non-record root is wrapped in a
//!   message / table `Root` with one field `value`.
//! - Field numbers (Protobuf) and vtable slots (FlatBuffers) follow the
//!   schema's field order: field *i* starts where field *i − 1* ended. A
//!   `oneof` takes one number per non-null branch; a FlatBuffers union takes
//!   two slots (its `_type` and its value). A `null` field keeps its number
//!   (`reserved N;`) and its slot (`(deprecated)`) and writes nothing.
//! - `["null", T]` (either order) is `optional T` / a field that is absent
//!   for null (`= null` for FlatBuffers scalars). A Protobuf `optional`
//!   cannot hold `repeated` or `map`, so there `T` is wrapped in a message.
//! - Any other union is a `oneof` (null: no member set) and a FlatBuffers
//!   union (null: `NONE`) whose members are the record tables themselves
//!   and one wrapper table per other branch.
//! - `map<V>` is `map<string, V>` and a vector of `{key, value}` tables.
//! - Array items and map values that are null, unions, arrays or maps
//!   (Protobuf), or anything but a scalar, enum, string or table
//!   (FlatBuffers), are wrapped in a message / table per item with one field
//!   `value`.
//! - `bytes` and `fixed` are `bytes` / `[ubyte]`; enums keep their symbol
//!   order (proto values are prefixed with the enum's name, `Status_ACTIVE`,
//!   because proto3 enum values share the file's scope).
//! - Names are checked, never changed: an Avro name that is a type keyword
//!   of either language, two types with one short name, or two fields of a
//!   message that generated code would spell alike (`user_id`, `userId`,
//!   `UserId`) are errors naming both.

use super::schema::{Node, NodeId, Schema, valid_name};
use crate::cli::Args;
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

/// Which schema language `derive` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Proto,
    Fbs,
}

/// How a type sits where a field holds it: the rule both derivations and
/// both codecs follow.
#[derive(Clone, Copy, Debug)]
pub enum Shape<'s> {
    /// Always null: no bytes.
    Null,
    /// A boolean, number, string, bytes, fixed or enum.
    Leaf,
    Record,
    Array(NodeId),
    Map(NodeId),
    /// `["null", T]`: branch indexes of the null and of `T`, and `T`.
    Optional {
        null: u32,
        value: u32,
        ty: NodeId,
    },
    /// Any other union: the null branch's index if there is one, and the branches.
    Oneof {
        null: Option<u32>,
        branches: &'s [NodeId],
    },
}

/// The fields of a message or table: a record's, or a wrapper's one `value`.
#[derive(Clone, Copy)]
pub(crate) enum Fields<'s> {
    Record(&'s super::schema::Record),
    One(NodeId),
}

impl Fields<'_> {
    /// A record's fields, or any other type as a wrapper's one `value`.
    #[inline]
    pub(crate) fn of(s: &Schema, ty: NodeId) -> Fields<'_> {
        match s.node(ty) {
            Node::Record(r) => Fields::Record(r),
            _ => Fields::One(ty),
        }
    }

    #[inline]
    pub(crate) fn len(&self) -> usize {
        match self {
            Fields::Record(r) => r.fields.len(),
            Fields::One(_) => 1,
        }
    }

    #[inline]
    pub(crate) fn ty(&self, i: usize) -> NodeId {
        match self {
            Fields::Record(r) => r.fields[i].ty,
            Fields::One(t) => *t,
        }
    }

    /// The record field's name (a wrapper's value has none in the document).
    #[inline]
    pub(crate) fn name(&self, i: usize) -> Option<&str> {
        match self {
            Fields::Record(r) => Some(&r.fields[i].name),
            Fields::One(_) => None,
        }
    }
}

/// The [`Shape`] of type `ty`.
#[inline]
pub fn shape(schema: &Schema, ty: NodeId) -> Shape<'_> {
    match schema.node(ty) {
        Node::Null => Shape::Null,
        Node::Record(_) => Shape::Record,
        Node::Array(items) => Shape::Array(*items),
        Node::Map(values) => Shape::Map(*values),
        Node::Union(branches) => {
            let null = schema.null_branch(ty);
            if let (2, Some(n)) = (branches.len(), null) {
                let value = 1 - n;
                return Shape::Optional {
                    null: n,
                    value,
                    ty: branches[value as usize],
                };
            }
            Shape::Oneof { null, branches }
        }
        _ => Shape::Leaf,
    }
}

/// Protobuf field numbers a field of type `ty` takes (a `oneof`: one per
/// non-null branch, at least one).
#[inline]
pub fn proto_width(schema: &Schema, ty: NodeId) -> u32 {
    schema.proto_width(ty)
}

/// FlatBuffers vtable slots a field of type `ty` takes (a union: two).
#[inline]
pub fn fbs_width(schema: &Schema, ty: NodeId) -> u16 {
    schema.fbs_width(ty)
}

/// True when `ty` can be a `repeated` element, a `map` value, an
/// `optional` or a `oneof` member as it is (Protobuf).
pub fn proto_direct(schema: &Schema, ty: NodeId) -> bool {
    matches!(shape(schema, ty), Shape::Leaf | Shape::Record)
}

/// True when `ty` can be a vector element as it is (FlatBuffers).
pub fn fbs_direct_item(schema: &Schema, ty: NodeId) -> bool {
    matches!(
        schema.node(ty),
        Node::Boolean
            | Node::Int
            | Node::Long
            | Node::Float
            | Node::Double
            | Node::String
            | Node::Enum(_)
            | Node::Record(_)
    )
}

/// The FlatBuffers scalar type of an enum with `n` symbols.
pub fn fbs_enum_width(n: usize) -> u8 {
    if n <= 1 << 8 {
        1
    } else if n <= 1 << 16 {
        2
    } else {
        4
    }
}

/// The short name of union branch `b` used in member names (`id_long`,
/// `IdString`): a primitive's name, a named type's short name, `array`, `map`.
pub fn branch_name(schema: &Schema, b: NodeId) -> String {
    match schema.node(b) {
        Node::Array(_) => "array".into(),
        Node::Map(_) => "map".into(),
        Node::Union(_) => "union".into(),
        _ => match schema.name_of(b) {
            Some(n) => n.short().to_string(),
            None => schema.describe(b),
        },
    }
}

/// Names no derived type may take, split at spaces: scalar types and
/// keywords of proto3 and of the FlatBuffers schema language.
pub(super) const RESERVED_TYPE_NAMES: &str = "\
    double float int32 int64 uint32 uint64 sint32 sint64 fixed32 fixed64 sfixed32 sfixed64 bool \
    string bytes byte ubyte short ushort int uint long ulong int8 uint8 int16 uint16 float32 float64 \
    message enum oneof map optional repeated reserved syntax package import option service rpc \
    returns extend extensions stream group required table struct union namespace root_type include \
    attribute file_identifier file_extension rpc_service true false null";

/// The spelling generated code gives a name, for collision checks: letters
/// without underscores, case folded (`user_id`, `userId` and `UserId` agree).
fn spelling(name: &str) -> String {
    name.chars()
        .filter(|&c| c != '_')
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// `user_id` → `UserId` (for derived type names).
fn pascal(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = true;
    for c in name.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    if out.is_empty() { "X".into() } else { out }
}

/// The name of the message / table that wraps a non-record root: `Root`,
/// or `Root1`, `Root2`, ... when the schema names a type `Root`.
pub fn root_wrapper_name(schema: &Schema) -> String {
    let taken: HashSet<&str> = (0..schema.len())
        .filter_map(|id| schema.name_of(id))
        .map(|n| n.short())
        .collect();
    let mut name = "Root".to_string();
    let mut i = 0;
    while taken.contains(name.as_str()) {
        i += 1;
        name = format!("Root{i}");
    }
    name
}

/// Writes the `.proto` (proto3) or `.fbs` equivalent of `schema`.
///
/// ```
/// use wirebench::generic::{derive::{derive, Target}, schema::Schema};
/// let s = Schema::parse(br#"{"type":"record","name":"P","fields":[{"name":"id","type":"long"}]}"#).unwrap();
/// assert!(derive(&s, Target::Proto).unwrap().contains("int64 id = 1;"));
/// assert!(derive(&s, Target::Fbs).unwrap().contains("id:long;"));
/// ```
pub fn derive(schema: &Schema, target: Target) -> Result<String, String> {
    let mut g = Gen {
        schema,
        target,
        enums: Vec::new(),
        defs: Vec::new(),
        types: HashMap::new(),
        done: HashSet::new(),
    };
    let root = schema.root();
    let root_name = match schema.node(root) {
        Node::Record(_) => g.named(root)?,
        _ => {
            let name = root_wrapper_name(schema);
            g.claim(&name, "the wrapper of the non-record root")?;
            g.table(&name, &name, "value", root, "the root value")?;
            name
        }
    };
    let mut out = String::new();
    match target {
        Target::Proto => {
            out.push_str("// Derived by `wirebench schema derive --to proto`; conventions in docs/DATA-SCHEMAS.md.\n");
            out.push_str("syntax = \"proto3\";\n");
            let _ = writeln!(out, "// Root message: {root_name}");
        }
        Target::Fbs => {
            out.push_str("// Derived by `wirebench schema derive --to fbs`; conventions in docs/DATA-SCHEMAS.md.\n");
        }
    }
    for d in g.enums.iter().chain(&g.defs) {
        out.push('\n');
        out.push_str(d);
    }
    if target == Target::Fbs {
        let _ = write!(out, "\nroot_type {root_name};\n");
    }
    Ok(out)
}

struct Gen<'s> {
    schema: &'s Schema,
    target: Target,
    /// Enum definitions (FlatBuffers needs them before their use).
    enums: Vec<String>,
    /// Every other definition, children before parents.
    defs: Vec<String>,
    /// Derived type name → what it names (for collision errors).
    types: HashMap<String, String>,
    /// Named types already defined.
    done: HashSet<NodeId>,
}

/// One message's / table's fields as derived, with their names for the
/// collision check.
#[derive(Default)]
struct Body {
    lines: String,
    members: Vec<String>,
}

impl Gen<'_> {
    fn claim(&mut self, name: &str, what: &str) -> Result<(), String> {
        if !valid_name(name) {
            return Err(format!(
                "{what}: {name:?} is not a valid identifier ([A-Za-z_][A-Za-z0-9_]*)"
            ));
        }
        if RESERVED_TYPE_NAMES.split(' ').any(|r| r == name) {
            return Err(format!(
                "{what}: the type name {name:?} is a type or keyword of proto3 or FlatBuffers; rename it"
            ));
        }
        if let Some(other) = self.types.get(name) {
            return Err(format!("{what} and {other} would both be named {name:?}; rename one"));
        }
        self.types.insert(name.to_string(), what.to_string());
        Ok(())
    }

    /// Defines the named type `id` once and returns its derived name.
    fn named(&mut self, id: NodeId) -> Result<String, String> {
        let schema = self.schema;
        let name = schema.name_of(id).map(|n| n.short().to_string()).unwrap_or_default();
        if !self.done.insert(id) {
            return Ok(name);
        }
        let full = schema.name_of(id).map(|n| n.fullname.clone()).unwrap_or_default();
        match schema.node(id) {
            Node::Record(r) => {
                self.claim(&name, &format!("record {full}"))?;
                let mut body = Body::default();
                let mut at = 1u32;
                for f in &r.fields {
                    self.typed_field(&name, &f.name, f.ty, at, &mut body)?;
                    at += match self.target {
                        Target::Proto => proto_width(schema, f.ty),
                        Target::Fbs => u32::from(fbs_width(schema, f.ty)),
                    };
                }
                self.finish(&name, &format!("record {full}"), body)?;
            }
            Node::Enum(e) => {
                self.claim(&name, &format!("enum {full}"))?;
                let mut text = String::new();
                match self.target {
                    Target::Proto => {
                        let _ = writeln!(text, "enum {name} {{");
                        for (i, s) in e.symbols.iter().enumerate() {
                            let value = format!("{name}_{s}");
                            self.claim(&value, &format!("symbol {s} of enum {full}"))?;
                            let _ = writeln!(text, "  {value} = {i};");
                        }
                    }
                    Target::Fbs => {
                        let ty = match fbs_enum_width(e.symbols.len()) {
                            1 => "ubyte",
                            2 => "ushort",
                            _ => "uint",
                        };
                        let _ = writeln!(text, "enum {name}:{ty} {{");
                        for (i, s) in e.symbols.iter().enumerate() {
                            if !valid_name(s) {
                                return Err(format!("enum {full}: symbol {s:?} is not a valid identifier"));
                            }
                            let comma = if i + 1 < e.symbols.len() { "," } else { "" };
                            let _ = writeln!(text, "  {s} = {i}{comma}");
                        }
                    }
                }
                text.push_str("}\n");
                self.enums.push(text);
            }
            _ => {}
        }
        Ok(name)
    }

    /// Checks a message's member names and appends its definition.
    fn finish(&mut self, name: &str, what: &str, body: Body) -> Result<(), String> {
        let mut seen: HashMap<String, &str> = HashMap::new();
        for m in &body.members {
            if !valid_name(m) {
                return Err(format!("{what}: field name {m:?} is not a valid identifier"));
            }
            if let Some(other) = seen.insert(spelling(m), m) {
                return Err(format!(
                    "{what}: fields {other:?} and {m:?} are spelt alike by generated code (underscores and case aside); rename one"
                ));
            }
        }
        let keyword = match self.target {
            Target::Proto => "message",
            Target::Fbs => "table",
        };
        self.defs.push(format!("{keyword} {name} {{\n{}}}\n", body.lines));
        Ok(())
    }

    /// A wrapper message / table `name` with one field `field` of type `ty`.
    fn table(&mut self, name: &str, ctx: &str, field: &str, ty: NodeId, what: &str) -> Result<(), String> {
        let mut body = Body::default();
        self.typed_field(ctx, field, ty, 1, &mut body)?;
        self.finish(name, what, body)
    }

    /// The type a member of type `ty` of field `ctx.name` is spelled with:
    /// its own when it is `direct`, else its wrapper `{ctx}{Name}{suffix}`
    /// ([`Self::table`], claimed as "the {role} of ctx.name").
    fn member_type(
        &mut self,
        direct: bool,
        ty: NodeId,
        (ctx, name): (&str, &str),
        suffix: &str,
        role: &str,
    ) -> Result<String, String> {
        if direct {
            return self.leaf(ty);
        }
        let w = format!("{ctx}{}{suffix}", pascal(name));
        self.claim(&w, &format!("the {role} of {ctx}.{name}"))?;
        let kind = if self.target == Target::Proto {
            "message"
        } else {
            "table"
        };
        self.table(&w, &w, "value", ty, &format!("{kind} {w}"))?;
        Ok(w)
    }

    /// The scalar / named type spelling of a [`Shape::Leaf`] or record.
    fn leaf(&mut self, ty: NodeId) -> Result<String, String> {
        let proto = self.target == Target::Proto;
        Ok(match self.schema.node(ty) {
            Node::Boolean => "bool".into(),
            Node::Int => if proto { "int32" } else { "int" }.into(),
            Node::Long => if proto { "int64" } else { "long" }.into(),
            Node::Float => "float".into(),
            Node::Double => "double".into(),
            Node::String => "string".into(),
            Node::Bytes | Node::Fixed(_) => if proto { "bytes" } else { "[ubyte]" }.into(),
            Node::Enum(_) | Node::Record(_) => self.named(ty)?,
            _ => return Err(format!("{} is not a leaf type", self.schema.describe(ty))),
        })
    }

    fn typed_field(&mut self, ctx: &str, name: &str, ty: NodeId, number: u32, body: &mut Body) -> Result<(), String> {
        match self.target {
            Target::Proto => self.proto_field(ctx, name, ty, number, body),
            Target::Fbs => self.fbs_field(ctx, name, ty, body),
        }
    }

    fn proto_field(&mut self, ctx: &str, name: &str, ty: NodeId, n: u32, body: &mut Body) -> Result<(), String> {
        let schema = self.schema;
        body.members.push(name.to_string());
        match shape(schema, ty) {
            Shape::Null => {
                let _ = writeln!(body.lines, "  reserved {n}; // {name}: always null");
            }
            Shape::Leaf | Shape::Record => {
                let t = self.leaf(ty)?;
                let _ = writeln!(body.lines, "  {t} {name} = {n};");
            }
            Shape::Array(items) => {
                let t = self.member_type(proto_direct(schema, items), items, (ctx, name), "Item", "item wrapper")?;
                let _ = writeln!(body.lines, "  repeated {t} {name} = {n};");
            }
            Shape::Map(values) => {
                let t = self.member_type(
                    proto_direct(schema, values),
                    values,
                    (ctx, name),
                    "Value",
                    "value wrapper",
                )?;
                let _ = writeln!(body.lines, "  map<string, {t}> {name} = {n};");
            }
            Shape::Optional { ty: inner, .. } => {
                let t = self.member_type(
                    proto_direct(schema, inner),
                    inner,
                    (ctx, name),
                    "Value",
                    "value wrapper",
                )?;
                let _ = writeln!(body.lines, "  optional {t} {name} = {n};");
            }
            Shape::Oneof { branches, .. } => {
                body.members.pop();
                let live = live_branches(schema, branches);
                if live.is_empty() {
                    let _ = writeln!(body.lines, "  reserved {n}; // {name}: always null");
                    body.members.push(name.to_string());
                    return Ok(());
                }
                let _ = writeln!(body.lines, "  oneof {name} {{");
                for (i, b) in live.iter().enumerate() {
                    let bname = branch_name(schema, *b);
                    let member = format!("{name}_{bname}");
                    let role = format!("{bname} branch wrapper");
                    let t = self.member_type(proto_direct(schema, *b), *b, (ctx, name), &pascal(&bname), &role)?;
                    let _ = writeln!(body.lines, "    {t} {member} = {};", n + i as u32);
                    body.members.push(member);
                }
                body.lines.push_str("  }\n");
            }
        }
        Ok(())
    }

    fn fbs_field(&mut self, ctx: &str, name: &str, ty: NodeId, body: &mut Body) -> Result<(), String> {
        let schema = self.schema;
        let wrapper = |suffix: &str| format!("{ctx}{}{suffix}", pascal(name));
        body.members.push(name.to_string());
        match shape(schema, ty) {
            Shape::Null => {
                let _ = writeln!(body.lines, "  {name}:bool (deprecated); // always null");
            }
            Shape::Leaf | Shape::Record => {
                let t = self.leaf(ty)?;
                let _ = writeln!(body.lines, "  {name}:{t};");
            }
            Shape::Array(items) => {
                let t = self.member_type(
                    fbs_direct_item(schema, items),
                    items,
                    (ctx, name),
                    "Item",
                    "item wrapper",
                )?;
                let _ = writeln!(body.lines, "  {name}:[{t}];");
            }
            Shape::Map(values) => {
                let w = wrapper("Entry");
                self.claim(&w, &format!("the entry table of {ctx}.{name}"))?;
                let mut entry = Body::default();
                entry.lines.push_str("  key:string;\n");
                entry.members.push("key".into());
                self.fbs_field(&w, "value", values, &mut entry)?;
                self.finish(&w, &format!("table {w}"), entry)?;
                let _ = writeln!(body.lines, "  {name}:[{w}];");
            }
            Shape::Optional { ty: inner, .. } => {
                if matches!(
                    schema.node(inner),
                    Node::Boolean | Node::Int | Node::Long | Node::Float | Node::Double | Node::Enum(_)
                ) {
                    let t = self.leaf(inner)?;
                    let _ = writeln!(body.lines, "  {name}:{t} = null;");
                } else {
                    body.members.pop();
                    self.fbs_field(ctx, name, inner, body)?;
                }
            }
            Shape::Oneof { branches, .. } => {
                let live = live_branches(schema, branches);
                if live.is_empty() {
                    let _ = writeln!(body.lines, "  {name}:bool (deprecated); // always null");
                    return Ok(());
                }
                if live.len() > 255 {
                    return Err(format!(
                        "{ctx}.{name}: a union of {} branches (FlatBuffers allows 255)",
                        live.len()
                    ));
                }
                let u = wrapper("Union");
                self.claim(&u, &format!("the union of {ctx}.{name}"))?;
                let mut members = Vec::new();
                for b in &live {
                    if matches!(schema.node(*b), Node::Record(_)) {
                        members.push(self.named(*b)?);
                    } else {
                        let bname = branch_name(schema, *b);
                        let role = format!("{bname} branch wrapper");
                        members.push(self.member_type(false, *b, (ctx, name), &pascal(&bname), &role)?);
                    }
                }
                self.defs.push(format!("union {u} {{ {} }}\n", members.join(", ")));
                body.members.push(format!("{name}_type"));
                let _ = writeln!(body.lines, "  {name}:{u};");
            }
        }
        Ok(())
    }
}

/// The branches of a union that are not null.
fn live_branches(schema: &Schema, branches: &[NodeId]) -> Vec<NodeId> {
    let live = branches.iter().copied();
    live.filter(|&b| !matches!(schema.node(b), Node::Null)).collect()
}

/// `wirebench schema derive S.avsc --to proto|fbs [-o OUT]`.
pub fn cli_derive(args: &mut Args) -> Result<(), String> {
    let to = args.value("--to")?.ok_or("--to proto|fbs is required")?;
    let target = match to.as_str() {
        "proto" => Target::Proto,
        "fbs" => Target::Fbs,
        other => return Err(format!("--to: expected proto or fbs, found {other:?}")),
    };
    let out = args.value("-o")?;
    let files = args.positional();
    args.finish()?;
    let [path] = files.as_slice() else {
        return Err("usage: wirebench schema derive S.avsc --to proto|fbs [-o OUT]".into());
    };
    let meta = std::fs::metadata(path).map_err(|e| format!("{path}: {e}"))?;
    if meta.len() > 64 * 1024 * 1024 {
        return Err(format!(
            "{path}: {} bytes is more than the 64 MiB a schema may have",
            meta.len()
        ));
    }
    let text = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
    let schema = Schema::parse(&text).map_err(|e| format!("{path}: {e}"))?;
    let derived = derive(&schema, target).map_err(|e| format!("{path}: {e}"))?;
    match out {
        Some(o) => std::fs::write(&o, derived).map_err(|e| format!("{o}: {e}")),
        None => {
            print!("{derived}");
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHAPES: &str = r#"{"type":"record","name":"Doc","fields":[
        {"name":"id","type":"long"},
        {"name":"nothing","type":"null"},
        {"name":"note","type":["null","string"]},
        {"name":"tags","type":{"type":"array","items":"string"}},
        {"name":"grid","type":{"type":"array","items":{"type":"array","items":"double"}}},
        {"name":"maybe","type":{"type":"array","items":["null","int"]}},
        {"name":"counts","type":{"type":"map","values":"long"}},
        {"name":"key","type":["long","string","null"]},
        {"name":"kind","type":{"type":"enum","name":"Kind","symbols":["A","B"]}},
        {"name":"last","type":["null",{"type":"array","items":"int"}]}
    ]}"#;

    #[test]
    fn proto_numbers_follow_schema_order() {
        let p = derive(&Schema::of(SHAPES), Target::Proto).unwrap();
        for line in [
            "int64 id = 1;",
            "reserved 2;",
            "optional string note = 3;",
            "repeated string tags = 4;",
            "repeated DocGridItem grid = 5;",
            "repeated DocMaybeItem maybe = 6;",
            "map<string, int64> counts = 7;",
            "oneof key {",
            "int64 key_long = 8;",
            "string key_string = 9;",
            "Kind kind = 10;",
            "optional DocLastValue last = 11;",
            "Kind_A = 0;",
            "message DocGridItem {\n  repeated double value = 1;\n}",
            "message DocMaybeItem {\n  optional int32 value = 1;\n}",
        ] {
            assert!(p.contains(line), "{line:?} missing from\n{p}");
        }
    }

    #[test]
    fn fbs_slots_follow_schema_order() {
        let f = derive(&Schema::of(SHAPES), Target::Fbs).unwrap();
        for line in [
            "enum Kind:ubyte {",
            "id:long;",
            "nothing:bool (deprecated);",
            "note:string;",
            "grid:[DocGridItem];",
            "counts:[DocCountsEntry];",
            "table DocCountsEntry {\n  key:string;\n  value:long;\n}",
            "union DocKeyUnion { DocKeyLong, DocKeyString }",
            "key:DocKeyUnion;",
            "last:[int];",
            "root_type Doc;",
        ] {
            assert!(f.contains(line), "{line:?} missing from\n{f}");
        }
        // Enums come first: flatc needs them declared before use.
        assert!(f.find("enum Kind").unwrap() < f.find("table Doc ").unwrap());
    }

    #[test]
    fn non_record_root_is_wrapped() {
        let s = Schema::of(r#"{"type":"array","items":"double"}"#);
        assert!(
            derive(&s, Target::Proto)
                .unwrap()
                .contains("message Root {\n  repeated double value = 1;\n}")
        );
        let f = derive(&s, Target::Fbs).unwrap();
        assert!(f.contains("table Root {\n  value:[double];\n}") && f.contains("root_type Root;"));
    }

    #[test]
    fn root_wrapper_steps_aside_for_a_record_named_root() {
        let s = Schema::of(r#"{"type":"array","items":{"type":"record","name":"Root","fields":[]}}"#);
        let p = derive(&s, Target::Proto).unwrap();
        assert!(p.contains("message Root1 {\n  repeated Root value = 1;\n}"), "{p}");
        assert!(derive(&s, Target::Fbs).unwrap().contains("root_type Root1;"));
    }

    #[test]
    fn widths_match_numbering() {
        let s = Schema::of(SHAPES);
        let Node::Record(r) = s.node(s.root()) else { panic!() };
        let proto: Vec<u32> = r.fields.iter().map(|f| proto_width(&s, f.ty)).collect();
        assert_eq!(proto, [1, 1, 1, 1, 1, 1, 1, 2, 1, 1]);
        let fbs: Vec<u16> = r.fields.iter().map(|f| fbs_width(&s, f.ty)).collect();
        assert_eq!(fbs, [1, 1, 1, 1, 1, 1, 1, 2, 1, 1]);
    }

    #[test]
    fn alike_field_names_are_an_error() {
        let s = Schema::of(
            r#"{"type":"record","name":"R","fields":[{"name":"user_id","type":"int"},{"name":"userId","type":"int"}]}"#,
        );
        let e = derive(&s, Target::Proto).unwrap_err();
        assert!(e.contains("\"user_id\" and \"userId\""), "{e}");
        assert!(derive(&s, Target::Fbs).is_err());
    }

    #[test]
    fn union_type_field_collision_is_an_error() {
        let s = Schema::of(
            r#"{"type":"record","name":"R","fields":[{"name":"v","type":["int","string"]},{"name":"v_type","type":"int"}]}"#,
        );
        let e = derive(&s, Target::Fbs).unwrap_err();
        assert!(e.contains("v_type"), "{e}");
    }

    #[test]
    fn reserved_and_colliding_type_names_are_errors() {
        // Words at the list's line breaks and ends (Avro's own type names aside).
        for name in [
            "int32",
            "bool",
            "float64",
            "message",
            "rpc",
            "returns",
            "include",
            "attribute",
            "false",
        ] {
            let s = Schema::of(&format!(r#"{{"type":"record","name":"{name}","fields":[]}}"#));
            assert!(derive(&s, Target::Fbs).unwrap_err().contains("keyword"), "{name}");
        }
        assert_eq!(RESERVED_TYPE_NAMES.split(' ').count(), 61);
        let s = Schema::of(
            r#"{"type":"record","name":"a.R","fields":[{"name":"x","type":{"type":"record","name":"b.R","fields":[]}}]}"#,
        );
        let e = derive(&s, Target::Proto).unwrap_err();
        assert!(e.contains("record a.R") && e.contains("record b.R"), "{e}");
        // A derived wrapper name taken by a record.
        let s = Schema::of(
            r#"{"type":"record","name":"D","fields":[{"name":"g","type":{"type":"array","items":{"type":"array","items":"int"}}},
               {"name":"h","type":{"type":"record","name":"DGItem","fields":[]}}]}"#,
        );
        assert!(derive(&s, Target::Proto).unwrap_err().contains("DGItem"));
    }

    #[test]
    fn recursive_records_are_defined_once() {
        let s = Schema::of(
            r#"{"type":"record","name":"Node","fields":[{"name":"kids","type":{"type":"array","items":"Node"}}]}"#,
        );
        let p = derive(&s, Target::Proto).unwrap();
        assert_eq!(p.matches("message Node").count(), 1);
        assert!(p.contains("repeated Node kids = 1;"));
    }
}

//! Avro schema resolution: reads a datum written with one schema (the
//! writer's) as an instance of another (the reader's), for any pair of
//! schemas, following the Avro specification's "Schema Resolution" section.
//!
//! [`Resolver::new`] compiles the pair once into a plan (an arena of
//! [`Plan`] steps, memoised per record pair so recursive types terminate);
//! [`Resolver::read`] then walks the writer's bytes with it:
//!
//! - records: fields match by name or by the reader field's aliases
//!   ("Aliases"); writer-only fields are skipped whatever their type; a reader
//!   field the writer lacks takes the reader's default, and without one the
//!   record is refused;
//! - promotions: int → long, float, double; long → float, double;
//!   float → double; string ↔ bytes;
//! - enums: by symbol; a writer symbol the reader lacks takes the reader
//!   enum's default, else it is refused (when such a symbol is read);
//! - unions, branch by branch: a writer union resolves each branch against
//!   the reader (an unmatched branch is refused when it is read); a reader
//!   union takes the first branch of the same type, else the first the
//!   writer's type can be promoted to;
//! - named types match on their unqualified names or the reader's aliases;
//!   fixed also needs the same size.
//!
//! A mismatch becomes an [`Plan::Error`] step that fires when data reaches
//! it, as the reference implementations do, so an empty array of an
//! incompatible type still reads. Every error names the field path in the
//! reader's terms (`Catalog.products[].stock`).
//!
//! Hostile input: lengths and counts are checked against the remaining bytes
//! before anything is allocated; items that may encode in zero bytes
//! (`null`, empty records) draw on a budget proportional to the input, so a
//! block count of 2^62 nulls is an error, not a hang; datum nesting is
//! limited to [`MAX_DATUM_DEPTH`].

use super::datum::{Datum, FieldNames, Fields, Name};
use super::schema::{Node, NodeId, Refusal, Schema, unqualified};
use crate::codec::cursor::Cursor;
use crate::codec::{DecodeError, varint};
use std::collections::HashMap;

/// Deepest nesting of records, arrays, maps and unions in one datum.
pub const MAX_DATUM_DEPTH: usize = 128;

/// Index of a step in the plan arena.
type PlanId = usize;

/// How one writer type becomes one reader type.
#[derive(Clone, Debug)]
enum Plan {
    Null,
    Boolean,
    Int,
    Long,
    Float,
    Double,
    Bytes,
    String,
    IntToLong,
    IntToFloat,
    IntToDouble,
    LongToFloat,
    LongToDouble,
    FloatToDouble,
    StringToBytes,
    BytesToString,
    Fixed(usize),
    /// Writer symbol index → reader (index, symbol), or the error to raise.
    Enum(Vec<Result<(u32, Name), String>>),
    Array(PlanId),
    Map(PlanId),
    Record(RecordPlan),
    /// The writer wrote a union: one plan per writer branch.
    WriterUnion(Vec<PlanId>),
    /// The reader has a union, the writer not: reader branch and its plan.
    ToBranch(u32, PlanId),
    /// Refused when reached.
    Error(String),
    /// Placeholder while a record pair is being compiled.
    Pending,
}

#[derive(Clone, Debug)]
struct RecordPlan {
    /// In writer field order.
    steps: Vec<FieldStep>,
    /// Reader field names, in reader order.
    names: FieldNames,
    /// Reader fields the writer lacks: (slot, default).
    defaults: Vec<(usize, Datum)>,
}

#[derive(Clone, Debug)]
enum FieldStep {
    Read { plan: PlanId, slot: usize },
    Skip(NodeId),
}

/// Why a datum could not be read: a decode error at a byte, or a resolution
/// refusal naming the field path.
pub type ResolveError = Refusal<usize>;

impl From<DecodeError> for ResolveError {
    fn from(e: DecodeError) -> ResolveError {
        ResolveError::new(e.offset, e.kind.to_string())
    }
}

/// A compiled writer → reader resolution.
#[derive(Debug)]
pub struct Resolver<'s> {
    writer: &'s Schema,
    plans: Vec<Plan>,
    root: PlanId,
}

struct Compiler<'s> {
    w: &'s Schema,
    r: &'s Schema,
    plans: Vec<Plan>,
    records: HashMap<(NodeId, NodeId), PlanId>,
}

impl<'s> Resolver<'s> {
    /// Compiles the resolution of `writer` data into `reader`'s shape.
    /// Never fails: incompatibilities fire when data reaches them.
    pub fn new(writer: &'s Schema, reader: &'s Schema) -> Resolver<'s> {
        let mut c = Compiler {
            w: writer,
            r: reader,
            plans: Vec::new(),
            records: HashMap::new(),
        };
        let root = c.compile(writer.root(), reader.root(), &reader.root_name());
        Resolver {
            writer,
            plans: c.plans,
            root,
        }
    }

    /// Reads one whole datum (trailing bytes are an error).
    pub fn read(&self, bytes: &[u8]) -> Result<Datum, ResolveError> {
        let mut st = State {
            c: Cursor::new(bytes),
            // Zero-byte items allowed over the whole datum.
            zero_budget: bytes.len().saturating_mul(8).saturating_add(1024),
        };
        let d = self.read_plan(self.root, &mut st, 0)?;
        st.c.finish()?;
        Ok(d)
    }

    fn read_plan(&self, id: PlanId, st: &mut State<'_>, depth: usize) -> Result<Datum, ResolveError> {
        if depth > MAX_DATUM_DEPTH {
            return Err(st.error(format!("datum nests deeper than {MAX_DATUM_DEPTH} levels")));
        }
        Ok(match &self.plans[id] {
            Plan::Null => Datum::Null,
            Plan::Boolean => Datum::Boolean(st.boolean()?),
            Plan::Int => Datum::Int(st.int()?),
            Plan::Long => Datum::Long(st.long("long")?),
            Plan::Float => Datum::Float(st.float()?),
            Plan::Double => Datum::Double(st.double()?),
            Plan::Bytes => Datum::Bytes(st.bytes("bytes length")?.to_vec()),
            Plan::String => Datum::String(st.string()?),
            Plan::IntToLong => Datum::Long(i64::from(st.int()?)),
            Plan::IntToFloat => Datum::Float(st.int()? as f32),
            Plan::IntToDouble => Datum::Double(f64::from(st.int()?)),
            Plan::LongToFloat => Datum::Float(st.long("long")? as f32),
            Plan::LongToDouble => Datum::Double(st.long("long")? as f64),
            Plan::FloatToDouble => Datum::Double(f64::from(st.float()?)),
            Plan::StringToBytes => Datum::Bytes(st.string()?.into_bytes()),
            Plan::BytesToString => {
                let at = st.c.pos();
                let b = st.bytes("bytes length")?;
                match std::str::from_utf8(b) {
                    Ok(s) => Datum::String(s.to_string()),
                    Err(_) => {
                        return Err(ResolveError::new(
                            at,
                            "writer bytes promoted to a reader string are not valid UTF-8",
                        ));
                    }
                }
            }
            Plan::Fixed(n) => Datum::Fixed(st.c.fixed(*n, "fixed bytes")?.to_vec()),
            Plan::Enum(map) => {
                let at = st.c.pos();
                let i = st.long("enum index")?;
                match usize::try_from(i).ok().and_then(|i| map.get(i)) {
                    Some(Ok((ri, sym))) => Datum::Enum(*ri, sym.clone()),
                    Some(Err(msg)) => {
                        return Err(ResolveError::new(at, msg.clone()));
                    }
                    None => {
                        return Err(ResolveError::new(
                            at,
                            format!("enum index {i} is outside the writer's {} symbols", map.len()),
                        ));
                    }
                }
            }
            Plan::Array(item) => {
                let mut items = Vec::new();
                self.blocks(st, *item, |this, st| {
                    items.push(this.read_plan(*item, st, depth + 1)?);
                    Ok(())
                })?;
                Datum::Array(items)
            }
            Plan::Map(value) => {
                let mut entries = Vec::new();
                self.blocks(st, *value, |this, st| {
                    let k = st.string()?;
                    let v = this.read_plan(*value, st, depth + 1)?;
                    entries.push((k, v));
                    Ok(())
                })?;
                Datum::Map(entries)
            }
            Plan::Record(rp) => {
                let mut slots: Vec<Option<Datum>> = vec![None; rp.names.len()];
                for step in &rp.steps {
                    match step {
                        FieldStep::Read { plan, slot } => slots[*slot] = Some(self.read_plan(*plan, st, depth + 1)?),
                        FieldStep::Skip(node) => self.skip(*node, st, depth + 1)?,
                    }
                }
                for (slot, d) in &rp.defaults {
                    slots[*slot] = Some(d.clone());
                }
                let values = slots.into_iter().map(|d| d.unwrap_or(Datum::Null)).collect();
                Datum::Record(Fields::new(rp.names.clone(), values).expect("a value per field"))
            }
            Plan::WriterUnion(branches) => {
                let p = st.branch(branches)?;
                self.read_plan(p, st, depth + 1)?
            }
            Plan::ToBranch(i, p) => Datum::Union(*i, Box::new(self.read_plan(*p, st, depth + 1)?)),
            Plan::Error(msg) => return Err(st.error(msg.clone())),
            Plan::Pending => return Err(st.error("internal: unfinished plan".to_string())),
        })
    }

    /// Walks the blocks of an array or map ("Complex Types" → "Arrays",
    /// "Maps"): a count, negative when a byte size follows; 0 ends.
    fn blocks(
        &self,
        st: &mut State<'_>,
        item: PlanId,
        mut each: impl FnMut(&Self, &mut State<'_>) -> Result<(), ResolveError>,
    ) -> Result<(), ResolveError> {
        let min = self.plan_min_bytes(item);
        self.walk_blocks(st, min, |st| each(self, st))
    }

    fn walk_blocks(
        &self,
        st: &mut State<'_>,
        min_item_bytes: u64,
        mut each: impl FnMut(&mut State<'_>) -> Result<(), ResolveError>,
    ) -> Result<(), ResolveError> {
        loop {
            let at = st.c.pos();
            let count = st.long("block count")?;
            if count == 0 {
                return Ok(());
            }
            if count < 0 {
                let size = st.long("block byte size")?;
                if size < 0 {
                    return Err(ResolveError::new(at, format!("negative block byte size {size}")));
                }
            }
            let n = count.unsigned_abs();
            if min_item_bytes > 0 {
                st.c.check_count(n, min_item_bytes, "block count")?;
            } else {
                match st.zero_budget.checked_sub(n as usize) {
                    Some(left) if n <= usize::MAX as u64 => st.zero_budget = left,
                    _ => {
                        return Err(ResolveError::new(
                            at,
                            format!(
                                "block of {n} items that may take no bytes each exceeds what the input can justify"
                            ),
                        ));
                    }
                }
            }
            for _ in 0..n {
                each(st)?;
            }
        }
    }

    /// Fewest bytes one value can take, for the plan's writer side (0 when
    /// unknown or possibly empty). Arrays of items with a non-zero minimum
    /// are then bounded by the input itself.
    fn plan_min_bytes(&self, id: PlanId) -> u64 {
        match &self.plans[id] {
            Plan::Boolean | Plan::Int | Plan::Long | Plan::Bytes | Plan::String => 1,
            Plan::IntToLong | Plan::IntToFloat | Plan::IntToDouble | Plan::LongToFloat | Plan::LongToDouble => 1,
            Plan::StringToBytes | Plan::BytesToString | Plan::Enum(_) | Plan::Array(_) | Plan::Map(_) => 1,
            Plan::WriterUnion(_) => 1,
            Plan::Float | Plan::FloatToDouble => 4,
            Plan::Double => 8,
            Plan::Fixed(n) => *n as u64,
            Plan::ToBranch(_, p) => self.plan_min_bytes(*p),
            Plan::Record(_) | Plan::Null | Plan::Error(_) | Plan::Pending => 0,
        }
    }

    /// Skips one writer value of type `node` ("Schema Resolution": writer
    /// fields the reader lacks are ignored), checking it as it goes.
    fn skip(&self, node: NodeId, st: &mut State<'_>, depth: usize) -> Result<(), ResolveError> {
        if depth > MAX_DATUM_DEPTH {
            return Err(st.error(format!("datum nests deeper than {MAX_DATUM_DEPTH} levels")));
        }
        match self.writer.node(node) {
            Node::Null => {}
            Node::Boolean => _ = st.boolean()?,
            Node::Int => _ = st.int()?,
            Node::Long => _ = st.long("long")?,
            Node::Enum(_) => _ = st.long("enum index")?,
            Node::Float => _ = st.c.fixed(4, "float")?,
            Node::Double => _ = st.c.fixed(8, "double")?,
            Node::Bytes | Node::String => _ = st.bytes("length")?,
            Node::Fixed(f) => _ = st.c.fixed(f.size, "fixed bytes")?,
            Node::Array(item) => {
                let item = *item;
                let min = self.writer.min_sizes()[item];
                self.walk_blocks(st, min, |st| self.skip(item, st, depth + 1))?;
            }
            Node::Map(value) => {
                let value = *value;
                let min = self.writer.min_sizes()[value].saturating_add(1);
                self.walk_blocks(st, min, |st| {
                    st.bytes("map key length")?;
                    self.skip(value, st, depth + 1)
                })?;
            }
            Node::Union(branches) => {
                let b = st.branch(branches)?;
                self.skip(b, st, depth + 1)?
            }
            Node::Record(r) => {
                for f in &r.fields {
                    self.skip(f.ty, st, depth + 1)?;
                }
            }
        }
        Ok(())
    }
}

struct State<'a> {
    c: Cursor<'a>,
    zero_budget: usize,
}

impl<'a> State<'a> {
    fn error(&self, message: String) -> ResolveError {
        ResolveError::new(self.c.pos(), message)
    }

    fn long(&mut self, what: &'static str) -> Result<i64, ResolveError> {
        Ok(varint::read_i64_zigzag(&mut self.c, what)?)
    }

    /// A writer's union branch index and the branch it picks of `branches`.
    fn branch<T: Copy>(&mut self, branches: &[T]) -> Result<T, ResolveError> {
        let at = self.c.pos();
        let i = self.long("union branch index")?;
        usize::try_from(i)
            .ok()
            .and_then(|i| branches.get(i).copied())
            .ok_or_else(|| {
                ResolveError::new(
                    at,
                    format!(
                        "union branch index {i} is outside the writer's {} branches",
                        branches.len()
                    ),
                )
            })
    }

    fn int(&mut self) -> Result<i32, ResolveError> {
        let at = self.c.pos();
        let v = self.long("int")?;
        i32::try_from(v).map_err(|_| ResolveError::new(at, format!("int value {v} is outside the 32-bit range")))
    }

    fn boolean(&mut self) -> Result<bool, ResolveError> {
        let at = self.c.pos();
        match self.c.u8("boolean")? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(ResolveError::new(
                at,
                format!("boolean byte must be 0 or 1, found 0x{b:02x}"),
            )),
        }
    }

    fn float(&mut self) -> Result<f32, ResolveError> {
        Ok(f32::from_le_bytes(self.c.array::<4>("float")?))
    }

    fn double(&mut self) -> Result<f64, ResolveError> {
        Ok(f64::from_le_bytes(self.c.array::<8>("double")?))
    }

    fn bytes(&mut self, what: &'static str) -> Result<&'a [u8], ResolveError> {
        let at = self.c.pos();
        let len = self.long(what)?;
        let len = u64::try_from(len).map_err(|_| ResolveError::new(at, format!("negative {what} {len}")))?;
        Ok(self.c.take(len, what)?)
    }

    fn string(&mut self) -> Result<String, ResolveError> {
        let at = self.c.pos();
        let b = self.bytes("string length")?;
        std::str::from_utf8(b)
            .map(str::to_string)
            .map_err(|_| ResolveError::new(at, "string is not valid UTF-8"))
    }
}

impl<'s> Compiler<'s> {
    fn push(&mut self, p: Plan) -> PlanId {
        self.plans.push(p);
        self.plans.len() - 1
    }

    fn error(&mut self, path: &str, w: NodeId, r: NodeId, why: &str) -> PlanId {
        let msg = format!(
            "{path}: writer type {} cannot be read as reader type {}{why}",
            self.w.describe(w),
            self.r.describe(r)
        );
        self.push(Plan::Error(msg))
    }

    /// Whether a reader named type accepts the writer's name: same
    /// unqualified name, or one of the reader's aliases ("Aliases").
    fn names_match(&self, w: NodeId, r: NodeId) -> bool {
        match (self.w.name_of(w), self.r.name_of(r)) {
            (Some(wn), Some(rn)) => {
                wn.short() == rn.short()
                    || rn
                        .aliases
                        .iter()
                        .any(|a| unqualified(a) == wn.short() || *a == wn.fullname)
            }
            _ => false,
        }
    }

    /// "Schema Resolution": the two schemas match (used to pick union branches).
    fn matches(&self, w: NodeId, r: NodeId, exact: bool) -> bool {
        use Node as N;
        let (wk, rk) = (self.w.kinds()[w], self.r.kinds()[r]);
        match (self.w.node(w), self.r.node(r)) {
            _ if wk == rk && wk.is_primitive() => true,
            (N::Int, N::Long | N::Float | N::Double) | (N::Long, N::Float | N::Double) | (N::Float, N::Double) => {
                !exact
            }
            (N::String, N::Bytes) | (N::Bytes, N::String) => !exact,
            (N::Array(a), N::Array(b)) | (N::Map(a), N::Map(b)) => self.matches(*a, *b, exact),
            (N::Record(_), N::Record(_)) | (N::Enum(_), N::Enum(_)) => self.names_match(w, r),
            (N::Fixed(a), N::Fixed(b)) => a.size == b.size && self.names_match(w, r),
            _ => false,
        }
    }

    fn compile(&mut self, w: NodeId, r: NodeId, path: &str) -> PlanId {
        use Node as N;
        // "if the writer's schema is a union": each branch on its own.
        if let N::Union(wb) = self.w.node(w) {
            let wb = wb.clone();
            let branches = wb.iter().map(|&b| self.compile(b, r, path)).collect();
            return self.push(Plan::WriterUnion(branches));
        }
        match (self.w.node(w), self.r.node(r)) {
            (N::Null, N::Null) => self.push(Plan::Null),
            (N::Boolean, N::Boolean) => self.push(Plan::Boolean),
            (N::Int, N::Int) => self.push(Plan::Int),
            (N::Long, N::Long) => self.push(Plan::Long),
            (N::Float, N::Float) => self.push(Plan::Float),
            (N::Double, N::Double) => self.push(Plan::Double),
            (N::Bytes, N::Bytes) => self.push(Plan::Bytes),
            (N::String, N::String) => self.push(Plan::String),
            (N::Int, N::Long) => self.push(Plan::IntToLong),
            (N::Int, N::Float) => self.push(Plan::IntToFloat),
            (N::Int, N::Double) => self.push(Plan::IntToDouble),
            (N::Long, N::Float) => self.push(Plan::LongToFloat),
            (N::Long, N::Double) => self.push(Plan::LongToDouble),
            (N::Float, N::Double) => self.push(Plan::FloatToDouble),
            (N::String, N::Bytes) => self.push(Plan::StringToBytes),
            (N::Bytes, N::String) => self.push(Plan::BytesToString),
            (N::Fixed(a), N::Fixed(b)) => {
                if !self.names_match(w, r) {
                    self.error(path, w, r, " (fixed types match by name or reader alias)")
                } else if a.size != b.size {
                    self.error(path, w, r, " (fixed sizes differ)")
                } else {
                    self.push(Plan::Fixed(a.size))
                }
            }
            (N::Enum(we), N::Enum(re)) => {
                if !self.names_match(w, r) {
                    return self.error(path, w, r, " (enums match by name or reader alias)");
                }
                let map = we
                    .symbols
                    .iter()
                    .map(|s| match re.symbols.iter().position(|x| x == s) {
                        Some(i) => Ok((i as u32, re.symbols[i].clone())),
                        None => match re.default {
                            Some(d) => Ok((d, re.symbols[d as usize].clone())),
                            None => Err(format!(
                                "{path}: writer symbol {s} is not in reader enum {}, which has no default",
                                re.name.fullname
                            )),
                        },
                    })
                    .collect();
                self.push(Plan::Enum(map))
            }
            (N::Array(wi), N::Array(ri)) => {
                let (wi, ri) = (*wi, *ri);
                let item = self.compile(wi, ri, &format!("{path}[]"));
                self.push(Plan::Array(item))
            }
            (N::Map(wv), N::Map(rv)) => {
                let (wv, rv) = (*wv, *rv);
                let value = self.compile(wv, rv, &format!("{path}{{}}"));
                self.push(Plan::Map(value))
            }
            (N::Record(_), N::Record(_)) => {
                if !self.names_match(w, r) {
                    return self.error(path, w, r, " (records match by name or reader alias)");
                }
                self.record(w, r, path)
            }
            // "if the reader's schema is a union, but the writer's is not":
            // the first branch that matches; same type before promotions.
            (_, N::Union(rb)) => {
                let rb = rb.clone();
                let pick = rb
                    .iter()
                    .position(|&b| self.matches(w, b, true))
                    .or_else(|| rb.iter().position(|&b| self.matches(w, b, false)));
                match pick {
                    Some(i) => {
                        let inner = self.compile(w, rb[i], path);
                        self.push(Plan::ToBranch(i as u32, inner))
                    }
                    None => self.error(path, w, r, " (no branch of the reader's union matches)"),
                }
            }
            _ => {
                let why = match (self.w.node(w), self.r.node(r)) {
                    (N::Long, N::Int) | (N::Double, N::Float | N::Long | N::Int) | (N::Float, N::Long | N::Int) => {
                        " (\"Schema Resolution\" promotes only int→long→float→double; narrowing is refused)"
                    }
                    _ => "",
                };
                self.error(path, w, r, why)
            }
        }
    }

    fn record(&mut self, w: NodeId, r: NodeId, path: &str) -> PlanId {
        if let Some(&id) = self.records.get(&(w, r)) {
            return id;
        }
        let id = self.push(Plan::Pending);
        self.records.insert((w, r), id);
        let (Node::Record(wr), Node::Record(rr)) = (self.w.node(w), self.r.node(r)) else {
            unreachable!("record() is called with two records");
        };
        let names = rr.names.clone();
        let mut used = vec![false; rr.fields.len()];
        let mut steps = Vec::with_capacity(wr.fields.len());
        for wf in &wr.fields {
            let slot = rr.fields.iter().position(|rf| rf.name == wf.name).or_else(|| {
                rr.fields
                    .iter()
                    .position(|rf| rf.aliases.iter().any(|a| **a == *wf.name))
            });
            match slot {
                Some(slot) if !used[slot] => {
                    used[slot] = true;
                    let fpath = format!("{path}.{}", rr.fields[slot].name);
                    let plan = self.compile(wf.ty, rr.fields[slot].ty, &fpath);
                    steps.push(FieldStep::Read { plan, slot });
                }
                _ => steps.push(FieldStep::Skip(wf.ty)),
            }
        }
        let mut defaults = Vec::new();
        for (slot, rf) in rr.fields.iter().enumerate() {
            if used[slot] {
                continue;
            }
            match &rf.default {
                Some(d) => defaults.push((slot, d.clone())),
                None => {
                    self.plans[id] = Plan::Error(format!(
                        "{path}.{}: the reader's field has no default and the writer's record {} has no field of that name or alias",
                        rf.name, wr.name.fullname
                    ));
                    return id;
                }
            }
        }
        self.plans[id] = Plan::Record(RecordPlan { steps, names, defaults });
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_with(writer: &Schema, reader: &Schema, bytes: &[u8]) -> Result<Datum, ResolveError> {
        Resolver::new(writer, reader).read(bytes)
    }

    fn resolve(w: &str, r: &str, datum: &Datum) -> Result<Datum, ResolveError> {
        let (ws, rs) = (Schema::of(w), Schema::of(r));
        let mut bytes = Vec::new();
        crate::generic::avro::encode(&ws, datum, &mut bytes).unwrap();
        read_with(&ws, &rs, &bytes)
    }

    #[test]
    fn every_promotion() {
        let cases = [
            ("\"int\"", "\"long\"", Datum::Int(-7), Datum::Long(-7)),
            (
                "\"int\"",
                "\"float\"",
                Datum::Int(16_777_217),
                Datum::Float(16_777_216.0),
            ),
            ("\"int\"", "\"double\"", Datum::Int(3), Datum::Double(3.0)),
            (
                "\"long\"",
                "\"float\"",
                Datum::Long(1 << 40),
                Datum::Float((1u64 << 40) as f32),
            ),
            ("\"long\"", "\"double\"", Datum::Long(-5), Datum::Double(-5.0)),
            ("\"float\"", "\"double\"", Datum::Float(0.5), Datum::Double(0.5)),
            (
                "\"string\"",
                "\"bytes\"",
                Datum::String("é".into()),
                Datum::Bytes(vec![0xc3, 0xa9]),
            ),
            (
                "\"bytes\"",
                "\"string\"",
                Datum::Bytes(b"ok".to_vec()),
                Datum::String("ok".into()),
            ),
        ];
        for (w, r, input, want) in cases {
            assert_eq!(resolve(w, r, &input).unwrap(), want, "{w} -> {r}");
        }
    }

    #[test]
    fn narrowing_is_refused_with_the_path() {
        let w = r#"{"type":"record","name":"P","fields":[{"name":"stock","type":"long"}]}"#;
        let r = r#"{"type":"record","name":"P","fields":[{"name":"stock","type":"int"}]}"#;
        let e = resolve(w, r, &Datum::record(vec![("stock".into(), Datum::Long(1))])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "P.stock: writer type long cannot be read as reader type int (\"Schema Resolution\" promotes only int→long→float→double; narrowing is refused) (at byte 0)"
        );
        let bad = resolve("\"bytes\"", "\"string\"", &Datum::Bytes(vec![0xff])).unwrap_err();
        assert_eq!(
            bad.message,
            "writer bytes promoted to a reader string are not valid UTF-8"
        );
    }

    #[test]
    fn fields_by_name_alias_default_and_skip() {
        let w = r#"{"type":"record","name":"R","fields":[
            {"name":"a","type":"int"},
            {"name":"gone","type":{"type":"map","values":{"type":"array","items":["null","string"]}}},
            {"name":"old","type":"string"},
            {"name":"z","type":"boolean"}]}"#;
        let r = r#"{"type":"record","name":"R","fields":[
            {"name":"z","type":"boolean"},
            {"name":"new","aliases":["old"],"type":"string"},
            {"name":"added","type":{"type":"record","name":"S","fields":[{"name":"x","type":"long","default":4}]},"default":{}},
            {"name":"a","type":"long"}]}"#;
        let gone = Datum::Map(vec![(
            "k".into(),
            Datum::Array(vec![
                Datum::Union(1, Box::new(Datum::String("s".into()))),
                Datum::Union(0, Box::new(Datum::Null)),
            ]),
        )]);
        let input = Datum::record(vec![
            ("a".into(), Datum::Int(1)),
            ("gone".into(), gone),
            ("old".into(), Datum::String("o".into())),
            ("z".into(), Datum::Boolean(true)),
        ]);
        assert_eq!(
            resolve(w, r, &input).unwrap().to_json(),
            r#"{"z":true,"new":"o","added":{"x":4},"a":1}"#
        );
        let r_nodefault = r#"{"type":"record","name":"R","fields":[{"name":"q","type":"int"}]}"#;
        assert_eq!(
            resolve(w, r_nodefault, &input).unwrap_err().message,
            "R.q: the reader's field has no default and the writer's record R has no field of that name or alias"
        );
    }

    #[test]
    fn enums_and_unions() {
        let we = r#"{"type":"enum","name":"S","symbols":["A","B","X"]}"#;
        let re = r#"{"type":"enum","name":"S","symbols":["B","A","U"],"default":"U"}"#;
        let re_strict = r#"{"type":"enum","name":"S","symbols":["B","A"]}"#;
        assert_eq!(
            resolve(we, re, &Datum::Enum(0, "A".into())).unwrap(),
            Datum::Enum(1, "A".into())
        );
        assert_eq!(
            resolve(we, re, &Datum::Enum(2, "X".into())).unwrap(),
            Datum::Enum(2, "U".into())
        );
        assert_eq!(
            resolve(we, re_strict, &Datum::Enum(2, "X".into())).unwrap_err().message,
            "S: writer symbol X is not in reader enum S, which has no default"
        );
        // union -> non-union, branch by branch
        let u = r#"["null","int"]"#;
        assert_eq!(
            resolve(u, "\"long\"", &Datum::Union(1, Box::new(Datum::Int(3)))).unwrap(),
            Datum::Long(3)
        );
        assert_eq!(
            resolve(u, "\"long\"", &Datum::Union(0, Box::new(Datum::Null)))
                .unwrap_err()
                .message,
            "$: writer type null cannot be read as reader type long"
        );
        // non-union -> union: same type first, then a promotion
        assert_eq!(
            resolve("\"int\"", r#"["null","long","int"]"#, &Datum::Int(3)).unwrap(),
            Datum::Union(2, Box::new(Datum::Int(3)))
        );
        assert_eq!(
            resolve("\"int\"", r#"["null","double"]"#, &Datum::Int(3)).unwrap(),
            Datum::Union(1, Box::new(Datum::Double(3.0)))
        );
        // union -> union
        assert_eq!(
            resolve(
                r#"["int","string"]"#,
                r#"["string","null","long"]"#,
                &Datum::Union(0, Box::new(Datum::Int(9)))
            )
            .unwrap(),
            Datum::Union(2, Box::new(Datum::Long(9)))
        );
    }

    #[test]
    fn hostile_bytes_are_errors() {
        let ws = Schema::of(r#"{"type":"array","items":"null"}"#);
        // 2^62 nulls in one block: no bytes each, far more than the input justifies.
        let mut huge = Vec::new();
        varint::write_i64_zigzag(&mut huge, 1 << 62);
        let e = read_with(&ws, &ws, &huge).unwrap_err();
        assert!(e.message.contains("exceeds what the input can justify"), "{e}");
        let ss = Schema::of(r#"{"type":"array","items":"string"}"#);
        let mut count = Vec::new();
        varint::write_i64_zigzag(&mut count, 1 << 40);
        assert!(
            read_with(&ss, &ss, &count)
                .unwrap_err()
                .message
                .contains("block count of 1099511627776 exceeds")
        );
        let rec = Schema::of(r#"{"type":"record","name":"L","fields":[{"name":"n","type":["null","L"]}]}"#);
        let deep = vec![2u8; 10_000];
        assert!(
            read_with(&rec, &rec, &deep)
                .unwrap_err()
                .message
                .contains("deeper than")
        );
        // A record of itself, many times over: min sizes stay cheap to find.
        let fields: Vec<String> = (0..200)
            .map(|i| format!("{{\"name\":\"f{i}\",\"type\":\"R\"}}"))
            .collect();
        let wide = format!(
            "{{\"type\":\"record\",\"name\":\"R\",\"fields\":[{{\"name\":\"a\",\"type\":{{\"type\":\"array\",\"items\":\"R\"}}}},{}]}}",
            fields.join(",")
        );
        let ws = Schema::of(&wide);
        let rs = Schema::of(r#"{"type":"record","name":"R","fields":[]}"#);
        assert!(read_with(&ws, &rs, &[0x02, 0x00]).is_err());
        let long = Schema::of("\"long\"");
        assert!(read_with(&long, &long, &[0xff; 11]).is_err());
    }
}

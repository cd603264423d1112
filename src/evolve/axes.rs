//! The evolution matrix's axes, [`Step`] × [`Row`] × [`Direction`], and
//! the v1 data and schema every cell starts from. The lab's parent module
//! runs the cells; its children (one per format) take these types from here.

use crate::generic::datum::Datum;
use crate::generic::resolve::Resolver;
use crate::generic::schema::Schema;
use crate::model::Catalog;

/// One change to the catalog schema.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    AddField,
    RemoveField,
    WidenInt,
    AddEnumSymbol,
    RenameField,
    ReorderFields,
    OptionalToRequired,
}

impl Step {
    pub const ALL: [Step; 7] = [
        Step::AddField,
        Step::RemoveField,
        Step::WidenInt,
        Step::AddEnumSymbol,
        Step::RenameField,
        Step::ReorderFields,
        Step::OptionalToRequired,
    ];

    /// The directory name under `schemas/evolution/`.
    pub fn id(self) -> &'static str {
        match self {
            Step::AddField => "add-field",
            Step::RemoveField => "remove-field",
            Step::WidenInt => "widen-int",
            Step::AddEnumSymbol => "add-enum-symbol",
            Step::RenameField => "rename-field",
            Step::ReorderFields => "reorder-fields",
            Step::OptionalToRequired => "optional-to-required",
        }
    }

    pub fn from_id(id: &str) -> Option<Step> {
        Step::ALL.into_iter().find(|s| s.id() == id)
    }

    /// What v2 changes.
    pub fn change(self) -> &'static str {
        match self {
            Step::AddField => "Product gains `brand` (default `\"\"`)",
            Step::RemoveField => "Product loses `image_url`",
            Step::WidenInt => "`stock` int32 → int64",
            Step::AddEnumSymbol => "`Status` gains `ARCHIVED`",
            Step::RenameField => "`review_count` → `reviews` (Avro alias)",
            Step::ReorderFields => "Product's fields in reverse order",
            Step::OptionalToRequired => "`discount_percent` optional → required (default 0)",
        }
    }

    /// The v2 Avro schema.
    pub fn avsc(self) -> &'static str {
        match self {
            Step::AddField => include_str!("../../schemas/evolution/add-field/catalog.avsc"),
            Step::RemoveField => include_str!("../../schemas/evolution/remove-field/catalog.avsc"),
            Step::WidenInt => include_str!("../../schemas/evolution/widen-int/catalog.avsc"),
            Step::AddEnumSymbol => include_str!("../../schemas/evolution/add-enum-symbol/catalog.avsc"),
            Step::RenameField => include_str!("../../schemas/evolution/rename-field/catalog.avsc"),
            Step::ReorderFields => include_str!("../../schemas/evolution/reorder-fields/catalog.avsc"),
            Step::OptionalToRequired => include_str!("../../schemas/evolution/optional-to-required/catalog.avsc"),
        }
    }

    /// (v1 name, v2 name) of a renamed field.
    pub fn rename(self) -> Option<(&'static str, &'static str)> {
        match self {
            Step::RenameField => Some(("review_count", "reviews")),
            _ => None,
        }
    }
}

/// Which version writes and which reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// v1 writer → v2 reader (the reader moved ahead: backward compatibility).
    OldToNew,
    /// v2 writer → v1 reader (the writer moved ahead: forward compatibility).
    NewToOld,
}

impl Direction {
    pub const ALL: [Direction; 2] = [Direction::OldToNew, Direction::NewToOld];

    pub fn label(self) -> &'static str {
        match self {
            Direction::OldToNew => "v1 writer → v2 reader",
            Direction::NewToOld => "v2 writer → v1 reader",
        }
    }
}

/// One reader in the matrix: a format, and for the self-describing formats
/// the reader's mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Row {
    /// JSON, today's reader: unknown keys skipped, missing keys refused.
    Json,
    /// JSON, tolerant reader: missing keys take their default too.
    JsonTolerant,
    Msgpack,
    MsgpackTolerant,
    Protobuf,
    Avro,
    Flatbuffers,
}

impl Row {
    pub const ALL: [Row; 7] = [
        Row::Json,
        Row::JsonTolerant,
        Row::Msgpack,
        Row::MsgpackTolerant,
        Row::Protobuf,
        Row::Avro,
        Row::Flatbuffers,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Row::Json => "json",
            Row::JsonTolerant => "json-tolerant",
            Row::Msgpack => "msgpack",
            Row::MsgpackTolerant => "msgpack-tolerant",
            Row::Protobuf => "protobuf",
            Row::Avro => "avro",
            Row::Flatbuffers => "flatbuffers",
        }
    }

    pub fn from_name(name: &str) -> Option<Row> {
        Row::ALL.into_iter().find(|r| r.name() == name)
    }

    /// The codec whose bytes the row reads (for the explainer).
    pub fn format(self) -> crate::codec::Format {
        match self {
            Row::Json | Row::JsonTolerant => crate::codec::Format::Json,
            Row::Msgpack | Row::MsgpackTolerant => crate::codec::Format::Msgpack,
            Row::Protobuf => crate::codec::Format::Protobuf,
            Row::Avro => crate::codec::Format::Avro,
            Row::Flatbuffers => crate::codec::Format::Flatbuffers,
        }
    }
}

/// The v1 data every cell starts from: two fixture products, the first
/// without a discount, the second with 15 %.
pub fn v1_catalog() -> Catalog {
    let mut c = crate::fixtures::catalog(2);
    c.products[0].discount_percent = None;
    c.products[1].discount_percent = Some(15);
    c
}

/// The v1 Avro schema (`schemas/catalog.avsc`).
pub fn v1_schema() -> Schema {
    Schema::parse(crate::codec::avro::SCHEMA.as_bytes()).expect("schemas/catalog.avsc parses")
}

/// A v1 catalog as a datum: its production Avro encoding read back with
/// the v1 schema. Every reader's result is compared in this shape.
pub fn catalog_datum(c: &Catalog) -> Result<Datum, String> {
    let bytes = crate::codec::Format::Avro
        .encode_to_vec(&c.products)
        .map_err(|e| e.to_string())?;
    let s = v1_schema();
    Resolver::new(&s, &s).read(&bytes).map_err(|e| e.to_string())
}

/// `encode_v2` and `decode_v2` of a format: one call to the step's module
/// (`add_field`, …, one per [`Step`], with `encode` and `decode`) made in
/// the format's file by its `*_step!` macro.
macro_rules! v2_by_step {
    () => {
        /// Encodes a v2 catalog datum with the step's generated code.
        pub fn encode_v2(step: Step, d: &Datum) -> Vec<u8> {
            match step {
                Step::AddField => add_field::encode(d),
                Step::RemoveField => remove_field::encode(d),
                Step::WidenInt => widen_int::encode(d),
                Step::AddEnumSymbol => add_enum_symbol::encode(d),
                Step::RenameField => rename_field::encode(d),
                Step::ReorderFields => reorder_fields::encode(d),
                Step::OptionalToRequired => optional_to_required::encode(d),
            }
        }

        /// Reads bytes with the step's generated v2 code.
        pub fn decode_v2(step: Step, bytes: &[u8]) -> Result<Datum, String> {
            match step {
                Step::AddField => add_field::decode(bytes),
                Step::RemoveField => remove_field::decode(bytes),
                Step::WidenInt => widen_int::decode(bytes),
                Step::AddEnumSymbol => add_enum_symbol::decode(bytes),
                Step::RenameField => rename_field::decode(bytes),
                Step::ReorderFields => reorder_fields::decode(bytes),
                Step::OptionalToRequired => optional_to_required::decode(bytes),
            }
        }
    };
}
pub(crate) use v2_by_step;

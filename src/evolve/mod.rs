//! The schema evolution lab: what each format does when the writer's
//! schema and the reader's disagree.
//!
//! Every [`Step`] is one change to the catalog schema (v1 → v2, the files in
//! `schemas/evolution/<step>/`). For each step, row (a format's reader) and
//! [`Direction`], [`run`] writes real bytes with one version's real code,
//! reads them with the other version's real code, and [`classify`]
//! compares what was meant with what was read:
//!
//! - v1 writers and readers are the production codecs (`crate::codec`);
//! - v2 writers and readers are the generated prost and flatc code of the
//!   step (`generated`), and for Avro our writer plus the schema-resolution
//!   reader (`crate::generic::resolve`), given both schemas.
//!
//! The data is two catalog products: one without a discount, one with. The
//! v2 writer's data is the v1 data changed by the step where the change
//! matters: a `brand` of `"Acme"`, a `stock` of 5,000,000,000, the status
//! `ARCHIVED`, a discount of 0 where v1 had none.

pub mod access;
mod avro;
pub mod axes;
pub mod classify;
pub mod cli;
pub mod decode;
mod flatbuffers;
// flatc output uses unchecked reads after verification; generated code only.
#[allow(unsafe_code, clippy::all, clippy::pedantic, missing_docs, unused_imports, dead_code)]
pub mod generated;
mod protobuf;
pub mod shape;

use crate::generic::datum::{Datum, Name};
use crate::generic::schema::Schema;
use crate::model::Catalog;
pub use axes::{Direction, Row, Step, catalog_datum, v1_catalog, v1_schema};
pub use classify::{Class, Outcome, classify};

/// One measured cell.
#[derive(Clone, Debug)]
pub struct Cell {
    pub step: Step,
    pub row: Row,
    pub direction: Direction,
    /// The writer's payload.
    pub bytes: Vec<u8>,
    /// What the writer meant, in the writer's field names.
    pub written: Datum,
    /// What the reader returned, or its error.
    pub read: Result<Datum, String>,
    pub outcome: Outcome,
}

/// The v2 writer's data for `step`: the v1 datum with the step's change.
pub fn v2_datum(step: Step, v1: &Datum) -> Datum {
    let Some(Datum::Array(products)) = v1.field("products") else {
        return v1.clone();
    };
    let products = products
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let Datum::Record(fields) = p else { return p.clone() };
            let mut f = fields.clone().into_pairs();
            let set = |f: &mut Vec<(Name, Datum)>, name: &str, v: Datum| {
                if let Some(slot) = f.iter_mut().find(|(n, _)| &**n == name) {
                    slot.1 = v;
                }
            };
            match step {
                Step::AddField => f.push(("brand".into(), Datum::String("Acme".into()))),
                Step::RemoveField => f.retain(|(n, _)| &**n != "image_url"),
                Step::WidenInt => {
                    let stock = access::Fields(p).long("stock");
                    let v = if i == 0 { 5_000_000_000 } else { stock };
                    set(&mut f, "stock", Datum::Long(v));
                    if i == 0 {
                        set(&mut f, "in_stock", Datum::Boolean(true));
                    }
                }
                Step::AddEnumSymbol => {
                    if i == 0 {
                        set(&mut f, "status", Datum::Enum(3, "ARCHIVED".into()));
                    }
                }
                Step::RenameField => {
                    if let Some(slot) = f.iter_mut().find(|(n, _)| &**n == "review_count") {
                        slot.0 = "reviews".into();
                    }
                }
                Step::ReorderFields => f.reverse(),
                Step::OptionalToRequired => {
                    let d = access::Fields(p).opt_int("discount_percent").unwrap_or(0);
                    set(&mut f, "discount_percent", Datum::Int(d));
                }
            }
            Datum::record(f)
        })
        .collect();
    access::catalog(products)
}

/// Runs one cell: write, read, classify.
pub fn run(step: Step, row: Row, direction: Direction) -> Result<Cell, String> {
    let catalog = v1_catalog();
    let v1 = catalog_datum(&catalog)?;
    let v2 = v2_datum(step, &v1);
    let (bytes, read) = match (row, direction) {
        (Row::Json | Row::JsonTolerant | Row::Msgpack | Row::MsgpackTolerant, d) => {
            self_describing(step, row, d, &catalog, &v2)?
        }
        (Row::Avro, d) => avro::cell(step, d, &catalog, &v2)?,
        (Row::Protobuf | Row::Flatbuffers, Direction::OldToNew) => {
            let bytes = row
                .format()
                .encode_to_vec(&catalog.products)
                .map_err(|e| e.to_string())?;
            let read = match row {
                Row::Protobuf => protobuf::decode_v2(step, &bytes),
                _ => flatbuffers::decode_v2(step, &bytes),
            };
            (bytes, read)
        }
        (Row::Protobuf | Row::Flatbuffers, Direction::NewToOld) => {
            let bytes = match row {
                Row::Protobuf => protobuf::encode_v2(step, &v2),
                _ => flatbuffers::encode_v2(step, &v2),
            };
            let read = production(row.format(), &bytes);
            (bytes, read)
        }
    };
    let (written, rename) = match direction {
        Direction::OldToNew => (v1, step.rename()),
        Direction::NewToOld => (v2, step.rename().map(|(a, b)| (b, a))),
    };
    let outcome = classify(&written, &read, rename);
    Ok(Cell {
        step,
        row,
        direction,
        bytes,
        written,
        read,
        outcome,
    })
}

/// JSON and MessagePack: v1 bytes from the production encoder, v2 bytes
/// from the v2 datum. A v1 reader is the production decoder, strict
/// (`decode`) or tolerant (`decode_tolerant`: missing keys defaulted); a v2
/// reader, which the production code has no counterpart for, is the shape
/// reader ([`shape`]) over the step's `.avsc`, in the same mode.
fn self_describing(
    step: Step,
    row: Row,
    d: Direction,
    catalog: &Catalog,
    v2: &Datum,
) -> Result<(Vec<u8>, Result<Datum, String>), String> {
    let format = row.format();
    let mode = match row {
        Row::JsonTolerant | Row::MsgpackTolerant => shape::Mode::Tolerant,
        _ => shape::Mode::Strict,
    };
    let bytes = match d {
        Direction::OldToNew => format.encode_to_vec(&catalog.products).map_err(|e| e.to_string())?,
        Direction::NewToOld if format == crate::codec::Format::Json => shape::json_text(v2),
        Direction::NewToOld => shape::msgpack_bytes(v2)?,
    };
    let reader_schema = match d {
        Direction::OldToNew => Schema::parse(step.avsc().as_bytes()).map_err(|e| e.to_string())?,
        Direction::NewToOld if mode == shape::Mode::Strict => return Ok((bytes.clone(), production(format, &bytes))),
        Direction::NewToOld => return Ok((bytes.clone(), production_tolerant(format, &bytes))),
    };
    let tree = match format {
        crate::codec::Format::Json => crate::generic::value::json::parse(&bytes),
        _ => crate::generic::value::msgpack::parse(&bytes),
    };
    let read = tree
        .map_err(|e| e.to_string())
        .and_then(|t| shape::read(&reader_schema, &t, mode));
    Ok((bytes, read))
}

/// Reads bytes with a production (v1) decoder, as a datum.
fn production(format: crate::codec::Format, bytes: &[u8]) -> Result<Datum, String> {
    let c = format.decode(bytes).map_err(|e| e.to_string())?;
    catalog_datum(&c)
}

/// Reads bytes with a production (v1) decoder in tolerant mode (missing
/// keys defaulted), as a datum.
fn production_tolerant(format: crate::codec::Format, bytes: &[u8]) -> Result<Datum, String> {
    let c = match format {
        crate::codec::Format::Json => crate::codec::json::decode_tolerant(bytes),
        _ => crate::codec::msgpack::decode_tolerant(bytes),
    }
    .map_err(|e| e.to_string())?;
    catalog_datum(&c)
}

/// Every cell, step by step, row by row, both directions.
pub fn matrix() -> Result<Vec<Cell>, String> {
    let mut cells = Vec::new();
    for step in Step::ALL {
        for row in Row::ALL {
            for d in Direction::ALL {
                cells.push(run(step, row, d)?);
            }
        }
    }
    Ok(cells)
}

/// The matrix as a Markdown table (what `wirebench evolve` prints and
/// docs/EVOLUTION.md quotes).
pub fn matrix_markdown(cells: &[Cell]) -> String {
    let mut out =
        String::from("| step | format | v1 writer → v2 reader | v2 writer → v1 reader |\n|---|---|---|---|\n");
    for step in Step::ALL {
        for row in Row::ALL {
            let find = |d: Direction| {
                cells
                    .iter()
                    .find(|c| c.step == step && c.row == row && c.direction == d)
                    .map_or_else(|| "(not run)".to_string(), |c| c.outcome.to_string())
            };
            out.push_str(&format!(
                "| `{}` | {} | {} | {} |\n",
                step.id(),
                row.name(),
                find(Direction::OldToNew),
                find(Direction::NewToOld)
            ));
        }
    }
    out
}

/// Every cell of the matrix as the browser page shows it (`wirebench serve`
/// hands these to the server: `http` sits below this layer).
pub fn page_cells() -> Result<Vec<crate::serve::page_data::EvolutionCell>, String> {
    Ok(matrix()?
        .into_iter()
        .map(|c| crate::serve::page_data::EvolutionCell {
            step: c.step.id().to_string(),
            change: c.step.change().to_string(),
            row: c.row.name().to_string(),
            format: c.row.format(),
            direction: c.direction.label().to_string(),
            // `correct`, `default`, `drops`, `wrong` or `refuses`.
            class: format!("{:?}", c.outcome.class()).to_lowercase(),
            outcome: c.outcome.to_string().replace("**", ""),
            bytes: c.bytes,
        })
        .collect())
}

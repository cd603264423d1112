//! Avro cells: the writer's bytes are read by the schema-resolution reader
//! (`crate::generic::resolve`) given the writer's and the reader's
//! schema, as the Avro specification's "Schema Resolution" section
//! prescribes. v1 bytes come from the production encoder, v2 bytes from the
//! schema-driven Avro encoder ([`crate::generic::avro::encode`]) with the
//! step's `.avsc`: it writes enums by symbol, so v1 data fits the v2 schema.

use super::axes::{Direction, Step, v1_schema};
use crate::generic::datum::Datum;
use crate::generic::resolve::Resolver;
use crate::generic::schema::Schema;
use crate::model::Catalog;

/// (writer bytes, reader result) of one Avro cell.
pub fn cell(
    step: Step,
    d: Direction,
    catalog: &Catalog,
    v2: &Datum,
) -> Result<(Vec<u8>, Result<Datum, String>), String> {
    let v1s = v1_schema();
    let v2s = Schema::parse(step.avsc().as_bytes()).map_err(|e| format!("{}: {e}", step.id()))?;
    Ok(match d {
        Direction::OldToNew => {
            let bytes = crate::codec::Format::Avro
                .encode_to_vec(&catalog.products)
                .map_err(|e| e.to_string())?;
            let read = Resolver::new(&v1s, &v2s).read(&bytes).map_err(|e| e.to_string());
            (bytes, read)
        }
        Direction::NewToOld => {
            let mut bytes = Vec::new();
            crate::generic::avro::encode(&v2s, v2, &mut bytes).map_err(|e| e.to_string())?;
            let read = Resolver::new(&v2s, &v1s).read(&bytes).map_err(|e| e.to_string());
            (bytes, read)
        }
    })
}

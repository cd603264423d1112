//! Adapters for the codec entry points that only some benchmark rows use:
//! FlatBuffers verify / direct field access, and Protobuf on prost's
//! generated types without our domain conversion.
//!
//! They live here, one function each, so that wiring a codec's function when
//! it lands is a one-line change, and a row whose function is missing is
//! skipped with a note (never faked). Each returns `Err(reason)` when the
//! operation is unavailable or fails.

use crate::model::Product;

/// prost's generated `Catalog` (a stand-in while it is not available).
pub type PbCatalog = Unavailable;

/// Stand-in for a generated type that has not landed yet.
#[derive(Debug, Default)]
pub struct Unavailable {
    pub products: Vec<()>,
}

const MISSING: &str = "not available in this build";

/// `codec::flatbuffers::verify`: the verifier alone, no field reads.
pub fn fb_verify(_bytes: &[u8]) -> Result<(), String> {
    Err(format!("codec::flatbuffers::verify {MISSING}"))
}

/// `codec::flatbuffers::read_direct`: verify, then read every field in place
/// (no conversion to domain types); returns a checksum of what it read.
pub fn fb_read_direct(_bytes: &[u8]) -> Result<u64, String> {
    Err(format!("codec::flatbuffers::read_direct {MISSING}"))
}

/// `codec::protobuf::to_generated`: domain types → prost messages.
pub fn pb_to_generated(_products: &[Product]) -> Result<PbCatalog, String> {
    Err(format!("codec::protobuf::to_generated {MISSING}"))
}

/// `codec::protobuf::encode_generated`: prost encoding of prebuilt messages.
pub fn pb_encode_generated(_catalog: &PbCatalog, _out: &mut Vec<u8>) -> Result<(), String> {
    Err(format!("codec::protobuf::encode_generated {MISSING}"))
}

/// `codec::protobuf::decode_generated`: prost decoding into generated types
/// only (no conversion, no validation).
pub fn pb_decode_generated(_bytes: &[u8]) -> Result<PbCatalog, String> {
    Err(format!("codec::protobuf::decode_generated {MISSING}"))
}

/// Number of products in a generated catalog (`catalog.products.len()`).
pub fn pb_len(catalog: &PbCatalog) -> usize {
    catalog.products.len()
}

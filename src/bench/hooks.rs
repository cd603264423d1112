//! Adapters for the codec entry points that only some benchmark rows use:
//! FlatBuffers verify / direct field access, and Protobuf on prost's
//! generated types without our domain conversion.
//!
//! They live here, one function each, so the benchmark rows and the peers
//! bench call the codecs through one place, with errors as strings. Each
//! returns `Err(reason)` when the operation fails; the row is then skipped
//! with a note, never faked.

use crate::model::Product;

/// prost's generated `Catalog`.
pub type PbCatalog = crate::codec::protobuf::generated::Catalog;

/// `codec::flatbuffers::verify`: the verifier alone, no field reads.
pub fn fb_verify(bytes: &[u8]) -> Result<(), String> {
    crate::codec::flatbuffers::verify(bytes).map_err(|e| e.to_string())
}

/// `codec::flatbuffers::read_direct`: verify, then read every field in place
/// (no conversion to domain types); returns a checksum of what it read.
pub fn fb_read_direct(bytes: &[u8]) -> Result<u64, String> {
    crate::codec::flatbuffers::read_direct(bytes).map_err(|e| e.to_string())
}

/// `codec::protobuf::to_generated`: domain types → prost messages.
pub fn pb_to_generated(products: &[Product]) -> Result<PbCatalog, String> {
    Ok(crate::codec::protobuf::to_generated(products))
}

/// `codec::protobuf::encode_generated`: prost encoding of prebuilt messages.
pub fn pb_encode_generated(catalog: &PbCatalog, out: &mut Vec<u8>) -> Result<(), String> {
    crate::codec::protobuf::encode_generated(catalog, out).map_err(|e| e.to_string())
}

/// `codec::protobuf::decode_generated`: prost decoding into generated types
/// only (no conversion, no validation).
pub fn pb_decode_generated(bytes: &[u8]) -> Result<PbCatalog, String> {
    crate::codec::protobuf::decode_generated(bytes).map_err(|e| e.to_string())
}

/// Number of products in a generated catalog (`catalog.products.len()`).
pub fn pb_len(catalog: &PbCatalog) -> usize {
    catalog.products.len()
}

//! FlatBuffers through flatc-generated code and the official `flatbuffers` crate.
//!
//! `generated.rs` is `flatc --rust` output (flatc 25.12.19, matching the
//! crate) for `schemas/catalog.fbs`, stamped with the schema's CRC-32 (`make
//! generate-fbs` rewrites it; `tests/generated.rs` checks the stamp).
//! [`encode`] builds a buffer with the generated builders, in the caller's
//! `Vec` sized exactly beforehand (`encode.rs`); [`builder`] builds the same
//! catalog as a user of the crate would (another layout; shared strings for
//! the page). Three paths read a buffer:
//!
//! - **the reader** (`view.rs`): [`view::decode_view`] returns a view that
//!   borrows the buffer, [`decode`] copies each product out as it reads. It
//!   makes the crate's verifier's checks object by object, then the data
//!   model's rules and unique ids; the crate's verifier words its errors;
//! - **the verifier** (`verifier.rs`): [`verify`] checks the file identifier
//!   and runs the crate's `Verifier` with limits from the buffer size (the
//!   `FlatbuffersVerify` row), and words every structural error;
//! - **direct access** (`direct.rs`): [`read_direct`] verifies, then reads
//!   every field in place through the generated accessors (the
//!   `FlatbuffersDirect` row: what "no parse step" costs).
//!
//! # Wire format
//!
//! Spec: <https://flatbuffers.dev/internals/> and
//! <https://flatbuffers.dev/schema/>. Every scalar is little-endian and
//! aligned to its size *relative to the buffer start*. A **uoffset** (u32)
//! points forward: target = position + value; the buffer starts with the
//! root table's. A table starts with an **soffset** (i32): its vtable is at
//! table − value. A vtable is **voffset**s (u16): `[vtable bytes, table
//! bytes, one per field in schema order]`, each field's position from the
//! table start; 0, or an entry past the vtable, means "absent: the default".
//! A string is a u32 length, the UTF-8 bytes, a NUL (not counted), padding;
//! a vector a u32 count then the elements (tables and strings as uoffsets);
//! a struct lies inline in its table, without a vtable.
//!
//! The start of `encode(&[one small product])` (all 216 bytes are annotated
//! in `tests/flatbuffers.rs`):
//!
//! ```text
//! 0   10 00 00 00        root uoffset: Catalog table at 0 + 16
//! 4   57 42 43 54        file identifier "WBCT"
//! 8   00 00              padding
//! 10  06 00 08 00 04 00  Catalog vtable: 6 bytes, table 8 bytes, products at +4
//! 16  06 00 00 00        Catalog table: soffset 6 → vtable at 16 − 6 = 10
//! 20  04 00 00 00        products: uoffset → vector at 20 + 4 = 24
//! 24  01 00 00 00        vector length 1
//! 28  2c 00 00 00        element 0 → Product table at 28 + 44 = 72
//! 32  00 00              padding
//! 34  26 00 54 00 …      Product vtable: 38 bytes (17 slots), table 84 bytes;
//!                        slot 14 (discount_percent) is 00 00: null
//! 72  26 00 00 00        Product table: soffset 38 → vtable at 34
//! 76  00 00 01 01        padding, in_stock = 1, status = 1 (DRAFT)
//! 80  4c 00 00 00 …      sku → 156, name → 164, description, currency, …
//! 156 02 00 00 00 53 31 00 00   sku: length 2, "S1", NUL, padding
//! ```
//!
//! The schema's choices: **`Dimensions` is a struct**, 16 bytes inline (no
//! uoffset, soffset, vtable or indirection per product, for an evolvability
//! a fixed size does not need). **Strings, vectors and `dimensions` are
//! `(required)`**: the encoder always writes them, so the verifier refuses a
//! buffer without one (`missing required field products[i].sku`) instead of
//! the decoder reading `""`. **Scalars equal to their default are not
//! written** (no `force_defaults`) and read back as the default, so
//! `discount_percent` is an **optional scalar** (`int = null`): absent is
//! null, a present 0 is written. **File identifier `WBCT`** at bytes 4..8
//! refuses a non-catalog before the verifier runs (and `flatc --annotate`
//! knows the file). A bool is any non-zero byte (the crate's rule): 0x02
//! decodes to `true` and re-encodes as 0x01.
//!
//! Verifier limits (per buffer of `len` bytes): depth [`MAX_DEPTH`] (Catalog →
//! Product → Variant), at most `len / 8 + 1` tables, and an apparent size
//! (every object counted each time an offset reaches it) of at most
//! [`APPARENT_SIZE_FACTOR`] × `len`, which stops a small buffer whose offsets
//! all point at one big string from decoding into gigabytes.

// flatc's output: `unsafe` accessors (sound after the verifier; see
// verifier.rs) and code style that is flatc's, not ours.
#[allow(unsafe_code, clippy::all)]
#[rustfmt::skip]
pub mod generated;

pub mod builder;
mod direct;
mod encode;
mod verifier;
pub mod view;

pub use direct::{read_direct, verify};
pub use encode::encode;
pub use verifier::{APPARENT_SIZE_FACTOR, IDENTIFIER, MAX_DEPTH, verifier_options};

use crate::codec::DecodeError;
use crate::model::Catalog;

/// Decodes a whole FlatBuffers payload into a validated catalog: the reader
/// of [`view`], each product copied as it is read.
pub fn decode(bytes: &[u8]) -> Result<Catalog, DecodeError> {
    view::decode(bytes)
}

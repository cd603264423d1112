//! FlatBuffers through flatc-generated code and the official `flatbuffers` crate.
//!
//! The schema is `schemas/catalog.fbs`; `generated.rs` is `flatc --rust`
//! output (flatc 25.12.19, matching the crate), committed and stamped with the
//! schema's CRC-32 (`make generate-fbs` rewrites it; `tests/generated.rs`
//! fails when the stamp and the schema disagree). This module owns the
//! conversion between our domain types and the buffer. Three paths read a
//! buffer, each for one purpose:
//!
//! - **the reader** (`view.rs`): [`view::decode_view`] checks a buffer and
//!   returns a view that borrows it, and [`decode`] is the same read copying
//!   each product into owned types as it goes. It makes the crate's
//!   verifier's checks object by object as it reads, then the data model's
//!   rules and unique ids; when it refuses a buffer, the crate's verifier
//!   words the error;
//! - **the verifier** (`verifier.rs`): [`verify`] checks the file identifier
//!   and runs the crate's `Verifier` with limits from the buffer size (the
//!   `FlatbuffersVerify` benchmark row), and words every structural error;
//! - **direct access** (`direct.rs`): [`read_direct`] verifies, then reads
//!   every field in place through the generated accessors without building
//!   anything (the `FlatbuffersDirect` row: what "no parse step" costs).
//!
//! [`encode`] builds a buffer from `&[Product]` with the generated builders
//! (`encode.rs`, built in the caller's `Vec`, sized exactly beforehand);
//! [`builder`] builds the same catalog as a user of the crate would (another
//! layout; with shared strings for the page).
//!
//! # Wire format
//!
//! Spec: <https://flatbuffers.dev/internals/> (format) and
//! <https://flatbuffers.dev/schema/> (optional scalars, `required`,
//! `file_identifier`). Every scalar is little-endian and aligned to its own
//! size *relative to the start of the buffer*, so a reader can use it in
//! place. Three kinds of offset connect the objects:
//!
//! - **uoffset** (u32): from the position holding it *forward* to an object:
//!   target = position + value. The buffer starts with one: the root table.
//! - **soffset** (i32): the first 4 bytes of every table; the table's vtable
//!   is at table − value (signed: a shared vtable may lie after the table).
//! - **voffset** (u16): the vtable's entries: `[vtable size in bytes, table
//!   size in bytes, one offset per field in schema order]`. A field's entry
//!   is its position relative to the table start; 0 (or an entry beyond the
//!   vtable's size) means "absent: read the default".
//!
//! Strings are a u32 byte length, the UTF-8 bytes, a NUL (not counted), then
//! padding. Vectors are a u32 element count then the elements (scalars and
//! structs inline, tables and strings as uoffsets). A struct is stored inline
//! in its table at its own alignment; there is no vtable inside it.
//!
//! The start of `encode(&[one small product])` (the whole 216 bytes are
//! annotated in `tests/flatbuffers.rs`):
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
//! Choices this schema makes (see `schemas/catalog.fbs`):
//!
//! - **Dimensions is a struct**: four `int`s with a fixed layout, 16 bytes
//!   inline in the Product table. A table would cost a uoffset, a 4-byte
//!   soffset and a vtable reference per product and an indirection per read,
//!   for an evolvability (adding fields) that a fixed physical size does not
//!   need.
//! - **Strings and vectors are `(required)`**. The encoder always writes them
//!   (an empty string costs 8 bytes: length 0, NUL, padding), so an absent one
//!   can only come from another writer or from damage; the verifier rejects it
//!   as `missing required field products[i].sku` rather than the decoder
//!   silently reading `""`. `dimensions` is required for the same reason.
//! - **Scalars equal to their default are not written** (the builder's
//!   default, no `force_defaults`): `review_count = 0`, `in_stock = false`,
//!   `status = ACTIVE`, … leave a 0 vtable entry and read back as the default.
//!   So an absent scalar means "0", which is why `discount_percent` is an
//!   **optional scalar** (`int = null`): absent means null, and a present 0
//!   is written even though it equals the would-be default.
//! - **File identifier `WBCT`** at bytes 4..8 (4 bytes per payload): a buffer
//!   that is not a catalog is refused before the verifier runs, and tools
//!   such as `flatc --annotate` recognise the file.
//! - Booleans are read as "any non-zero byte is true" (the crate's rule), so
//!   a byte 0x02 decodes to `true` and re-encodes as 0x01.
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

//! FlatBuffers: WIP doc.
//!
//! # Wire format
//!
//! TODO

#[allow(
    unsafe_code,
    unused_imports,
    dead_code,
    unsafe_op_in_unsafe_fn,
    non_camel_case_types,
    clippy::all,
    clippy::pedantic,
    clippy::nursery
)]
#[rustfmt::skip]
pub mod generated;

mod decode;
mod direct;
mod encode;

pub use decode::{APPARENT_SIZE_FACTOR, IDENTIFIER, MAX_DEPTH, decode, verifier_options};
pub use direct::{checksum, read_direct, verify};
pub use encode::{RETAIN_LIMIT, encode};

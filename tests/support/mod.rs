//! Helpers shared by the integration tests, included the same way by every
//! test file that needs one:
//!
//! ```ignore
//! mod support;
//! use support::{server, memlimit};
//! ```
//!
//! | module | what it gives a test |
//! |---|---|
//! | [`server`] | a server on `127.0.0.1:0`, raw-socket request helpers |
//! | [`scratch`] | a directory per test under the temp dir, empty or a copy of a tree, removed on drop (also on panic) |
//! | [`memlimit`] | "refused without allocating", checked under a capped address space |
//! | [`mutate`] | the seeded mutator for hostile inputs |
//! | [`oracle`] | the properties every hostile input must keep (also used by `fuzz/`) |
//! | [`serde_mirror`] | serde types mirroring the model, for the reference crates |
//! | [`random_schema`] | seeded random Avro schemas and datums, float-bitwise datum equality |
//! | [`avro_mirror`] | the same, named as the Avro schema's records and symbols, for apache-avro's serde path |
//!
//! Each test binary compiles all of them and uses a few, hence the
//! `dead_code` allowance here and nowhere else.
#![allow(dead_code)]

pub mod avro_mirror;
pub mod memlimit;
pub mod mutate;
pub mod oracle;
pub mod random_schema;
pub mod scratch;
pub mod serde_mirror;
pub mod server;

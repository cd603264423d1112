//! wirebench: what each serialization format really costs on an HTTP path,
//! and every byte it writes.
//!
//! Where to start reading: docs/ARCHITECTURE.md, "Reading order" (the one
//! reading order, with the layers and the invariants beside it). The
//! top-level modules:
//!
//! | module | what it holds |
//! |---|---|
//! | [`model`] | the catalog every format carries, and its validation rules |
//! | [`fixtures`], [`prng`] | the deterministic catalog, and the only randomness |
//! | [`codec`] | the five formats behind one [`codec::Format`]; each codec module opens with its wire format |
//! | [`crc32`], [`gzip`] | RFC 1952 framing around miniz_oxide's deflate |
//! | [`explain`] | byte-by-byte annotated dumps of every format |
//! | [`payload`] | the one payload every tool carries: the catalog or a user's document |
//! | [`http`] | the blocking thread-pool HTTP/1.1 server |
//! | [`serve`] | `wirebench serve`: the routes, negotiation, payloads and page the server serves |
//! | [`measure`] | the definitions every measured number shares |
//! | [`bench`](mod@bench), [`load`], [`report`] | codec microbenchmarks and sizes, the load generator, REPORT.md and charts |
//! | [`generic`], [`evolve`] | schema-driven Avro, and the evolution lab and `wirebench decode` on it |
//! | [`digests`], [`sha256`] | the SHA-256 of every catalog body, for load clients that check bodies byte for byte |
//! | [`cli`] | the flag parser every command shares, and the exit statuses |

pub mod bench;
pub mod cli;
pub mod codec;
pub mod compare;
pub mod crc32;
pub mod digests;
pub mod evolve;
pub mod explain;
pub mod fixtures;
pub mod generic;
pub mod gzip;
pub mod http;
pub mod load;
pub mod measure;
pub mod model;
pub mod payload;
pub mod prng;
pub mod report;
pub mod serve;
pub mod sha256;

//! wirebench: what each serialization format really costs on an HTTP path,
//! and every byte it writes.
//!
//! Reading order for a newcomer:
//!
//! 1. [`model`] — the catalog every format carries, and its validation rules.
//! 2. [`codec`] — the five formats behind one [`codec::Format`]; each codec
//!    module opens with its wire format.
//! 3. [`gzip`] and [`crc32`] — RFC 1952 framing around miniz_oxide's deflate.
//! 4. [`http`] — the blocking thread-pool HTTP/1.1 server.
//! 5. [`load`] — the load generator (closed and open loop) and its client.
//! 6. [`crate::bench`] — codec microbenchmarks, sizes; [`report`] — REPORT.md and charts.
//! 7. [`explain`] — byte-by-byte annotated dumps of every format.
//!
//! [`fixtures`] makes the deterministic catalog, [`prng`] is the only
//! randomness, [`cli`] is the shared flag parser.

pub mod bench;
pub mod cli;
pub mod codec;
pub mod compare;
pub mod crc32;
pub mod evolve;
pub mod explain;
pub mod fixtures;
pub mod generic;
pub mod gzip;
pub mod http;
pub mod load;
pub mod measure;
pub mod model;
pub mod prng;
pub mod report;

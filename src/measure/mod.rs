//! The measurement layer: what every tool that measures shares, and nothing
//! that depends on what is measured.
//!
//! `bench` (codec microbenchmarks and sizes), `load` (the HTTP load
//! generator) and `report` (raw files → REPORT.md) all build on this module,
//! and it imports none of them: each statistic, each file format and each
//! definition lives here once.
//!
//! | module | what it owns |
//! |---|---|
//! | [`stats`] | median, min–max spread, the `-P` processor count |
//! | [`histogram`] | the one latency histogram: record, merge, quantile, text form |
//! | [`alloc`] | the counting global allocator (bytes/op, allocs/op, live/peak) |
//! | [`env`] | the machine a run happened on → `environment.json` |
//! | [`json`] | the little JSON writing `environment.json` and `medians.json` need |
//! | [`results`] | the shapes of the raw result files, shared by their writers and their reader |

pub mod alloc;
pub mod env;
pub mod histogram;
pub mod json;
pub mod results;
pub mod stats;

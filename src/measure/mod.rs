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
//! | [`significance`] | median confidence interval, Mann–Whitney U, Wilcoxon signed-rank, Hodges–Lehmann, paired ratio test, Holm–Bonferroni |
//! | [`histogram`] | the one latency histogram: record, merge, quantile, text form |
//! | [`hlog`] | HdrHistogram interval logs (V2 compressed) to and from that histogram |
//! | [`alloc`] | the counting global allocator (bytes/op, allocs/op, live/peak) |
//! | [`cpu`] | CPU time of threads and processes from `/proc` (on-CPU ns, user/kernel ticks) |
//! | [`calibration`] | the fixed CPU and memory loops timed between batches and runs: the machine's state in every raw file |
//! | [`machine`] | other work and steal on the machine during a round (`/proc/stat`) |
//! | [`env`] | the machine a run happened on → `environment.json` |
//! | [`progress`] | `[done/total elapsed, ~left]` progress lines of long runs |
//! | [`json`] | the little JSON writing `environment.json` and `medians.json` need |
//! | [`run`] | the run stamp (id, commit, start/end, load) every raw file carries |
//! | [`results`] | the shapes of the raw result files, shared by their writers and their reader |

pub mod alloc;
pub mod calibration;
pub mod cpu;
pub mod env;
pub mod histogram;
pub mod hlog;
pub mod json;
pub mod machine;
pub mod progress;
pub mod results;
pub mod run;
pub mod significance;
pub mod stats;

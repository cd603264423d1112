#![no_main]
//! gunzip (RFC 1952 framing around miniz_oxide): any bytes → error or output within the cap that round-trips.
//! Properties: `tests/support/oracle.rs`. Run: `make fuzz FUZZ_TARGETS=gunzip`.

#[path = "../../tests/support/oracle.rs"]
mod oracle;

use libfuzzer_sys::fuzz_target;
use wirebench::measure::alloc::CountingAlloc;

/// Counts allocations so the oracle can check the allocation bound.
#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc::new();

fuzz_target!(|data: &[u8]| oracle::gunzip(data));

#![no_main]
//! Round trip: the first byte picks a format, the rest decodes; the catalog must survive encode → decode in all five formats.
//! Properties: `tests/support/oracle.rs`. Run: `make fuzz FUZZ_TARGETS=roundtrip`.

#[path = "../../tests/support/oracle.rs"]
mod oracle;

use libfuzzer_sys::fuzz_target;
use wirebench::measure::alloc::CountingAlloc;

/// Counts allocations so the oracle can check the allocation bound.
#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc::new();

fuzz_target!(|data: &[u8]| oracle::roundtrip(data));

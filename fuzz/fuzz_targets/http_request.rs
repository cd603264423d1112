#![no_main]
//! HTTP/1.1 request-head parser: no allocation, the same answer however the bytes are split, pipelined heads in turn.
//! Properties: `tests/support/oracle.rs`. Run: `make fuzz FUZZ_TARGETS=http_request`.

#[path = "../../tests/support/oracle.rs"]
mod oracle;

use libfuzzer_sys::fuzz_target;
use wirebench::measure::alloc::CountingAlloc;

/// Counts allocations so the oracle can check the allocation bound.
#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc::new();

fuzz_target!(|data: &[u8]| oracle::http_requests(data));

#![no_main]
//! FlatBuffers decoder (verifier + reader): any bytes → error or a valid catalog that round-trips, within the allocation bound.
//! Properties: `tests/support/oracle.rs`. Run: `make fuzz FUZZ_TARGETS=flatbuffers`.

#[path = "../../tests/support/oracle.rs"]
mod oracle;

use libfuzzer_sys::fuzz_target;
use wirebench::measure::alloc::CountingAlloc;

/// Counts allocations so the oracle can check the allocation bound.
#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc::new();

fuzz_target!(|data: &[u8]| drop(oracle::decode(wirebench::codec::Format::Flatbuffers, data)));

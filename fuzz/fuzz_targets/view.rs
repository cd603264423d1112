#![no_main]
//! Borrowed views: the first byte picks the format, the rest is its payload;
//! the view decode accepts exactly what the owned decoder accepts (equal
//! catalogs) and refuses the rest with the same error, within the
//! allocation bound. Properties: `tests/support/oracle.rs`. Run:
//! `make fuzz FUZZ_TARGETS=view`.

#[path = "../../tests/support/oracle.rs"]
mod oracle;

use libfuzzer_sys::fuzz_target;
use wirebench::measure::alloc::CountingAlloc;

/// Counts allocations so the oracle can check the allocation bound.
#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc::new();

fuzz_target!(|data: &[u8]| oracle::view(data));

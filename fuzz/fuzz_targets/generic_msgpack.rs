#![no_main]
//! The schema-driven msgpack decoder (`wirebench::generic::msgpack`) on hostile
//! bytes, by the body all five schema-driven targets share
//! (`common/generic.rs`: schema picked by the first byte, round trip of
//! what it reads). Run: `make fuzz FUZZ_TARGETS=generic_msgpack`.

#[path = "common/generic.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use wirebench::codec::Format;

fuzz_target!(|data: &[u8]| common::check(Format::Msgpack, data));

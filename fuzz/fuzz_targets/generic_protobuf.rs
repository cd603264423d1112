#![no_main]
//! The schema-driven protobuf decoder (`wirebench::generic::protobuf`) on hostile
//! bytes, by the body all five schema-driven targets share
//! (`common/generic.rs`: schema picked by the first byte, round trip of
//! what it reads). Run: `make fuzz FUZZ_TARGETS=generic_protobuf`.

#[path = "common/generic.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use wirebench::codec::Format;

fuzz_target!(|data: &[u8]| common::check(Format::Protobuf, data));

//! Adapters for the codec entry points that only some benchmark rows use:
//! FlatBuffers verify / direct field access, and Protobuf on prost's
//! generated types without our domain conversion; and the one test hook of
//! the benchmarks, [`SlowRow`] (`codec-bench --slow-row NAME=PCT`).
//!
//! The adapters live here, one function each, so the benchmark rows and the
//! peers bench call the codecs through one place, with errors as strings.
//! Each returns `Err(reason)` when the operation fails; the row is then
//! skipped with a note, never faked.
//!
//! [`SlowRow`] exists to test `wirebench ab` (`crate::compare::ab`): it makes
//! one row slower by real work, never by editing a number. A batch of `n`
//! iterations of that row runs `n + round(n · PCT / 100)` iterations of the
//! same operation inside the timed region and reports `n`, so every figure
//! of the row (ns/op, cpu-ns/op, MB/s) is PCT% worse, as a slower codec's
//! would be. [`SlowRow::extra`] says how much exactly (the rounding).

use crate::model::Product;

/// prost's generated `Catalog`.
pub type PbCatalog = crate::codec::protobuf::generated::Catalog;

/// `codec::flatbuffers::verify`: the verifier alone, no field reads.
pub fn fb_verify(bytes: &[u8]) -> Result<(), String> {
    crate::codec::flatbuffers::verify(bytes).map_err(|e| e.to_string())
}

/// `codec::flatbuffers::read_direct`: verify, then read every field in place
/// (no conversion to domain types); returns a checksum of what it read.
pub fn fb_read_direct(bytes: &[u8]) -> Result<u64, String> {
    crate::codec::flatbuffers::read_direct(bytes).map_err(|e| e.to_string())
}

/// `codec::protobuf::to_generated`: domain types → prost messages.
pub fn pb_to_generated(products: &[Product]) -> Result<PbCatalog, String> {
    Ok(crate::codec::protobuf::to_generated(products))
}

/// `codec::protobuf::encode_generated`: prost encoding of prebuilt messages.
pub fn pb_encode_generated(catalog: &PbCatalog, out: &mut Vec<u8>) -> Result<(), String> {
    crate::codec::protobuf::encode_generated(catalog, out).map_err(|e| e.to_string())
}

/// `codec::protobuf::decode_generated`: prost decoding into generated types
/// only (no conversion, no validation).
pub fn pb_decode_generated(bytes: &[u8]) -> Result<PbCatalog, String> {
    crate::codec::protobuf::decode_generated(bytes).map_err(|e| e.to_string())
}

/// Number of products in a generated catalog (`catalog.products.len()`).
pub fn pb_len(catalog: &PbCatalog) -> usize {
    catalog.products.len()
}

/// The test hook `--slow-row NAME=PCT` (module docs): row `name` runs `pct`
/// percent more iterations than it reports.
#[derive(Clone, Debug, PartialEq)]
pub struct SlowRow {
    pub name: String,
    pub pct: f64,
}

impl SlowRow {
    /// Parses `NAME=PCT`, e.g. `Decode/json/1000=3` (PCT in 0..=1000).
    pub fn parse(s: &str) -> Result<SlowRow, String> {
        let (name, pct) = s
            .rsplit_once('=')
            .ok_or_else(|| format!("--slow-row {s:?}: expected NAME=PCT, e.g. Decode/json/1000=3"))?;
        let pct: f64 = pct
            .trim()
            .parse()
            .map_err(|_| format!("--slow-row {s:?}: PCT {pct:?} is not a number"))?;
        if name.is_empty() || !(0.0..=1000.0).contains(&pct) {
            return Err(format!(
                "--slow-row {s:?}: expected a row name and a percentage in 0..=1000"
            ));
        }
        Ok(SlowRow {
            name: name.to_string(),
            pct,
        })
    }

    /// The extra iterations a batch of `n` runs: `round(n · pct / 100)`.
    /// The real slowdown is `extra(n) / n`.
    pub fn extra(&self, n: u64) -> u64 {
        (n as f64 * self.pct / 100.0).round() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_row_parses_and_rounds_its_extra_work() {
        let s = SlowRow::parse("Decode/json/1000=3").unwrap();
        assert_eq!((s.name.as_str(), s.pct), ("Decode/json/1000", 3.0));
        assert_eq!(s.extra(1000), 30);
        assert_eq!(s.extra(10), 0); // 0.3 rounds down: too few iterations for 3%
        assert_eq!(s.extra(17), 1); // 0.51 rounds up
        for bad in ["Decode/json/1000", "=3", "x=fast", "x=-1", "x=5000"] {
            assert!(SlowRow::parse(bad).is_err(), "{bad}");
        }
    }
}

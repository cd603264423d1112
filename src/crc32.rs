//! CRC-32/IEEE (placeholder until its implementation lands).

/// CRC-32 of `data`.
pub fn crc32(_data: &[u8]) -> u32 {
    unimplemented!()
}

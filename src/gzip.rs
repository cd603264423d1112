//! gzip (placeholder until its implementation lands).

/// Default compression level.
pub const DEFAULT_LEVEL: u8 = 6;

/// Appends the gzip member of `data` at `level` (0–10) to `out`.
pub fn compress(_data: &[u8], _level: u8, _out: &mut Vec<u8>) {
    unimplemented!()
}

/// Decompresses one gzip member, checking CRC-32 and ISIZE; trailing bytes are an error.
pub fn decompress(_data: &[u8], _max_output: usize) -> Result<Vec<u8>, String> {
    Err("not implemented yet".into())
}

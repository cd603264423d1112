//! Per-worker gzip for `compression=gzip`: the same bytes as
//! [`crate::gzip::compress`], but with one deflate state reused for every
//! response a worker sends.
//!
//! miniz_oxide's `CompressorOxide` is large (a 64 KiB LZ code buffer inline,
//! plus boxed hash chains and Huffman tables, ~300 KiB in all). Creating one
//! per request costs more than compressing a small body, and putting it on a
//! small worker stack is a stack-overflow risk. So each worker boxes one on
//! first use and `reset`s it per response. The framing (RFC 1952: 10-byte
//! header, raw deflate, CRC-32 and ISIZE little-endian) is written exactly as
//! `gzip::compress` writes it; a test holds the two byte-identical.

use crate::crc32;
use crate::gzip::DEFAULT_LEVEL;
use miniz_oxide::deflate::core::{
    CompressorOxide, TDEFLFlush, TDEFLStatus, compress_to_output, create_comp_flags_from_zip_params,
};

/// `1f 8b` magic, CM 8 = deflate, FLG 0, MTIME 0, XFL 0 (level 6), OS 255 = unknown.
const HEADER: [u8; 10] = [0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0xff];

/// A reusable gzip writer at [`DEFAULT_LEVEL`].
#[derive(Default)]
pub struct Gzipper {
    deflate: Option<Box<CompressorOxide>>,
}

impl std::fmt::Debug for Gzipper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gzipper")
            .field("allocated", &self.deflate.is_some())
            .finish()
    }
}

impl Gzipper {
    /// Appends one gzip member holding `data` to `out`.
    pub fn compress(&mut self, data: &[u8], out: &mut Vec<u8>) {
        let deflate = match &mut self.deflate {
            Some(d) => {
                d.reset();
                d
            }
            None => {
                // raw deflate (window_bits 0 = no zlib wrapper), default strategy
                let flags = create_comp_flags_from_zip_params(i32::from(DEFAULT_LEVEL), 0, 0);
                self.deflate.insert(Box::new(CompressorOxide::new(flags)))
            }
        };
        out.reserve(HEADER.len() + data.len() / 4 + 8 + 64);
        out.extend_from_slice(&HEADER);
        let (status, _) = compress_to_output(deflate, data, TDEFLFlush::Finish, |chunk| {
            out.extend_from_slice(chunk);
            true
        });
        // All input given and a sink that never refuses: deflate always finishes.
        assert_eq!(status, TDEFLStatus::Done, "miniz_oxide deflate did not finish");
        out.extend_from_slice(&crc32::crc32(data).to_le_bytes());
        out.extend_from_slice(&(data.len() as u32).to_le_bytes()); // ISIZE = length mod 2^32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gzip;

    #[test]
    fn same_bytes_as_gzip_compress_and_reuse_is_clean() {
        let mut g = Gzipper::default();
        let long: Vec<u8> = (0..200_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let inputs: [&[u8]; 5] = [b"", b"a", b"{\"message\":\"pong\"}", &long, b"a"];
        for data in inputs {
            let mut ours = Vec::new();
            g.compress(data, &mut ours);
            let mut reference = Vec::new();
            gzip::compress(data, gzip::DEFAULT_LEVEL, &mut reference);
            assert_eq!(ours, reference, "input of {} bytes", data.len());
            assert_eq!(gzip::decompress(&ours, 1 << 20).unwrap(), data);
        }
    }
}

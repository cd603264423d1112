//! The seeded mutator behind `tests/mutation.rs` and the over-the-socket
//! mutants in `tests/http_mutants.rs`: one to three operations per mutant —
//! bit flips, a byte set or nudged by one, interesting multi-byte values
//! written over or inserted (length and count edges of every format, HTTP
//! framing tokens), random insertions, deletions, copied ranges, truncations
//! and splices with another seed. Deterministic for a given `Rng`.

use wirebench::prng::Rng;

/// Values that sit on the edges of length and count fields in every format.
pub const INTERESTING: &[&[u8]] = &[
    &[0x00],
    &[0xff],
    &[0x7f],
    &[0x80],
    &[0x01],
    &[0xff, 0xff, 0xff, 0xff],                                     // u32::MAX either way round
    &[0x00, 0x00, 0x00, 0x80],                                     // 2^31 little-endian
    &[0x80, 0x00, 0x00, 0x00],                                     // 2^31 big-endian
    &[0xf0, 0xff, 0xff, 0xff],                                     // -16 as i32 LE (backwards offset)
    &[0x80, 0x80, 0x80, 0x80, 0x08],                               // varint 2^31
    &[0xff, 0xff, 0xff, 0xff, 0x0f],                               // varint u32::MAX
    &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01], // varint u64::MAX / zigzag i64::MIN
    &[0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01], // zigzag i64::MAX
    &[0xdb, 0x80, 0x00, 0x00, 0x00],                               // msgpack str32 of 2^31
    &[0xdd, 0xff, 0xff, 0xff, 0xff],                               // msgpack array32 of 2^32-1
    b"\\u0000",
    b"\"",
    b"1e999",
    b"\r\n",
    b"\n",
    b"Content-Length: 99999999999999999999\r\n",
    b"Transfer-Encoding: chunked\r\n",
    b" ",
];

/// One mutant of `seed`: one to three operations; `other` is for splices.
pub fn mutate(rng: &mut Rng, seed: &[u8], other: &[u8]) -> Vec<u8> {
    let mut v = seed.to_vec();
    let ops = 1 + rng.below(3);
    for _ in 0..ops {
        let at = rng.below(v.len() as u64 + 1) as usize;
        match rng.below(9) {
            0 if !v.is_empty() => {
                let i = at.min(v.len() - 1);
                v[i] ^= 1 << rng.below(8);
            }
            1 if !v.is_empty() => {
                let i = at.min(v.len() - 1);
                v[i] = rng.next_u64() as u8;
            }
            2 if !v.is_empty() => {
                // a length byte one off
                let i = at.min(v.len() - 1);
                v[i] = if rng.chance(50) {
                    v[i].wrapping_add(1)
                } else {
                    v[i].wrapping_sub(1)
                };
            }
            3 => {
                // overwrite with an interesting multi-byte value (length-field tampering)
                let value = rng.pick(INTERESTING);
                for (k, &b) in value.iter().enumerate() {
                    match v.get_mut(at + k) {
                        Some(slot) => *slot = b,
                        None => v.push(b),
                    }
                }
            }
            4 => {
                let value = rng.pick(INTERESTING);
                v.splice(at..at, value.iter().copied());
            }
            5 => {
                let n = 1 + rng.below(8) as usize;
                let bytes: Vec<u8> = (0..n).map(|_| rng.next_u64() as u8).collect();
                v.splice(at..at, bytes);
            }
            6 if !v.is_empty() => {
                let end = (at + 1 + rng.below(32) as usize).min(v.len());
                v.drain(at.min(end)..end);
            }
            7 if !v.is_empty() => {
                // copy a range elsewhere (repeats records, keys, offsets)
                let from = rng.below(v.len() as u64) as usize;
                let len = (1 + rng.below(64) as usize).min(v.len() - from);
                let chunk = v[from..from + len].to_vec();
                let to = rng.below(v.len() as u64 + 1) as usize;
                v.splice(to..to, chunk);
            }
            _ => {
                if rng.chance(50) || other.is_empty() {
                    v.truncate(at);
                } else {
                    let cut = rng.below(other.len() as u64) as usize;
                    v.truncate(at);
                    v.extend_from_slice(&other[cut..]);
                }
            }
        }
    }
    v
}

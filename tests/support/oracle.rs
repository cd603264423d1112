//! What must hold for *any* input, however hostile: the properties that the
//! deterministic mutation test (`tests/mutation.rs`) and every fuzz target
//! (`fuzz/fuzz_targets/*.rs`, which include this file by path) check. A
//! property that fails panics, which is what a fuzzer reports as a crash.
//!
//! - **Decoders** ([`decode`]): an error names an offset inside the input and
//!   a non-empty reason; an `Ok` catalog is valid and survives
//!   encode → decode unchanged; the whole call requests at most
//!   [`Format::max_decode_allocation`] bytes. The borrowed view
//!   ([`Format::decode_view`]) agrees: it accepts exactly what the owned
//!   decoder accepts, its products converted to owned types equal the owned
//!   decode, and it refuses the rest with the same error at the same offset;
//!   it stays within the same allocation bound.
//! - **Round trip** ([`roundtrip`]): a catalog decoded from any format
//!   re-encodes in all five and decodes back equal.
//! - **gunzip** ([`gunzip`]): output within the cap, allocation proportional
//!   to what deflate can produce from the input, and an `Ok` output
//!   re-compresses and decompresses to itself.
//! - **Request parser** ([`http_requests`]): allocates nothing; the answer
//!   never depends on how the bytes were split across reads (every prefix
//!   is `Partial` or the answer for the whole); pipelined heads parse one
//!   after the other; errors map to 400/414/431/505 at an offset inside
//!   the input.
//!
//! Allocation checks need `wirebench::measure::alloc::CountingAlloc` as the
//! binary's global allocator (they count the calling thread's allocations, so
//! tests may run in parallel); without it they are skipped.

use wirebench::codec::{DecodeError, Format};
use wirebench::gzip;
use wirebench::http::parse::{self, Limits, Parsed};
use wirebench::measure::alloc;
use wirebench::model::Catalog;

/// Output cap for [`gunzip`]: large enough for every golden payload.
pub const GUNZIP_CAP: usize = 1 << 20;

/// Whether allocations are being counted (a `CountingAlloc` is installed).
fn counting() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(alloc::installed)
}

/// Decodes `data` as `format`, checks the decoder properties and returns
/// what the decoder returned.
pub fn decode(format: Format, data: &[u8]) -> Result<Catalog, DecodeError> {
    let counting = counting();
    let before = alloc::thread_counts();
    let result = format.decode(data);
    let used = alloc::thread_counts().since(before).bytes;
    if counting {
        let limit = format.max_decode_allocation(data.len()) as u64;
        assert!(
            used <= limit,
            "{format:?}: decoding {} bytes requested {used} bytes from the allocator, over the limit {limit}",
            data.len()
        );
    }
    match &result {
        Ok(catalog) => {
            if let Err(e) = catalog.validate() {
                panic!("{format:?}: decoder accepted an invalid catalog: {e}");
            }
            let again = format
                .encode_to_vec(&catalog.products)
                .unwrap_or_else(|e| panic!("{format:?}: cannot re-encode what it decoded: {e}"));
            match format.decode(&again) {
                Ok(second) => assert!(
                    second == *catalog,
                    "{format:?}: decode → encode → decode changed the catalog"
                ),
                Err(e) => panic!("{format:?}: cannot decode its own re-encoding: {e}"),
            }
        }
        Err(e) => {
            assert!(
                e.offset <= data.len(),
                "{format:?}: error offset {} past the input's {} bytes: {e}",
                e.offset,
                data.len()
            );
            assert!(!e.to_string().is_empty());
        }
    }
    view_agrees(format, data, &result);
    result
}

/// The view decode of `data` against the owned decoder's `owned` result.
pub fn view_agrees(format: Format, data: &[u8], owned: &Result<Catalog, DecodeError>) {
    let before = alloc::thread_counts();
    let view = format.decode_view(data);
    let used = alloc::thread_counts().since(before).bytes;
    if counting() {
        let limit = format.max_decode_allocation(data.len()) as u64;
        assert!(
            used <= limit,
            "{format:?}: the view of {} bytes requested {used} bytes, over the limit {limit}",
            data.len()
        );
    }
    match (owned, view) {
        (Ok(catalog), Ok(view)) => {
            assert_eq!(view.len(), catalog.products.len(), "{format:?}: view product count");
            assert!(
                view.to_catalog().as_ref() == Ok(catalog),
                "{format:?}: view → owned differs from the owned decode"
            );
        }
        (Err(e), Err(v)) => {
            assert_eq!(
                v.offset, e.offset,
                "{format:?}: the view refused at another offset: owned {e}, view {v}"
            );
            if format != Format::Protobuf {
                assert_eq!(v, *e, "{format:?}: the view refused with another error");
            }
        }
        (Ok(_), Err(v)) => panic!("{format:?}: the owned decoder accepts what the view refuses: {v}"),
        (Err(e), Ok(_)) => panic!("{format:?}: the view accepts what the owned decoder refuses: {e}"),
    }
}

/// The first byte picks the format, the rest is its payload: the view
/// decode agrees with the owned decoder (see [`view_agrees`]).
pub fn view(data: &[u8]) {
    let Some((&pick, payload)) = data.split_first() else {
        return;
    };
    let format = Format::ALL[pick as usize % Format::ALL.len()];
    let owned = format.decode(payload);
    view_agrees(format, payload, &owned);
}

/// The first byte picks the source format, the rest is its payload; a
/// catalog that decodes must survive every format's encode → decode.
pub fn roundtrip(data: &[u8]) {
    let Some((&pick, payload)) = data.split_first() else {
        return;
    };
    let source = Format::ALL[pick as usize % Format::ALL.len()];
    let Ok(catalog) = source.decode(payload) else {
        return;
    };
    for format in Format::ALL {
        let bytes = format
            .encode_to_vec(&catalog.products)
            .unwrap_or_else(|e| panic!("{source:?} → {format:?}: encode failed: {e}"));
        match format.decode(&bytes) {
            Ok(back) => assert!(back == catalog, "{source:?} → {format:?} → decode changed the catalog"),
            Err(e) => panic!("{source:?} → {format:?}: cannot decode the encoding: {e}"),
        }
    }
}

/// gunzip with [`GUNZIP_CAP`]; see the module docs.
pub fn gunzip(data: &[u8]) {
    let counting = counting();
    let before = alloc::thread_counts();
    let result = gzip::decompress(data, GUNZIP_CAP);
    let used = alloc::thread_counts().since(before).bytes;
    if counting {
        // deflate turns n bytes into at most 1032·n; a growing Vec may ask for
        // up to twice what it holds at each step, so 4× that, within the cap.
        let reachable = data.len().saturating_mul(1032).min(GUNZIP_CAP) as u64;
        let limit = 4 * reachable + 64 * 1024;
        assert!(
            used <= limit,
            "gunzip of {} bytes requested {used} bytes, over the limit {limit}",
            data.len()
        );
    }
    match result {
        Ok(out) => {
            assert!(out.len() <= GUNZIP_CAP);
            let mut again = Vec::new();
            gzip::compress(&out, 6, &mut again);
            assert!(
                gzip::decompress(&again, GUNZIP_CAP).ok() == Some(out),
                "gzip round trip changed the data"
            );
        }
        Err(e) => {
            assert!(
                e.offset <= data.len(),
                "gunzip error offset {} past {} bytes: {e}",
                e.offset,
                data.len()
            );
            assert!(!e.to_string().is_empty());
        }
    }
}

/// Small limits, so that short inputs reach every limit too.
pub const SMALL_LIMITS: Limits = Limits {
    max_request_line: 64,
    max_header_bytes: 256,
    max_headers: 8,
    max_body: 1024,
};

/// Parses `data` as a stream of pipelined request heads (skipping each
/// declared body) under both the default and [`SMALL_LIMITS`].
pub fn http_requests(data: &[u8]) {
    for limits in [Limits::default(), SMALL_LIMITS] {
        let mut rest = data;
        // A bounded number of heads: each consumes at least one byte.
        while !rest.is_empty() {
            match http_one(rest, &limits) {
                Some(consumed) if consumed > 0 && consumed <= rest.len() => rest = &rest[consumed..],
                Some(consumed) => panic!("consumed {consumed} of {} bytes", rest.len()),
                None => break,
            }
        }
    }
}

/// One head at the start of `buf`: checks the properties and returns the
/// bytes it and its body take, or `None` when the stream stops here.
fn http_one(buf: &[u8], limits: &Limits) -> Option<usize> {
    let counting = counting(); // first call allocates: not inside the measurement
    let before = alloc::thread_counts();
    let whole = parse::parse(buf, limits);
    let used = alloc::thread_counts().since(before);
    if counting {
        assert_eq!(used.allocs, 0, "the request parser allocated");
    }
    // Split points: every prefix of a short input, a spread over a long one.
    let cuts: Vec<usize> = if buf.len() <= 300 {
        (0..buf.len()).collect()
    } else {
        (0..300).map(|i| i * buf.len() / 300).collect()
    };
    for cut in cuts {
        match parse::parse(&buf[..cut], limits) {
            Ok(Parsed::Partial) => {}
            early => assert!(
                early == whole,
                "parsing the first {cut} of {} bytes answered {early:?}, the whole {whole:?}",
                buf.len()
            ),
        }
    }
    match whole {
        Ok(Parsed::Partial) => None,
        Ok(Parsed::Complete(req)) => {
            assert!(
                req.head_len > 0 && req.head_len <= buf.len(),
                "head_len {}",
                req.head_len
            );
            let head = &buf[..req.head_len];
            for part in [req.method, req.target] {
                let at = part.as_ptr() as usize - head.as_ptr() as usize;
                assert!(at + part.len() <= head.len(), "{part:?} is not inside the head");
            }
            assert!(head.ends_with(b"\r\n\r\n"), "a complete head ends with an empty line");
            let body = req.content_length.unwrap_or(0);
            if body > limits.max_body {
                return None; // the server answers 413 and closes
            }
            Some(req.head_len.saturating_add(body as usize).min(buf.len()))
        }
        Err(e) => {
            assert!(matches!(e.status(), 400 | 414 | 431 | 505), "status {}", e.status());
            assert!(
                e.offset <= buf.len(),
                "error offset {} past {} bytes",
                e.offset,
                buf.len()
            );
            None
        }
    }
}

//! Building a FlatBuffer from our domain types with the generated builders.
//!
//! This is what the server pays per FlatBuffers response: copy every string
//! into the builder, lay out every table, then copy the finished bytes into
//! the caller's buffer. FlatBuffers builds back to front (the builder's head
//! moves towards lower addresses), so an object must be finished before the
//! table that points at it. We create products, strings, tags and variants in
//! *reverse* order: the finished buffer then reads front to back in field
//! order, docs/SPEC.md, "Field order" (product 0 first, and inside a product the table, then `sku`,
//! `name`, … `image_url`), which is what `explain` shows a learner.
//!
//! Output is deterministic: the same products always give the same bytes
//! (the goldens depend on it). Fields equal to their schema default (0,
//! false, ACTIVE) are left out of the table, as the builder does unless
//! `force_defaults` is set; the decoder reads them back as the default.
//!
//! Most of the time goes to the builder itself: vtable deduplication
//! (`write_vtable` binary-searches and `memcmp`s the vtables written so far),
//! copying strings in, and the generated `create` functions and `push_slot`.
//! That is the format's own cost, not ours to optimise away; the profile is
//! in docs/FORMATS.md, "8. What it costs in CPU".
//!
//! Each thread keeps one [`FlatBufferBuilder`] and its scratch vectors and
//! resets them per call ([`with_scratch`]); see the function for the cap on
//! what a thread may keep and for the measurement behind it.

use super::generated::wirebench as fb;
use crate::codec::EncodeError;
use crate::model::{Product, Status};
use flatbuffers::{FlatBufferBuilder, WIPOffset};
use std::cell::RefCell;

/// The largest buffer a FlatBuffer can be: offsets are 32-bit and the
/// builder refuses (panics) beyond 2 GiB, so we refuse first.
const MAX_BUFFER: usize = flatbuffers::FLATBUFFERS_MAX_BUFFER_SIZE - 1;

/// A thread keeps its builder only while the finished buffer stays below
/// this many bytes (about 590 fixture products; the builder's storage grows
/// by doubling, so a thread keeps at most 512 KiB). A larger response
/// allocates afresh and frees afterwards, so a pool of ~1,000 worker threads
/// cannot pin gigabytes after serving a few 10,000-product requests.
pub const RETAIN_LIMIT: usize = 256 * 1024;

/// Per-thread builder state, reset on every call.
struct Scratch {
    fbb: FlatBufferBuilder<'static>,
    products: Vec<WIPOffset<fb::Product<'static>>>,
    variants: Vec<WIPOffset<fb::Variant<'static>>>,
    tags: Vec<WIPOffset<&'static str>>,
    /// Set while a build runs. Still set on entry means the previous build
    /// panicked half-way: `FlatBufferBuilder::reset` does not clear a
    /// half-built table's field list, so that builder is thrown away.
    busy: bool,
}

impl Scratch {
    fn new() -> Scratch {
        Scratch {
            fbb: FlatBufferBuilder::new(),
            products: Vec::new(),
            variants: Vec::new(),
            tags: Vec::new(),
            busy: false,
        }
    }
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::new());
}

/// Appends the FlatBuffers encoding of `Catalog { products }` to `out`.
pub fn encode(products: &[Product], out: &mut Vec<u8>) -> Result<(), EncodeError> {
    let bound = size_bound(products);
    if bound > MAX_BUFFER {
        return Err(EncodeError::TooLong {
            what: "flatbuffers buffer (estimated bytes)",
            len: bound,
        });
    }
    with_scratch(|s| {
        build(s, products);
        out.extend_from_slice(s.fbb.finished_data());
    });
    Ok(())
}

/// Runs `f` with this thread's builder, or with a fresh one if the thread's
/// builder is in use (no caller re-enters, but a second borrow must never
/// panic) or was left dirty by a panic.
///
/// Reuse saves growing the builder's storage on every call, which is most of
/// the cost of a small response; above [`RETAIN_LIMIT`] nothing is kept, so
/// large responses cost what a fresh builder costs. `tests::measure_reuse`
/// compares reused, fresh and presized builders (command in its doc).
fn with_scratch<R>(f: impl FnOnce(&mut Scratch) -> R) -> R {
    SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut s) => {
            if s.busy {
                *s = Scratch::new();
            }
            s.busy = true;
            let r = f(&mut s);
            s.busy = false;
            if s.fbb.finished_data().len() > RETAIN_LIMIT {
                *s = Scratch::new();
            }
            r
        }
        Err(_) => f(&mut Scratch::new()),
    })
}

/// An upper bound of the encoded size: every string or vector costs at most
/// its bytes plus 4 (length) + 1 (NUL) + 3 (padding) + 4 (the offset to it);
/// a product table with its own vtable and padding fits in 192 bytes (about
/// 140 are used), a variant table in 64 (about 50). `encode` refuses what
/// cannot fit in 2 GiB by it; a unit test holds it above the real size.
pub(crate) fn size_bound(products: &[Product]) -> usize {
    const PER_STRING: usize = 12;
    let mut total: usize = 64; // root offset, identifier, Catalog table + vtable, vector length
    for p in products {
        // 5 strings + the tags and variants vectors, then each tag.
        let mut n = 192 + 7 * PER_STRING + p.tags.len() * PER_STRING;
        n = n
            .saturating_add(p.sku.len())
            .saturating_add(p.name.len())
            .saturating_add(p.description.len())
            .saturating_add(p.currency.len())
            .saturating_add(p.image_url.len());
        for t in &p.tags {
            n = n.saturating_add(t.len());
        }
        for v in &p.variants {
            n = n
                .saturating_add(64 + 3 * PER_STRING)
                .saturating_add(v.sku.len())
                .saturating_add(v.color.len())
                .saturating_add(v.size.len());
        }
        total = total.saturating_add(n);
    }
    total
}

/// Builds the whole catalog into `s.fbb` and finishes it with the `WBCT`
/// file identifier.
fn build(s: &mut Scratch, products: &[Product]) {
    let Scratch {
        fbb,
        products: offsets,
        variants,
        tags,
        ..
    } = s;
    fbb.reset();
    offsets.clear();
    // Last product first, so product 0 ends up first in the buffer.
    for p in products.iter().rev() {
        offsets.push(build_product(fbb, p, variants, tags));
    }
    offsets.reverse();
    let list = fbb.create_vector(offsets);
    let root = fb::Catalog::create(fbb, &fb::CatalogArgs { products: Some(list) });
    fb::finish_catalog_buffer(fbb, root);
}

/// One product: its out-of-line objects in reverse field order, then the
/// table (the generated `create` pushes fields largest first, so the table
/// needs no padding between them).
fn build_product(
    fbb: &mut FlatBufferBuilder<'static>,
    p: &Product,
    variants: &mut Vec<WIPOffset<fb::Variant<'static>>>,
    tags: &mut Vec<WIPOffset<&'static str>>,
) -> WIPOffset<fb::Product<'static>> {
    let image_url = fbb.create_string(&p.image_url);

    variants.clear();
    for v in p.variants.iter().rev() {
        let size = fbb.create_string(&v.size);
        let color = fbb.create_string(&v.color);
        let sku = fbb.create_string(&v.sku);
        let args = fb::VariantArgs {
            sku: Some(sku),
            color: Some(color),
            size: Some(size),
            price_cents: v.price_cents,
            stock: v.stock,
        };
        variants.push(fb::Variant::create(fbb, &args));
    }
    variants.reverse();
    let variant_list = fbb.create_vector(variants);

    tags.clear();
    for t in p.tags.iter().rev() {
        tags.push(fbb.create_string(t));
    }
    tags.reverse();
    let tag_list = fbb.create_vector(tags);

    let currency = fbb.create_string(&p.currency);
    let description = fbb.create_string(&p.description);
    let name = fbb.create_string(&p.name);
    let sku = fbb.create_string(&p.sku);

    let d = &p.dimensions;
    let dimensions = fb::Dimensions::new(d.width_mm, d.height_mm, d.depth_mm, d.weight_g);
    let status = match p.status {
        Status::Active => fb::Status::ACTIVE,
        Status::Draft => fb::Status::DRAFT,
        Status::Discontinued => fb::Status::DISCONTINUED,
    };
    let args = fb::ProductArgs {
        id: p.id,
        sku: Some(sku),
        name: Some(name),
        description: Some(description),
        price_cents: p.price_cents,
        currency: Some(currency),
        rating: p.rating,
        review_count: p.review_count,
        in_stock: p.in_stock,
        stock: p.stock,
        status,
        tags: Some(tag_list),
        dimensions: Some(&dimensions),
        variants: Some(variant_list),
        discount_percent: p.discount_percent,
        created_at_ms: p.created_at_ms,
        image_url: Some(image_url),
    };
    fb::Product::create(fbb, &args)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;
    use std::time::Instant;

    /// The alternatives to the thread-local builder: a fresh builder per call,
    /// growing by doubling (`sized = false`) or preallocated from
    /// [`size_bound`] (`sized = true`).
    fn encode_fresh(products: &[Product], out: &mut Vec<u8>, sized: bool) {
        let mut s = Scratch::new();
        if sized {
            s.fbb = FlatBufferBuilder::with_capacity(size_bound(products));
        }
        build(&mut s, products);
        out.extend_from_slice(s.fbb.finished_data());
    }

    #[test]
    fn every_strategy_writes_the_same_bytes() {
        for count in [0, 1, 3, 100] {
            let c = fixtures::catalog(count);
            let mut a = Vec::new();
            encode(&c.products, &mut a).unwrap();
            let mut again = Vec::new();
            encode(&c.products, &mut again).unwrap();
            let mut b = Vec::new();
            encode_fresh(&c.products, &mut b, false);
            let mut d = Vec::new();
            encode_fresh(&c.products, &mut d, true);
            assert_eq!(a, again, "count {count}: reused builder changed the output");
            assert_eq!(a, b, "count {count}");
            assert_eq!(a, d, "count {count}");
            assert!(
                size_bound(&c.products) >= a.len(),
                "count {count}: bound below real size"
            );
        }
    }

    #[test]
    fn size_bound_is_above_every_real_size() {
        for seed in 0..300 {
            let c = fixtures::random_catalog(seed);
            let mut out = Vec::new();
            encode(&c.products, &mut out).unwrap();
            let bound = size_bound(&c.products);
            assert!(bound >= out.len(), "seed {seed}: bound {bound} < {}", out.len());
        }
    }

    #[test]
    fn a_builder_left_dirty_by_a_panic_is_replaced() {
        let c = fixtures::catalog(3);
        let mut want = Vec::new();
        encode(&c.products, &mut want).unwrap();
        let r = std::panic::catch_unwind(|| {
            with_scratch(|s| {
                s.fbb.reset();
                s.fbb.start_table();
                s.fbb.push_slot::<i64>(4, 7, 0);
                panic!("simulated panic in the middle of a table");
            })
        });
        assert!(r.is_err());
        let mut got = Vec::new();
        encode(&c.products, &mut got).unwrap();
        assert_eq!(got, want);
    }

    /// Not a test of speed (nothing is asserted about time): prints the cost
    /// of each builder strategy so the choice in [`with_scratch`] can be
    /// re-checked. Time is this thread's on-CPU time (Linux
    /// `/proc/thread-self/schedstat`, so time spent descheduled on a busy
    /// machine is left out; wall clock elsewhere). The strategies take turns
    /// within each of 15 rounds and the best round counts. Run:
    /// `cargo test --release --lib codec::flatbuffers::encode::tests::measure_reuse -- --ignored --nocapture`
    fn on_cpu_ns() -> Option<u64> {
        let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
        s.split_whitespace().next()?.parse().ok()
    }

    #[test]
    #[ignore]
    fn measure_reuse() {
        type Strategy<'a> = (&'a str, &'a dyn Fn(&[Product], &mut Vec<u8>));
        let strategies: [Strategy; 3] = [
            ("thread-local reuse", &|p, o| encode(p, o).unwrap()),
            ("fresh, growing", &|p, o| encode_fresh(p, o, false)),
            ("fresh, sized by size_bound", &|p, o| encode_fresh(p, o, true)),
        ];
        for count in [1, 100, 1000] {
            let c = fixtures::catalog(count);
            let iters = 100_000 / count;
            let mut out = Vec::new();
            let mut best = [f64::MAX; 3];
            for _ in 0..15 {
                for (i, (_, f)) in strategies.iter().enumerate() {
                    let (t, cpu) = (Instant::now(), on_cpu_ns());
                    for _ in 0..iters {
                        out.clear();
                        f(&c.products, &mut out);
                        std::hint::black_box(&out);
                    }
                    let ns = match (cpu, on_cpu_ns()) {
                        (Some(a), Some(b)) => (b - a) as f64,
                        _ => t.elapsed().as_secs_f64() * 1e9,
                    };
                    best[i] = best[i].min(ns / iters as f64);
                }
            }
            for (i, (name, _)) in strategies.iter().enumerate() {
                println!("count {count:5} {name:<28} {:12.0} ns/op", best[i]);
            }
        }
    }
}

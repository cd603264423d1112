//! Deterministic catalogs: the canonical fixture and seeded edge-case catalogs.
//!
//! Product *i* (1-based) is a pure function of *i* and [`SEED`]: each product
//! draws from its own SplitMix64 stream seeded by `SEED` and *i*, so
//! `catalog(10)` is exactly the first ten products of `catalog(10_000)`.
//! The mix follows docs/SPEC.md, "Product fields": some Thai or accented names, descriptions with `"`,
//! `\`, newline, tab, a control character and a 4-byte emoji, ~30% with a
//! discount, 0–3 variants, 0–5 tags. `fixtures/catalog.json` is
//! `catalog(1000)` written by our JSON encoder (a test holds the two equal).
//!
//! [`random_catalog`] is for tests: catalogs built from boundary values (every
//! MessagePack integer width, every varint length, empty and >64 KiB strings,
//! every JSON escape) whose failures name their seed.

use crate::model::{Catalog, Dimensions, Product, Status, Variant};
use crate::prng::Rng;
use std::path::Path;

/// The fixed seed of the canonical catalog. Changing it changes every golden file.
pub const SEED: u64 = 0x5749_5245_4245_4E43; // "WIREBENC"

/// Products in the canonical fixture file.
pub const CANONICAL_COUNT: usize = 1000;

const NOUNS: &[&str] = &[
    "Desk Lamp",
    "Water Bottle",
    "Backpack",
    "Headphones",
    "Keyboard",
    "Notebook",
    "Running Shoes",
    "Coffee Grinder",
    "Yoga Mat",
    "Rain Jacket",
    "Tea Kettle",
    "Phone Case",
    "Desk Chair",
    "Sunglasses",
    "Cutting Board",
];
const ADJECTIVES: &[&str] = &[
    "Classic",
    "Compact",
    "Deluxe",
    "Eco",
    "Ergonomic",
    "Foldable",
    "Lightweight",
    "Premium",
    "Rugged",
    "Smart",
    "Vintage",
    "Wireless",
];
/// Names that are not ASCII: Thai script and Latin with diacritics.
const INTERNATIONAL_NAMES: &[&str] = &[
    "ผ้าไหมไทย",
    "ชาเขียวมัทฉะ",
    "กระเป๋าผ้าฝ้าย",
    "Crème brûlée Set",
    "Café Olé Mug",
    "Jalapeño Sauce",
    "Smörgåsbord Tray",
    "Piñata Deluxe",
    "Façade Poster",
    "Über Kabel",
];
const SENTENCES: &[&str] = &[
    "Built to last with a brushed finish.",
    "Ships in recycled packaging.",
    "Backed by a two-year warranty.",
    "Designed in Bangkok, made to travel.",
    "Dishwasher safe; avoid abrasive cleaners.",
];
/// Description fragments that exercise every escaping rule docs/SPEC.md, "Product fields", names.
const TRICKY: &[&str] = &[
    "The \"original\" edition.",
    "Path: C:\\tools\\bin",
    "Line one.\nLine two.",
    "Col A\tCol B",
    "Bell\u{7}control",
    "Packed with care \u{1F4E6}",
    "ราคาพิเศษ 🚀",
];
const TAGS: &[&str] = &[
    "new",
    "sale",
    "eco",
    "bestseller",
    "gift",
    "limited",
    "outdoor",
    "office",
    "kitchen",
    "travel",
];
const COLORS: &[&str] = &["black", "white", "red", "navy", "olive", "sand"];
const SIZES: &[&str] = &["XS", "S", "M", "L", "XL", "one-size"];
const CURRENCIES: &[&str] = &["THB", "USD", "EUR", "JPY"];

/// Product number `i` (1-based) of the canonical catalog.
pub fn product(i: u64) -> Product {
    let mut r = Rng::new(SEED ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    r.next_u64(); // decorrelate neighbouring seeds
    let sku = format!("SKU-{i:06}");
    let name = if r.chance(20) {
        r.pick(INTERNATIONAL_NAMES).to_string()
    } else {
        format!("{} {}", r.pick(ADJECTIVES), r.pick(NOUNS))
    };
    let mut description = String::new();
    for k in 0..1 + r.below(3) {
        if k > 0 {
            description.push(' ');
        }
        let sentence = *r.pick(SENTENCES);
        description.push_str(sentence);
    }
    if r.chance(35) {
        description.push(' ');
        let tricky = *r.pick(TRICKY);
        description.push_str(tricky);
    }
    let price_cents = r.range_i64(99, 250_000);
    let stock = if r.chance(15) { 0 } else { r.range_i64(1, 500) as i32 };
    let status = match r.below(100) {
        0..=79 => Status::Active,
        80..=91 => Status::Draft,
        _ => Status::Discontinued,
    };
    let mut tags = Vec::new();
    for _ in 0..r.below(6) {
        let t = r.pick(TAGS).to_string();
        if !tags.contains(&t) {
            tags.push(t);
        }
    }
    let dimensions = Dimensions {
        width_mm: r.range_i64(10, 1200) as i32,
        height_mm: r.range_i64(10, 1200) as i32,
        depth_mm: r.range_i64(5, 800) as i32,
        weight_g: r.range_i64(20, 25_000) as i32,
    };
    let variants = (0..r.below(4))
        .map(|k| Variant {
            sku: format!("{sku}-{}", k + 1),
            color: r.pick(COLORS).to_string(),
            size: r.pick(SIZES).to_string(),
            price_cents: price_cents + r.range_i64(0, 5_000),
            stock: r.range_i64(0, 200) as i32,
        })
        .collect();
    let discount_percent = if r.chance(30) {
        Some(r.range_i64(5, 50) as i32)
    } else {
        None
    };
    Product {
        id: i as i64,
        name,
        description,
        price_cents,
        currency: r.pick(CURRENCIES).to_string(),
        rating: r.below(51) as f64 / 10.0,
        review_count: r.range_i64(0, 20_000) as i32,
        in_stock: stock > 0,
        stock,
        status,
        tags,
        dimensions,
        variants,
        discount_percent,
        created_at_ms: 1_577_836_800_000 + r.range_i64(0, 6 * 365 * 86_400_000),
        image_url: format!("https://cdn.example.com/img/{sku}.jpg"),
        sku,
    }
}

/// The first `count` products of the canonical catalog.
pub fn catalog(count: usize) -> Catalog {
    Catalog {
        products: (1..=count as u64).map(product).collect(),
    }
}

/// Loads a user's catalog from a JSON file in the shape of `fixtures/catalog.json`,
/// validates it, and names the file in any error.
pub fn load_file(path: &Path) -> Result<Catalog, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let catalog = crate::codec::json::decode(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    catalog.validate().map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(catalog)
}

/// Where the canonical fixture lives, relative to the crate root.
pub const CANONICAL_PATH: &str = "fixtures/catalog.json";

// ---------------------------------------------------------------------------
// Edge-case catalogs for seeded round-trip tests.

/// Integers at every MessagePack width change and every LEB128 length change
/// (7·k bits), both signs where the field allows it.
pub fn boundary_i64s() -> Vec<i64> {
    let mut v = vec![
        0,
        1,
        31,
        32,
        127,
        128,
        255,
        256,
        65_535,
        65_536,
        4_294_967_295,
        4_294_967_296,
        i32::MAX as i64,
        i32::MAX as i64 + 1,
        i64::MAX,
        -1,
        -32,
        -33,
        -63,
        -64,
        -65,
        -128,
        -129,
        -32_768,
        -32_769,
        i32::MIN as i64,
        i32::MIN as i64 - 1,
        i64::MIN,
    ];
    for k in 1..10 {
        let edge = 1i128 << (7 * k);
        for x in [edge - 1, edge, edge / 2 - 1, edge / 2, -(edge / 2), -(edge / 2) - 1] {
            if let Ok(x) = i64::try_from(x) {
                v.push(x);
            }
        }
    }
    v.sort_unstable();
    v.dedup();
    v
}

fn boundary_string(r: &mut Rng) -> String {
    // Lengths where MessagePack changes str width (fixstr 31 / str8 255 / str16 65535).
    const LENGTHS: &[usize] = &[0, 1, 31, 32, 127, 128, 255, 256, 65_535, 65_536, 70_000];
    match r.below(10) {
        0 => String::new(),
        1 => {
            // Every control character, both escaped quotes, and the odd ones
            // (DEL, U+2028/2029 which JSON allows raw but JavaScript did not).
            let mut s: String = (0u8..0x20).map(char::from).collect();
            s.push_str("\"\\/\u{7f}\u{2028}\u{2029}");
            s
        }
        2 => "😀🚀📦 ผ้าไหม Crème brûlée \u{10FFFF}".to_string(),
        3 => {
            let len = *r.pick(LENGTHS);
            // Long strings are rarer so a few hundred catalogs stay fast.
            let len = if len > 300 && !r.chance(10) { 300 } else { len };
            "x".repeat(len)
        }
        _ => format!("s{}", r.next_u64() % 100_000),
    }
}

fn boundary_nonneg(r: &mut Rng, max: i64) -> i64 {
    let picks: Vec<i64> = boundary_i64s().into_iter().filter(|v| (0..=max).contains(v)).collect();
    if r.chance(70) {
        *r.pick(&picks)
    } else {
        r.range_i64(0, max)
    }
}

/// A valid catalog of 0–8 products built from boundary values, fixed by `seed`.
pub fn random_catalog(seed: u64) -> Catalog {
    let mut r = Rng::new(seed ^ 0xD1B5_4A32_D192_ED03);
    let n = r.below(9) as usize;
    let mut ids: Vec<i64> = boundary_i64s().into_iter().filter(|&v| v >= 1).collect();
    r.shuffle(&mut ids);
    let products = (0..n)
        .map(|k| {
            let rating = match r.below(6) {
                0 => 0.0,
                1 => 5.0,
                2 => f64::from_bits(1), // smallest subnormal
                3 => 0.1,
                4 => 1.0 / 3.0,
                _ => r.unit_f64() * 5.0,
            };
            Product {
                id: ids[k],
                sku: format!("SKU-{}", r.below(1_000_000)),
                name: boundary_string(&mut r),
                description: boundary_string(&mut r),
                price_cents: boundary_nonneg(&mut r, i64::MAX),
                currency: r.pick(CURRENCIES).to_string(),
                rating,
                review_count: boundary_nonneg(&mut r, i32::MAX as i64) as i32,
                in_stock: r.chance(50),
                stock: boundary_nonneg(&mut r, i32::MAX as i64) as i32,
                status: *r.pick(&Status::ALL),
                tags: (0..r.below(6)).map(|_| boundary_string(&mut r)).collect(),
                dimensions: Dimensions {
                    width_mm: boundary_nonneg(&mut r, i32::MAX as i64) as i32,
                    height_mm: boundary_nonneg(&mut r, i32::MAX as i64) as i32,
                    depth_mm: boundary_nonneg(&mut r, i32::MAX as i64) as i32,
                    weight_g: boundary_nonneg(&mut r, i32::MAX as i64) as i32,
                },
                variants: (0..r.below(4))
                    .map(|_| Variant {
                        sku: boundary_string(&mut r),
                        color: boundary_string(&mut r),
                        size: boundary_string(&mut r),
                        price_cents: boundary_nonneg(&mut r, i64::MAX),
                        stock: boundary_nonneg(&mut r, i32::MAX as i64) as i32,
                    })
                    .collect(),
                discount_percent: if r.chance(40) {
                    Some(r.range_i64(1, 90) as i32)
                } else {
                    None
                },
                created_at_ms: *r.pick(&boundary_i64s()),
                image_url: boundary_string(&mut r),
            }
        })
        .collect::<Vec<Product>>();
    let mut products = products;
    // Every 25th seed carries a string over 64 KiB (MessagePack str32, a
    // 3-byte varint length), multi-byte so that no width shortcut can pass.
    if seed % 25 == 7 {
        if let Some(p) = products.first_mut() {
            p.description = "é".repeat(40_000);
        }
    }
    Catalog { products }
}

/// Products the model refuses but a writer must still spell right, one per
/// value of [`boundary_i64s`]: integers at every width and sign in every
/// integer field, strings full of escapes (every control character, `"`,
/// `\\`, at every length from 0 to 39), names at every MessagePack string
/// width's edges (0, 31, 32, 255, 256, 65,535 and 65,536 bytes, multi-byte),
/// 0 to 18 tags and variants (array widths on both sides of 15), and
/// ratings off the writers' fast paths (thirds, `-0.0`, `5e-324`, `1e300`).
pub fn edge_products() -> Vec<Product> {
    let base = product(1);
    let escapes: String = (0u8..0x20).map(char::from).chain("\"\\é/".chars()).collect();
    let lens = [0, 31, 32, 255, 256, 65_535, 65_536];
    let mut out = Vec::new();
    for (i, v) in boundary_i64s().into_iter().enumerate() {
        let len = lens[i % lens.len()];
        let narrow = i32::try_from(v).unwrap_or(if v < 0 { i32::MIN } else { i32::MAX });
        let s: String = escapes.chars().cycle().skip(i).take(i % 40).collect();
        let mut p = base.clone();
        p.id = v;
        p.price_cents = v;
        p.created_at_ms = v.wrapping_neg();
        p.review_count = narrow;
        p.stock = narrow.wrapping_neg();
        p.in_stock = i % 2 == 0;
        p.dimensions = Dimensions {
            width_mm: narrow,
            height_mm: narrow / 3,
            depth_mm: narrow / 300,
            weight_g: narrow.wrapping_sub(1),
        };
        p.discount_percent = (i % 2 == 0).then_some(narrow);
        p.status = Status::ALL[i % 3];
        p.sku = "x".repeat(i % 20);
        p.name = "é".repeat(len / 2) + &"x".repeat(len % 2);
        p.description = s.repeat(3) + &"y".repeat(i);
        p.currency = s.chars().take(3).collect();
        p.image_url = "\"".repeat(i % 7);
        p.tags = vec![s.clone(); i];
        p.variants = (0..i)
            .map(|k| Variant {
                sku: s.clone(),
                color: "\\".repeat(k),
                size: String::new(),
                price_cents: v.wrapping_add(k as i64),
                stock: narrow,
            })
            .collect();
        p.rating = [f64::from(narrow) / 7.0, f64::from(narrow), -0.0, 5e-324, 1e300][i % 5];
        out.push(p);
    }
    out
}

/// `wirebench fixtures [--count N] [--out PATH]`: writes the canonical catalog as JSON.
pub fn cli_main(args: &mut crate::cli::Args) -> Result<(), String> {
    if args.switch("--help") {
        println!("wirebench fixtures [--count N (default {CANONICAL_COUNT})] [--out PATH (default {CANONICAL_PATH})]");
        return Ok(());
    }
    let count = args.parse_or("--count", CANONICAL_COUNT)?;
    let out = args.value("--out")?.unwrap_or_else(|| CANONICAL_PATH.to_string());
    args.finish()?;
    let mut bytes = Vec::new();
    crate::codec::json::encode(&catalog(count).products, &mut bytes).map_err(|e| e.to_string())?;
    bytes.push(b'\n');
    std::fs::write(&out, &bytes).map_err(|e| format!("{out}: {e}"))?;
    eprintln!("wrote {count} products ({} bytes) to {out}", bytes.len());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No state carries from one call to the next: products made in reverse
    /// order on another thread equal the catalog's, made in order on this one.
    #[test]
    fn product_is_a_pure_function_of_its_index() {
        let in_order = catalog(50).products;
        let reversed = std::thread::spawn(|| (1..=50u64).rev().map(product).collect::<Vec<_>>())
            .join()
            .unwrap();
        assert!(in_order.iter().eq(reversed.iter().rev()));
        assert_eq!(catalog(10).products[..], in_order[..10]);
    }

    /// Against a committed value: products 1, 42 and 1000 are those of
    /// `fixtures/catalog.json` (the whole file is compared in tests/golden.rs).
    #[test]
    fn products_match_the_committed_fixture() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(CANONICAL_PATH);
        let committed = load_file(&path).unwrap();
        assert_eq!(committed.products.len(), CANONICAL_COUNT);
        for i in [1, 42, CANONICAL_COUNT as u64] {
            assert_eq!(product(i), committed.products[i as usize - 1], "product({i})");
        }
        assert_ne!(product(41), committed.products[41], "neighbours differ");
    }

    #[test]
    fn canonical_mix_matches_spec() {
        let c = catalog(CANONICAL_COUNT);
        let n = c.products.len() as f64;
        let discounted = c.products.iter().filter(|p| p.discount_percent.is_some()).count() as f64;
        assert!(
            (0.25..0.35).contains(&(discounted / n)),
            "discount share {}",
            discounted / n
        );
        let has = |pred: &dyn Fn(&Product) -> bool| c.products.iter().any(pred);
        assert!(has(
            &|p| !p.name.is_ascii() && p.name.chars().any(|ch| ('\u{0E00}'..='\u{0E7F}').contains(&ch))
        ));
        assert!(has(&|p| p.name.contains('è')
            || p.name.contains('é')
            || p.name.contains('ñ')));
        for needle in ["\"", "\\", "\n", "\t", "\u{7}", "\u{1F4E6}"] {
            assert!(
                has(&|p| p.description.contains(needle)),
                "no description contains {needle:?}"
            );
        }
        for k in 0..=3 {
            assert!(has(&|p| p.variants.len() == k), "no product with {k} variants");
        }
        for k in 0..=5 {
            assert!(has(&|p| p.tags.len() == k), "no product with {k} tags");
        }
    }

    #[test]
    fn random_catalogs_are_valid_and_reproducible() {
        for seed in 0..200 {
            let c = random_catalog(seed);
            c.validate().unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            assert_eq!(c, random_catalog(seed), "seed {seed}");
        }
    }
}

//! Hostile input for the Avro schema parser and the resolving reader,
//! deterministic (the fuzz targets `avro_schema` and `avro_resolve` explore
//! further): seeded mutants of every evolution schema and of real datums
//! through every writer → reader pair end in a datum or an error, never a
//! panic; a resolved datum re-encodes with the reader's schema.

#[path = "support/mutate.rs"]
mod mutate;

use wirebench::evolve::{Direction, Row, Step, run};
use wirebench::generic::resolve::Resolver;
use wirebench::generic::schema::Schema;
use wirebench::prng::Rng;

fn schemas() -> Vec<&'static str> {
    let mut all = vec![wirebench::codec::avro::SCHEMA];
    all.extend(Step::ALL.map(Step::avsc));
    all
}

#[test]
fn mutated_schemas_parse_or_fail_cleanly() {
    let texts = schemas();
    let mut rng = Rng::new(0x5C4E_3A11);
    let (mut ok, mut err) = (0, 0);
    for i in 0..6_000 {
        let seed = texts[i % texts.len()].as_bytes();
        let other = texts[(i + 1) % texts.len()].as_bytes();
        let m = mutate::mutate(&mut rng, seed, other);
        match Schema::parse(&m) {
            Ok(s) => {
                ok += 1;
                // A parsed schema resolves against itself on a short datum.
                let _ = Resolver::new(&s, &s).read(&m[..m.len().min(64)]);
            }
            Err(e) => {
                err += 1;
                assert!(!e.message.is_empty());
            }
        }
    }
    assert!(ok > 100 && err > 100, "ok {ok}, err {err}");
}

#[test]
fn mutated_datums_through_every_pair() {
    let mut rng = Rng::new(0xDA7A);
    let v1 = Schema::parse(wirebench::codec::avro::SCHEMA.as_bytes()).unwrap();
    let (mut ok, mut err) = (0, 0);
    for step in Step::ALL {
        let v2 = Schema::parse(step.avsc().as_bytes()).unwrap();
        for d in Direction::ALL {
            let cell = run(step, Row::Avro, d).unwrap();
            let (w, r) = match d {
                Direction::OldToNew => (&v1, &v2),
                Direction::NewToOld => (&v2, &v1),
            };
            let resolver = Resolver::new(w, r);
            for _ in 0..1_500 {
                let m = mutate::mutate(&mut rng, &cell.bytes, &cell.bytes);
                match resolver.read(&m) {
                    Ok(datum) => {
                        ok += 1;
                        let mut out = Vec::new();
                        wirebench::generic::avro::encode(r, &datum, &mut out)
                            .unwrap_or_else(|e| panic!("{}: resolved datum does not fit the reader: {e}", step.id()));
                    }
                    Err(e) => {
                        err += 1;
                        assert!(e.at <= m.len(), "{e}");
                    }
                }
            }
        }
    }
    assert!(ok > 100 && err > 1_000, "ok {ok}, err {err}");
}

#![no_main]
//! Avro schema resolution on hostile bytes: the first byte picks a writer →
//! reader pair (the catalog and each evolution step, both ways, plus a
//! recursive schema read by a renamed, promoted reader); the rest is the
//! writer's datum. Property: an error or a datum, never a panic, a hang or
//! unbounded allocation. Run: `make fuzz FUZZ_TARGETS=avro_resolve`.

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use wirebench::generic::resolve::Resolver;
use wirebench::generic::schema::Schema;
use wirebench::evolve::Step;

const LIST_W: &str = r#"{"type":"record","name":"L","fields":[{"name":"v","type":"int"},{"name":"m","type":{"type":"map","values":["null","bytes","L"]}},{"name":"next","type":["null","L"]}]}"#;
const LIST_R: &str = r#"{"type":"record","name":"N","aliases":["L"],"fields":[{"name":"next","type":["null","N"]},{"name":"v","type":"double"},{"name":"x","type":{"type":"array","items":"N"},"default":[]}]}"#;

fn pairs() -> &'static Vec<(Schema, Schema)> {
    static PAIRS: OnceLock<Vec<(Schema, Schema)>> = OnceLock::new();
    PAIRS.get_or_init(|| {
        let parse = |s: &str| Schema::parse(s.as_bytes()).expect("fuzz schemas parse");
        let v1 = parse(wirebench::codec::avro::SCHEMA);
        let mut all = vec![(v1.clone(), v1.clone()), (parse(LIST_W), parse(LIST_R))];
        for step in Step::ALL {
            let v2 = parse(step.avsc());
            all.push((v1.clone(), v2.clone()));
            all.push((v2, v1.clone()));
        }
        all
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, datum)) = data.split_first() else { return };
    let pairs = pairs();
    let (w, r) = &pairs[pick as usize % pairs.len()];
    let _ = Resolver::new(w, r).read(datum);
});

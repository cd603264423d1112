//! The evolution matrix, cell by cell: each test runs one step × format ×
//! direction with the real codecs (`wirebench::evolve::run`) and asserts its
//! classification; a refusal also asserts a piece of the error it quotes.

use wirebench::evolve::{Class, Direction, Outcome, Row, Step, run};

fn check(step: Step, row: Row, d: Direction, want: Class, detail: &str) {
    let cell = run(step, row, d).unwrap();
    assert_eq!(
        cell.outcome.class(),
        want,
        "{} {} {:?}: {}",
        step.id(),
        row.name(),
        d,
        cell.outcome
    );
    let text = match &cell.outcome {
        Outcome::Correct => String::new(),
        Outcome::Default(v) | Outcome::Drops(v) | Outcome::Wrong(v) => v.join(", "),
        Outcome::Refuses(e) => e.clone(),
    };
    assert!(
        text.contains(detail),
        "{} {} {:?}: {text:?} lacks {detail:?}",
        step.id(),
        row.name(),
        d
    );
}

macro_rules! cells {
    ($($name:ident: $step:ident $row:ident $dir:ident => $class:ident $detail:literal;)*) => {
        $(
            #[test]
            fn $name() {
                check(Step::$step, Row::$row, Direction::$dir, Class::$class, $detail);
            }
        )*

        /// Every cell of the matrix has its test above.
        #[test]
        fn every_cell_has_a_test() {
            let tested: Vec<(Step, Row, Direction)> = vec![$((Step::$step, Row::$row, Direction::$dir)),*];
            for step in Step::ALL {
                for row in Row::ALL {
                    for d in Direction::ALL {
                        assert!(tested.contains(&(step, row, d)), "no test for {} {} {:?}", step.id(), row.name(), d);
                    }
                }
            }
        }
    };
}

cells! {
    add_field_json_old_to_new: AddField Json OldToNew => Refuses "missing field `brand`";
    add_field_json_new_to_old: AddField Json NewToOld => Drops "brand";
    add_field_json_tolerant_old_to_new: AddField JsonTolerant OldToNew => Default "brand = \"\"";
    add_field_json_tolerant_new_to_old: AddField JsonTolerant NewToOld => Drops "brand";
    add_field_msgpack_old_to_new: AddField Msgpack OldToNew => Refuses "missing field `brand`";
    add_field_msgpack_new_to_old: AddField Msgpack NewToOld => Drops "brand";
    add_field_msgpack_tolerant_old_to_new: AddField MsgpackTolerant OldToNew => Default "brand = \"\"";
    add_field_msgpack_tolerant_new_to_old: AddField MsgpackTolerant NewToOld => Drops "brand";

    remove_field_json_old_to_new: RemoveField Json OldToNew => Drops "image_url";
    remove_field_json_new_to_old: RemoveField Json NewToOld => Refuses "missing field `image_url`";
    remove_field_json_tolerant_old_to_new: RemoveField JsonTolerant OldToNew => Drops "image_url";
    remove_field_json_tolerant_new_to_old: RemoveField JsonTolerant NewToOld => Default "image_url = \"\"";
    remove_field_msgpack_old_to_new: RemoveField Msgpack OldToNew => Drops "image_url";
    remove_field_msgpack_new_to_old: RemoveField Msgpack NewToOld => Refuses "missing field `image_url`";
    remove_field_msgpack_tolerant_old_to_new: RemoveField MsgpackTolerant OldToNew => Drops "image_url";
    remove_field_msgpack_tolerant_new_to_old: RemoveField MsgpackTolerant NewToOld => Default "image_url = \"\"";

    widen_int_json_old_to_new: WidenInt Json OldToNew => Correct "";
    widen_int_json_new_to_old: WidenInt Json NewToOld => Refuses "5000000000";
    widen_int_json_tolerant_old_to_new: WidenInt JsonTolerant OldToNew => Correct "";
    widen_int_json_tolerant_new_to_old: WidenInt JsonTolerant NewToOld => Refuses "5000000000";
    widen_int_msgpack_old_to_new: WidenInt Msgpack OldToNew => Correct "";
    widen_int_msgpack_new_to_old: WidenInt Msgpack NewToOld => Refuses "5000000000";
    widen_int_msgpack_tolerant_old_to_new: WidenInt MsgpackTolerant OldToNew => Correct "";
    widen_int_msgpack_tolerant_new_to_old: WidenInt MsgpackTolerant NewToOld => Refuses "5000000000";

    add_enum_symbol_json_old_to_new: AddEnumSymbol Json OldToNew => Correct "";
    add_enum_symbol_json_new_to_old: AddEnumSymbol Json NewToOld => Refuses "\"archived\"";
    add_enum_symbol_json_tolerant_old_to_new: AddEnumSymbol JsonTolerant OldToNew => Correct "";
    add_enum_symbol_json_tolerant_new_to_old: AddEnumSymbol JsonTolerant NewToOld => Refuses "\"archived\"";
    add_enum_symbol_msgpack_old_to_new: AddEnumSymbol Msgpack OldToNew => Correct "";
    add_enum_symbol_msgpack_new_to_old: AddEnumSymbol Msgpack NewToOld => Refuses "\"archived\"";
    add_enum_symbol_msgpack_tolerant_old_to_new: AddEnumSymbol MsgpackTolerant OldToNew => Correct "";
    add_enum_symbol_msgpack_tolerant_new_to_old: AddEnumSymbol MsgpackTolerant NewToOld => Refuses "\"archived\"";

    rename_field_json_old_to_new: RenameField Json OldToNew => Refuses "missing field `reviews`";
    rename_field_json_new_to_old: RenameField Json NewToOld => Refuses "missing field `review_count`";
    rename_field_json_tolerant_old_to_new: RenameField JsonTolerant OldToNew => Wrong "review_count 10975 → 0";
    rename_field_json_tolerant_new_to_old: RenameField JsonTolerant NewToOld => Wrong "reviews 10975 → 0";
    rename_field_msgpack_old_to_new: RenameField Msgpack OldToNew => Refuses "missing field `reviews`";
    rename_field_msgpack_new_to_old: RenameField Msgpack NewToOld => Refuses "missing field `review_count`";
    rename_field_msgpack_tolerant_old_to_new: RenameField MsgpackTolerant OldToNew => Wrong "review_count 10975 → 0";
    rename_field_msgpack_tolerant_new_to_old: RenameField MsgpackTolerant NewToOld => Wrong "reviews 10975 → 0";

    reorder_fields_json_old_to_new: ReorderFields Json OldToNew => Correct "";
    reorder_fields_json_new_to_old: ReorderFields Json NewToOld => Correct "";
    reorder_fields_json_tolerant_old_to_new: ReorderFields JsonTolerant OldToNew => Correct "";
    reorder_fields_json_tolerant_new_to_old: ReorderFields JsonTolerant NewToOld => Correct "";
    reorder_fields_msgpack_old_to_new: ReorderFields Msgpack OldToNew => Correct "";
    reorder_fields_msgpack_new_to_old: ReorderFields Msgpack NewToOld => Correct "";
    reorder_fields_msgpack_tolerant_old_to_new: ReorderFields MsgpackTolerant OldToNew => Correct "";
    reorder_fields_msgpack_tolerant_new_to_old: ReorderFields MsgpackTolerant NewToOld => Correct "";

    optional_to_required_json_old_to_new: OptionalToRequired Json OldToNew => Refuses "expected int, found null";
    optional_to_required_json_new_to_old: OptionalToRequired Json NewToOld => Refuses "must be absent or in 1..=90, found 0";
    optional_to_required_json_tolerant_old_to_new: OptionalToRequired JsonTolerant OldToNew => Refuses "expected int, found null";
    optional_to_required_json_tolerant_new_to_old: OptionalToRequired JsonTolerant NewToOld => Refuses "must be absent or in 1..=90, found 0";
    optional_to_required_msgpack_old_to_new: OptionalToRequired Msgpack OldToNew => Refuses "expected int, found null";
    optional_to_required_msgpack_new_to_old: OptionalToRequired Msgpack NewToOld => Refuses "must be absent or in 1..=90, found 0";
    optional_to_required_msgpack_tolerant_old_to_new: OptionalToRequired MsgpackTolerant OldToNew => Refuses "expected int, found null";
    optional_to_required_msgpack_tolerant_new_to_old: OptionalToRequired MsgpackTolerant NewToOld => Refuses "must be absent or in 1..=90, found 0";

    add_field_protobuf_old_to_new: AddField Protobuf OldToNew => Default "brand = \"\"";
    add_field_protobuf_new_to_old: AddField Protobuf NewToOld => Drops "brand";
    add_field_avro_old_to_new: AddField Avro OldToNew => Default "brand = \"\"";
    add_field_avro_new_to_old: AddField Avro NewToOld => Drops "brand";
    add_field_flatbuffers_old_to_new: AddField Flatbuffers OldToNew => Default "brand = \"\"";
    add_field_flatbuffers_new_to_old: AddField Flatbuffers NewToOld => Drops "brand";

    remove_field_protobuf_old_to_new: RemoveField Protobuf OldToNew => Drops "image_url";
    remove_field_protobuf_new_to_old: RemoveField Protobuf NewToOld => Default "image_url = \"\"";
    remove_field_avro_old_to_new: RemoveField Avro OldToNew => Drops "image_url";
    remove_field_avro_new_to_old: RemoveField Avro NewToOld => Refuses "Catalog.products[].image_url: the reader's field has no default";
    remove_field_flatbuffers_old_to_new: RemoveField Flatbuffers OldToNew => Drops "image_url";
    remove_field_flatbuffers_new_to_old: RemoveField Flatbuffers NewToOld => Refuses "missing required field products[0].image_url";

    widen_int_protobuf_old_to_new: WidenInt Protobuf OldToNew => Correct "";
    widen_int_protobuf_new_to_old: WidenInt Protobuf NewToOld => Wrong "stock 5000000000 → 705032704";
    widen_int_avro_old_to_new: WidenInt Avro OldToNew => Correct "";
    widen_int_avro_new_to_old: WidenInt Avro NewToOld => Refuses "Catalog.products[].stock: writer type long cannot be read as reader type int";
    widen_int_flatbuffers_old_to_new: WidenInt Flatbuffers OldToNew => Refuses "while verifying table field `stock`";
    widen_int_flatbuffers_new_to_old: WidenInt Flatbuffers NewToOld => Wrong "stock 5000000000 → 705032704";

    add_enum_symbol_protobuf_old_to_new: AddEnumSymbol Protobuf OldToNew => Correct "";
    add_enum_symbol_protobuf_new_to_old: AddEnumSymbol Protobuf NewToOld => Refuses "unknown Status value 3";
    add_enum_symbol_avro_old_to_new: AddEnumSymbol Avro OldToNew => Correct "";
    add_enum_symbol_avro_new_to_old: AddEnumSymbol Avro NewToOld => Refuses "writer symbol ARCHIVED is not in reader enum wirebench.Status, which has no default";
    add_enum_symbol_flatbuffers_old_to_new: AddEnumSymbol Flatbuffers OldToNew => Correct "";
    add_enum_symbol_flatbuffers_new_to_old: AddEnumSymbol Flatbuffers NewToOld => Refuses "unknown Status value 3";

    rename_field_protobuf_old_to_new: RenameField Protobuf OldToNew => Correct "";
    rename_field_protobuf_new_to_old: RenameField Protobuf NewToOld => Correct "";
    rename_field_avro_old_to_new: RenameField Avro OldToNew => Correct "";
    rename_field_avro_new_to_old: RenameField Avro NewToOld => Refuses "Catalog.products[].review_count: the reader's field has no default";
    rename_field_flatbuffers_old_to_new: RenameField Flatbuffers OldToNew => Correct "";
    rename_field_flatbuffers_new_to_old: RenameField Flatbuffers NewToOld => Correct "";

    reorder_fields_protobuf_old_to_new: ReorderFields Protobuf OldToNew => Correct "";
    reorder_fields_protobuf_new_to_old: ReorderFields Protobuf NewToOld => Correct "";
    reorder_fields_avro_old_to_new: ReorderFields Avro OldToNew => Correct "";
    reorder_fields_avro_new_to_old: ReorderFields Avro NewToOld => Correct "";
    reorder_fields_flatbuffers_old_to_new: ReorderFields Flatbuffers OldToNew => Refuses "is unaligned";
    reorder_fields_flatbuffers_new_to_old: ReorderFields Flatbuffers NewToOld => Refuses "not aligned";

    optional_to_required_protobuf_old_to_new: OptionalToRequired Protobuf OldToNew => Default "discount_percent = 0 (written: null)";
    optional_to_required_protobuf_new_to_old: OptionalToRequired Protobuf NewToOld => Wrong "discount_percent 0 → null";
    optional_to_required_avro_old_to_new: OptionalToRequired Avro OldToNew => Refuses "writer type null cannot be read as reader type int";
    optional_to_required_avro_new_to_old: OptionalToRequired Avro NewToOld => Correct "";
    optional_to_required_flatbuffers_old_to_new: OptionalToRequired Flatbuffers OldToNew => Default "discount_percent = 0 (written: null)";
    optional_to_required_flatbuffers_new_to_old: OptionalToRequired Flatbuffers NewToOld => Wrong "discount_percent 0 → null";
}

/// A v1 relay in protobuf: decode v2 bytes with the v1 types, re-encode,
/// and what v2 added is gone (prost keeps no unknown fields).
#[test]
fn a_protobuf_v1_relay_loses_v2_fields() {
    let cell = run(Step::AddField, Row::Protobuf, Direction::NewToOld).unwrap();
    let relayed = wirebench::codec::Format::Protobuf
        .encode_to_vec(&wirebench::codec::Format::Protobuf.decode(&cell.bytes).unwrap().products)
        .unwrap();
    assert!(cell.bytes.windows(4).any(|w| w == b"Acme"), "v2 bytes carry the brand");
    assert!(!relayed.windows(4).any(|w| w == b"Acme"), "the relayed bytes do not");
    assert!(relayed.len() < cell.bytes.len());
}

/// docs/EVOLUTION.md's matrix is exactly what `wirebench evolve` prints:
/// the table after `<!-- evolve: matrix -->`, up to the first blank line.
#[test]
fn evolution_md_quotes_the_real_matrix() {
    let doc = include_str!("../docs/EVOLUTION.md");
    let printed = wirebench::evolve::matrix_markdown(&wirebench::evolve::matrix().unwrap());
    assert_eq!(
        quoted_table(doc).unwrap(),
        printed,
        "docs/EVOLUTION.md: regenerate the table with `wirebench evolve`"
    );
    // The check can fail: one edited cell is caught.
    let (head, table) = doc.split_once("<!-- evolve: matrix -->").unwrap();
    let edited = format!(
        "{head}<!-- evolve: matrix -->{}",
        table.replacen("reads correctly", "reads fine", 1)
    );
    assert_ne!(quoted_table(&edited).unwrap(), printed);
}

fn quoted_table(doc: &str) -> Option<String> {
    let (_, after) = doc.split_once("<!-- evolve: matrix -->\n")?;
    let table: Vec<&str> = after.lines().take_while(|l| !l.trim().is_empty()).collect();
    Some(table.join("\n") + "\n")
}

//! The serde mirror used by differential tests converts losslessly both ways.
mod support;
use support::serde_mirror;

use serde_mirror::SCatalog;
use wirebench::fixtures;
use wirebench::model::Catalog;

#[test]
fn mirror_round_trips_the_fixture() {
    let c = fixtures::catalog(50);
    assert_eq!(Catalog::from(SCatalog::from(&c)), c);
}

//! What the browser page shows beyond the catalog, as plain data: the
//! evolution matrix's cells and the results directory. The `serve` command
//! builds it (the lab lives in `evolve`, above this module) and hands it in
//! [`super::config::Config::page`]; `page.rs` serves it.

use crate::codec::Format;
use std::path::PathBuf;
use std::sync::Arc;

/// One cell of the evolution matrix, as the page shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct EvolutionCell {
    /// The step's id (`widen-int`) and what it changes.
    pub step: String,
    pub change: String,
    /// The reader row (`json-tolerant`) and the format of its bytes.
    pub row: String,
    pub format: Format,
    /// `v1 writer → v2 reader` or the reverse.
    pub direction: String,
    /// `correct`, `default`, `drops`, `wrong` or `refuses`.
    pub class: String,
    /// The reader's outcome in words (its error message when it refuses).
    pub outcome: String,
    /// The writer's payload.
    pub bytes: Vec<u8>,
}

/// What the page shows beyond the catalog: handed in by the `serve` command.
#[derive(Debug, Clone, Default)]
pub struct Page {
    /// The evolution matrix (empty: the page says the lab is not loaded).
    pub evolution: Arc<Vec<EvolutionCell>>,
    /// `serve --results DIR`: the results directory the second page shows.
    pub results: Option<PathBuf>,
}

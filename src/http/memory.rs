//! What the server holds in memory for responses, and for how long: the
//! [`Resources`] every worker's buffers draw on.
//!
//! | part | module | bound |
//! |---|---|---|
//! | admission: budget + large-body slots, one ticket per body | [`super::admission`] | `--max-inflight-bytes`; one large body per core |
//! | encoder threads and their compressors; the compressors lent to workers | [`super::encoders`] | one of each per core |
//! | warm buffers for large bodies | [`super::warm`] | [`PAIRS_PER_CORE`] pairs per core, [`POOL_BUFFER`] each, set aside from the budget |
//! | a worker's own response buffers | [`super::buffers::Scratch`] | [`super::buffers::KEEP`] each between responses |

use super::admission::Admission;
use super::config::ServerConfig;
use super::encoders::{Compressors, Encoders};
use super::sys::Sched;
use super::warm::{LargeBuffers, POOL_BUFFER};

/// Warm buffer pairs per core. A pair is lent from admission until the
/// response is sent, a large-body slot only while encoding: with one slot
/// per core, one body per core may be encoding while the one before it is
/// still being sent, and each finds a warm pair.
pub const PAIRS_PER_CORE: usize = 2;

/// What every worker's [`super::buffers::Scratch`] draws on.
#[derive(Debug)]
pub struct Resources {
    pub admission: std::sync::Arc<Admission>,
    pub compressors: Compressors,
    /// Where large bodies are encoded.
    pub encoders: Encoders,
    pub large_buffers: LargeBuffers,
}

impl Resources {
    /// `cores` encoder threads, compressors and large-body slots;
    /// [`PAIRS_PER_CORE`] warm buffer pairs per core, as many as fit in the
    /// budget, set aside from it. The encoders move to `encoders` when given
    /// ([`super::pool::Priorities::encoders`]).
    pub fn new(config: &ServerConfig, cores: usize, encoders: Option<Sched>) -> std::io::Result<Resources> {
        let cores = cores.max(1);
        let pairs = (PAIRS_PER_CORE * cores).min(config.max_inflight_bytes / (2 * POOL_BUFFER));
        let large_buffers = LargeBuffers::new(pairs);
        let budget = config.max_inflight_bytes - large_buffers.footprint();
        Ok(Resources {
            admission: std::sync::Arc::new(Admission::new(budget, cores, config.budget_wait)),
            compressors: Compressors::new(cores),
            encoders: Encoders::start(cores, encoders)?,
            large_buffers,
        })
    }
}

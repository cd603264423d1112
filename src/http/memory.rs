//! What the server holds in memory for responses, and for how long: the
//! [`Resources`] every worker's buffers draw on.
//!
//! | part | module | bound |
//! |---|---|---|
//! | admission: budget + large-body slots, one ticket per body | [`super::admission`] | `--max-inflight-bytes`; one large body per core |
//! | encoder threads and their compressors; the compressors lent to workers | [`super::encoders`] | one of each per core |
//! | warm buffers for large bodies | [`super::buffers::LargeBuffers`] | one pair per core, [`POOL_BUFFER`] each, set aside from the budget |
//! | a worker's own response buffers | [`super::buffers::Scratch`] | [`super::buffers::KEEP`] each between responses |

use super::admission::Admission;
use super::buffers::{LargeBuffers, POOL_BUFFER};
use super::config::ServerConfig;
use super::encoders::{Compressors, Encoders};

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
    /// `cores` encoder threads, compressors and large-body slots; as many
    /// warm buffer pairs as fit in the budget, set aside from it.
    pub fn new(config: &ServerConfig, cores: usize) -> std::io::Result<Resources> {
        let cores = cores.max(1);
        let pairs = cores.min(config.max_inflight_bytes / (2 * POOL_BUFFER));
        let large_buffers = LargeBuffers::new(pairs);
        let budget = config.max_inflight_bytes - large_buffers.footprint();
        Ok(Resources {
            admission: std::sync::Arc::new(Admission::new(budget, cores, config.budget_wait)),
            compressors: Compressors::new(cores),
            encoders: Encoders::start(cores)?,
            large_buffers,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::admission::Size;
    use super::super::buffers::{KEEP, Scratch};
    use super::*;
    use crate::codec::Format;
    use crate::gzip;
    use std::sync::Arc;

    fn resources(max_inflight_bytes: usize) -> Arc<Resources> {
        let config = ServerConfig {
            max_inflight_bytes,
            ..ServerConfig::default()
        };
        Arc::new(Resources::new(&config, 1).unwrap())
    }

    #[test]
    fn the_pool_is_set_aside_from_the_budget_and_fits_in_it() {
        let r = resources(64 << 20);
        assert_eq!(r.large_buffers.pairs(), 1);
        assert_eq!(r.admission.limit(), (64 << 20) - 2 * POOL_BUFFER);
        let small = resources(POOL_BUFFER);
        assert_eq!(small.large_buffers.pairs(), 0, "no room for a pair");
        assert_eq!(small.admission.limit(), POOL_BUFFER);
    }

    #[test]
    fn a_large_body_reuses_the_warm_pair_and_gives_everything_back() {
        let res = resources(1 << 30);
        let products = Arc::new(crate::fixtures::catalog(1000).products);
        let mut s = Scratch::new(Arc::clone(&res));
        for round in 0..2 {
            assert_eq!(s.admit(768_000, true), Some(Size::Large));
            s.encode(Size::Large, Format::Protobuf, &products, 1000, true).unwrap();
            assert_eq!(s.body, Format::Protobuf.encode_to_vec(&products).unwrap());
            assert_eq!(gzip::decompress(&s.gz, 2 << 20).unwrap(), s.body);
            let body_at = s.body.as_ptr();
            s.settle();
            assert_eq!(res.admission.in_use(), s.body.len() + s.gz.len());
            s.release();
            assert_eq!(res.admission.in_use(), 0, "round {round}");
            assert!(s.capacity() <= 2 * KEEP, "round {round}: {}", s.capacity());
            assert_eq!(res.large_buffers.held(), 2 * POOL_BUFFER, "round {round}: the pair is back, warm");
            // The next large body gets the same buffer back.
            assert_eq!(s.admit(768_000, false), Some(Size::Large));
            assert_eq!(s.body.as_ptr(), body_at, "round {round}: the warm buffer is reused");
            s.release();
        }
    }

    #[test]
    fn a_body_beyond_the_pool_gets_a_fresh_buffer_freed_after() {
        let res = resources(1 << 30);
        let products = Arc::new(crate::fixtures::catalog(3000).products);
        let mut s = Scratch::new(Arc::clone(&res));
        assert_eq!(s.admit(3000 * 768, false), Some(Size::Large));
        s.encode(Size::Large, Format::Json, &products, 3000, false).unwrap();
        assert_eq!(s.body, Format::Json.encode_to_vec(&products).unwrap());
        s.release();
        assert_eq!(s.capacity(), 0);
        assert_eq!(res.large_buffers.held(), 0, "the pool was not used");
    }

    #[test]
    fn a_small_body_is_encoded_in_place() {
        let res = resources(1 << 30);
        let products = Arc::new(crate::fixtures::catalog(10).products);
        let mut s = Scratch::new(Arc::clone(&res));
        assert_eq!(s.admit(1000, true), Some(Size::Small));
        s.encode(Size::Small, Format::Json, &products, 1, true).unwrap();
        assert_eq!(s.body, Format::Json.encode_to_vec(&products[..1]).unwrap());
        assert_eq!(gzip::decompress(&s.gz, 1 << 20).unwrap(), s.body);
        s.release();
        assert_eq!(res.admission.in_use(), 0);
    }
}

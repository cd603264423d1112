//! `wirebench digests` predicts the server's bytes: for every format, count
//! and compression, the SHA-256 computed locally from the fixture equals the
//! SHA-256 of the body a real server sends over loopback, so a load client
//! can check bodies by digest (locust/, `--wb-verify digest`). And a server
//! with another catalog sends bodies whose digests differ.

mod support;
use support::server::{self, Client};
use wirebench::codec::Format;
use wirebench::digests;
use wirebench::sha256::sha256;

const COUNTS: [usize; 3] = [1, 10, 1000];

fn served(addr: std::net::SocketAddr, format: Format, count: usize, gzip: bool) -> Vec<u8> {
    let mut c = Client::connect(addr);
    let comp = if gzip { "gzip" } else { "none" };
    let r = c.get(&format!("/catalog/{}?count={count}&compression={comp}", format.name()));
    assert_eq!(r.status, 200, "{} x{count} {comp}: {}", format.name(), r.text());
    r.body
}

#[test]
fn digests_equal_the_served_bodies() {
    let fixture = wirebench::fixtures::load_file(std::path::Path::new(wirebench::fixtures::CANONICAL_PATH)).unwrap();
    let want = digests::compute(&fixture.products, &Format::ALL, &COUNTS, &[false, true]).unwrap();
    assert_eq!(want.len(), Format::ALL.len() * COUNTS.len() * 2);
    let s = server::start();
    for d in &want {
        let body = served(s.local_addr(), d.format, d.count, d.gzip);
        assert_eq!(body.len(), d.bytes, "{:?} x{} gzip={}", d.format, d.count, d.gzip);
        assert_eq!(sha256(&body), d.sha256, "{:?} x{} gzip={}", d.format, d.count, d.gzip);
    }
    s.shutdown();
}

#[test]
fn another_catalog_gives_other_digests() {
    let mut other = wirebench::fixtures::catalog(10);
    other.products[0].name.push_str(" (other)");
    let dir = std::env::temp_dir().join(format!("wb-digests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("other.json");
    let mut json = Vec::new();
    wirebench::codec::json::encode(&other.products, &mut json).unwrap();
    std::fs::write(&path, json).unwrap();
    let s = server::start_with(|c| c.fixture = Some(path.clone()));
    let fixture = wirebench::fixtures::catalog(10).products;
    let want = digests::compute(&fixture, &Format::ALL, &[1, 10], &[false, true]).unwrap();
    for d in &want {
        let body = served(s.local_addr(), d.format, d.count, d.gzip);
        assert_ne!(sha256(&body), d.sha256, "{:?} x{} gzip={}", d.format, d.count, d.gzip);
    }
    s.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}

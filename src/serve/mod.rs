//! `wirebench serve`: the application the HTTP server ([`crate::http`])
//! serves: the route table ([`routes`]), `Accept` negotiation
//! ([`negotiate`]), what differs between the catalog and a document on the
//! wire ([`payloads`]), the browser page ([`page`], its assets in `page/`,
//! its data in [`page_data`]), and the flags ([`config`]).
//!
//! Beyond the server's limits (`http`'s module doc), `count` is capped by
//! `--max-count` (10,000; over it: 400).
//!
//! **Architecture Invariant:** no response is cached; every catalog request
//! encodes afresh.

pub mod config;
pub mod metrics;
pub mod negotiate;
pub mod page;
pub mod page_data;
pub mod payloads;
pub mod routes;

pub use config::Config;

use crate::cli::Args;
use crate::http::{Server, sys};
use std::io::Write;

/// `wirebench serve`: prints where it listens, then serves until killed.
///
/// `lab` computes the evolution matrix the page shows; the caller above this
/// layer (the `serve` command in main.rs) hands it in.
pub fn cli_main(args: &mut Args, lab: fn() -> Result<Vec<page::EvolutionCell>, String>) -> Result<(), String> {
    if args.switch("--help") || args.switch("-h") {
        print!("{}", config::usage());
        return Ok(());
    }
    let mut config = config::config_from_args(args)?;
    args.finish()?;
    match lab() {
        Ok(cells) => config.page.evolution = std::sync::Arc::new(cells),
        // The page says the lab is not loaded; the catalog API is served anyway.
        Err(e) => eprintln!("wirebench serve: evolution lab not loaded: {e}"),
    }
    let started = routes::App::prepare(&config).and_then(|app| {
        let max_count = app.max_count;
        Ok((
            Server::bind_with(config.server.clone(), Box::new(app))?.start()?,
            max_count,
        ))
    });
    let (server, max_count) = started.map_err(|e| format!("cannot start on {}: {e}", config.server.addr))?;
    // Write errors are ignored: a closed stdout (the reader went away) must
    // not take the server down, as `println!` would by panicking.
    let mut out = std::io::stdout().lock();
    let addr = server.local_addr();
    let _ = writeln!(
        out,
        "wirebench serve: listening on http://{addr} ({} products prepared, up to {} connections)",
        max_count, config.server.max_connections
    );
    let _ = writeln!(out, "{}", backlog_line(config.server.backlog, server.listen_queue()));
    if let Some(e) = server.sched_refused() {
        let _ = writeln!(
            out,
            "wirebench serve: --sched rr refused ({e}); the threads stay in the fair class"
        );
    }
    let prio = server.priorities();
    let _ = match server.priority() {
        Ok(()) => writeln!(
            out,
            "wirebench serve: acceptor at {}, workers at {}, poller at {}",
            prio.raised, prio.worker, prio.poller
        ),
        Err(e) => writeln!(
            out,
            "wirebench serve: acceptor at the workers' priority, {} ({} refused: {e}), poller at {}",
            prio.worker, prio.raised, prio.poller
        ),
    };
    let _ = writeln!(out, "try: curl 'http://{addr}/catalog/json?count=1'");
    let _ = out.flush();
    drop(out);
    loop {
        std::thread::park();
    }
}

/// The start-up line about the listen backlog: the effective value, and a
/// warning when the kernel capped what `--backlog` asked.
fn backlog_line(asked: u32, effective: std::io::Result<sys::ListenQueue>) -> String {
    match effective {
        Ok(q) if q.backlog < asked => format!(
            "wirebench serve: warning: listen backlog {asked} asked, the kernel allows {} (net.core.somaxconn); \
             connects beyond a full queue are dropped and retried a second later",
            q.backlog
        ),
        Ok(q) => format!("wirebench serve: listen backlog {}", q.backlog),
        Err(e) => format!("wirebench serve: listen backlog {asked} asked (cannot read it back: {e})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_backlog_line_warns_when_the_kernel_capped_it() {
        let q = |backlog| Ok(sys::ListenQueue { queued: 0, backlog });
        assert_eq!(backlog_line(511, q(511)), "wirebench serve: listen backlog 511");
        let capped = backlog_line(8192, q(4096));
        assert!(
            capped.starts_with("wirebench serve: warning: listen backlog 8192 asked, the kernel allows 4096"),
            "{capped}"
        );
        let unknown = backlog_line(10, Err(std::io::Error::other("no TCP_INFO")));
        assert!(
            unknown.contains("10 asked (cannot read it back: no TCP_INFO)"),
            "{unknown}"
        );
    }
}

//! `wirebench serve`'s configuration: the server's ([`ServerConfig`], its
//! flags in [`crate::http::config`]) and the application's own: what is
//! served (`--max-count`, `--fixture`, `--data`, `--schema`) and what the
//! page shows (`--results`).

use super::page_data::Page;
use crate::cli::Args;
use crate::http::config::{self, ServerConfig};
use std::path::PathBuf;

/// Everything `wirebench serve` starts with. `Default` gives the documented defaults.
#[derive(Debug, Clone)]
pub struct Config {
    pub server: ServerConfig,
    /// Products prepared; the largest `count` accepted.
    pub max_count: usize,
    /// A catalog JSON file to serve instead of the generated fixture.
    pub fixture: Option<PathBuf>,
    /// `--data FILE.json [--schema S.avsc]`: any JSON document served under
    /// `/data` (the route table of `routes.rs`), with its schema given or inferred.
    pub data: Option<(PathBuf, Option<PathBuf>)>,
    /// The browser page's data (`--results DIR`, the evolution lab).
    pub page: Page,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            server: ServerConfig::default(),
            max_count: 10_000,
            fixture: None,
            data: None,
            page: Page::default(),
        }
    }
}

const HEAD: &str = "\
wirebench serve — the catalog API (see docs/HTTP.md)

FLAGS:
";

const APP_FLAGS: &str = "\
  --max-count N             products prepared; the largest count accepted [10000]
  --fixture FILE            serve this catalog JSON instead of the generated one
  --data FILE               also serve any JSON document at /data/{format} and /data,
                            its schema at /schemas/data.avsc (docs/DATA.md)
  --schema FILE             the Avro schema of --data (default: inferred)
  --results DIR             show this results directory's charts and report at /results
";

/// `wirebench serve --help`.
pub fn usage() -> String {
    format!("{HEAD}{}{APP_FLAGS}", config::FLAGS)
}

/// Parses the `serve` flags: the application's, then the server's.
pub fn config_from_args(args: &mut Args) -> Result<Config, String> {
    let d = Config::default();
    let max_count = args.parse_or("--max-count", d.max_count)?;
    if max_count == 0 {
        return Err("--max-count must be at least 1".into());
    }
    Ok(Config {
        max_count,
        fixture: args.value("--fixture")?.map(PathBuf::from),
        data: match (args.value("--data")?, args.value("--schema")?) {
            (Some(d), s) => Some((PathBuf::from(d), s.map(PathBuf::from))),
            (None, Some(_)) => return Err("--schema is the schema of --data FILE.json".into()),
            (None, None) => None,
        },
        page: Page {
            results: args.value("--results")?.map(PathBuf::from),
            ..d.page
        },
        server: config::config_from_args(args)?,
    })
}

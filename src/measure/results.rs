//! The raw result files under `results/`: their shapes, owned here so that
//! the tools that write them (`bench`, `load`) and the one that reads them
//! (`report`) agree by construction.
//!
//! | file | written by | shape |
//! |---|---|---|
//! | `codec.txt` | `wirebench codec-bench` | Go benchmark lines (`bench` module docs) |
//! | `sizes.csv` | `wirebench sizes` | [`SIZES_HEADER`], one row per format × count |
//! | `http*.csv` | `wirebench load` | [`HTTP_HEADER`], one row per case × round |
//! | `histograms/*.hist` | `wirebench load --histograms DIR` | [`super::histogram`] text form |
//! | `environment.json` | `codec-bench`, `report` | [`super::env`] |

/// The exact header of `sizes.csv`. Columns are found by name: files with
/// an `encode_us` column and without the `gunzip*_us` ones (written before
/// run stamps) are still read.
pub const SIZES_HEADER: &str = "format,count,raw_bytes,gzip1_bytes,gzip6_bytes,gzip9_bytes,bytes_per_product_raw,bytes_per_product_gzip6,gzip1_us,gzip6_us,gzip9_us,gzip6_cpu_us,gunzip1_us,gunzip6_us,gunzip9_us,gzip1_cpu_us,gzip9_cpu_us,gzip1_cpu_lo,gzip1_cpu_hi,gzip6_cpu_lo,gzip6_cpu_hi,gzip9_cpu_lo,gzip9_cpu_hi,gunzip1_cpu_us,gunzip6_cpu_us,gunzip9_cpu_us";

/// The exact header of `http.csv` and its variants (`http-gzip.csv`, …):
/// the run, its rates and latencies, the failures by kind, the
/// [`HTTP_CPU_COLUMNS`], then `verify`: how responses were checked
/// (`borrowed`, `owned`, `FORMAT:borrowed`/`FORMAT:owned` or `status` in
/// `--url` mode), then the [`HTTP_MACHINE_COLUMNS`].
pub const HTTP_HEADER: &str = "round,format,count,compression,concurrency,duration_s,requests,rps,bytes_per_s,p50_ms,p90_ms,p95_ms,p99_ms,p999_ms,max_ms,err_connect,err_write,err_read,err_timeout,err_status,err_decode,err_mismatch,server_cpu_us_per_req,server_user_share,client_cpu_us_per_req,client_user_share,process_cpu_us_per_req,verify,other_cpu_cores,steal_cores";

/// The machine columns at the end of [`HTTP_HEADER`] (`crate::measure::machine`):
/// other work and steal during the round, in cores; empty when not measured.
pub const HTTP_MACHINE_COLUMNS: [&str; 2] = ["other_cpu_cores", "steal_cores"];

/// The CPU accounting columns of [`HTTP_HEADER`], per verified request
/// (`crate::measure::cpu` for the definitions). `*_cpu_us_per_req`: on-CPU µs
/// of that side's threads; `*_user_share`: the fraction of their clock ticks
/// spent in user mode; `process_cpu_us_per_req`: the load generator's whole
/// process (with the in-process server, both sides plus the rest). A value
/// that was not measured is empty.
pub const HTTP_CPU_COLUMNS: [&str; 5] = [
    "server_cpu_us_per_req",
    "server_user_share",
    "client_cpu_us_per_req",
    "client_user_share",
    "process_cpu_us_per_req",
];

/// The failure kinds of an HTTP run, in the order of the `err_*` columns of
/// [`HTTP_HEADER`].
pub const HTTP_ERROR_KINDS: [&str; 7] = ["connect", "write", "read", "timeout", "status", "decode", "mismatch"];

/// Writes `text` to `path` (`-` = stdout), creating parent directories.
pub fn write_output(path: &str, text: &str) -> Result<(), String> {
    if path == "-" {
        print!("{text}");
        return Ok(());
    }
    let p = std::path::Path::new(path);
    if let Some(dir) = p.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::write(p, text).map_err(|e| format!("{path}: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_and_cpu_columns_are_in_the_header() {
        let errors: Vec<&str> = HTTP_HEADER.split(',').filter_map(|c| c.strip_prefix("err_")).collect();
        assert_eq!(errors, HTTP_ERROR_KINDS);
        let cols: Vec<&str> = HTTP_HEADER.split(',').collect();
        let at = cols.iter().position(|c| *c == HTTP_CPU_COLUMNS[0]).unwrap();
        assert_eq!(cols[at..at + HTTP_CPU_COLUMNS.len()], HTTP_CPU_COLUMNS);
        assert!(HTTP_HEADER.ends_with(&HTTP_MACHINE_COLUMNS.join(",")));
    }
}

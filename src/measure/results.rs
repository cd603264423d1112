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

/// The exact header of `sizes.csv`.
pub const SIZES_HEADER: &str = "format,count,raw_bytes,gzip1_bytes,gzip6_bytes,gzip9_bytes,bytes_per_product_raw,bytes_per_product_gzip6,gzip1_us,gzip6_us,gzip9_us,encode_us";

/// The exact header of `http.csv` and its variants (`http-gzip.csv`, …).
pub const HTTP_HEADER: &str = "round,format,count,compression,concurrency,duration_s,requests,rps,bytes_per_s,p50_ms,p90_ms,p95_ms,p99_ms,p999_ms,max_ms,err_connect,err_write,err_read,err_timeout,err_status,err_decode,err_mismatch";

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
    fn error_columns_follow_the_kinds() {
        let cols: Vec<&str> = HTTP_HEADER.split(',').filter_map(|c| c.strip_prefix("err_")).collect();
        assert_eq!(cols, HTTP_ERROR_KINDS);
    }
}

//! bench (placeholder until its implementation lands).

/// `wirebench codec-bench`.
pub fn cli_codec_bench(_args: &mut crate::cli::Args) -> Result<(), String> {
    Err("not implemented yet".into())
}

/// `wirebench sizes`.
pub fn cli_sizes(_args: &mut crate::cli::Args) -> Result<(), String> {
    Err("not implemented yet".into())
}

//! report (placeholder until its implementation lands).

/// Entry point of the subcommand.
pub fn cli_main(_args: &mut crate::cli::Args) -> Result<(), String> {
    Err("not implemented yet".into())
}

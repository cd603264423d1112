//! `wirebench evolve [STEP FORMAT]`: the evolution matrix, or one cell's
//! bytes annotated by the explainer.

use super::{Direction, Row, Step, matrix, matrix_markdown, run};
use crate::cli::Args;

pub fn cli_main(args: &mut Args) -> Result<(), String> {
    if args.switch("--help") {
        println!(
            "wirebench evolve [STEP FORMAT]\n\n\
             Without arguments: the matrix of every evolution step x format x direction.\n\
             With STEP and FORMAT: both cells of that step and format, with the writer's bytes.\n\n\
             STEP: {}\nFORMAT: {}",
            Step::ALL.map(Step::id).join(", "),
            Row::ALL.map(Row::name).join(", ")
        );
        return Ok(());
    }
    let pos = args.positional();
    args.finish()?;
    match pos.as_slice() {
        [] => {
            print!("{}", matrix_markdown(&matrix()?));
            Ok(())
        }
        [step, format] => {
            let step = Step::from_id(step).ok_or_else(|| {
                format!(
                    "unknown step {step:?}; expected one of {}",
                    Step::ALL.map(Step::id).join(", ")
                )
            })?;
            let row = Row::from_name(format).ok_or_else(|| {
                format!(
                    "unknown format {format:?}; expected one of {}",
                    Row::ALL.map(Row::name).join(", ")
                )
            })?;
            for d in Direction::ALL {
                print!("{}", cell_text(step, row, d)?);
            }
            Ok(())
        }
        _ => Err("expected no arguments, or STEP FORMAT".to_string()),
    }
}

/// The text of one cell: heading, outcome, the writer's bytes (annotated
/// when they are v1 bytes the explainer knows), what was written and read.
pub fn cell_text(step: Step, row: Row, d: Direction) -> Result<String, String> {
    let c = run(step, row, d)?;
    let mut out = format!(
        "## {} / {} / {}\n\n{}: {}\n\n",
        step.id(),
        row.name(),
        d.label(),
        step.id(),
        step.change()
    );
    out.push_str(&format!("outcome: {}\n\n", c.outcome));
    out.push_str(&format!("writer's bytes ({}):\n", c.bytes.len()));
    // The explainer knows the v1 catalog; v2 bytes it cannot follow get a
    // plain dump with the reason.
    match crate::explain::explain_text(row.format(), &c.bytes, true) {
        Ok(text) => out.push_str(&text),
        Err(e) => {
            out.push_str(&format!("(the v1 explainer stops: {}; plain dump)\n", e.error));
            out.push_str(&hex(&c.bytes));
        }
    }
    out.push_str(&format!("\nwritten: {}\n", c.written.to_json()));
    match &c.read {
        Ok(r) => out.push_str(&format!("read:    {}\n\n", r.to_json())),
        Err(e) => out.push_str(&format!("read:    error: {e}\n\n")),
    }
    Ok(out)
}

/// A plain hex dump, 16 bytes a line with offsets.
fn hex(bytes: &[u8]) -> String {
    let mut out = String::new();
    for (i, chunk) in bytes.chunks(16).enumerate() {
        let h: Vec<String> = chunk.iter().map(|b| format!("{b:02x}")).collect();
        out.push_str(&format!("{:06x}  {}\n", i * 16, h.join(" ")));
    }
    out
}

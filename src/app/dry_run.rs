//! `--dry-run`: a command checked and described, nothing measured and nothing written.
//!
//! A sweep's plan is validated as for a run (its flags, its memory, its output files), then its
//! cells, samples, a rough wall time and the peak memory are printed. The commands that read a
//! CSV read it (so a missing or malformed input is refused as it would be) and say what they
//! would write.

use std::path::PathBuf;
use std::process::ExitCode;

use super::read;
use crate::cli::ExportArgs;
use crate::output::console::print_line;
use crate::output::files::OutputSet;
use crate::output::{export, open};
use crate::plan::{Plan, estimate};
use crate::sweep::{BOUND_CUT, BOUND_FLOOR, SCREEN_CUT};

/// The first line of every dry run.
const NOTHING_DONE: &str = "dry run: nothing measured, nothing written";

/// The sweep of `plan`, described: refused as the sweep would be (its output set, its exports),
/// else its cells and what it would cost.
pub fn sweep(plan: &Plan, exports: &ExportArgs) -> anyhow::Result<ExitCode> {
    export::check_free(exports, plan.force)?;
    let set = plan.out.as_deref().map(OutputSet::new);
    set.as_ref().map(|set| set.check(plan.force)).transpose()?;
    let cells = plan.cells();
    print_line(NOTHING_DONE);
    print_line(&format!("cells: {}", cells.len()));
    for cell in &cells {
        let refused = cell.refusal().map_or(String::new(), |reason| format!(" (refused, one row: {reason})"));
        print_line(&format!("  {}{refused}", cell.label()));
    }
    let (paired, whom) = if plan.builds > 1 {
        (", each cell by both builds".to_owned(), "on the changes still open and leaning")
    } else {
        let bounded = cells.iter().any(|cell| cell.workload.pace.is_none()).then(|| {
            format!(
                "; an unpaced sample of a channel not kept, past {BOUND_CUT}× its group's fastest and {} s, stopped there, its figure \
                 labelled bounded",
                BOUND_FLOOR.as_secs_f64()
            )
        });
        let screened = format!(
            " (after the first without the channels {SCREEN_CUT}× behind in two samples or across their band{})",
            bounded.unwrap_or_default()
        );
        (screened, "between each band's leaders")
    };
    let duels = if plan.max_time.is_zero() {
        "no duels".to_owned()
    } else {
        format!(
            "then duels {whom} for {:.3} s × {}",
            plan.max_time.as_secs_f64(),
            open::duel_cells(plan.duel_cells(), cells.len())
        )
    };
    print_line(&format!(
        "samples: {} screening round(s) of every group{paired}, {duels}, after {} warm-up(s)",
        plan.samples, plan.warmup
    ));
    print_line(&estimate::wall_time_line(plan));
    for line in open::notes(plan) {
        print_line(&format!("note: {line}"));
    }
    if let Some((cell, peak)) = estimate::largest_cell(plan) {
        let available = estimate::available_memory().map_or_else(String::new, |(bytes, source)| {
            format!(", of {} available ({source})", estimate::bytes_text(u128::from(bytes)))
        });
        print_line(&format!("peak memory: about {} ({}){available}", estimate::bytes_text(peak), cell.label()));
    }
    match set {
        Some(set) => {
            let members: Vec<String> = set.members().iter().map(|path| path.display().to_string()).collect();
            print_line(&format!("would write: {}", members.join(", ")));
        }
        None => print_line("would write: results/channel-bench-<UTC start time>.csv and the files beside it"),
    }
    Ok(ExitCode::SUCCESS)
}

/// A command that reads `inputs` under `--dry-run`, its output checked as the command checks it:
/// each input read (so a missing or malformed one is refused as it would be), then `name` says
/// what it would read and `writes`.
pub fn command(name: &str, inputs: &[PathBuf], writes: &str) -> anyhow::Result<ExitCode> {
    let read_ok: Vec<String> = inputs
        .iter()
        .map(|input| Ok(format!("{} ({} cells)", input.display(), read(input)?.order.len())))
        .collect::<anyhow::Result<_>>()?;
    print_line(NOTHING_DONE);
    print_line(&format!("{name}: would read {} and {writes}", read_ok.join(" and ")));
    Ok(ExitCode::SUCCESS)
}

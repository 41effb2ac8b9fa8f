//! `--dry-run`: a command checked and described, nothing measured and nothing written.
//!
//! A sweep's plan is validated as for a run (its flags, its memory, its output files), then its
//! cells, samples, a rough wall time and the peak memory are printed. The commands that read a
//! CSV read it (so a missing or malformed input is refused as it would be) and say what they
//! would write.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use super::commands::{Target, target};
use super::read;
use crate::cli::{Command, CsvList, ExportArgs};
use crate::output::console::print_line;
use crate::output::files::OutputSet;
use crate::output::{export, open};
use crate::paths;
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

/// A subcommand under `--dry-run`: its inputs read, its output checked as the command would,
/// what it would write said; `None` for a command not under `--dry-run` (`sfu` and `ab` plan
/// their flags as a sweep does).
pub fn command(command: &Command) -> anyhow::Result<Option<ExitCode>> {
    let (name, inputs, writes): (&str, Vec<PathBuf>, String) = match command {
        Command::Compare(args) if args.dry_run => {
            ("compare", args.old.0.iter().chain(&args.new.0).cloned().collect(), "print the comparison".to_owned())
        }
        Command::Summary(args) if args.dry_run && args.short => {
            ("summary", CsvList::all(&args.csvs), "print the short answer".to_owned())
        }
        Command::Summary(args) if args.dry_run => {
            let csvs = CsvList::all(&args.csvs);
            let beside = OutputSet::new(&csvs[0]).markdown();
            let writes = match &args.out {
                None if csvs.len() > 1 => "write no Markdown (several CSVs: --out PATH writes it)".to_owned(),
                out => output(out.as_deref().unwrap_or(&beside), args.force, out.is_none(), "the summary")?,
            };
            ("summary", csvs, format!("print the answer, {writes}"))
        }
        Command::Cells(args) if args.dry_run => {
            export::check_free(&args.export, args.force)?;
            let csvs = CsvList::all(&args.csvs);
            let beside = OutputSet::new(&csvs[0]).cells_json();
            let writes = output(args.out.as_deref().unwrap_or(&beside), args.force, args.out.is_none(), "--out")?;
            ("cells", csvs, writes)
        }
        Command::Report(args) if args.dry_run => {
            let csvs = CsvList::all(&args.csvs);
            let html = args.out.clone().unwrap_or_else(|| OutputSet::new(&csvs[0]).html());
            let writes = output(&html, args.force, args.out.is_none(), "the report")?;
            ("report", csvs, writes)
        }
        _ => return Ok(None),
    };
    let read_ok: Vec<String> = inputs
        .iter()
        .map(|input| Ok(format!("{} ({} cells)", input.display(), read(input)?.order.len())))
        .collect::<anyhow::Result<_>>()?;
    print_line(NOTHING_DONE);
    print_line(&format!("{name}: would read {} and {writes}", read_ok.join(" and ")));
    Ok(Some(ExitCode::SUCCESS))
}

/// What a command would do with its output `path` ([`target`]).
fn output(path: &Path, force: bool, beside: bool, flag: &str) -> anyhow::Result<String> {
    Ok(match target(path, force, beside, flag)? {
        Target::Stdout => "print it on stdout".to_owned(),
        Target::Kept(path) => format!("write nothing: {}", paths::kept(path)),
        Target::File(path, _) => format!("write {}", path.display()),
    })
}

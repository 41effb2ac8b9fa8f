//! The commands that read a sweep's CSV: `compare`, `summary`, `cells`, `report`, and
//! `--list-channels`.

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use super::{dry_run, file_name, print_error, read};
use crate::cli::{CellsArgs, CompareArgs, CsvList, ExportArgs, ReportArgs, RewriteArgs, SummaryArgs};
use crate::error::usage;
use crate::output::doc::{Form, Format};
use crate::output::files::{self, OutputSet};
use crate::output::{self, console::print_line, export};
use crate::paths::{self, Found};
use crate::registry::{self, ChannelEntry};
use crate::results::analysis::Analysis;
use crate::results::decision::Weighing;
use crate::results::load::{CellKey, ResultsFile};
use crate::results::metadata::{MachineId, Metadata};
use crate::results::pool::{self, Run};
use crate::run::workload::Capacity;

/// `channel-bench cells`: the per-cell results, and the exports asked for.
pub fn cells(args: &CellsArgs) -> anyhow::Result<ExitCode> {
    rewrite(Written::Cells, &args.files, None, &args.export)
}

/// `channel-bench report`: `X.html` beside `X.csv`, replaced only with `--force`.
pub fn report(args: &ReportArgs) -> anyhow::Result<ExitCode> {
    rewrite(Written::Report, &args.files, args.weigh.as_ref(), &ExportArgs::default())
}

/// `cells` and `report`: `written` of the CSVs pooled, to `--out` or beside the one CSV, a file
/// there left as it is unless `--force`; with the `exports`, refused before anything is read.
fn rewrite(
    written: Written,
    args: &RewriteArgs,
    weigh: Option<&Weighing>,
    exports: &ExportArgs,
) -> anyhow::Result<ExitCode> {
    let csvs = &CsvList::all(&args.csvs);
    if csvs.len() > 1 && args.out.is_none() {
        return Err(usage(format!("several CSVs pooled: give --out PATH for their {}", written.what())));
    }
    let target = written.target(csvs, args)?;
    if args.dry_run {
        export::check_free(exports, args.force)?;
        return dry_run::command(written.what(), csvs, &target.would());
    }
    if let Target::Kept(_) = target {
        return target.put("", written.what()).map(|()| ExitCode::SUCCESS);
    }
    written.write(target, &reread(csvs, args.allow_different, weigh)?, exports, args.force)?;
    Ok(ExitCode::SUCCESS)
}

/// What `cells`, `summary` and `report` render, read one way: the CSVs pooled ([`pooled`]),
/// the name the outputs give them, each machine's description once, and their analysis.
pub(crate) struct Reread {
    /// One CSV's file name, or the pool's name ([`Reread::pooled`]).
    pub name: String,
    /// The name [`pooled`] gives the CSVs: one CSV's path as given, or the runs pooled.
    pub pooled: String,
    /// Each machine's description (the JSON beside its CSVs), once, in the order first given.
    pub machines: Vec<Metadata>,
    /// The analysis, its room decided on the order given, else the first machine's run's own.
    pub analysis: Analysis,
}

/// The CSVs at `csvs` read and pooled as [`Reread`] says, the room weighed as `weigh` says
/// (`--weigh`), else as the first run with a description weighed it.
fn reread(csvs: &[PathBuf], allow_different: bool, weigh: Option<&Weighing>) -> anyhow::Result<Reread> {
    let runs = read_runs(csvs)?;
    let mut seen = HashSet::new();
    let described = runs.iter().filter_map(|run| run.metadata.as_ref());
    let machines: Vec<Metadata> =
        described.filter(|metadata| seen.insert(MachineId::of(Some(metadata)))).cloned().collect();
    let (pooled, file) = pooled(runs, allow_different)?;
    let name = if csvs.len() == 1 { file_name(&csvs[0]) } else { pooled.clone() };
    let weighing = Weighing::of_run(machines.first().and_then(|metadata| metadata.weigh.as_ref()), weigh);
    let analysis = Analysis::weighed(&pooled, &file, machines.first(), &weighing);
    Ok(Reread { name, pooled, machines, analysis })
}

/// The machine description beside `csv` (`x.json`), when there is a readable one: a machine
/// left out is not a reason to have no answer.
pub(crate) fn metadata(csv: &Path) -> Option<Metadata> {
    let json = csv.with_extension("json");
    json.exists().then(|| Metadata::read(&json)).transpose().unwrap_or_else(|error| {
        print_error(&format!("warning: {error:#}; the machine is left out"));
        None
    })
}

/// The CSVs at `paths` read, each with the JSON beside it.
fn read_runs(paths: &[PathBuf]) -> anyhow::Result<Vec<Run>> {
    paths
        .iter()
        .map(|path| Ok(Run { name: path.display().to_string(), file: read(path)?, metadata: metadata(path) }))
        .collect()
}

/// `runs` as one file, and the name outputs give them: the path of one as given, `a.csv, b.csv,
/// c.csv (3 runs pooled)` for several; the runs of each sweep of each machine pooled
/// (`results::pool`), several machines side by side, each cell keyed on its own. Runs that
/// cannot be pooled are a usage error naming the difference.
fn pooled(runs: Vec<Run>, allow_different_builds: bool) -> anyhow::Result<(String, ResultsFile)> {
    let machines = pool::sweeps(runs);
    let several = machines.len() > 1;
    let (mut names, mut parts) = (Vec::new(), Vec::new());
    for (machine, sweeps) in machines {
        // By file name when several machines: each machine's runs are named by the machine.
        let files: Vec<String> = (sweeps.iter().flatten())
            .map(|run| if several { file_name(Path::new(&run.name)) } else { run.name.clone() })
            .collect();
        let said = match files.len() {
            1 => files[0].clone(),
            count => format!("{} ({count} runs pooled)", files.join(", ")),
        };
        names.push(if several { format!("{said} on {machine}") } else { said });
        for runs in sweeps {
            if let Some(line) = pool::refusal(&runs, allow_different_builds) {
                return Err(usage(format!("cannot pool these runs: {line}")));
            }
            let names = runs.iter().map(|run| run.name.clone()).collect::<Vec<_>>().join(", ");
            parts.push((machine.clone(), names, pool::pool(runs.into_iter().map(|run| run.file).collect())));
        }
    }
    let file = pool::union(parts).map_err(|line| usage(format!("cannot pool these runs: {line}")))?;
    Ok((names.join("; "), file))
}

/// `channel-bench compare`: exit code 0, or 1 under `--fail-on-slower` when a cell is slower.
pub fn compare(args: &CompareArgs) -> anyhow::Result<ExitCode> {
    if args.dry_run {
        return dry_run::command("compare", &[&args.old.0[..], &args.new.0].concat(), "print the comparison");
    }
    let read_pooled = |csvs: &[PathBuf]| pooled(read_runs(csvs)?, args.allow_different);
    let ((old_name, old), (new_name, new)) = (read_pooled(&args.old.0)?, read_pooled(&args.new.0)?);
    let (mut old, mut new) = (old.only(subset(args)), new.only(subset(args)));
    for (name, file) in [(&old_name, &old), (&new_name, &new)] {
        if file.order.is_empty() {
            return Err(usage(format!(
                "{name} has no cell of the --channels, --tasks and --capacity given: name cells it holds"
            )));
        }
        let machines: BTreeSet<&MachineId> = file.order.iter().map(|key| &key.coord.machine).collect();
        if machines.len() > 1 {
            let machines: Vec<String> = machines.iter().map(|machine| machine.to_string()).collect();
            return Err(usage(format!(
                "{name} holds runs of {} machines ({}): compare runs of one machine a side",
                machines.len(),
                machines.join("; ")
            )));
        }
    }
    let different = output::compare::workload_difference(&old_name, &old.workloads(), &new_name, &new.workloads());
    if let Some(line) = &different
        && !args.allow_different
    {
        return Err(usage(format!("{line}: compare runs of the same workload, or pass --allow-different")));
    }
    if old.workloads() != new.workloads() {
        // Equal where both files know them (or --allow-different): pair by the rest of the key.
        let strip = |file: &ResultsFile, name: &str| {
            file.without_workload().ok_or_else(|| {
                usage(format!(
                    "{name} holds cells that differ only by workload: compare it against a file of one workload"
                ))
            })
        };
        (old, new) = (strip(&old, &old_name)?, strip(&new, &new_name)?);
    }
    let mut notes = output::compare::machine_differences(
        &old_name,
        metadata(&args.old.0[0]).as_ref(),
        &new_name,
        metadata(&args.new.0[0]).as_ref(),
    );
    if let Some(line) = different {
        notes.insert(0, format!("workloads differ, cells paired without them (--allow-different): {line}"));
    }
    notes.extend(output::machine::speeds(["old", "new"], old.machine.as_ref(), new.machine.as_ref()));
    notes.extend(
        [("old", &old), ("new", &new)].into_iter().filter_map(|(name, file)| output::machine::busy(name, &file.waited)),
    );
    for note in notes {
        print_line(&format!("note: {note}"));
    }
    let (sections, worse) =
        output::compare::report(&old_name, &new_name, &crate::results::compare::compare(&old, &new));
    for section in sections.iter().filter(|section| !section.is_empty()) {
        print_line(section.trim_end());
    }
    print_line(&format!("note: {}", output::pool::noise_line(old.runs.max(new.runs).max(1))));
    if args.fail_on_slower {
        print_line(
            "note: a change smaller than the drift above is not told apart from it here; to check a change \
             between two builds, measure both in the same rounds: channel-bench ab --baseline OLD",
        );
    }
    // A paced cell worse on p99, CPU or frames overflowed fails the gate as a slower cell does.
    Ok(if args.fail_on_slower && worse > 0 { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}

/// Whether a cell is among those `compare`'s `--channels`, `--tasks` and `--capacity` name
/// (each filter not given keeps every cell).
fn subset(args: &CompareArgs) -> impl Fn(&CellKey) -> bool + '_ {
    let tasks: Option<Vec<u64>> =
        args.tasks.as_ref().map(|items| items.iter().flat_map(|item| &item.0).map(|&tasks| tasks as u64).collect());
    move |key| {
        args.channels.as_ref().is_none_or(|channels| channels.contains(&key.channel))
            && tasks.as_ref().is_none_or(|tasks| tasks.contains(&key.tasks))
            && args.capacity.as_ref().is_none_or(|capacities| {
                capacities.iter().any(|&slots| key.coord.capacity == Capacity::Shared(slots as u64))
            })
    }
}

/// `channel-bench summary`: the text on stdout, the Markdown beside the CSV (or `--out`), never
/// replacing a file without `--force`.
pub fn summarize(args: &SummaryArgs) -> anyhow::Result<ExitCode> {
    let csvs = &CsvList::all(&args.files.csvs);
    let several = csvs.len() > 1 && args.files.out.is_none();
    let markdown =
        if args.json || args.short || several { None } else { Some(Written::Summary.target(csvs, &args.files)?) };
    if args.files.dry_run {
        let writes = match markdown {
            None if args.short => "print the short answer".to_owned(),
            None if args.json => "print the answer as JSON".to_owned(),
            None => "print the answer, write no Markdown (several CSVs: --out PATH writes it)".to_owned(),
            Some(markdown) => format!("print the answer, {}", markdown.would()),
        };
        return dry_run::command("summary", csvs, &writes);
    }
    let mut reread = reread(csvs, args.files.allow_different, args.weigh.as_ref())?;
    reread.analysis.keep = args.keep.clone().unwrap_or(reread.analysis.keep);
    let (name, analysis) = (&reread.name, &reread.analysis);
    match markdown {
        Some(markdown) => Written::Summary.write(markdown, &reread, &ExportArgs::default(), args.files.force)?,
        None if args.json => print!("{}", output::answer::json(name, analysis)),
        None if args.short => {
            print!("{}", output::document::of(name, analysis, Form::Short).render(Format::Markdown));
        }
        None => {
            print_line(output::document::of(name, analysis, Form::Full).render(Format::Text).trim_end());
            print_line(&format!("summary of {}: Markdown written only with --out", reread.pooled));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A file a sweep writes beside its CSV from the analysis of its rows, which the command of the
/// same name writes again from CSVs.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Written {
    /// The summary's Markdown, `X.md`, its text printed first.
    Summary,
    /// The per-cell results, `X.cells.json`, and the exports asked for.
    Cells,
    /// The report, `X.html`.
    Report,
}

impl Written {
    /// Its name, as the line that says where it went names it (`cells: PATH`).
    fn what(self) -> &'static str {
        match self {
            Written::Summary => "summary",
            Written::Cells => "cells",
            Written::Report => "report",
        }
    }

    /// Where it goes beside the CSV of `set`.
    pub(crate) fn beside(self, set: &OutputSet) -> PathBuf {
        match self {
            Written::Summary => set.markdown(),
            Written::Cells => set.cells_json(),
            Written::Report => set.html(),
        }
    }

    /// Where a command writes it from `csvs`: to stdout under `--out -`; else to `--out`, or
    /// beside the first CSV, where a regular file is left as it is without `--force`; refused
    /// when that is one of the CSVs, or as any output is ([`files::check_target`]).
    fn target(self, csvs: &[PathBuf], args: &RewriteArgs) -> anyhow::Result<Target> {
        let path = args.out.clone().unwrap_or_else(|| self.beside(&OutputSet::new(&csvs[0])));
        let (what, beside) = (self.what(), args.out.is_none());
        if path == Path::new("-") {
            return Ok(Target::Stdout);
        }
        if csvs.contains(&path) {
            let (shown, extension) = (path.display(), path.extension().unwrap_or_default().display());
            return Err(usage(if beside {
                format!("{shown} ends in .{extension}: the {what} would overwrite it; give the CSV a .csv name")
            } else {
                format!("--out {shown} is one of the CSVs read: the {what} would overwrite it; give another path")
            }));
        }
        if beside && !args.force && paths::examine(&path).is_ok_and(|found| found == Found::Regular) {
            return Ok(Target::Kept(path));
        }
        files::check_target(&path, args.force, &if beside { format!("the {what}") } else { "--out".to_owned() })?;
        Ok(Target::File(path, args.force))
    }

    /// Writes it of `read` where `target` says; the summary's text printed first, unless its
    /// Markdown goes to stdout; the cells' `exports` after them.
    pub(crate) fn write(self, target: Target, read: &Reread, exports: &ExportArgs, force: bool) -> anyhow::Result<()> {
        let (name, analysis) = (&read.name, &read.analysis);
        let text = match self {
            Written::Summary => {
                let document = output::document::of(name, analysis, Form::Full);
                if !matches!(target, Target::Stdout) {
                    print_line(document.render(Format::Text).trim_end());
                }
                document.render(Format::Markdown)
            }
            Written::Cells => export::json(&analysis.cells),
            Written::Report => output::html::page(name, analysis, &read.machines),
        };
        target.put(&text, self.what())?;
        if self == Written::Cells {
            export::write_all(exports, &analysis.cells, force)?;
        }
        Ok(())
    }
}

/// Where an output goes (a file of [`Written`]; what `--dry-run` says of an output).
pub(crate) enum Target {
    /// To this file, already checked; replaced only with `--force` (the bool).
    File(PathBuf, bool),
    /// To stdout, instead of the text.
    Stdout,
    /// Nowhere: this file, a regular file already there, is left as it is and named.
    Kept(PathBuf),
}

impl Target {
    /// What the command would do with this output, as `--dry-run` says it.
    pub(crate) fn would(&self) -> String {
        match self {
            Target::Stdout => "print it on stdout".to_owned(),
            Target::Kept(path) => format!("write nothing: {}", paths::kept(path)),
            Target::File(path, _) => format!("write {}", path.display()),
        }
    }

    /// Puts `text`, the `what` (`summary`, `report`), where this says: written to the file,
    /// already checked, that it then names; printed on stdout; or the file kept named.
    fn put(self, text: &str, what: &str) -> anyhow::Result<()> {
        match self {
            Target::File(path, force) => {
                files::write(&path, text.as_bytes(), force, &format!("the {what}"))?;
                print_line(&format!("{what}: {}", path.display()));
            }
            Target::Stdout => print_line(text.trim_end()),
            Target::Kept(path) => print_line(&format!("{what}: {}", paths::kept(&path))),
        }
        Ok(())
    }
}

/// `channel-bench --list-channels`: the built-in channels, then `extra`, each channel's caveats
/// under it.
pub fn list_channels(extra: &'static [ChannelEntry]) {
    print_line(&format!("{:<16} {:<16} {:<10} capacity", "channel", "crate", "version"));
    for channel in registry::known().chain(extra) {
        let capacity = match channel.slots_per_sender {
            0 => "exact".to_owned(),
            slots => format!("exact (the crate adds {slots} slot per sender; the adapter asks for capacity - senders)"),
        };
        print_line(&format!("{:<16} {:<16} {:<10} {capacity}", channel.name, channel.crate_name, channel.version()));
        for caveat in channel.caveats {
            let (mark, evidence) = (output::doc::MARK, caveat.evidence.label());
            print_line(&format!(
                "{:<16} {mark} {} ({}): {}; {evidence}",
                "", caveat.text, caveat.versions, caveat.link
            ));
        }
    }
    print_line(&format!(
        "{} known problems, from the crates' issue trackers searched {}",
        output::doc::MARK,
        registry::CAVEATS_CHECKED
    ));
}

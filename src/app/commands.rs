//! The commands that read a sweep's CSV: `compare`, `summary`, `cells`, `report`, and
//! `--list-channels`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use super::{dry_run, file_name, print_error, read};
use crate::cli::{CellsArgs, CompareArgs, CsvList, ReportArgs, SummaryArgs};
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

/// `channel-bench cells`.
pub fn cells(args: &CellsArgs) -> anyhow::Result<ExitCode> {
    let csvs = &CsvList::all(&args.csvs);
    if csvs.len() > 1 && args.out.is_none() {
        return Err(usage("several CSVs pooled: give --out PATH for their cells"));
    }
    let out = args.out.clone().unwrap_or_else(|| OutputSet::new(&csvs[0]).cells_json());
    if csvs.contains(&out) {
        return Err(usage(format!("{} would overwrite the CSV itself: give --out another path", out.display())));
    }
    let target = target(&out, args.force, args.out.is_none(), "--out")?;
    if args.dry_run {
        export::check_free(&args.export, args.force)?;
        return dry_run::command("cells", csvs, &target.would());
    }
    if let Target::Kept(_) = target {
        return target.put("", "cells").map(|()| ExitCode::SUCCESS);
    }
    let cells = reread(csvs, args.allow_different, None)?.analysis.cells;
    export::write_file(&out, &export::json(&cells), args.force, "--out")?;
    export::write_all(&args.export, &cells, args.force)?;
    if out != Path::new("-") {
        print_line(&format!("cells: {}", out.display()));
    }
    Ok(ExitCode::SUCCESS)
}

/// What `cells`, `summary` and `report` render, read one way: the CSVs pooled ([`pooled`]),
/// the name the outputs give them, each machine's description once, and their analysis.
struct Reread {
    /// One CSV's file name, or the pool's name ([`Reread::pooled`]).
    name: String,
    /// The name [`pooled`] gives the CSVs: one CSV's path as given, or the runs pooled.
    pooled: String,
    /// Each machine's description (the JSON beside its CSVs), once, in the order first given.
    machines: Vec<Metadata>,
    /// The analysis, its room decided on the order given, else the first machine's run's own.
    analysis: Analysis,
}

/// The CSVs at `csvs` read and pooled as [`Reread`] says, the room weighed as `weigh` says
/// (`--weigh`), else as the first run with a description weighed it.
fn reread(csvs: &[PathBuf], allow_different: bool, weigh: Option<&Weighing>) -> anyhow::Result<Reread> {
    let runs = read_runs(csvs)?;
    let mut machines: Vec<Metadata> = Vec::new();
    for metadata in runs.iter().filter_map(|run| run.metadata.as_ref()) {
        let id = MachineId::of(Some(metadata));
        if !machines.iter().any(|known| MachineId::of(Some(known)) == id) {
            machines.push(metadata.clone());
        }
    }
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
    let named = |names: Vec<String>| match names.len() {
        1 => names[0].clone(),
        count => format!("{} ({count} runs pooled)", names.join(", ")),
    };
    let machines = pool::sweeps(runs);
    let name = match machines.len() {
        1 => named(machines[0].1.iter().flatten().map(|run| run.name.clone()).collect()),
        _ => (machines.iter())
            .map(|(machine, sweeps)| {
                // By file name: each machine's runs are named by the machine.
                let names = sweeps.iter().flatten().map(|run| file_name(Path::new(&run.name))).collect();
                format!("{} on {machine}", named(names))
            })
            .collect::<Vec<_>>()
            .join("; "),
    };
    let mut parts = Vec::new();
    for (machine, sweeps) in machines {
        for runs in sweeps {
            if let Some(line) = pool::refusal(&runs, allow_different_builds) {
                return Err(usage(format!("cannot pool these runs: {line}")));
            }
            let names = runs.iter().map(|run| run.name.clone()).collect::<Vec<_>>().join(", ");
            parts.push((machine.clone(), names, pool::pool(runs.into_iter().map(|run| run.file).collect())));
        }
    }
    let file = pool::union(parts).map_err(|line| usage(format!("cannot pool these runs: {line}")))?;
    Ok((name, file))
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
    let csvs = &CsvList::all(&args.csvs);
    let csv = &csvs[0];
    let beside = OutputSet::new(csv).markdown();
    let markdown = if args.json || args.short || (csvs.len() > 1 && args.out.is_none()) {
        None
    } else if beside == *csv {
        return Err(usage(format!(
            "{} ends in .md: the summary would overwrite it; give the CSV a .csv name",
            csv.display()
        )));
    } else if let Some(out) = args.out.as_ref().filter(|out| out.as_os_str() != "-" && csvs.contains(out)) {
        return Err(usage(format!("--out {} is the CSV itself: give another path", out.display())));
    } else {
        Some(target(args.out.as_deref().unwrap_or(&beside), args.force, args.out.is_none(), "the summary")?)
    };
    if args.dry_run {
        let writes = match markdown {
            None if args.short => "print the short answer".to_owned(),
            None if args.json => "print the answer as JSON".to_owned(),
            None => "print the answer, write no Markdown (several CSVs: --out PATH writes it)".to_owned(),
            Some(markdown) => format!("print the answer, {}", markdown.would()),
        };
        return dry_run::command("summary", csvs, &writes);
    }
    let Reread { name, pooled: pooled_name, mut analysis, .. } =
        reread(csvs, args.allow_different, args.weigh.as_ref())?;
    analysis.keep = args.keep.clone().unwrap_or(analysis.keep);
    match markdown {
        Some(markdown) => print_summary(&name, &analysis, markdown)?,
        None if args.json => print!("{}", output::answer::json(&name, &analysis)),
        None if args.short => {
            print!("{}", output::document::of(&name, &analysis, Form::Short).render(Format::Markdown));
        }
        None => {
            print_line(output::document::of(&name, &analysis, Form::Full).render(Format::Text).trim_end());
            print_line(&format!("summary of {pooled_name}: Markdown written only with --out"));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Where an output goes (the summary's Markdown; what `--dry-run` says of an output).
#[derive(Clone, Copy)]
pub(crate) enum Target<'a> {
    /// To this file, already checked; replaced only with `--force` (the bool).
    File(&'a Path, bool),
    /// To stdout, instead of the text.
    Stdout,
    /// Nowhere: this file, a regular file already there, is left as it is and named.
    Kept(&'a Path),
}

impl Target<'_> {
    /// What the command would do with this output, as `--dry-run` says it.
    pub(crate) fn would(self) -> String {
        match self {
            Target::Stdout => "print it on stdout".to_owned(),
            Target::Kept(path) => format!("write nothing: {}", paths::kept(path)),
            Target::File(path, _) => format!("write {}", path.display()),
        }
    }

    /// Puts `text`, the `what` (`summary`, `report`), where this says: written to the file,
    /// already checked, that it then names; printed on stdout; or the file kept named.
    pub(crate) fn put(self, text: &str, what: &str) -> anyhow::Result<()> {
        match self {
            Target::File(path, force) => {
                files::write(path, text.as_bytes(), force, &format!("the {what}"))?;
                print_line(&format!("{what}: {}", path.display()));
            }
            Target::Stdout => print_line(text.trim_end()),
            Target::Kept(path) => print_line(&format!("{what}: {}", paths::kept(path))),
        }
        Ok(())
    }
}

/// Where an output to `path` (`-` is stdout) goes: refused as the command would refuse it
/// (`flag` names it), or, for a file a sweep wrote `beside` its CSV, left without `force`.
pub(crate) fn target<'a>(path: &'a Path, force: bool, beside: bool, flag: &str) -> anyhow::Result<Target<'a>> {
    if path == Path::new("-") {
        return Ok(Target::Stdout);
    }
    if beside && !force && paths::examine(path).is_ok_and(|found| found == Found::Regular) {
        return Ok(Target::Kept(path));
    }
    files::check_target(path, force, flag)?;
    Ok(Target::File(path, force))
}

/// Prints the summary of `analysis` and writes it as Markdown to `markdown` (on stdout, the
/// Markdown alone).
pub(crate) fn print_summary(name: &str, analysis: &Analysis, markdown: Target) -> anyhow::Result<()> {
    let document = output::document::of(name, analysis, Form::Full);
    if !matches!(markdown, Target::Stdout) {
        print_line(document.render(Format::Text).trim_end());
    }
    markdown.put(&document.render(Format::Markdown), "summary")
}

/// `channel-bench report`: `X.html` beside `X.csv`, replaced only with `--force`.
pub fn report(args: &ReportArgs) -> anyhow::Result<ExitCode> {
    let csvs = &CsvList::all(&args.csvs);
    if csvs.len() > 1 && args.out.is_none() {
        return Err(usage("several CSVs in one report: give --out PATH for it"));
    }
    let html = args.out.clone().unwrap_or_else(|| OutputSet::new(&csvs[0]).html());
    if csvs.contains(&html) {
        return Err(usage(format!(
            "{} ends in .html: the report would overwrite it; give the CSV a .csv name or --out another path",
            html.display()
        )));
    }
    let html = target(&html, args.force, args.out.is_none(), "the report")?;
    if args.dry_run {
        return dry_run::command("report", csvs, &html.would());
    }
    if let Target::Kept(_) = html {
        return html.put("", "report").map(|()| ExitCode::SUCCESS);
    }
    let Reread { name, machines, analysis, .. } = reread(csvs, args.allow_different, args.weigh.as_ref())?;
    html.put(&output::html::page(&name, &analysis, &machines), "report")?;
    Ok(ExitCode::SUCCESS)
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

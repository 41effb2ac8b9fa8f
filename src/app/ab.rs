//! A paired A/B run (`channel-bench ab`): the sweep's rounds, each measured by two builds in
//! processes of their own (this binary, the candidate, and the one at `--baseline`), in an
//! order drawn per round from a seed; then the ratio candidate / baseline per cell and band
//! (`results::ab`), the duels spent on the ones still open. Exit codes: 0, 1 when a cell
//! failed or `--fail-on-slower` found a slowdown past its figure, 2 for bad usage (a baseline
//! that is no channel-bench build of this take-round protocol too), 128 + a stop signal.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, ExitCode, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use anyhow::Context;
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::commands::{Reread, Target, Written};
use super::print_error;
use super::sweep::measure;
use crate::cli::{AB_MAX_TIME_SECS, AB_SAMPLES, AbArgs, ExportArgs};
use crate::error::{UsageError, usage};
use crate::output::files::{self, OutputSet};
use crate::output::{self, console::print_line, machine};
use crate::plan::Plan;
use crate::registry::{self, ChannelEntry};
use crate::results::ab::{self, Ab, BASELINE, CANDIDATE};
use crate::results::load::{CellKey, ResultsFile, builds_of, load_builds};
use crate::results::metadata::Build;
use crate::results::schema::Record;
use crate::run::measure::{Sample, Watchdog};
use crate::run::rounds::{self, Isolation, Job, Launch, PROTOCOL};
use crate::sweep::{ORDER_SEED, Place};

/// The seed of which build measures each round first: the same plan alternates alike in every run.
const BUILD_ORDER_SEED: u64 = ORDER_SEED ^ 0xAB;

/// Answers `take-round --protocol`: this build as [`Build`] (no role, path or environment),
/// one JSON line on stdout.
pub fn protocol(extra: &'static [ChannelEntry]) -> anyhow::Result<ExitCode> {
    let build = Build {
        role: String::new(),
        path: String::new(),
        env: Vec::new(),
        protocol: PROTOCOL,
        version: env!("CARGO_PKG_VERSION").to_owned(),
        git_commit: machine::git_commit(),
        crates: machine::crates(registry::known().chain(extra)),
        channels: registry::known().chain(extra).map(|channel| channel.name.to_owned()).collect(),
    };
    print_line(&serde_json::to_string(&build).expect("plain data serializes"));
    Ok(ExitCode::SUCCESS)
}

/// Runs `args`' A/B and writes its CSV, JSON and Markdown summary.
pub fn run(
    extra: &'static [ChannelEntry],
    args: AbArgs,
    command_line: Vec<String>,
    isolation: Isolation,
) -> anyhow::Result<ExitCode> {
    if let Some(csv) = &args.from {
        let (ab, _) = judged(csv, extra)?;
        print_line(&if args.json { output::export::json(&ab) } else { output::ab::text(&ab) });
        return Ok(gate(&ab, args.fail_on_slower).unwrap_or(ExitCode::SUCCESS));
    }
    if isolation != Isolation::Process {
        return Err(usage("ab measures in processes of two binaries: run it from a channel-bench binary"));
    }
    let (exports, dry) = (args.sweep.export.clone(), args.sweep.dry_run);
    let mut sweep = args.sweep;
    if !sweep.quick {
        sweep.samples.get_or_insert(AB_SAMPLES);
        sweep.max_time.get_or_insert(AB_MAX_TIME_SECS);
    }
    let mut plan = Plan { isolation, builds: 2, ..Plan::with_extra(sweep, extra)? };
    crate::output::export::check_free(&exports, plan.force)?;
    let candidate = Launch { env: args.candidate_env, ..Launch::this()? };
    let baseline = Launch { exe: args.baseline.context("ab needs --baseline PATH")?, env: args.baseline_env };
    let builds = vec![describe(&baseline, BASELINE)?, describe(&candidate, CANDIDATE)?];
    let absent = shared_channels(&mut plan, &builds[0])?;
    for line in &absent {
        print_line(&format!("left out: {line}"));
    }
    if dry {
        print_line("ab: each cell of a round is measured twice, once by each build");
        return super::dry_run::sweep(&plan, &exports);
    }
    let mut place = Paired {
        sides: [(baseline, BASELINE), (candidate, CANDIDATE)],
        order: Pcg64Mcg::seed_from_u64(BUILD_ORDER_SEED),
        said_detectable: false,
    };
    let measured = measure(&plan, command_line, builds, &mut place)?;
    let answered = answer(&measured.set, &measured.outcome.rows, extra, (&exports, plan.force), args.json, absent);
    measured.exit_code(answered, |ab| gate(&ab, args.fail_on_slower))
}

/// `--fail-on-slower PCT`: exit 1, saying so on stderr, when a band or cell is slower by more
/// than PCT% with its whole interval; `None` otherwise.
fn gate(ab: &Ab, fail_on_slower: Option<f64>) -> Option<ExitCode> {
    let percent = fail_on_slower?;
    let limit = 1.0 + percent / 100.0;
    let past: Vec<String> =
        ab.bands.iter().chain(&ab.cells).filter(|change| change.low > limit).map(output::ab::line).collect();
    let first = past.first()?;
    print_error(&format!("slower by more than {percent}% ({} verdicts), first: {first}", past.len()));
    Some(ExitCode::FAILURE)
}

/// The verdicts of the A/B run whose CSV is at `csv` (`ab --from`), read from the file: see [`judge`].
fn judged(csv: &Path, extra: &[ChannelEntry]) -> anyhow::Result<(Ab, ResultsFile)> {
    let builds = load_builds(csv, [BASELINE, CANDIDATE]).map_err(|error| UsageError(format!("{error:#}")))?;
    judge(builds, csv, extra)
}

/// The verdicts of an A/B run's two builds (its rows split by `build`, baseline first, from
/// its CSV at `csv` or from the rows it kept in memory), with the table of this binary's own
/// channels (`extra`) against the others, and the candidate's cells. A usage error when a
/// build has no rows.
fn judge(
    [baseline, candidate]: [ResultsFile; 2],
    csv: &Path,
    extra: &[ChannelEntry],
) -> anyhow::Result<(Ab, ResultsFile)> {
    if baseline.order.is_empty() || candidate.order.is_empty() {
        return Err(usage(format!(
            "{} has no rows of both builds (column build: {BASELINE}, {CANDIDATE}): give the CSV an ab run wrote",
            csv.display()
        )));
    }
    let mine: Vec<&str> = extra.iter().map(|channel| channel.name).collect();
    Ok((Ab { against: ab::against(&baseline, &candidate, &mine), ..ab::judge(&baseline, &candidate) }, candidate))
}

/// Judges the rows the run wrote to the CSV of `set` (`rows`, kept in memory as they were
/// written: the file is not read again), prints the answer (as JSON under `json`), writes its
/// Markdown, and the candidate's per-cell results (`X.cells.json` and `exports`, as a sweep
/// writes them); `absent` are the channels left out before measuring, said as left out.
fn answer(
    set: &OutputSet,
    rows: &[Record],
    extra: &[ChannelEntry],
    (exports, force): (&ExportArgs, bool),
    json: bool,
    absent: Vec<String>,
) -> anyhow::Result<Ab> {
    let (mut ab, candidate) = judge(builds_of(rows, [BASELINE, CANDIDATE], false), set.csv(), extra)?;
    ab.left_out.extend(absent);
    let text = output::ab::text(&ab);
    files::write(&set.markdown(), text.as_bytes(), force, "the A/B summary")?;
    print_line(&format!("summary: {}", set.markdown().display()));
    let name = set.csv().display().to_string();
    let analysis = crate::results::analysis::Analysis::of(&name, &candidate, None);
    let read = Reread { pooled: name.clone(), name, machines: Vec::new(), analysis };
    Written::Cells.write(Target::File(set.cells_json(), force), &read, exports, force)?;
    print_line("");
    // Last, so that a script reads the JSON from the first `{` of stdout to its end.
    print_line(&if json { output::export::json(&ab) } else { text });
    Ok(ab)
}

/// How long a build has to answer `take-round --protocol`.
const PROTOCOL_TIMEOUT: Duration = Duration::from_secs(10);

/// Asks `launch` which take-round protocol it speaks (`take-round --protocol`): its [`Build`],
/// or a usage error saying which builds can be paired.
fn describe(launch: &Launch, role: &str) -> anyhow::Result<Build> {
    let refused = |why: String| {
        UsageError(format!(
            "{} cannot be the {role}: {why}; ab pairs channel-bench builds of take-round protocol {PROTOCOL} \
             (this version, {}, and later ones that keep it)",
            launch.exe.display(),
            env!("CARGO_PKG_VERSION")
        ))
    };
    let mut child = Command::new(&launch.exe)
        .args([rounds::SUBCOMMAND, "--protocol"])
        .envs(launch.env.iter().map(|(key, value)| (key, value)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|error| refused(format!("it does not start ({error})")))?;
    let stdout = child.stdout.take().context("the child's stdout is piped")?;
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        let mut first = String::new();
        let read = BufReader::new(std::io::Read::take(stdout, 1 << 16)).read_line(&mut first);
        let _ = send.send(read.map(|_| first));
    });
    let first = receive
        .recv_timeout(PROTOCOL_TIMEOUT)
        .map_err(|_| refused(format!("it did not answer take-round --protocol within {PROTOCOL_TIMEOUT:?}")));
    let _ = child.kill();
    child.wait().context("cannot wait for the baseline's answer")?;
    match first?.ok().and_then(|line| serde_json::from_str::<Build>(line.trim()).ok()) {
        Some(build) if build.protocol == PROTOCOL => Ok(Build {
            role: role.to_owned(),
            path: launch.exe.display().to_string(),
            env: launch.env.iter().map(|(key, value)| format!("{key}={value}")).collect(),
            ..build
        }),
        Some(build) => Err(refused(format!("it speaks take-round protocol {}", build.protocol)).into()),
        None => Err(refused("it does not answer take-round --protocol".to_owned()).into()),
    }
}

/// The channels of `plan` that `baseline` does not have, taken out of `plan` (a channel only
/// this build has cannot be paired), each said as left out. A usage error when none is left.
fn shared_channels(plan: &mut Plan, baseline: &Build) -> anyhow::Result<Vec<String>> {
    let (shared, absent): (Vec<&ChannelEntry>, Vec<&ChannelEntry>) =
        plan.channels.iter().partition(|channel| baseline.channels.iter().any(|name| name == channel.name));
    let absent: Vec<&str> = absent.iter().map(|channel| channel.name).collect();
    if shared.is_empty() {
        return Err(usage(format!(
            "the baseline has none of the channels asked for ({}); it has: {}",
            absent.join(", "),
            baseline.channels.join(", ")
        )));
    }
    plan.channels = shared;
    Ok(absent.iter().map(|name| format!("{name} (the baseline has no such channel: not measured)")).collect())
}

/// The variable whose length [`padded`] draws.
const PAD: &str = "CHANNEL_BENCH_PAD";

/// The most bytes of [`PAD`]: more than a page, so that every offset within one is drawn.
const PAD_MOST: usize = 4096;

/// `launch` with [`PAD`] set to a length drawn from `generator`. Where a process's stack starts
/// moves with the size of its environment, and with it how fast some cells run; two sides
/// whose environments differ (`--candidate-env`) would differ by that alone, consistently.
/// Drawn per process, it is noise both sides share instead.
fn padded(launch: &Launch, generator: &mut Pcg64Mcg) -> Launch {
    let pad = ".".repeat(generator.random_range(0..=PAD_MOST));
    Launch { exe: launch.exe.clone(), env: launch.env.iter().cloned().chain([(PAD.to_owned(), pad)]).collect() }
}

/// Each round measured by both builds, in processes of their own: each cell by one and then
/// the other, which first drawn per cell.
struct Paired {
    /// The two builds and the `build` of their rows.
    sides: [(Launch, &'static str); 2],
    /// Draws which build goes first.
    order: Pcg64Mcg,
    /// Whether the smallest change the screening can detect was said, before the first duel.
    said_detectable: bool,
}

impl Place for Paired {
    fn take(
        &mut self,
        _isolation: Isolation,
        jobs: &[Job],
        watchdog: &Watchdog,
        taken: &mut dyn FnMut(usize, &str, Sample) -> anyhow::Result<()>,
    ) -> anyhow::Result<bool> {
        // Cell by cell, so that a cell's two samples are taken back to back: the host's noise
        // over the round's other cells falls on both builds alike, not on one.
        for (at, job) in jobs.iter().enumerate() {
            let mut order = [0, 1];
            order.shuffle(&mut self.order);
            for (launch, build) in order.map(|side| &self.sides[side]) {
                let padded = padded(launch, &mut self.order);
                let job = std::slice::from_ref(job);
                if !rounds::take_in(&padded, job, watchdog, &mut |_, sample| taken(at, build, sample))? {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    fn duels(&mut self, rows: &[Record]) -> anyhow::Result<Option<Vec<CellKey>>> {
        let [baseline, candidate] = builds_of(rows, [BASELINE, CANDIDATE], false);
        let ab = ab::judge(&baseline, &candidate);
        if !self.said_detectable {
            self.said_detectable = true;
            if let Some(line) = output::ab::detectable(&ab.detectable, " after screening", output::ab::BAND_BASIS) {
                print_line(&line);
            }
        }
        Ok(Some(ab.open(&baseline)))
    }

    fn own_build(&self) -> &'static str {
        CANDIDATE
    }

    fn screens(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::synthetic::judged::ab_run;

    #[test]
    fn fail_on_slower_fails_a_run_with_a_channel_slowed_past_its_figure_and_only_then() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("slow.csv");
        ab_run(&path, &[("kanal", 2.0)]);
        let (ab, _) = judged(&path, &[]).unwrap();
        assert_eq!(gate(&ab, Some(20.0)), Some(ExitCode::FAILURE), "a 100% slowdown is past 20%");
        assert_eq!(gate(&ab, Some(150.0)), None, "and within 150%");
        assert_eq!(gate(&ab, None), None, "no gate without --fail-on-slower");
        let same = dir.path().join("same.csv");
        ab_run(&same, &[]);
        assert_eq!(gate(&judged(&same, &[]).unwrap().0, Some(1.0)), None, "two builds alike pass any gate");
    }

    #[test]
    fn the_rows_kept_in_memory_are_judged_as_the_csv_they_were_written_to() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ab.csv");
        let (_, rows) = ab_run(&path, &[("kanal", 1.5)]);
        let (from_file, file_candidate) = judged(&path, &[]).unwrap();
        // The end of a run judges what it kept, not the file: gone, it is not missed.
        std::fs::remove_file(&path).unwrap();
        let (in_memory, kept_candidate) = judge(builds_of(&rows, [BASELINE, CANDIDATE], false), &path, &[]).unwrap();
        assert_eq!(output::ab::text(&in_memory), output::ab::text(&from_file));
        assert_eq!(output::export::json(&in_memory), output::export::json(&from_file));
        assert_eq!((kept_candidate.order, kept_candidate.cells), (file_candidate.order, file_candidate.cells));
        assert!(in_memory.bands.iter().any(|change| change.channel == "kanal" && change.low > 1.0), "{in_memory:?}");
    }
}

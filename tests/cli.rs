//! The binary driven from outside: bad input, and a tiny sweep's CSV and JSON.

use std::path::Path;

mod common;
use common::bench;

/// A sweep small enough to finish in a fraction of a second.
/// `--max-time 0`: exactly `--samples` samples per cell.
const TINY: &[&str] =
    &["--messages", "600", "--capacity", "64", "--tasks", "1,3", "--warmup", "0", "--samples", "2", "--max-time", "0"];

/// Bad flags that need no file, each with the flag its error must name.
const BAD_FLAGS: &[(&[&str], &str)] = &[
    (&["--messages", "0"], "--messages"),
    (&["--messages", "-5"], "--messages"),
    (&["--messages", "many"], "--messages"),
    (&["--messages", "18446744073709551616"], "--messages"),
    (&["--capacity", "0"], "--capacity"),
    (&["--tasks", "0"], "--tasks"),
    (&["--tasks", "1,,2"], "--tasks"),
    (&["--tasks", "4,4"], "--tasks"),
    (&["--tasks", "100", "--messages", "10"], "--tasks"),
    (&["--tasks", "512", "--capacity", "100", "--channels", "futures-channel", "--modes", "cloned-send"], "--capacity"),
    (&["--capacity", "1024,1024"], "--capacity"),
    (&["--task-capacity", "256", "--modes", "cloned-send"], "--task-capacity"),
    (&["--tasks", "8", "--capacity", "4", "--modes", "cloned-send", "--channels", "futures-channel"], "--capacity"),
    (&["--channels", "crossbeam"], "--channels"),
    (&["--channels", "flume,flume"], "--channels"),
    (&["--channels", "flume", "--keep", "kanal"], "--keep"),
    (&["--keep", "flume,flume"], "--keep"),
    (&["--modes", "broadcast"], "--modes"),
    (&["--runtimes", "multi-thread,multi-thread"], "--runtimes"),
    (&["--runtimes", "async-std"], "--runtimes"),
    (&["--workers", "0"], "--workers"),
    (&["--samples", "0"], "--samples"),
    (&["--warmup", "-1"], "--warmup"),
    (&["--payload", "1.5"], "--payload"),
    (&["--no-such-flag"], "--no-such-flag"),
    (&["--precision", "0"], "--precision"),
    (&["--precision", "100"], "--precision"),
    (&["--max-time", "-1"], "--max-time"),
    (&["--max-time", "soon"], "--max-time"),
    (&["compare", "only-one.csv"], "<NEW>"),
    (&["compare", "a.csv", "b.csv", "c.csv"], "c.csv"),
    (&["--timeout", "0"], "--timeout"),
    (&["--timeout", "-3"], "--timeout"),
    (&["--workers", "5000"], "--workers"),
    (&["--payload", "1000000000000"], "--payload"),
    (&["--capacity", "100000000000"], "--capacity"),
    (&["--tasks", "4294967296"], "--tasks"),
    (&["--out="], "--out"),
    (&["--channels="], "--channels"),
    (&["--modes="], "--modes"),
    (&["--samples", "1.5"], "--samples"),
    (&["--quick", "--messages", "0"], "--messages"),
    (&["--out", "/sys/run.csv"], "--out"),
    (&["--out", "/dev/null/run.csv"], "--out"),
    (&["--out", "/proc/no/such/dir/run.csv"], "--out"),
    (&["--payload", "2000..300"], "--payload"),
    (&["--payload", "300..lots"], "--payload"),
    (&["--payload", "1..5000000000"], "--payload"),
    (&["--seed", "-1"], "--seed"),
    (&["--pace", "100us"], "--pace"),
    (&["--pace", "soon"], "--pace"),
    (&["--pace", "2h"], "--pace"),
    (&["--burst", "4"], "--burst"),
    (&["--phase", "aligned"], "--phase"),
    (&["--pace", "20ms", "--burst", "0"], "--burst"),
    (&["--pace", "1s", "--tasks", "1", "--messages", "1000"], "--pace"),
    (&["--merge", "round-robin"], "--merge"),
    (&["--merge", "select-all,select-all"], "--merge"),
    (&["--merge", "select-all", "--modes", "cloned-send"], "--merge"),
    (&["--sink", "disk:/tmp/x"], "--sink"),
    (&["--sink", "file:"], "--sink"),
    (&["--keep-sink"], "--keep-sink"),
    (&["--batch", "0"], "--batch"),
    (&["--batch", "64,64"], "--batch"),
    (&["--batch", "-1"], "--batch"),
    (&["--work-per-batch", "0s"], "--work-per-batch"),
    (&["--work-per-batch", "busy"], "--work-per-batch"),
    (&["--record-bytes", "100"], "--record-bytes"),
    (&["--record-bytes", "1200,1200"], "--record-bytes"),
    (&["--record-bytes", "shared,1200", "--payload", "64"], "--payload"),
];

#[test]
fn bad_input_gives_one_line_naming_the_flag_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().to_str().unwrap();
    let existing = dir.path().join("existing.csv");
    std::fs::write(&existing, "keep me\n").unwrap();
    let existing = existing.to_str().unwrap();
    let files: &[(&[&str], &str)] = &[
        (&["--out", folder], "--out"),
        (&["--out", existing], "--out"),
        (&["--sink", &format!("file:{folder}")], "--sink"),
        (&["--sink", &format!("file:{existing}")], "--sink"),
        (&["--sink", "file:/no/such/folder/sink.bin"], "--sink"),
    ];
    assert!(BAD_FLAGS.len() >= 30);
    for (args, flag) in BAD_FLAGS.iter().chain(files) {
        let output = bench().args(*args).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?} gave more than one line: {stderr}");
        assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
        assert!(stderr.contains(flag), "{args:?} does not name {flag}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(output.stdout.is_empty(), "{args:?} ran something: {}", String::from_utf8_lossy(&output.stdout));
    }
    assert_eq!(std::fs::read_to_string(dir.path().join("existing.csv")).unwrap(), "keep me\n");
}

fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let header = reader.headers().unwrap().iter().map(str::to_owned).collect();
    let rows = reader.records().map(|row| row.unwrap().iter().map(str::to_owned).collect()).collect();
    (header, rows)
}

#[test]
fn a_tiny_sweep_writes_one_row_per_sample_and_the_run_description() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("nested/run.csv");
    let output = bench().args(TINY).arg("--out").arg(&out).output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", String::from_utf8_lossy(&output.stderr));

    let (header, rows) = read_csv(&out);
    assert_eq!(
        header.join(","),
        "channel,mode,runtime,workers,tasks,messages,capacity,capacity_per_channel,payload_bytes,sample,elapsed_ns,\
         ns_per_message,cpu_ns,status,merge,payload,seed,bytes,mb_per_s,pace_ns,burst,pace_actual_ns,sink,\
         lat_p50_ns,lat_p99_ns,lat_p999_ns,lat_max_ns,allocs_per_message,alloc_bytes_per_message,\
         send,dropped,delivered_fraction,phase,involuntary_switches,steal_ns,duration_ns,delivered,frames,\
         frames_overflowed,lateness_max_ns,lateness_mean_ns,pacer_behind,resident_start_bytes,resident_growth_bytes,\
         round,build,task_capacity,run_delay_ns,bound_ns,batch,work_per_batch_ns,record_bytes,machine_handoff_ns,\
         machine_loop_ns"
    );
    let column = |name: &str| header.iter().position(|column| column == name).unwrap();
    let channels = channel_bench::registry::CHANNELS.len();
    // channels × 2 modes × 2 runtimes × 2 task counts, each once in the first screening round
    // and again in the second unless 2× behind its group's fastest; more only for a round the
    // machine read slow, measured again, which that round's line says.
    let cells = channels * 2 * 2 * 2;
    let again: usize = (stdout.lines())
        .filter_map(|line| line.split(" (").nth(1)?.strip_suffix(" of a round the machine read slow, measured again)"))
        .map(|count| count.parse::<usize>().unwrap())
        .sum();
    assert!(rows.len() > cells && rows.len() <= 2 * cells + again, "{} rows: {stdout}", rows.len());
    for row in &rows {
        assert_eq!(row[column("status")], "ok", "{row:?}");
        assert_eq!(row[5], "600");
        let elapsed: u64 = row[column("elapsed_ns")].parse().unwrap();
        let ns_per_message: f64 = row[column("ns_per_message")].parse().unwrap();
        assert!(elapsed > 0);
        assert!((ns_per_message - elapsed as f64 / 600.0).abs() < 0.001, "{row:?}");
        let capacity_per_channel: usize = row[7].parse().unwrap();
        let tasks: usize = row[4].parse().unwrap();
        let expected = if row[1] == "merged-recv" { 64 / tasks } else { 64 };
        assert_eq!(capacity_per_channel, expected, "{row:?}");
        // The defaults: saturating senders, fixed payload, no sink, nothing extra recorded.
        let merge = if row[1] == "merged-recv" { "futures-buffered" } else { "" };
        assert_eq!(row[column("merge")], merge, "{row:?}");
        assert_eq!(row[column("payload")], row[column("payload_bytes")]);
        let bytes: u64 = row[column("bytes")].parse().unwrap();
        assert_eq!(bytes, 600 * row[column("payload_bytes")].parse::<u64>().unwrap());
        assert_eq!(row[column("sink")], "none");
        for empty in ["seed", "pace_ns", "burst", "pace_actual_ns", "lat_p99_ns", "allocs_per_message"] {
            assert_eq!(row[column(empty)], "", "{empty} in {row:?}");
        }
    }
    assert!(rows.iter().any(|row| row[2] == "current-thread" && row[3] == "1"));

    assert!(stdout.starts_with("running WebRTC SFU benchmark with 600 messages and capacity 64"), "{stdout}");
    assert!(stdout.contains("# current-thread, tasks: 3, messages per task: 200, capacity: 64 slots (21 a task's channel in merged-recv)"), "{stdout}");
    assert!(stdout.contains(&format!("results: {}", out.display())), "{stdout}");

    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.with_extension("json")).unwrap()).unwrap();
    for key in ["cpu_model", "cores", "os", "rustc", "crates", "git_commit", "command_line", "started_utc"] {
        assert!(json.get(key).is_some(), "{key} missing from {json}");
    }
    assert!(json["crates"]["tokio"].as_str().unwrap().starts_with("1."), "{json}");
    assert!(json["rustc"].as_str().unwrap().starts_with("rustc "), "{json}");
}

#[test]
fn each_round_measures_one_groups_channels_back_to_back_in_an_order_that_changes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("rounds.csv");
    let output = bench().args(TINY).arg("--out").arg(&out).output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    let (header, rows) = read_csv(&out);
    let at = |name: &str| header.iter().position(|column| column == name).unwrap();
    let group = |row: &Vec<String>| [at("mode"), at("runtime"), at("tasks")].map(|i| row[i].clone());
    let cells = channel_bench::registry::CHANNELS.len() * 2 * 2 * 2;
    // The first pass: every cell once, round by round; each round one group's channels, in a row.
    let first: Vec<&Vec<String>> = rows.iter().take(cells).collect();
    let mut seen: Vec<_> = first.iter().map(|row| (group(row), row[at("channel")].clone())).collect();
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), cells, "each cell once in the first pass");
    let mut rounds: Vec<(String, [String; 3])> = Vec::new();
    for row in &rows {
        let round = (row[at("round")].clone(), group(row));
        if rounds.last() != Some(&round) {
            assert!(!rounds.iter().any(|(number, _)| *number == round.0), "round {} split: {rows:?}", round.0);
            rounds.push(round);
        }
    }
    let channels_of = |round: &str| {
        rows.iter().filter(|row| row[at("round")] == round).map(|row| row[at("channel")].clone()).collect::<Vec<_>>()
    };
    // Two screening rounds of each of the 8 groups (the second without a channel far behind), and
    // a round the machine read slow measured again with its channels, as a round of its own.
    for group in first_seen_groups(&rounds) {
        let of_group: Vec<&String> = rounds.iter().filter(|(_, g)| *g == group).map(|(number, _)| number).collect();
        let first = channels_of(of_group[0]);
        let within = |round: &&String| channels_of(round).iter().all(|channel| first.contains(channel));
        assert!(of_group.len() >= 2 && of_group.iter().all(within), "{group:?}: rounds {of_group:?}");
    }
    assert_eq!(first_seen_groups(&rounds).len(), 8, "8 groups");
    assert_ne!(channels_of(&rounds[0].0), channels_of(&rounds[1].0), "each round shuffles its channels");
    assert!(stdout.contains(&format!("\nscreening round 1: {cells} cells\n")), "{stdout}");
    assert!(stdout.contains(&format!("\n{} samples in ", rows.len())), "{stdout}");
    // The table comes grouped as the plan lists the cells, once each.
    assert_eq!(stdout.matches("\ncloned-send  kanal ").count(), 4, "{stdout}");
}

/// The closing count of samples is the CSV's rows, also when the duels' budget ends a pass
/// before it has visited every round it meant to.
#[test]
fn the_samples_counted_at_the_end_are_the_rows_written() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("budget.csv");
    let (tiny, max_time) = TINY.split_at(TINY.len() - 2);
    assert_eq!(max_time, ["--max-time", "0"]);
    let output = bench().args(tiny).args(["--max-time", "0.001"]).arg("--out").arg(&out).output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    let (_, rows) = read_csv(&out);
    assert!(stdout.contains(&format!("\n{} samples in ", rows.len())), "{} rows: {stdout}", rows.len());
}

#[test]
fn quick_is_overridden_by_explicit_flags() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("quick.csv");
    let args = [
        "--quick",
        "--messages",
        "512",
        "--tasks",
        "2",
        "--channels",
        "flume",
        "--runtimes",
        "current-thread",
        "--max-time",
        "0",
    ];
    bench().args(args).arg("--out").arg(&out).assert().success();
    let (_, rows) = read_csv(&out);
    // --quick's 2 screening rounds of the one channel, the explicit messages and tasks, both modes,
    // the two default capacities.
    assert_eq!(rows.len(), 2 * 2 * 2);
    assert!(rows.iter().all(|row| row[5] == "512" && row[4] == "2"));
}

#[test]
fn force_overwrites_an_existing_out() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("again.csv");
    std::fs::write(&out, "old\n").unwrap();
    let args =
        ["--messages", "64", "--tasks", "1", "--channels", "kanal", "--samples", "1", "--max-time", "0", "--force"];
    bench().args(args).arg("--out").arg(&out).assert().success();
    let (header, rows) = read_csv(&out);
    assert_eq!(header[0], "channel");
    // Two modes × two runtimes × the two default capacities, one sample each.
    assert_eq!(rows.len(), 2 * 2 * 2);
}

#[test]
fn list_channels_names_every_channel_with_its_version() {
    let output = bench().arg("--list-channels").output().unwrap();
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).unwrap();
    for channel in channel_bench::registry::CHANNELS {
        let line = stdout.lines().find(|line| line.starts_with(channel.name)).unwrap_or_else(|| panic!("{stdout}"));
        assert!(!line.contains("unknown"), "{line}");
    }
}

/// The ns/message of every row of a one-cell sweep, in the order written.
fn samples_of(messages: &str, args: &[&str]) -> Vec<f64> {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("adaptive.csv");
    let base = [
        "--messages",
        messages,
        "--tasks",
        "1",
        "--channels",
        "kanal",
        "--runtimes",
        "current-thread",
        "--modes",
        "cloned-send",
        "--capacity",
        "1024",
    ];
    bench().args(base).args(args).arg("--out").arg(&out).assert().success();
    let (header, rows) = read_csv(&out);
    let at = header.iter().position(|column| column == "ns_per_message").unwrap();
    rows.iter().map(|row| row[at].parse().unwrap()).collect()
}

#[test]
fn screening_takes_the_rounds_asked_for_and_a_lone_channel_has_no_duel() {
    // One channel: nothing to duel, so exactly the screening rounds without time past them, and
    // with it at most as many again, for samples a loaded host made the run leave out.
    assert_eq!(samples_of("200", &["--samples", "3", "--max-time", "0"]).len(), 3);
    let budgeted = samples_of("200", &["--samples", "3", "--max-time", "0.5"]).len();
    assert!((3..=6).contains(&budgeted), "{budgeted} samples");
}

#[cfg(not(feature = "faults"))]
#[test]
fn a_normal_build_has_no_faulty_channels() {
    let output = bench().arg("--list-channels").output().unwrap();
    assert!(!String::from_utf8(output.stdout).unwrap().contains("fault-"));
    let output = bench().args(["--channels", "fault-hang"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
}

/// The files in `dir`, sorted.
fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn dry_run_prints_the_cells_samples_wall_time_and_memory_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run.csv");
    let output =
        bench().args(TINY).args(["--channels", "kanal,flume", "--dry-run", "--out"]).arg(&out).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let stdout = String::from_utf8(output.stdout).unwrap();
    // 2 channels × 2 modes × 2 runtimes × 2 task counts.
    assert!(stdout.contains("cells: 16\n"), "{stdout}");
    assert_eq!(stdout.lines().filter(|line| line.starts_with("  ")).count(), 16, "{stdout}");
    for part in ["samples: 2 screening round(s)", "no duels", "wall time: about", "peak memory: about", "would write:"]
    {
        assert!(stdout.contains(part), "{part}: {stdout}");
    }
    assert!(files_in(dir.path()).is_empty(), "{:?}", files_in(dir.path()));

    // The presets plan too; an invalid plan or an existing output is refused as the sweep refuses it.
    for preset in [&["--dry-run"][..], &["--quick", "--dry-run"]] {
        bench().args(preset).assert().success();
    }
    bench().args(["--dry-run", "--tasks", "0"]).assert().code(2);
    std::fs::write(&out, "mine").unwrap();
    bench().args(TINY).args(["--dry-run", "--out"]).arg(&out).assert().code(2);
    assert_eq!(files_in(dir.path()), ["run.csv"]);
}

#[test]
fn dry_run_of_the_commands_reads_their_inputs_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("run.csv");
    bench().args(TINY).args(["--channels", "kanal", "--out"]).arg(&csv).assert().success();
    std::fs::remove_file(csv.with_extension("md")).unwrap();
    std::fs::remove_file(csv.with_extension("html")).unwrap();
    std::fs::remove_file(csv.with_extension("cells.json")).unwrap();
    let before = files_in(dir.path());
    let csv = csv.to_str().unwrap();
    for args in [
        &["summary", "--dry-run", csv][..],
        &["report", "--dry-run", csv],
        &["cells", "--dry-run", csv],
        &["compare", "--dry-run", csv, csv],
    ] {
        let output = bench().args(args).output().unwrap();
        assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
        let stdout = String::from_utf8(output.stdout).unwrap();
        assert!(stdout.starts_with("dry run: nothing measured, nothing written\n"), "{stdout}");
        assert!(stdout.contains(&format!("would read {csv} (8 cells)")), "{stdout}");
    }
    assert_eq!(files_in(dir.path()), before, "nothing written");
    let missing = dir.path().join("missing.csv");
    bench().args(["summary", "--dry-run"]).arg(&missing).assert().code(2);
}

#[test]
fn a_cell_a_channel_cannot_hold_is_one_refused_row_and_the_others_run() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("refused.csv");
    let args = ["--messages", "2000", "--tasks", "1,128", "--capacity", "64", "--channels", "futures-channel,kanal"];
    let small = ["--modes", "cloned-send", "--runtimes", "current-thread", "--samples", "1", "--max-time", "0"];
    let output = bench().args(args).args(small).arg("--out").arg(&out).output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains("1 cell(s) refused") && stdout.contains("128 sender(s) need 128 slots"), "{stdout}");
    let (header, rows) = read_csv(&out);
    let column = |name: &str| header.iter().position(|column| column == name).unwrap();
    let status = |channel: &str, tasks: &str| -> Vec<String> {
        let of = |row: &&Vec<String>| row[column("channel")] == channel && row[column("tasks")] == tasks;
        rows.iter().filter(of).map(|row| row[column("status")].clone()).collect()
    };
    let refused = status("futures-channel", "128");
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert!(refused[0].starts_with("capacity: refused: futures-channel reserves 1 slot(s) per sender"), "{refused:?}");
    assert_eq!(status("futures-channel", "1"), ["ok"]);
    assert_eq!(status("kanal", "128"), ["ok"]);
    let summary = std::fs::read_to_string(out.with_extension("md")).unwrap();
    assert!(summary.contains("futures-channel (refused at tasks 128"), "{summary}");
}

#[test]
fn the_two_designs_at_their_own_sizes_are_cells_of_one_run() {
    let args = ["--tasks", "300", "--channels", "kanal", "--runtimes", "current-thread", "--dry-run"];
    let designs = ["--modes", "cloned-send,merged-recv", "--capacity", "1024", "--task-capacity", "256"];
    let output = bench().args(args).args(designs).output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(stdout.contains("cells: 2\n"), "{stdout}");
    assert!(stdout.contains("tasks=300 cloned-send at 1,024 slots kanal"), "{stdout}");
    assert!(stdout.contains("tasks=300 merged-recv at 256 slots per task kanal"), "{stdout}");
    let output = bench().args(args).args(["--capacity", "64,1024,65536"]).output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("cells: 6\n"), "two modes at each of three capacities: {stdout}");
}

/// The cell lines of each capacity stand under a heading that names it.
#[test]
fn each_capacitys_cells_are_under_their_own_heading() {
    let dir = tempfile::tempdir().unwrap();
    let mut tiny: Vec<&str> = TINY.to_vec();
    (tiny[3], tiny[5]) = ("64,256", "1");
    let args = ["--channels", "flume", "--runtimes", "current-thread", "--out"];
    let output = bench().args(&tiny).args(args).arg(dir.path().join("run.csv")).output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
    let headings: Vec<&str> = stdout.lines().filter(|line| line.starts_with("# current-thread")).collect();
    let capacities: Vec<bool> = ["capacity: 64 slots", "capacity: 256 slots"]
        .iter()
        .map(|capacity| headings.iter().any(|heading| heading.contains(capacity)))
        .collect();
    assert_eq!(capacities, [true, true], "{stdout}");
    // cloned-send and merged-recv at each of the two capacities: four cell lines, two a heading.
    let sections: Vec<usize> = stdout
        .split("\n# ")
        .skip(1)
        .map(|section| {
            section.lines().take_while(|line| !line.is_empty()).filter(|line| line.contains("ns/msg")).count()
        })
        .collect();
    assert_eq!(sections, [2, 2], "{stdout}");
}

#[test]
fn a_payload_no_sink_reads_is_said_to_change_nothing_in_the_plan_and_the_answer() {
    let said = "--payload 200 without --sink changes nothing measured";
    let plan = |more: &[&str]| {
        let output = bench().args(TINY).args(["--channels", "kanal", "--dry-run"]).args(more).output().unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8(output.stdout).unwrap()
    };
    let planned = plan(&["--payload", "200"]);
    assert_eq!(
        planned.lines().filter(|line| line.starts_with("note: ") && line.contains(said)).count(),
        1,
        "{planned}"
    );
    assert!(!plan(&[]).contains("--payload"), "the default says nothing");
    let dir = tempfile::tempdir().unwrap();
    let sink = format!("file:{}", dir.path().join("sink").display());
    assert!(!plan(&["--payload", "200", "--sink", &sink]).contains(said), "a sink reads the payloads");
    // The run says it before its rounds and after its answer.
    let out = dir.path().join("run.csv");
    let args = ["--channels", "kanal", "--modes", "cloned-send", "--runtimes", "current-thread", "--payload", "200"];
    let output = bench().args(TINY).args(args).arg("--out").arg(&out).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(stdout.matches(said).count(), 2, "{stdout}");
    assert!(stdout.trim_end().lines().rev().take(4).any(|line| line.contains(said)), "after the answer: {stdout}");
}

#[test]
fn the_header_names_every_capacity_swept() {
    let dir = tempfile::tempdir().unwrap();
    let args = "--messages 600 --capacity 64,128 --tasks 1 --warmup 0 --samples 1 --max-time 0 --channels kanal \
                --modes cloned-send --runtimes current-thread";
    let output = bench().args(args.split(' ')).arg("--out").arg(dir.path().join("run.csv")).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.starts_with("running WebRTC SFU benchmark with 600 messages and capacity 64, 128 ("), "{stdout}");
}

/// The groups of `rounds`, each once, in the order first seen.
fn first_seen_groups(rounds: &[(String, [String; 3])]) -> Vec<[String; 3]> {
    let mut groups: Vec<[String; 3]> = Vec::new();
    for (_, group) in rounds {
        if !groups.contains(group) {
            groups.push(group.clone());
        }
    }
    groups
}

//! The answer for paced load: on a hand-made paced room every output leads with the decision
//! for the room, then the latency table, and cells.json carries the pooled figures; a tiny
//! paced sweep writes its latency histograms to the sidecar. `compare` of two paced runs is the
//! synthetic tests' (`sweep::synthetic::judged`).

use std::path::{Path, PathBuf};

mod common;
use common::{bench, output};

/// A tiny paced sweep of kanal and flume into `dir/name`: 1 and 8 tasks, 8 messages every
/// 40 ms for 240 ms, dropping when full, latency measured, both phases. The interval is long
/// enough that a debug build's pacers keep up while other tests share the cores (a pacer that
/// falls behind leaves its sample out).
fn paced_sweep(dir: &Path, name: &str) -> PathBuf {
    let out = dir.join(name);
    let _alone = common::one_at_a_time();
    let (code, stdout, stderr) = output(
        bench()
            .args(["--pace", "40ms", "--duration", "240ms", "--tasks", "1,8", "--send", "try", "--latency"])
            .args([
                "--channels",
                "kanal,flume",
                "--samples",
                "2",
                "--max-time",
                "0",
                "--warmup",
                "0",
                "--capacity",
                "1024",
            ])
            .args(["--runtimes", "multi-thread", "--modes", "cloned-send", "--phase", "aligned,random", "--out"])
            .arg(&out),
    );
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(
        stdout.contains("tables in full, method, verdicts and caveats"),
        "the closing summary points to the page: {stdout}"
    );
    let page = std::fs::read_to_string(out.with_extension("md")).unwrap();
    assert!(page.contains("### Latency under load\n\nPer runtime"), "the page has the answer: {page}");
    out
}

/// A hand-made run as [`paced_sweep`] makes one: kanal and flume at 1 and 8 tasks, 8 messages
/// every 40 ms for 240 ms, dropping when full, both phases, two samples a cell, each sample's
/// latency histogram in the CSV's own column (as files before the sidecar); flume takes less
/// CPU and has the lower p99.
fn paced_room() -> String {
    let mut csv = "channel,mode,runtime,workers,tasks,messages,capacity,sample,elapsed_ns,ns_per_message,cpu_ns,\
                   status,pace_ns,burst,send,dropped,phase,frames,frames_overflowed,pacer_behind,round,lat_p99_ns,\
                   lat_histogram\n"
        .to_owned();
    let mut round = 0;
    for tasks in [1u64, 8] {
        for phase in ["random", "aligned"] {
            for sample in 1..=2u64 {
                round += 1;
                for (channel, cpu_per_message, p99) in [("kanal", 30_000, 1_200), ("flume", 20_000, 900)] {
                    let (messages, p99) = (tasks * 48, p99 + sample);
                    csv += &format!(
                        "{channel},cloned-send,multi-thread,2,{tasks},{messages},1024,{sample},240000000,{},{},ok,\
                         40000000,8,try,0,{phase},{},0,false,{round},{p99},{p99:x}:{messages:x}\n",
                        240_000_000 / messages,
                        cpu_per_message * messages,
                        tasks * 6,
                    );
                }
            }
        }
    }
    csv
}

/// [`paced_room`] written into `dir`, with its summary, cells and report beside it: its path.
fn with_outputs(dir: &Path) -> PathBuf {
    let csv = common::write(dir, "paced.csv", &paced_room());
    for command in ["summary", "cells", "report"] {
        let (code, _, stderr) = output(bench().arg(command).arg(&csv));
        assert_eq!(code, Some(0), "{command}: {stderr}");
    }
    csv
}

#[test]
fn every_output_leads_with_the_decision_for_the_room_the_full_one_then_latency_and_cells_carry_the_pooled_figures() {
    let dir = tempfile::tempdir().unwrap();
    let csv = with_outputs(dir.path());
    let (code, short, stderr) = output(bench().args(["summary", "--short"]).arg(&csv));
    assert_eq!(code, Some(0), "{stderr}");
    // A file of paced cells: the decision for its largest room (8 tasks), then the crate versions;
    // latency under load is the full answer's (its ns/message restates the schedule, so it is not
    // ranked).
    assert!(
        common::answer(&short).starts_with("### For your room\n\n**For 8 participants (multi-thread cloned-send"),
        "{short}"
    );
    assert!(short.contains("40ms, capacity") && short.contains("\n- use:      **"), "{short}");
    // The card: at most eight lines, none over 120 characters, before the explanation.
    let card: Vec<&str> =
        short.lines().skip_while(|line| !line.starts_with("- use:")).take_while(|l| !l.is_empty()).collect();
    assert!((1..=8).contains(&card.len()), "{card:?}");
    assert!(card.iter().all(|line| line.replace("**", "").chars().count() <= 120), "{card:?}");
    assert!(!short.contains("crate versions") && !short.contains("### Latency under load"), "{short}");
    assert!(!short.contains("pick (ns/message)"), "{short}");
    assert!(!short.contains("ns/message is not ranked"), "the full summary says why, not the short answer: {short}");
    let markdown = std::fs::read_to_string(csv.with_extension("md")).unwrap();
    assert!(
        common::answer(&markdown).starts_with("### For your room") && markdown.contains("### Latency under load"),
        "{markdown}"
    );
    for phase in ["out of phase", "in phase", "send try"] {
        assert!(markdown.contains(phase), "{phase}: {markdown}");
    }
    assert!(markdown.contains("lowest p99, pooled") && markdown.contains("% of a core at"), "{markdown}");

    // The JSON's decision: the paragraph's figures, the pick's p99 in both phases.
    let (code, json, stderr) = output(bench().args(["summary", "--json"]).arg(&csv));
    assert_eq!(code, Some(0), "{stderr}");
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    let decision = &json["decision"];
    assert_eq!(decision["participants"], 8, "{decision}");
    assert_eq!(decision["capacity_for_no_drops"], 8 * 8, "{decision}");
    let pick = decision["pick"].as_str().unwrap_or_else(|| panic!("{decision}"));
    assert!(["kanal", "flume"].contains(&pick), "{decision}");
    for phase in ["out_of_phase", "in_phase"] {
        assert!(decision["p99_ns"][phase].as_f64().is_some_and(|ns| ns > 0.0), "{decision}");
        assert!(decision["drop_share"][phase].as_f64().is_some(), "{decision}");
    }
    assert!(decision["core_share"].as_f64().is_some() && decision["tied"].is_array(), "{decision}");
    let plain = short.replace("**", "");
    // The explanation below the card, in the summary's file (the README's --short keeps the card).
    let markdown_plain = markdown.replace("**", "");
    assert!(markdown_plain.contains(decision["text"].as_str().unwrap()), "the explanation: {decision} {markdown}");
    // The card on the page; its pick and latency in the short answer.
    for line in decision["card"].as_array().unwrap().iter().map(|line| line.as_str().unwrap()) {
        assert!(markdown_plain.contains(line), "the card on the page: {line} {markdown}");
        let short_card = line.starts_with("use:") || line.starts_with("latency:");
        assert_eq!(plain.contains(line), short_card, "the short card: {line} {short}");
    }
    if pick == "flume" {
        // kanal has a known problem: it is never the pick, and is named to avoid.
        assert_eq!(decision["avoid"][0]["channel"], "kanal", "{decision}");
    }

    // The page: the decision first, then latency; no ns/message answer, plot or table.
    let html = std::fs::read_to_string(csv.with_extension("html")).unwrap();
    let decided = html.find("<section id=\"decision\">").unwrap_or_else(|| panic!("{html}"));
    let latency = html.find("<section id=\"latency\">").unwrap_or_else(|| panic!("{html}"));
    assert!(decided < latency && html[..decided].matches("<section").count() == 0, "{html}");
    assert!(html.contains("µs (log axis)") && html.contains("<table class=\"band\">"), "{html}");
    for throughput in
        ["<section id=\"answer\">", "<section id=\"plots\">", "<section id=\"cells\">", "ns/message against"]
    {
        assert!(!html.contains(throughput), "{throughput}: {html}");
    }
    assert!(!html.contains("samples that delivered every message"), "not under --send try");
    let cells: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(csv.with_extension("cells.json")).unwrap()).unwrap();
    let cells = cells["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 2 * 2 * 2, "channels × tasks × phases");
    for cell in cells {
        let paced = &cell["paced"];
        let p99 = paced["pooled_p99_ns"].as_u64().unwrap_or_else(|| panic!("{cell}"));
        assert!(p99 > 0 && p99 <= paced["pooled_max_ns"].as_u64().unwrap(), "{paced}");
        let (overflow, drops) = (paced["overflow_share"].as_f64().unwrap(), paced["drop_share"].as_f64().unwrap());
        assert!((0.0..=1.0).contains(&overflow) && (0.0..=1.0).contains(&drops), "{paced}");
        // 8 messages every 40 ms per task.
        let rate = cell["tasks"].as_f64().unwrap() * 200.0;
        assert_eq!(paced["offered_per_s"].as_f64().unwrap(), rate, "{paced}");
        let cpu = paced["cpu_ns_per_delivered"].as_f64().unwrap();
        assert!((paced["core_share"].as_f64().unwrap() - cpu * rate / 1e9).abs() < 1e-9, "{paced}");
    }
}

/// The cells of `csv`, as `cells` gives them.
fn cells_of(csv: &Path) -> Vec<serde_json::Value> {
    let (code, json, stderr) = output(bench().args(["cells", "--out", "-"]).arg(csv));
    assert_eq!(code, Some(0), "{stderr}");
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    json["cells"].as_array().unwrap().clone()
}

#[test]
fn latency_histograms_go_to_the_sidecar_and_read_back_as_the_old_column_did() {
    let dir = tempfile::tempdir().unwrap();
    let csv = paced_sweep(dir.path(), "paced.csv");
    let mut reader = csv::Reader::from_path(&csv).unwrap();
    let header = reader.headers().unwrap().clone();
    assert!(!header.iter().any(|column| column == "lat_histogram"), "{header:?}");
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    let mut histograms = vec![String::new(); rows.len()];
    let mut sidecar = csv::Reader::from_path(csv.with_extension("latency.csv")).unwrap();
    assert_eq!(sidecar.headers().unwrap(), vec!["row", "lat_histogram"]);
    for line in sidecar.records().map(Result::unwrap) {
        histograms[line[0].parse::<usize>().unwrap() - 1] = line[1].to_owned();
    }
    assert!(histograms.iter().all(|histogram| !histogram.is_empty()), "every sample has its histogram");
    // The same rows with the histograms in the CSV's own column, as files written before the sidecar.
    std::fs::create_dir(dir.path().join("old")).unwrap();
    let old = dir.path().join("old/paced.csv");
    let mut writer = csv::Writer::from_path(&old).unwrap();
    writer.write_record(header.iter().chain(["lat_histogram"])).unwrap();
    for (row, histogram) in rows.iter().zip(&histograms) {
        writer.write_record(row.iter().chain([histogram.as_str()])).unwrap();
    }
    writer.flush().unwrap();
    let cells = cells_of(&csv);
    assert_eq!(cells.len(), 2 * 2 * 2, "channels × tasks × phases");
    // A cell whose every sample a loaded host disturbed has no pooled figures; the others have.
    assert!(cells.iter().any(|cell| cell["paced"]["pooled_p99_ns"].as_u64().is_some()), "{cells:?}");
    assert_eq!(cells, cells_of(&old), "the same cells, pooled p99s included, from either file");
}

#[test]
fn a_sweep_is_refused_when_its_latency_sidecar_exists_unless_forced() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run.csv");
    std::fs::write(dir.path().join("run.latency.csv"), "notes").unwrap();
    let sweep = || {
        let mut command = bench();
        command.args(["--channels", "kanal", "--tasks", "1", "--messages", "100", "--samples", "1"]);
        command.args(["--max-time", "0", "--warmup", "0", "--modes", "cloned-send", "--runtimes", "current-thread"]);
        command.arg("--out").arg(&out);
        command
    };
    let (code, stdout, stderr) = output(&mut sweep());
    assert_eq!(code, Some(2), "{stdout}{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("run.latency.csv already exists"), "{stderr}");
    assert!(!out.exists(), "nothing is written");
    let (code, stdout, stderr) = output(sweep().arg("--force"));
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    let sidecar = std::fs::read_to_string(dir.path().join("run.latency.csv")).unwrap();
    assert_eq!(sidecar, "row,lat_histogram\n", "replaced: no sample measured latency");
}

/// What opens the README's SFU short answer; the reference sfu run's CSV follows it, then ` -->`.
const SFU_BEGIN: &str = "<!-- BEGIN channel-bench sfu --short ";
/// What closes it.
const SFU_END: &str = "<!-- END channel-bench sfu -->";

#[test]
fn the_readme_sfu_answer_is_the_reference_sfu_runs_once_there_is_one() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let start = readme.find(SFU_BEGIN).unwrap_or_else(|| panic!("README.md has no {SFU_BEGIN}… -->"));
    let (csv, rest) = readme[start + SFU_BEGIN.len()..].split_once(" -->\n").expect("the marker ends with -->");
    let block = &rest[..rest.find(SFU_END).unwrap_or_else(|| panic!("README.md has no {SFU_END}"))];
    // The reference sfu run first, then other machines' rooms read beside it.
    let runs: Vec<_> = csv.split_whitespace().map(|csv| root.join(csv)).collect();
    if !runs[0].is_file() {
        // The placeholder until the reference sfu run is committed: it says so and how.
        assert!(block.contains("pending") && block.contains("make answer SFU="), "{block}");
        return;
    }
    let (code, short, stderr) = output(bench().args(["summary", "--short"]).args(&runs));
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(block, short, "README.md's SFU answer differs from {csv}'s: regenerate with make answer SFU={csv}");
}

/// The README reads in a minute: at most 120 lines, its answer block at most 40, the room's at
/// most 15, no table cell over 160 characters, no other line over 200 as read (a link's target
/// not counted).
#[test]
fn the_readme_and_its_short_answers_are_short() {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    assert!(readme.lines().count() <= 120, "README.md: {} lines", readme.lines().count());
    for (begin, end, most) in
        [(SFU_BEGIN, SFU_END, 15), ("<!-- BEGIN channel-bench summary ", "<!-- END channel-bench summary -->", 40)]
    {
        let start = readme.find(begin).unwrap_or_else(|| panic!("README.md has no {begin}"));
        let block = &readme[start..start + readme[start..].find(end).unwrap_or_else(|| panic!("no {end}"))];
        let lines = block.lines().skip(1).count();
        assert!(lines <= most, "{begin}: {lines} lines");
        for cell in block.lines().filter(|line| line.starts_with('|')).flat_map(|line| line.split('|')) {
            assert!(
                cell.trim().chars().count() <= 160,
                "{begin}: a cell of {} characters: {cell}",
                cell.chars().count()
            );
        }
    }
    let read = |line: &str| -> usize {
        // `[label](target)` reads as its label.
        let mut rest = line;
        let mut count = 0;
        while let Some(at) = rest.find("](") {
            let close = rest[at..].find(')').map_or(rest.len(), |end| at + end + 1);
            count += rest[..at].chars().count();
            rest = &rest[close..];
        }
        count + rest.chars().count()
    };
    let prose =
        readme.lines().filter(|line| !line.starts_with('|') && !line.starts_with("<!--") && !line.starts_with("!["));
    for line in prose {
        assert!(read(line) <= 200, "a line of {} characters as read: {line}", read(line));
    }
}

/// A hand-made room of 4 participants, tokio-mpsc alone, three samples a phase: the first
/// out-of-phase sample had a steal tick, 1.53 ms p99, four times the CPU and 717 switches.
fn disturbed_room() -> String {
    let mut csv = "channel,mode,runtime,workers,tasks,messages,capacity,sample,elapsed_ns,ns_per_message,cpu_ns,\
                   status,pace_ns,burst,send,dropped,phase,involuntary_switches,steal_ns,frames,frames_overflowed,\
                   pacer_behind,round,lat_p99_ns\n"
        .to_owned();
    for (phase, round) in [("random", 0), ("aligned", 3)] {
        for sample in 1..=3u64 {
            let steal = phase == "random" && sample == 1;
            let (cpu, switches, steal_ns, p99) =
                if steal { (173_000_000, 717, 10_000_000, 1_530_000) } else { (44_000_000, 60, 0, 900 + sample) };
            csv += &format!(
                "tokio-mpsc,cloned-send,multi-thread,2,4,1000,1024,{sample},1000000000,1000000.0,{cpu},ok,20000000,5,try,\
                 0,{phase},{switches},{steal_ns},200,0,false,{},{p99}\n",
                round + sample
            );
        }
    }
    csv
}

#[test]
fn a_sample_with_a_steal_tick_is_left_out_of_the_cards_figures_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    let csv = common::write(dir.path(), "room.csv", &disturbed_room());
    let (code, json, stderr) = output(bench().args(["summary", "--json"]).arg(&csv));
    assert_eq!(code, Some(0), "{stderr}");
    let answer: serde_json::Value = serde_json::from_str(&json).unwrap();
    let decision = &answer["decision"];
    assert_eq!(decision["pick"], "tokio-mpsc", "{decision}");
    assert_eq!(decision["left_out"], serde_json::json!([{ "why": "steal tick", "samples": 1 }]), "{decision}");
    let card: Vec<&str> = decision["card"].as_array().unwrap().iter().map(|line| line.as_str().unwrap()).collect();
    let line = |label: &str| *card.iter().find(|line| line.starts_with(label)).unwrap_or_else(|| panic!("{card:?}"));
    assert_eq!(line("left out:"), "left out: 1 of 6 samples (1 steal tick), kept in the CSV");
    assert_eq!(
        line("latency:"),
        "latency:  p99 out of phase 902 ns (median of the samples: 902 ns–903 ns, n=2); in phase 902 ns (median of \
         the samples: 901 ns–903 ns, n=3)"
    );
    assert!(
        line("cost:").starts_with("cost:     whole process, 4 senders and the router: 4.40% (n=2) of a core"),
        "{card:?}"
    );
}

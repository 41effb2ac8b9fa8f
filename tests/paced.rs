//! The answer for paced load on a tiny paced sweep: `summary --short` leads with the latency
//! table, cells.json carries the pooled figures, and `compare` of two runs prints the A/A lines.

use std::path::{Path, PathBuf};

mod common;
use common::{bench, output};

/// A tiny paced sweep of kanal and flume into `dir/name`: 1 and 8 tasks, 8 messages every
/// 10 ms for 60 ms, dropping when full, latency measured, both phases.
fn paced_sweep(dir: &Path, name: &str) -> PathBuf {
    let out = dir.join(name);
    let (code, stdout, stderr) = output(
        bench()
            .args(["--pace", "10ms", "--duration", "60ms", "--tasks", "1,8", "--send", "try", "--latency"])
            .args(["--channels", "kanal,flume", "--samples", "2", "--max-time", "0", "--warmup", "0"])
            .args(["--runtimes", "multi-thread", "--modes", "cloned-send", "--phase", "aligned,random", "--out"])
            .arg(&out),
    );
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("latency under load: per runtime"), "the closing summary has the answer: {stdout}");
    out
}

#[test]
fn summary_leads_with_latency_under_load_for_a_paced_file_and_cells_carry_the_pooled_figures() {
    let dir = tempfile::tempdir().unwrap();
    let csv = paced_sweep(dir.path(), "paced.csv");
    let (code, short, stderr) = output(bench().args(["summary", "--short"]).arg(&csv));
    assert_eq!(code, Some(0), "{stderr}");
    // A file of paced cells: the short answer is the latency answer (its ns/message restates the
    // schedule), then the crate versions.
    let latency = short.find("### latency under load").unwrap_or_else(|| panic!("no latency table: {short}"));
    let versions = short.find("crate versions").unwrap_or_else(|| panic!("no versions line: {short}"));
    assert!(latency < versions && !short.contains("pick (ns/message)"), "{short}");
    for phase in ["random phase", "send try"] {
        assert!(short.contains(phase), "{phase}: {short}");
    }
    assert!(short.contains("lowest p99, pooled") && short.contains("% of a core at"), "{short}");
    let markdown = std::fs::read_to_string(csv.with_extension("md")).unwrap();
    assert!(markdown.contains("### latency under load"), "{markdown}");

    let html = std::fs::read_to_string(csv.with_extension("html")).unwrap();
    assert!(html.contains("<section id=\"latency\">") && html.contains("pooled p99 latency, ns"), "{html}");
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
        // 8 messages every 10 ms per task.
        let rate = cell["tasks"].as_f64().unwrap() * 800.0;
        assert_eq!(paced["offered_per_s"].as_f64().unwrap(), rate, "{paced}");
        let cpu = paced["cpu_ns_per_delivered"].as_f64().unwrap();
        assert!((paced["core_share"].as_f64().unwrap() - cpu * rate / 1e9).abs() < 1e-9, "{paced}");
    }
}

#[test]
fn compare_of_two_paced_runs_sets_every_phase_side_by_side_with_verdicts_and_agreement() {
    let dir = tempfile::tempdir().unwrap();
    let (old, new) = (paced_sweep(dir.path(), "old.csv"), paced_sweep(dir.path(), "new.csv"));
    let (code, stdout, stderr) = output(bench().arg("compare").arg(&old).arg(&new));
    assert_eq!(code, Some(0), "{stderr}");
    for line in [
        "two runs' pooled p99, larger over smaller: median",
        "two runs' frames overflowed, difference: median",
        "two runs' CPU per delivered message, larger over smaller: median",
    ] {
        assert!(stdout.contains(line), "{line}: {stdout}");
        assert!(stdout.contains("(8 cells)") || line.contains("overflowed"), "{stdout}");
    }
    let per_cell = stdout.lines().filter(|line| line.contains(": p99 ") && line.contains("overflowed")).count();
    assert_eq!(per_cell, 8, "one line per paced cell, aligned and random apart: {stdout}");
    assert!(stdout.contains("random phase"), "{stdout}");
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
    let reference = root.join(csv);
    if !reference.is_file() {
        // The placeholder until the reference sfu run is committed: it says so and how.
        assert!(block.contains("pending") && block.contains("make answer SFU="), "{block}");
        return;
    }
    let (code, short, stderr) = output(bench().args(["summary", "--short"]).arg(&reference));
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(block, short, "README.md's SFU answer differs from {csv}'s: regenerate with make answer SFU={csv}");
}

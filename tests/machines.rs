//! Runs of several machines read together (`summary`, `report`, `cells`): the machine is an
//! axis of the answer, as capacity is. The runs of each machine pool, each machine is answered
//! in tables of its own, then where the pick changes with the machine, each with its verdict.

mod common;
use std::path::{Path, PathBuf};

use common::{HEADER, cell, run, write};
use serde_json::Value;

/// The JSON beside `csv` in `dir`: a machine of `cores` cores.
fn machine(dir: &Path, csv: &str, cores: u32) {
    let json = format!(
        r#"{{"cpu_model":"Xeon","cores":{cores},"os":"linux","hostname":"vm","rustc":"rustc 1","crates":{{}},"git_commit":"abc","command_line":["channel-bench","--out","{csv}"],"started_utc":"2026-01-01T00:0{cores}:00Z"}}"#
    );
    write(dir, &csv.replace(".csv", ".json"), &json);
}

/// A run where kanal takes `kanal` ns/message and flume `flume`, at 1 and 64 tasks, measured on
/// `workers` workers.
fn a_run(dir: &Path, name: &str, workers: u32, (kanal, flume): (f64, f64)) -> PathBuf {
    let steady = |value: f64| [value, value * 1.001, value * 0.999, value * 1.002, value * 0.998];
    let mut body = format!("{HEADER}\n");
    for tasks in [1, 64] {
        body += &cell("kanal", "multi-thread", tasks, &steady(kanal));
        body += &cell("flume", "multi-thread", tasks, &steady(flume));
    }
    write(dir, name, &body.replace(",multi-thread,2,", &format!(",multi-thread,{workers},")))
}

/// Two runs of a 2-core machine where kanal leads, one of a 16-core machine where flume does.
fn two_machines(dir: &Path) -> String {
    let here = a_run(dir, "here.csv", 2, (100.0, 200.0));
    let again = a_run(dir, "again.csv", 2, (101.0, 199.0));
    let there = a_run(dir, "there.csv", 16, (300.0, 100.0));
    machine(dir, "here.csv", 2);
    machine(dir, "again.csv", 2);
    machine(dir, "there.csv", 16);
    [here, there, again].map(|path| path.display().to_string()).join(",")
}

#[test]
fn each_machine_is_answered_and_a_pick_that_changes_is_named_with_its_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let csvs = two_machines(dir.path());
    let (code, stdout, stderr) = run(["summary", &csvs, "--json"]);
    assert_eq!(code, Some(0), "{stderr}");
    let json: Value = serde_json::from_str(&stdout).unwrap();
    let bands = json["bands"].as_array().unwrap();
    let on = |cores: u64| bands.iter().filter(|band| band["machine"]["cores"] == cores).count();
    assert_eq!((on(2), on(16), bands.len()), (2, 2, 4), "a small and a medium band per machine: {stdout}");
    let machines = json["machines"].as_array().unwrap();
    assert_eq!(machines.len(), 2, "{stdout}");
    for band in machines {
        let picks: Vec<&str> =
            band["picks"].as_array().unwrap().iter().map(|p| p["channel"].as_str().unwrap()).collect();
        assert_eq!(picks, ["kanal", "flume"], "{band}");
        let changes = band["changes"].as_array().unwrap();
        assert_eq!(changes.len(), 2, "each machine's pick is behind on the other: {band}");
        assert!(changes.iter().all(|change| change["behind"]["ratio"].as_f64().unwrap() > 1.9), "{band}");
    }

    // The console: a column per machine, the pick that changes set apart, how far behind in words.
    let (code, stdout, stderr) = run(["summary", &csvs]);
    assert_eq!(code, Some(0), "{stderr}");
    let heading = stdout.lines().find(|line| line.starts_with("multi-thread cloned-send ")).unwrap_or_default();
    assert!(heading.ends_with(" 2 cores, 64 slots   16 cores, 64 slots"), "{stdout}");
    assert!(stdout.contains("The pick changes with the machine in 2 of 2 multi-thread bands."), "{stdout}");
    assert!(stdout.contains("  On 2 cores: flume 1.99× behind kanal† (2 bands, multi-thread)\n"), "{stdout}");
    assert!(stdout.contains("  On 16 cores: kanal† 3.00× behind flume (2 bands, multi-thread)\n"), "{stdout}");
    // The page: each band's verdict on each machine.
    let out = dir.path().join("both.md");
    let (code, _, stderr) = run(["summary", &csvs, "--out", out.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{stderr}");
    let page = std::fs::read_to_string(&out).unwrap();
    assert!(page.contains("\n**On 16 cores (Xeon), at 64 slots:**\n"), "{page}");
    assert!(page.contains("the pick changes with the machine**: on 2 cores, flume is "), "{page}");
}

#[test]
fn the_report_and_the_cells_of_two_machines_name_each_machine() {
    let dir = tempfile::tempdir().unwrap();
    let csvs = two_machines(dir.path());
    let out = dir.path().join("both.html");
    let (code, _, stderr) = run(["report", &csvs, "--out", out.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{stderr}");
    let page = std::fs::read_to_string(&out).unwrap();
    assert!(page.contains("Measured on 2 machines: 2 cores (Xeon); 16 cores (Xeon)."), "{page}");
    assert_eq!(page.matches("<h3>").count(), 2, "one description per machine");
    assert!(page.contains("<p><b>On 16 cores (Xeon), at 64 slots:</b></p>"), "a table per machine: {page}");
    // Each machine's panel apart: its own scale.
    assert!(page.contains("multi-thread cloned-send on 2 cores (Xeon)</text>"), "{page}");
    let cells = dir.path().join("both.cells.json");
    let (code, _, stderr) = run(["cells", &csvs, "--out", cells.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{stderr}");
    let json: Value = serde_json::from_str(&std::fs::read_to_string(&cells).unwrap()).unwrap();
    let machines: std::collections::BTreeSet<&str> =
        json["cells"].as_array().unwrap().iter().map(|cell| cell["machine"].as_str().unwrap()).collect();
    assert_eq!(machines.into_iter().collect::<Vec<_>>(), ["16 cores (Xeon)", "2 cores (Xeon)"]);
}

#[test]
fn one_machine_is_answered_as_before_and_names_no_machine() {
    let dir = tempfile::tempdir().unwrap();
    let here = a_run(dir.path(), "here.csv", 2, (100.0, 200.0));
    machine(dir.path(), "here.csv", 2);
    let (code, stdout, stderr) = run(["summary", here.to_str().unwrap(), "--json"]);
    assert_eq!(code, Some(0), "{stderr}");
    let json: Value = serde_json::from_str(&stdout).unwrap();
    assert!(json["bands"].as_array().unwrap().iter().all(|band| band.get("machine").is_none()), "{stdout}");
    assert!(json.get("machines").is_none(), "{stdout}");
}

/// The 2-core reference run and the 16-core runs committed beside it.
#[test]
fn the_two_reference_machines_answer_every_multi_thread_band_at_each_capacity() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("results/reference");
    let sixteen = root.join("16core-xeon-2026-11-28");
    let csvs = [root.join("channel-bench-20261125T170442Z.csv"), sixteen.join("a.csv"), sixteen.join("b.csv")];
    let csvs = csvs.map(|path| path.display().to_string()).join(",");
    let (code, stdout, stderr) = run(["summary", &csvs, "--json"]);
    assert_eq!(code, Some(0), "{stderr}");
    let json: Value = serde_json::from_str(&stdout).unwrap();
    let multi = |band: &&Value| band["runtime"] == "multi-thread";
    for cores in [2, 16] {
        let on =
            json["bands"].as_array().unwrap().iter().filter(multi).filter(|band| band["machine"]["cores"] == cores);
        let answered = on.filter(|band| band["leader"].is_object()).count();
        assert_eq!(answered, 12, "3 bands × 2 modes × 2 capacities on {cores} cores");
    }
    let changed: Vec<&Value> =
        json["machines"].as_array().unwrap().iter().filter(|band| band["changes"] != Value::Array(vec![])).collect();
    assert!(changed.len() >= 5, "{changed:?}");
    assert!(changed.iter().all(|band| band["changes"][0]["behind"]["interval"][0].as_f64().unwrap() > 1.0));

    // Capacity is read on one machine at a time: each such line says which.
    let (code, short, stderr) = run(["summary", "--short", &csvs]);
    assert_eq!(code, Some(0), "{stderr}");
    let list = short.split("The pick changes with capacity").nth(1).unwrap_or_else(|| panic!("{short}"));
    let lines: Vec<&str> = list.lines().skip(1).take_while(|line| line.starts_with("- At ")).collect();
    assert!(!lines.is_empty(), "{short}");
    for line in lines {
        assert!(line.contains(" slots on 2 cores: ") || line.contains(" slots on 16 cores: "), "{line}");
    }
}

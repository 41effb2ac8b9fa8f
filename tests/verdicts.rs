//! One noise model, every output: the same CSV read by `summary` (console and Markdown),
//! `summary --short`, `summary --json` and `report` gives each pair of channels the same
//! verdict, with the same ratio and interval, in each.

use std::path::Path;

use serde_json::Value;

mod common;

/// Six rounds of three channels at tasks 1 and 4 (the small band), every channel of a round
/// moved alike by the host: `fast` leads, `near` is 1% behind (tied), `slow` 30% (separated).
fn csv(dir: &Path) -> std::path::PathBuf {
    let host = [1.0, 1.2, 0.9, 1.4, 1.0, 1.1];
    let mut body = format!("{},round\n", common::HEADER);
    let mut round = 0;
    for tasks in [1, 4] {
        for (at, h) in host.iter().enumerate() {
            round += 1;
            let own = if at % 2 == 0 { 1.004 } else { 0.996 };
            for (channel, level) in [("fast", 100.0), ("near", 101.0), ("slow", 130.0)] {
                let ns: f64 = level * h * own;
                body.push_str(&format!(
                    "{channel},cloned-send,current-thread,1,{tasks},1000,64,64,1200,{},{},{ns:.3},{},ok,{round}\n",
                    at + 1,
                    (ns * 1000.0) as u64,
                    (ns * 1000.0) as u64
                ));
            }
        }
    }
    common::write(dir, "run.csv", &body)
}

/// `1.30× [1.25–1.35]`, as every output writes a ratio with its interval.
fn ratio_text(pair: &Value) -> String {
    let interval = pair["interval"].as_array().unwrap();
    let (ratio, low, high) =
        (pair["ratio"].as_f64().unwrap(), interval[0].as_f64().unwrap(), interval[1].as_f64().unwrap());
    format!("{ratio:.2}× [{low:.2}–{high:.2}]")
}

/// `within 4.31%`, as every output writes a tie: the interval's far end, three figures.
fn within_text(pair: &Value) -> String {
    let interval = pair["interval"].as_array().unwrap();
    let (low, high) = (interval[0].as_f64().unwrap(), interval[1].as_f64().unwrap());
    let within = (low.ln().abs().max(high.ln().abs()).exp() - 1.0) * 100.0;
    let figure = if within >= 100.0 {
        format!("{within:.0}")
    } else if within >= 10.0 {
        format!("{within:.1}")
    } else {
        format!("{within:.2}")
    };
    format!("within {figure}%")
}

#[test]
fn every_output_gives_a_pair_the_verdict_the_json_gives_it() {
    let dir = tempfile::tempdir().unwrap();
    let csv = csv(dir.path());
    let run = |args: &[&str]| common::output(common::bench().args(args).arg(&csv));
    let (code, json, stderr) = run(&["summary", "--json"]);
    assert_eq!(code, Some(0), "{stderr}");
    let answer: Value = serde_json::from_str(&json).unwrap();
    let band = &answer["bands"][0];
    assert_eq!(band["leader"]["channel"], "fast", "{json}");
    let runner_up = &band["runner_up"];
    assert_eq!((runner_up["channel"].as_str(), runner_up["verdict"].as_str()), (Some("near"), Some("tied")), "{json}");
    let separated = &band["contenders"][0];
    assert_eq!((separated["channel"].as_str(), separated["verdict"].as_str()), (Some("slow"), Some("separated")));
    let (tie, apart) = (within_text(runner_up), ratio_text(separated));

    let (_, console, stderr) = run(&["summary"]);
    let (_, markdown, _) = run(&["summary", "--out", "-"]);
    let (_, short, _) = run(&["summary", "--short"]);
    let html = dir.path().join("run.html");
    let (code, _, report_err) = run(&["report"]);
    assert_eq!(code, Some(0), "{report_err}");
    let html = std::fs::read_to_string(html).unwrap();
    // The console and the short answer show the tie; the page and the report each verdict.
    for (name, text) in [("console", &console), ("short", &short)] {
        assert!(text.contains("fast") && text.contains(" ≈ near"), "{name} lacks the tie: {text}{stderr}");
    }
    for (name, text) in [("markdown", &markdown), ("html", &html)] {
        assert!(text.contains(&format!("near, {tie}")), "{name} lacks the tie {tie:?}: {text}{stderr}");
        assert!(text.contains(&apart), "{name} lacks the separation {apart:?}: {text}");
    }
}

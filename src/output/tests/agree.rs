//! One figure per fact: on a committed paced run, every p99, CPU and drops figure of the room's
//! cells is the same in the console's cell line, the page (.md and text), the HTML report, the
//! card and `summary --json`: each view reads the figures table (`results::figures`), none
//! summarizes a cell's samples again.

use std::path::Path;

use serde_json::Value;

use super::doc::{Form, Format};
use super::format::{duration, escape, percent};
use super::{answer, console, decision, document, html};
use crate::results::analysis::Analysis;
use crate::results::figures::Table;
use crate::results::load::{self, CellKey};
use crate::results::metadata::Metadata;
use crate::results::paced::PacedCell;

/// The reference SFU run of 300 participants on 2 cores, both phases, 13 channels.
const RUN: &str = "results/reference/channel-bench-20261125T171956Z";

/// Every (label, value) of a ranking of `summary --json`'s paced band: its leader, runner-up
/// and contenders, wherever they sit in the object.
fn entries(value: &Value, out: &mut Vec<(String, f64)>) {
    match value {
        Value::Object(map) => {
            if let (Some(Value::String(channel)), Some(figure)) = (map.get("channel"), map.get("value")) {
                out.push((channel.clone(), figure.as_f64().unwrap()));
            }
            map.values().for_each(|value| entries(value, out));
        }
        Value::Array(values) => values.iter().for_each(|value| entries(value, out)),
        _ => {}
    }
}

/// Whether `a` and `b` are one figure: equal to the last few bits (a band of one task count is
/// the geometric mean of one cell's figure, which `exp(ln x)` can move by one bit).
fn same(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

#[test]
fn every_view_gives_a_paced_cells_p99_cpu_and_drops_as_one_figure() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let file = load::load(&root.join(format!("{RUN}.csv"))).unwrap();
    let metadata = Metadata::read(&root.join(format!("{RUN}.json"))).unwrap();
    let analysis = Analysis::of("room.csv", &file, Some(&metadata));
    let table = Table::of(&file);
    let markdown = document::of("room.csv", &analysis, Form::Full).render(Format::Markdown);
    let text = document::of("room.csv", &analysis, Form::Full).render(Format::Text);
    let page = html::page("room.csv", &analysis, std::slice::from_ref(&metadata));
    let json: Value = serde_json::from_str(&answer::json("room.csv", &analysis)).unwrap();
    let room = analysis.decisions[0].participants;
    let cells: Vec<(&CellKey, &PacedCell)> = (file.order.iter())
        .filter(|key| key.tasks == room)
        .filter_map(|key| Some((key, table.cell(key).paced.as_ref()?)))
        .collect();
    assert!(cells.len() >= 20, "both phases of the room's channels: {}", cells.len());

    for &(key, cell) in &cells {
        let (p99, cpu, drops) = (
            duration(cell.latency.unwrap().p99 as f64),
            duration(cell.cpu_ns_per_delivered.unwrap()),
            percent(cell.drop_share),
        );
        // The console's cell line.
        let line = console::paced_figures(cell);
        for figure in [format!(" p99 {p99} "), format!("cpu {cpu}/msg"), format!("drops {drops}")] {
            assert!(line.contains(&figure), "{key:?}: {figure} in {line}");
        }
        // The report's row of the cell: its pooled p99, drops and CPU.
        let row = page
            .lines()
            .filter(|row| {
                row.starts_with("<tr><td>")
                    && row.contains(&format!("<td>{}</td>", escape(&key.coord.setting.phased())))
            })
            .find(|row| {
                row.contains(&format!(">{}", key.channel))
                    && row.contains(&format!("<td class=\"n\">{}</td>", key.tasks))
            })
            .unwrap_or_else(|| panic!("no row of {key:?}"));
        for figure in [&p99, &drops, &cpu] {
            assert!(row.contains(&format!("<td class=\"n\">{figure}</td>")), "{key:?}: {figure} in {row}");
        }
    }

    // summary --json's paced bands: every channel's p99 and CPU, the room's cell's.
    for (band, answer) in analysis.paced.iter().zip(json["paced"].as_array().unwrap()) {
        for (metric, figure) in [
            ("p99", (|c: &PacedCell| c.latency.map(|l| l.p99 as f64)) as fn(&PacedCell) -> Option<f64>),
            ("cpu", |c: &PacedCell| c.cpu_ns_per_delivered),
        ] {
            let mut found = Vec::new();
            entries(&answer[metric], &mut found);
            assert!(!found.is_empty(), "{metric}: {answer}");
            for (channel, value) in found {
                let (_, cell) = cells
                    .iter()
                    .find(|(key, _)| key.channel_label() == channel && key.coord.setting == band.band.coord.setting)
                    .unwrap_or_else(|| panic!("{channel}"));
                assert!(
                    same(value, figure(cell).unwrap()),
                    "{metric} of {channel}: {value} against {:?}",
                    figure(cell)
                );
            }
        }
        // The page's table gives each band's lowest p99 and CPU as the same figures.
        let first = band.p99.first().unwrap();
        assert!(markdown.contains(&format!(" {}", duration(first.figures.p99_ns.unwrap()))), "{}", first.channel);
    }

    // The card, in every view, gives the pick's figures; the JSON's decision the same numbers.
    let decision = &analysis.decisions[0];
    let pick = decision.pick.as_ref().unwrap();
    let (out, inside) = (pick.out_of_phase.as_ref().unwrap(), pick.in_phase.as_ref().unwrap());
    let card: Vec<String> = decision::lines(decision::card(decision, &[]))
        .iter()
        .map(|line| super::doc::line(line, Format::Text))
        .collect();
    let said = |label: &str| card.iter().find(|line| line.starts_with(label)).unwrap().clone();
    let (latency, dropped, cost) = (said("latency:"), said("drops:"), said("cost:"));
    assert!(latency.contains(&format!("out of phase {} (", duration(out.latency.unwrap().p99 as f64))), "{latency}");
    assert!(latency.contains(&format!("in phase {} (", duration(inside.latency.unwrap().p99 as f64))), "{latency}");
    assert!(dropped.starts_with(&format!("drops:    {} (", percent(inside.drop_share))), "{dropped}");
    assert!(cost.contains(&format!(": {} (", percent(out.core_share.unwrap()))), "{cost}");
    for line in [&latency, &dropped, &cost] {
        assert!(markdown.contains(line.as_str()) && text.contains(line.as_str()), "{line}");
        assert!(page.contains(&format!("<li>{line}</li>")), "{line}");
    }
    let answer = &json["decision"];
    assert!(same(answer["p99_ns"]["out_of_phase"].as_f64().unwrap(), out.latency.unwrap().p99 as f64));
    assert!(same(answer["p99_ns"]["in_phase"].as_f64().unwrap(), inside.latency.unwrap().p99 as f64));
    assert!(same(answer["drop_share"]["in_phase"].as_f64().unwrap(), inside.drop_share));
    assert!(same(answer["core_share"].as_f64().unwrap(), out.core_share.unwrap()));
    assert!(answer["card"].as_array().unwrap().iter().any(|line| line == latency.as_str()));
}

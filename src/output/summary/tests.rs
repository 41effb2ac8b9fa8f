use super::*;
use crate::output::doc::{Format, caveats_of, line};
use crate::results::column::Column;
use crate::results::coord::Coord;
use crate::results::load::ResultsFile;
use crate::results::load::{CellKey, hand_made};
use crate::run::measure::RuntimeKind;
use crate::run::workload::Mode;

/// The recommendations of `file` with its own figures and noise.
fn recommend(file: &ResultsFile) -> Vec<Recommendation> {
    crate::results::recommend::of_file(file)
}

/// An analysis of no file with `bands`: this build's versions, the machines and capacities
/// `bands` are found at, no channel kept.
fn analysis(bands: &[Recommendation]) -> Analysis {
    let mut analysis = Analysis::of("x.csv", &ResultsFile::default(), None);
    analysis.across = crate::results::across::Acrosses::of(bands);
    analysis.bands = bands.to_vec();
    analysis
}

/// The console's text of `analysis`: the pick matrix and the line that points to the page.
fn console(analysis: &Analysis) -> String {
    crate::output::document::of("x.csv", analysis, Form::Full).render(Format::Text)
}

/// Whether `text` has a line that reads `words` once its runs of spaces are one.
fn has_line(text: &str, words: &str) -> bool {
    text.lines().any(|line| line.split_whitespace().collect::<Vec<_>>().join(" ") == words)
}

/// The page's text of `analysis`: its whole document, as the report's page holds it.
fn page(analysis: &Analysis) -> String {
    crate::output::document::of("x.csv", analysis, Form::Full).render(Format::Markdown)
}

/// The summary's Markdown of `analysis`, from `csv_name`.
fn markdown(csv_name: &str, analysis: &Analysis) -> String {
    crate::output::document::of(csv_name, analysis, Form::Full).render(Format::Markdown)
}

/// The README's short answer of `analysis`, from `csv_name`.
fn short_markdown(csv_name: &str, analysis: &Analysis) -> String {
    crate::output::document::of(csv_name, analysis, Form::Short).render(Format::Markdown)
}

/// This build's versions of no channel: tokio's alone.
fn built() -> Versions {
    crate::results::versions::versions(&Default::default(), None)
}

#[test]
fn renders_say_tied_or_name_the_winner_with_its_ratio() {
    let steady = [100.0, 100.5, 99.5, 100.2, 99.8];
    let slow = [200.0, 201.0, 199.0, 200.4, 199.6];
    let noisy = [90.0, 140.0, 110.0, 70.0, 130.0];
    let bands = recommend(&hand_made(&[
        ("kanal", 1, &steady, 0),
        ("flume", 1, &slow, 0),
        ("kanal", 64, &steady, 0),
        ("flume", 64, &noisy, 0),
    ]));
    let text = console(&analysis(&bands));
    assert!(has_line(&text, "small (1) kanal† 100 (flume)"), "{text}");
    assert!(has_line(&text, "medium (64) kanal† 100 ≈ flume"), "{text}");
    assert!(text.ends_with("(kanal†): x.md and x.html; the words: docs/methodology.md#glossary\n"), "{text}");
    assert!(!text.contains("lowest CPU") && !text.contains("Each figure is"), "{text}");
    let markdown = markdown("x.csv", &analysis(&bands));
    assert!(markdown.contains("kanal† 200, 2.00× lower than flume 400 [1."), "{markdown}");
    // The page's table names the band's workers and capacity.
    assert!(markdown.contains("\n**At 0 slots:**\n"), "{markdown}");
    let row = "| multi-thread (0 workers) | cloned-send | small (1) | **kanal†** 100, 2.00× faster than flume 200 [1.";
    assert!(markdown.contains(row), "{markdown}");
    assert!(markdown.contains("| medium (64) | **kanal†** 100 ≈ flume, within "), "{markdown}");
    // The careful pick on the page: the next clean channel with its verdict, or the tied one.
    assert!(markdown.contains("| flume 200, 2.00× [1."), "{markdown}");
    assert!(markdown.contains("| flume 110 (tied, within "), "{markdown}");
    assert!(markdown.starts_with("### Which channel\n\nEach cell: the pick (ns/message)"), "{markdown}");
    assert!(markdown.contains("### In full\n\nFrom `x.csv`"), "{markdown}");
    assert!(!markdown.contains("p99") && !markdown.contains("| not ranked"), "{markdown}");
}

#[test]
fn a_channel_with_a_mixed_cell_is_marked() {
    let steady = [60.0, 60.5, 59.5, 60.2, 59.8];
    let mixed = [40.0, 41.0, 39.0, 125.0, 124.0];
    let bands = recommend(&hand_made(&[("kanal", 64, &steady, 0), ("crossfire", 64, &mixed, 0)]));
    let text = page(&analysis(&bands));
    // Five samples of a 60/40 mixture leave the pair too uncertain to call kanal ahead.
    let line = "| medium (64) | **kanal†** 60.0 ≈ crossfire†, ";
    assert!(text.contains(line), "{text}");
    assert!(text.contains("(mixed): some of the channel's cells have samples in separate clusters"), "{text}");
}

#[test]
fn a_bounded_figure_is_marked_where_shown_and_its_channel_named_once() {
    let steady = [60.0, 60.5, 59.5, 60.2, 59.8];
    let far = [600.0, 605.0, 595.0, 602.0, 598.0];
    let mut file = hand_made(&[("kanal", 64, &steady, 0), ("flume", 64, &far, 0)]);
    let flume = file.order.iter().find(|key| key.channel == "flume").unwrap().clone();
    file.cells.get_mut(&flume).unwrap().bounded = 3;
    let bands = recommend(&file);
    let text = page(&analysis(&bands));
    assert!(text.contains("kanal†** 60.0, 10.00× faster than flume 600 (bounded) ["), "{text}");
    let note = "(bounded): flume was so far behind the fastest of its group that samples were stopped at a bound";
    assert_eq!(text.matches(note).count(), 1, "{text}");
    let markdown = markdown("x.csv", &analysis(&bands));
    assert!(markdown.contains("flume 600 (bounded) [") && markdown.contains(note), "{markdown}");
    let whole = Analysis::of("x.csv", &file, None);
    let json: serde_json::Value = serde_json::from_str(&crate::output::answer::json("x.csv", &whole)).unwrap();
    let runner_up = &json["bands"][0]["runner_up"];
    assert_eq!((runner_up["channel"].as_str(), runner_up["bounded"].as_bool()), (Some("flume"), Some(true)));
    assert_eq!(json["bands"][0]["leader"].get("bounded"), None);
    let calm = recommend(&hand_made(&[("kanal", 64, &steady, 0), ("flume", 64, &far, 0)]));
    assert!(!page(&analysis(&calm)).contains("bounded"));
}

#[test]
fn three_tied_collapse_to_others_within_the_widest() {
    let steady = |level: f64| [level, level * 1.001, level * 0.999, level * 1.002, level * 0.998];
    let (a, b, c) = (steady(100.0), steady(101.0), steady(101.6));
    let bands = recommend(&hand_made(&[("a", 1, &a, 0), ("b", 1, &b, 0), ("c", 1, &c, 0)]));
    let line = line(&leaders(&bands[0].speed, number, "faster than", false), Format::Text);
    assert!(line.starts_with("a 100 ≈ 2 others within "), "{line}");
    let tied = bands[0].speed.leaders()[1..].iter().filter_map(|entry| entry.verdict);
    let widest = tied.map(|verdict| verdict.within().exp() - 1.0).reduce(f64::max).unwrap();
    assert!(line.ends_with(&format!("within {}%", number(widest * 100.0))), "{line}");
}

#[test]
fn latency_and_exclusions_get_their_own_lines_and_columns() {
    let mut file = hand_made(&[
        ("kanal", 1, &[100.0, 101.0, 99.0, 100.5, 99.5], 0),
        ("flume", 1, &[200.0, 201.0, 199.0, 200.5, 199.5], 0),
        ("tokio", 1, &[50.0; 5], 2),
    ]);
    for (channel, p99) in [("kanal", 40_000.0), ("flume", 12_000.0)] {
        let coord = Coord { runtime: RuntimeKind::MultiThread, mode: Mode::ClonedSend, ..Coord::default() };
        let key = CellKey { coord, tasks: 1, channel: channel.into(), merge: None, messages: 0, candidate: false };
        file.cells.get_mut(&key).unwrap().columns[Column::LatP99] = vec![p99; 5];
    }
    let bands = recommend(&file);
    let markdown = markdown("x.csv", &analysis(&bands));
    assert!(markdown.contains("| lowest p99 latency | not ranked |"), "{markdown}");
    assert!(
        markdown.contains("| tokio (2 failed sample(s) at tasks 1) |")
            && markdown.contains("| flume 12.0 µs, 3.33× lower than kanal† 40.0 µs [")
    );
    assert!(markdown.contains("and the lowest p99 latency;"), "{markdown}");
}

#[test]
fn a_channel_with_caveats_is_marked_and_its_caveats_follow() {
    let steady = [100.0, 100.5, 99.5, 100.2, 99.8];
    let bands = recommend(&hand_made(&[("tokio-mpsc", 1, &steady, 0), ("kanal", 1, &[200.0; 5], 0)]));
    let text = console(&analysis(&bands));
    assert!(has_line(&text, "small (1) tokio-mpsc 100"), "{text}");
    let markdown = markdown("x.csv", &analysis(&bands));
    let short = short_markdown("x.csv", &analysis(&bands));
    // A clean winner is its own careful pick, said once.
    assert!(short.contains("| multi-thread | cloned-send | small (1) | tokio-mpsc 100 |\n"), "{short}");
    assert!(markdown.contains("**tokio-mpsc** 100, 2.00× faster than kanal† 200 [1."), "{markdown}");
    assert!(markdown.contains("| same |"), "{markdown}");
    let tokio = format!(
        "from this build's Cargo.lock (no JSON from the run beside the CSV): tokio {}",
        built().crates[0].version
    );
    assert!(markdown.contains(&tokio) && !short.contains(&tokio), "{markdown}");
    for caveat in caveats_of("kanal") {
        let evidence = caveat.evidence.label();
        let line = format!(
            "**kanal†** ({}): {} ([{}]({})); {evidence}",
            caveat.versions,
            caveat.text,
            caveat.link_label(),
            caveat.link
        );
        assert!(markdown.contains(&line), "{markdown}");
        let brief = caveat.text.split(';').next().unwrap();
        let line = format!("**kanal†** ({}): {brief} ([{}]({}))\n", caveat.versions, caveat.link_label(), caveat.link);
        assert!(short.contains(&line), "{short}");
    }
    assert!(!text.contains("tokio-mpsc†") && caveats_of("tokio-mpsc").is_empty());
    assert_eq!(caveated_of(ranked_names(&bands)), ["kanal"]);
}

#[test]
fn a_channel_whose_tracker_was_not_read_is_marked_and_the_caveats_say_what_the_mark_means() {
    let steady = [100.0, 100.5, 99.5, 100.2, 99.8];
    // kanal first, with a known problem; fibre the fastest with none, its tracker not read.
    let cells: &[(&str, u64, &[f64], usize)] =
        &[("kanal", 1, &steady, 0), ("fibre", 1, &[200.0; 5], 0), ("tokio-mpsc", 1, &[400.0; 5], 0)];
    let bands = recommend(&hand_made(cells));
    let (markdown, short) = (markdown("x.csv", &analysis(&bands)), short_markdown("x.csv", &analysis(&bands)));
    let meaning = "**fibre‡**: no known problem recorded, but none looked for: their crates' issue trackers have not \
                   been read";
    for page in [&markdown, &short] {
        let careful = page.lines().any(|row| row.starts_with("| multi-thread") && row.contains("(fibre‡)"));
        assert!(careful, "the careful pick is marked: {page}");
        assert!(page.contains(meaning), "{page}");
        assert!(!page.contains("kanal‡") && !page.contains("tokio-mpsc‡") && !page.contains("fibre†"), "{page}");
    }
    let text = console(&analysis(&bands));
    assert!(text.contains("caveats (kanal†, fibre‡): x.md"), "{text}");
    assert_eq!(unread_of(["tokio-mpsc", "fibre", "kanal", "loole", "fibre", "mine"]), ["fibre", "loole"]);
}

#[test]
fn a_busy_host_is_said_before_the_answer_in_every_form() {
    let bands = recommend(&hand_made(&[("kanal", 1, &[100.0; 5], 0), ("flume", 1, &[200.0; 5], 0)]));
    let mut analysis = analysis(&bands);
    let runtime = |runtime, busy| crate::results::host::RuntimeNoise {
        runtime,
        scale: None,
        pairs: 0,
        outside: None,
        told_apart: None,
        waited: Some(if busy { 0.46 } else { 0.002 }),
        busy,
    };
    analysis.host.runtimes = vec![runtime(RuntimeKind::MultiThread, false), runtime(RuntimeKind::CurrentThread, false)];
    for free in [console(&analysis), page(&analysis), short_markdown("x.csv", &analysis)] {
        assert!(!free.contains("busy host on"), "{free}");
    }
    analysis.host.runtimes[0].busy = true;
    for busy in [console(&analysis), page(&analysis), short_markdown("x.csv", &analysis)] {
        let first = busy.lines().find(|line| !line.trim().is_empty()).unwrap_or_default();
        assert!(first.contains("busy host on multi-thread: other work kept the run's threads"), "{busy}");
    }
}

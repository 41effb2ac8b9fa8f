//! The report's plots as inline SVG: a figure against the task count on a log2 axis, one line
//! per channel through its figures, every `ok` sample a dot: ns/message on a linear axis or
//! latency in µs on a log10 axis ([`panel`]). Drawing only: the figures come from
//! [`crate::stats`] and `results`.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::doc;
use super::format::escape;
use crate::results::band::first_seen;
use crate::results::band::slot;
use crate::results::cells::{CellResult, FEWEST_SAMPLES};
use crate::results::coord::Coord;
use crate::run::workload::Capacity;

/// One channel's line in a panel.
#[derive(Debug, Clone)]
pub struct Series<'a> {
    /// The first cell of the line: its channel, merge, legend label and colour (`results::colour`)
    /// are the line's.
    pub cell: &'a CellResult,
    /// Per task count, ascending: the tasks, the mean ns/message, the `ok` samples.
    pub points: Vec<(u64, f64, &'a [f64])>,
    /// Per task count that has one, ascending: the tasks and the mean's interval, drawn as a
    /// shaded band.
    pub band: Vec<(u64, f64, f64)>,
    /// The task counts whose cell has a sample stopped at its bound (`CellResult::bounded`):
    /// drawn with a ×.
    pub bounded: Vec<u64>,
}

/// The panels of `cells`, one per group (the cells' [`Coord`]: machine, runtime, worker threads,
/// capacity, mode and setting) in file order, each group's capacities side by side, smallest first: its first cell, and a line
/// per channel through the points `point` gives ((tasks, figure, `ok` samples), and the figure's
/// interval when it has one), by tasks.
pub fn panels<'a>(
    cells: impl IntoIterator<Item = &'a CellResult>,
    point: impl Fn(&'a CellResult) -> Option<((u64, f64, &'a [f64]), Option<(f64, f64)>)>,
) -> Vec<(&'a CellResult, Vec<Series<'a>>)> {
    let mut panels: Vec<(&CellResult, Vec<Series>)> = Vec::new();
    for cell in cells {
        let series = &mut slot(&mut panels, |(first, _)| first.coord == cell.coord, || (cell, Vec::new())).1;
        let Some((point, band)) = point(cell) else { continue };
        let new = || Series { cell, points: Vec::new(), band: Vec::new(), bounded: Vec::new() };
        let line = slot(series, |line| (&line.cell.channel, line.cell.merge) == (&cell.channel, cell.merge), new);
        line.points.push(point);
        line.band.extend(band.map(|(low, high)| (point.0, low, high)));
        line.bounded.extend((cell.bounded > 0).then_some(point.0));
    }
    for line in panels.iter_mut().flat_map(|(_, series)| series) {
        line.points.sort_by_key(|point| point.0);
    }
    // Each capacity of a machine, runtime, worker count, mode and setting beside the others,
    // smallest first.
    let place = |cell: &CellResult| Coord { capacity: Capacity::default(), ..cell.coord.clone() };
    let places = first_seen(panels.iter().map(|(first, _)| place(first)));
    panels.sort_by_key(|(first, _)| (places.iter().position(|at| *at == place(first)), first.capacity));
    panels
}

const WIDTH: f64 = 570.0;
const HEIGHT: f64 = 340.0;
const LEFT: f64 = 56.0;
const RIGHT: f64 = 150.0;
const TOP: f64 = 44.0;
const BOTTOM: f64 = 40.0;

/// A round step for about five ticks from 0 to `max`.
fn tick_step(max: f64) -> f64 {
    let raw = (max / 5.0).max(f64::MIN_POSITIVE);
    let magnitude = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0].iter().map(|k| k * magnitude).find(|step| *step >= raw).unwrap_or(10.0 * magnitude)
}

/// A panel's title: its group in words (`multi-thread cloned-send at 1,024 slots`), and the
/// bracketed notes of its setting with what follows them (`[paced 5 every 20ms, random phase] on
/// 16 cores`), empty when it has none: drawn on a second line, so that the title fits the panel.
#[derive(Debug, Clone, PartialEq)]
pub struct Title {
    /// The first line.
    pub group: String,
    /// The second line; empty for none.
    pub notes: String,
}

impl Title {
    /// The title in one line, as the panel's `<title>` says it.
    fn full(&self) -> String {
        if self.notes.is_empty() { self.group.clone() } else { format!("{} {}", self.group, self.notes) }
    }

    /// The title's two lines.
    fn lines(&self) -> String {
        format!(
            "<text x=\"{LEFT}\" y=\"16\" font-size=\"13\" font-weight=\"bold\">{}</text>\n\
             <text x=\"{LEFT}\" y=\"32\" font-size=\"11\">{}</text>\n",
            escape(&self.group),
            escape(&self.notes)
        )
    }
}

/// One panel titled `title` ([`Title`]), an `<svg>` element sized to fit its legend: ns/message from 0 on a
/// linear axis, or, given the `statistic` each line's point is (`pooled p99`), latency in µs on
/// a log10 axis, whole decades for values that span several.
pub fn panel(title: &Title, latency: Option<&str>, series: &[Series]) -> String {
    let (unit, statistic) = latency.map_or(("ns/message", "trimmed mean"), |statistic| ("µs (log axis)", statistic));
    let tasks: BTreeSet<u64> = series.iter().flat_map(|s| s.points.iter().map(|p| p.0)).collect();
    let (low, high) = (tasks.first().copied().unwrap_or(u64::MAX), tasks.last().copied().unwrap_or(0));
    let (mut x0, mut x1) = ((low.max(1) as f64).log2(), (high.max(1) as f64).log2());
    if x1 <= x0 {
        (x0, x1) = (x0 - 0.5, x1 + 0.5);
    }
    let values = || series.iter().flat_map(|s| s.points.iter().flat_map(|p| p.2.iter().copied().chain([p.1])));
    let top_value = values().fold(0.0, f64::max);
    let step = tick_step(top_value.max(1.0));
    let y_max = (top_value / step).ceil().max(1.0) * step;
    // The log axis: whole decades around every value above 0.
    let low_value = values().filter(|v| *v > 0.0).fold(f64::INFINITY, f64::min);
    let decades = (low_value.min(top_value).max(1e-3).log10().floor(), top_value.max(1e-3).log10().ceil());
    let decades = if decades.1 <= decades.0 { (decades.0, decades.0 + 1.0) } else { decades };
    let height = HEIGHT.max(TOP + 18.0 * series.len().max(1) as f64 + 10.0);
    let (plot_w, plot_h) = (WIDTH - LEFT - RIGHT, height - TOP - BOTTOM);
    let x = |tasks: u64| LEFT + ((tasks.max(1) as f64).log2() - x0) / (x1 - x0) * plot_w;
    let y = |value: f64| match latency {
        None => TOP + plot_h - value / y_max * plot_h,
        Some(_) => {
            let at = (value.max(10f64.powf(decades.0)).log10() - decades.0) / (decades.1 - decades.0);
            TOP + plot_h - at * plot_h
        }
    };

    let mut svg = format!(
        "<svg role=\"img\" width=\"{WIDTH}\" height=\"{height}\" \
         viewBox=\"0 0 {WIDTH} {height}\" font-family=\"sans-serif\" font-size=\"11\">\n\
         <title>{}</title>\n{}",
        escape(&title.full()),
        title.lines()
    );
    // Axes, grid and ticks.
    let ticks: Vec<f64> = match latency {
        None => (0..).map(|k| k as f64 * step).take_while(|value| *value <= y_max + step / 2.0).collect(),
        Some(_) => (decades.0 as i32..=decades.1 as i32).map(|decade| 10f64.powi(decade)).collect(),
    };
    let (right, bottom) = (LEFT + plot_w, TOP + plot_h);
    for value in ticks {
        let (at, label_x, label_y) = (y(value), LEFT - 4.0, y(value) + 4.0);
        let _ = writeln!(
            svg,
            "<line x1=\"{LEFT}\" x2=\"{right:.1}\" y1=\"{at:.1}\" y2=\"{at:.1}\" stroke=\"#ddd\"/>\
             <text x=\"{label_x:.1}\" y=\"{label_y:.1}\" text-anchor=\"end\">{value}</text>"
        );
    }
    for tasks in tasks {
        let (at, label_y) = (x(tasks), bottom + 14.0);
        let _ = writeln!(
            svg,
            "<line x1=\"{at:.1}\" x2=\"{at:.1}\" y1=\"{TOP}\" y2=\"{bottom:.1}\" stroke=\"#eee\"/>\
             <text x=\"{at:.1}\" y=\"{label_y:.1}\" text-anchor=\"middle\">{tasks}</text>"
        );
    }
    let (middle_x, middle_y, baseline) = (LEFT + plot_w / 2.0, TOP + plot_h / 2.0, height - 6.0);
    let _ = writeln!(
        svg,
        "<rect x=\"{LEFT}\" y=\"{TOP}\" width=\"{plot_w:.1}\" height=\"{plot_h:.1}\" fill=\"none\" stroke=\"#888\"/>\n\
         <text x=\"{middle_x:.1}\" y=\"{baseline:.1}\" text-anchor=\"middle\">sending tasks (log2 axis)</text>\n\
         <text transform=\"translate(14 {middle_y:.1}) rotate(-90)\" text-anchor=\"middle\">{unit}</text>"
    );
    lines(&mut svg, series, x, y, (unit, statistic));
    svg.push_str("</svg>\n");
    svg
}

/// One line and its dots per channel, then its legend entry; `x` and `y` place a task count
/// and a value.
fn lines(svg: &mut String, series: &[Series], x: impl Fn(u64) -> f64, y: impl Fn(f64) -> f64, what: (&str, &str)) {
    let (unit, statistic) = what;
    for (row, line) in series.iter().enumerate() {
        let colour = line.cell.colour.as_str();
        let name = escape(&line.cell.label);
        let at = |t: u64, value: f64| format!("{:.1},{:.1}", x(t), y(value));
        let path: Vec<String> = line.points.iter().map(|&(t, mean, _)| at(t, mean)).collect();
        let _ = writeln!(svg, "<g class=\"series\" data-channel=\"{name}\" fill=\"{colour}\" stroke=\"{colour}\">");
        if !line.band.is_empty() {
            let upper = line.band.iter().map(|&(t, _, high)| at(t, high));
            let lower = line.band.iter().rev().map(|&(t, low, _)| at(t, low));
            let outline = upper.chain(lower).collect::<Vec<_>>().join(" ");
            let _ =
                writeln!(svg, "<polygon class=\"band\" stroke=\"none\" fill-opacity=\"0.12\" points=\"{outline}\"/>");
        }
        let _ = writeln!(svg, "<polyline fill=\"none\" stroke-width=\"2\" points=\"{}\"/>", path.join(" "));
        for &(t, mean, samples) in &line.points {
            for &sample in samples {
                let (cx, cy) = (x(t), y(sample));
                let _ = writeln!(
                    svg,
                    "<circle cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"2\" stroke=\"none\" fill-opacity=\"0.45\"/>"
                );
            }
            // A thin cell (fewer samples than the duels give a leader) is drawn hollow.
            let thin = !samples.is_empty() && samples.len() < FEWEST_SAMPLES;
            let (fill, stroke) = if thin { (" fill=\"white\" class=\"thin\"", colour) } else { ("", "white") };
            let (cx, cy, count) = (x(t), y(mean), samples.len());
            let _ = writeln!(
                svg,
                "<circle cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"3.5\" stroke=\"{stroke}\"{fill}><title>{name}, {t} tasks: \
                 {statistic} {mean:.1} {unit}, {count} samples</title></circle>"
            );
            if line.bounded.contains(&t) {
                let (left, top) = (cx - 5.0, cy - 5.0);
                let _ = writeln!(
                    svg,
                    "<path class=\"bounded\" fill=\"none\" stroke-width=\"1.5\" d=\"M{left:.1},{top:.1}l10,10m0,-10l-10,10\">\
                     <title>{name}, {t} tasks: bounded (samples stopped at a bound, far behind its group's fastest)</title></path>"
                );
            }
        }
        let (legend_x, legend_y) = (WIDTH - RIGHT + 12.0, TOP + 8.0 + 18.0 * row as f64);
        let (line_end, text_x, text_y) = (legend_x + 18.0, legend_x + 24.0, legend_y + 4.0);
        let mark = if doc::caveats_of(&line.cell.channel).is_empty() { "" } else { doc::MARK };
        let _ = writeln!(
            svg,
            "<line x1=\"{legend_x}\" x2=\"{line_end:.1}\" y1=\"{legend_y:.1}\" y2=\"{legend_y:.1}\" \
             stroke-width=\"2\"/><text x=\"{text_x:.1}\" y=\"{text_y:.1}\" stroke=\"none\" fill=\"#222\">{name}{mark}</text>\n</g>"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::workload::Merge;

    #[test]
    fn panels_and_lines_are_grouped_by_the_coordinate_not_by_their_words() {
        let file = crate::results::load::hand_made(&[("kanal", 1, &[100.0, 110.0, 90.0], 0)]);
        let table = crate::results::figures::Table::of(&file);
        let cells = crate::results::cells::cells("x.csv", (&file, &table), &[], &[]).cells;
        // A second place whose words say what the first's say: another batch, the setting's words kept.
        let mut other = cells[0].clone();
        other.coord.setting.batch = Some(2);
        // In one place, kanal merged another way under kanal's label.
        let mut merged = cells[0].clone();
        merged.merge = Some(Merge::SelectAll);
        let drawn = [cells[0].clone(), other, merged];
        let point = |cell: &CellResult| Some(((cell.tasks, 100.0, &[][..]), None));
        let panels = panels(&drawn, point);
        assert_eq!(panels.len(), 2, "two places, two panels");
        let lines: Vec<Vec<(&str, Option<Merge>)>> = panels
            .iter()
            .map(|(_, series)| series.iter().map(|line| (line.cell.channel.as_str(), line.cell.merge)).collect())
            .collect();
        assert_eq!(lines, [vec![("kanal", None), ("kanal", Some(Merge::SelectAll))], vec![("kanal", None)]]);
    }

    #[test]
    fn ticks_are_round() {
        assert_eq!(tick_step(480.0), 100.0);
        assert_eq!(tick_step(95.0), 20.0);
        assert_eq!(tick_step(7.0), 2.0);
    }

    /// A cell of kanal, whose line the panels below draw.
    fn kanal() -> CellResult {
        let file = crate::results::load::hand_made(&[("kanal", 1, &[100.0, 110.0, 90.0], 0)]);
        let table = crate::results::figures::Table::of(&file);
        crate::results::cells::cells("x.csv", (&file, &table), &[], &[]).cells.remove(0)
    }

    #[test]
    fn a_panel_has_a_line_and_a_dot_per_sample() {
        let cell = kanal();
        let samples = [100.0, 110.0, 90.0];
        let series = [Series {
            cell: &cell,
            points: vec![(1, 100.0, &samples[..]), (64, 80.0, &samples[..2])],
            band: vec![(1, 95.0, 105.0)],
            bounded: vec![64],
        }];
        let svg = panel(&Title { group: "multi-thread cloned-send".to_owned(), notes: String::new() }, None, &series);
        assert_eq!(svg.matches("class=\"bounded\"").count(), 1, "a bounded cell at 64 tasks: a ×");
        assert_eq!(svg.matches("<polyline").count(), 1);
        assert_eq!(svg.matches("r=\"2\"").count(), 5);
        assert_eq!(svg.matches("class=\"band\"").count(), 1, "the mean's interval, shaded");
        assert_eq!(svg.matches("class=\"thin\"").count(), 1, "two samples at 64 tasks: hollow");
        assert!(svg.contains(&cell.colour) && svg.contains(">64</text>"), "{svg}");
    }

    #[test]
    fn latency_is_drawn_in_microseconds_on_decades_and_a_long_title_takes_two_lines() {
        let cell = kanal();
        let samples = [0.8, 250.0];
        let series = [Series {
            cell: &cell,
            points: vec![(1, 13.6, &samples[..]), (512, 0.9, &samples[..1])],
            band: Vec::new(),
            bounded: Vec::new(),
        }];
        let title = Title {
            group: "multi-thread cloned-send".to_owned(),
            notes: "[paced 5 every 20ms, random phase]".to_owned(),
        };
        let svg = panel(&title, Some("pooled p99"), &series);
        for decade in [">0.1</text>", ">1</text>", ">10</text>", ">100</text>", ">1000</text>"] {
            assert!(svg.contains(decade), "{decade}: {svg}");
        }
        assert!(svg.contains("pooled p99 13.6 µs (log axis)"), "{svg}");
        assert!(
            svg.contains(">multi-thread cloned-send</text>")
                && svg.contains(">[paced 5 every 20ms, random phase]</text>")
        );
        assert!(svg.contains("kanal†"), "the legend marks a crate with a known problem");
    }
}

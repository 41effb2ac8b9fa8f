"""Plot channel-bench results: cost per message against the number of tasks.

Draws what the binary computed: X.cells.json beside each X.csv (a sweep writes it, `channel-bench
cells X.csv` makes it). A row of panels per capacity and mode (cloned-send, merged-recv), a column
per runtime, each with a y range of its own; x: tasks (log2), y: the metric (default ns/message).
Per channel and setting, a line through the cells' trimmed means (the mean without the highest and
lowest fifth of the samples), named at its right end, and every ok sample as a point; a failed cell
leaves a gap, counted in the caption. The channels X.cells.json highlights in a panel are bold, the
others lighter. Colours and names are the binary's; the line style tells settings and files apart.

With no CSV named, plots the newest CSV in results/. Writes X.png beside the first CSV unless -o is
given, and prints each path written. Paced cells (`--pace`) go to X.latency.png beside it: the p99
latency pooled over every delivered message of a cell, a panel per capacity, runtime, mode and
setting, titled with the setting in words (its phase said either way); a cell whose pacer fell behind is hollow. A run of paced cells only
has no X.png: its ns/message restates the schedule.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # headless: no display needed, before pyplot is imported
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.backend_bases import FigureCanvasBase  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter, NullLocator  # noqa: E402

LATENCY_HINT, ALLOCS_HINT = "run channel-bench with --latency", "run channel-bench with --count-allocs"
# The per-cell figures of X.cells.json that can be drawn: name -> (y label, log y, hint).
METRICS = {
    "ns_per_message": ("ns per message (wall clock)", False, ""),
    "cpu_ns_per_message": ("CPU ns per message", False, ""),
    "mb_per_s": ("payload MB/s (10^6 bytes per second)", False, ""),
    "lat_p50_ns": ("p50 latency (ns)", True, LATENCY_HINT),
    "lat_p99_ns": ("p99 latency (ns)", True, LATENCY_HINT),
    "lat_p999_ns": ("p99.9 latency (ns)", True, LATENCY_HINT),
    "lat_max_ns": ("max latency (ns)", True, LATENCY_HINT),
    "allocs_per_message": ("allocations per message", False, ALLOCS_HINT),
    "alloc_bytes_per_message": ("bytes allocated per message", False, ALLOCS_HINT),
}
# What every cell of X.cells.json must hold for plot.py to draw it.
DRAWN = {"runtime", "mode", "tasks", "channel", "label", "colour", "setting", "coord", "ok", "failed"}
MODE_ORDER = ("cloned-send", "merged-recv")
RUNTIME_ORDER = ("multi-thread", "current-thread")
LINE_STYLES = ("-", "--", ":", "-.", (0, (5, 1, 1, 1, 1, 1)), (0, (1, 3)))
MARKERS = ("o", "s", "^", "D", "v", "P")
# A line's width, opacity and z-order: in a panel without highlights (None), highlighted (True),
# one of the others in a panel with highlights (False).
LINE_LOOK = {None: (1.5, 1.0, 2), True: (2.8, 1.0, 3), False: (0.9, 0.4, 1)}
LABEL_SIZE = 7.5
BOLD = "bold: the band picks and the fastest channel with no known problem"
# The metrics a paced cell's schedule sets: the main figure leaves paced cells out of them.
SCHEDULED = {"ns_per_message", "mb_per_s"}


class FatalError(Exception):
    """A problem with the input that ends the run with `fatal: ...`, exit 2."""


@dataclass
class Run:
    """One CSV's cells (from X.cells.json) and the machine description beside it."""

    path: Path
    cells: list[dict]
    machine: dict
    skipped_partial_line: bool = False
    # Fewer ok samples make a cell thin, drawn hollow: the binary's threshold, 0 in older files.
    fewest_samples: int = 0
    # The channels to emphasise per panel (`highlights` in X.cells.json), none in older files.
    highlights: list = field(default_factory=list)


def read_json(path: Path, what: str):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise FatalError(f"{path}: cannot read {what}: {error}") from None


def load_run(csv: Path) -> Run:
    """The cells the binary computed for `csv`, from X.cells.json beside it."""
    cells_path = csv if csv.name.endswith(".cells.json") else csv.with_suffix(".cells.json")
    if not cells_path.is_file():
        if not csv.exists():
            raise FatalError(f"{csv}: no such file")
        raise FatalError(f"{cells_path}: not found; make it with `channel-bench cells {csv}`")
    data = read_json(cells_path, "the per-cell results")
    cells = data.get("cells") if isinstance(data, dict) else None
    if not isinstance(cells, list) or not all(isinstance(c, dict) and DRAWN <= c.keys() for c in cells):
        raise FatalError(f"{cells_path}: not a channel-bench cells.json of this version; remake it with "
                         f"`channel-bench cells {csv} --force`")
    machine_path = cells_path.with_name(cells_path.name.removesuffix(".cells.json") + ".json")
    machine = {}
    if machine_path.is_file():
        try:
            machine = read_json(machine_path, "the machine description")
        except FatalError as error:
            print(f"warning: ignored: {error}", file=sys.stderr)
    stem = cells_path.with_name(cells_path.name.removesuffix(".cells.json") + ".csv")
    return Run(stem, data["cells"], machine if isinstance(machine, dict) else {},
               bool(data.get("skipped_partial_line")), int(data.get("fewest_samples") or 0),
               [h for h in data.get("highlights") or [] if isinstance(h, dict)])


# The latency sidecar beside a run's CSV (src/results/sidecar.rs): not a run of its own.
LATENCY_SIDECAR = ".latency.csv"


def newest_csv(directory: Path) -> Path:
    candidates = [path for path in directory.glob("*.csv")
                  if path.is_file() and not path.name.endswith(LATENCY_SIDECAR)]
    if not candidates:
        raise FatalError(f"no CSV in {directory}/; run the benchmark first (make bench) "
                         "or name a CSV to plot")
    return max(candidates, key=lambda path: path.stat().st_mtime)


def check_metric(run: Run, metric: str) -> None:
    if not any(cell.get(metric) for cell in run.cells):
        hint = METRICS[metric][2]
        raise FatalError(f"{run.path}: no ok sample has {metric}" + (f": {hint}" if hint else ""))


def rank(value: str, preferred: tuple[str, ...]) -> tuple:
    """Known values in their preferred order, then any others by name."""
    return (preferred.index(value) if value in preferred else len(preferred), value)


def number(value: float) -> str:
    """One decimal, or four significant digits for values below 10 (allocations per message)."""
    return f"{value:.1f}" if abs(value) >= 10 else f"{value:.4g}"


def ordered(values, preferred) -> list:
    return sorted(set(values), key=lambda value: rank(value, preferred))


def describe(values) -> str:
    """'65536' for one value, '1/8' for a few, 'a–b (n values)' for many."""
    distinct = sorted(set(values))
    if len(distinct) <= 4:
        return "/".join(str(v) for v in distinct)
    return f"{distinct[0]}–{distinct[-1]} ({len(distinct)} values)"


def file_labels(runs: list[Run]) -> list[str]:
    """Hostnames if every file has one and they differ, else file stems (else paths)."""
    hosts = [run.machine.get("hostname") for run in runs]
    if all(hosts) and len(set(hosts)) == len(hosts):
        return hosts
    stems = [run.path.stem for run in runs]
    return stems if len(set(stems)) == len(stems) else [str(run.path) for run in runs]


def line_name(cell: dict) -> str:
    """The channel as the binary names it, and the setting in brackets when the cell has one."""
    return cell["label"] + (f" [{cell['phased_setting']}]" if cell.get("phased_setting") else "")


def line_key(cell: dict) -> tuple:
    """What one line of a panel draws, as data: the channel, its merge and the setting's fields."""
    return cell["channel"], cell.get("merge", ""), place(cell["coord"]["setting"])


def style_key(cell: dict) -> str:
    """What the line style tells apart within a file: the merge strategy and the setting (its fields)."""
    return cell.get("merge", "") + "|" + place(cell["coord"]["setting"])


def place(value) -> str:
    """A coordinate's field (the capacity, the setting) as a key: its data, not its words."""
    return json.dumps(value, sort_keys=True)


def capacity_key(cell: dict) -> str:
    """The capacity the cell is ranked at, as data (`{"shared": 1024}`, `{"per-task": 256}`)."""
    return place(cell["coord"]["capacity"])


def caption(runs: list[Run], legend: str) -> str:
    """`legend` (what the marks mean), then per file its messages, capacity, workers, machine and
    samples left out."""
    lines = [legend]
    for run, label in zip(runs, file_labels(runs)):
        cells = run.cells
        ok, failed = sum(c["ok"] for c in cells), sum(c["failed"] for c in cells)
        text = (f"{label + ': ' if len(runs) > 1 else ''}"
                f"{describe(c['messages'] for c in cells)} messages per sample, "
                f"capacity {', '.join(dict.fromkeys(map(capacity_label, cells)))}, "
                f"workers {describe(c['workers'] for c in cells)}")
        m = run.machine
        text += (f"; {m['cpu_model']}" + (f", {m['cores']} cores" if m.get("cores") else "")
                 if m.get("cpu_model") else "") + (f", {m['os']}" if m.get("os") else "")
        text += f"; {failed} of {ok + failed} samples failed and are left out" if failed else \
            f"; all {ok} samples ok"
        disturbed = sum(len(c.get("disturbed", [])) for c in cells)
        if disturbed:
            text += f"; {disturbed} samples measured while other cells around them were slow too are left out"
        if run.skipped_partial_line:
            text += "; a partial last line was skipped"
        lines.append(text + ".")
        if m.get("rustc") or m.get("crates"):
            crates = ", ".join(f"{k} {v}" for k, v in sorted((m.get("crates") or {}).items()))
            lines.append(f"    {m.get('rustc', '')}; crates {crates}")
    return "\n".join(textwrap.fill(line, 150, subsequent_indent="    ") for line in lines)


def capacity_label(cell: dict) -> str:
    """The binary's words for the cell's buffer ("1,024 slots"), or made from `capacity` in a
    file that does not give them; empty where the capacity was not recorded."""
    return cell.get("capacity_label") or (f"{cell['capacity']:,} slots" if cell.get("capacity") else "")


def paced(cell: dict) -> bool:
    """Whether the cell's senders were paced (its setting's `pace_ns`)."""
    return "pace_ns" in cell["coord"]["setting"]


def emphasis(run: Run, cell: dict) -> bool | None:
    """True for a channel the binary highlights in the cell's panel (`highlights` in
    X.cells.json), False for the others of such a panel, None where the panel has none."""
    chosen = [h.get("channels", []) for h in run.highlights if h.get("coord") == cell["coord"]]
    return any(is_cell_of(channel, cell) for channel in sum(chosen, [])) if chosen else None


def is_cell_of(channel, cell: dict) -> bool:
    """Whether `channel`, one of a panel's highlights (its `channel` and `merge`; a bare name in
    older files), is `cell`'s channel: matched on the fields, never on the label."""
    if isinstance(channel, str):
        return channel == cell["channel"]
    return (channel.get("channel"), channel.get("merge")) == (cell["channel"], cell.get("merge"))


def grid(rows: list, columns: list, panels: dict, width: float, height: float):
    """A figure of rows x columns axes, each with its own y axis, and (axes, row, column, cells) per
    panel present; a place without a panel is removed."""
    fig, axes = plt.subplots(len(rows), len(columns), squeeze=False, layout="constrained",
                             figsize=(width * len(columns) + 1.0, height * len(rows) + 0.6))
    places = [(axes[i][j], row, column) for i, row in enumerate(rows) for j, column in enumerate(columns)]
    for ax, row, column in places:
        if (row, column) not in panels:
            fig.delaxes(ax)
    return fig, [(ax, row, column, panels[row, column]) for ax, row, column in places if (row, column) in panels]


def draw_panel(ax, runs: list[Run], panel: list[tuple], tasks: list[int], log: bool, named, draw) -> bool:
    """A line per channel (`named`) and file of the panel's (file index, cell) pairs, drawn by
    `draw(ax, k, cells, name, look)`, which returns where the name goes and the values the y range
    holds; log2 tasks on x, a y range of the panel's own. Returns whether a line is emphasised."""
    lines: dict[tuple, list[dict]] = {}
    for k, cell in panel:
        lines.setdefault((k, line_key(cell)), []).append(cell)
    labels, ends, tops, looks = file_labels(runs), [], [], set()
    for (k, _), cells in sorted(lines.items(), key=lambda line: (line[0][0], named(line[1][0]), line[0][1])):
        name = named(cells[0])
        cells.sort(key=lambda c: c["tasks"])
        looks.add(look := emphasis(runs[k], cells[0]))
        end, values = draw(ax, k, cells, name + (f" · {labels[k]}" if len(runs) > 1 else ""), look)
        ends.append(end)
        tops += [v for v in values if v > 0 and math.isfinite(v)]
    ax.set_xscale("log", base=2)
    ax.set_xticks(tasks, labels=[str(t) for t in tasks])
    ax.xaxis.set_minor_locator(NullLocator())
    ax.grid(True, which="major", alpha=0.3)
    ax.set_xlabel("tasks")
    if log:
        ax.set_yscale("log")
        # 10 20 50 100 rather than 10^1 2x10^1: these are ns, read as numbers
        ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.yaxis.set_minor_formatter(NullFormatter())
    if tops:
        ax.set_ylim(*((min(tops) / 1.4, max(tops) * 1.4) if log else (0, max(tops) * 1.08)))
    label_ends(ax, [end for end in ends if end])
    return True in looks


def draw_line(ax, cells: list[dict], ys: list[float], name: str, look: bool | None, **style) -> tuple | None:
    """One channel's line through `ys` (a cell each), in LINE_LOOK's `look`. Returns where its
    name goes (its last point, colour and look), or None for a line with no point."""
    width, alpha, order = LINE_LOOK[look]
    xs = [c["tasks"] for c in cells]
    ax.plot(xs, ys, color=cells[0]["colour"], label=name, linewidth=width, alpha=alpha, zorder=order, **style)
    end = [(x, y) for x, y in zip(xs, ys) if math.isfinite(y)]
    return (*end[-1], name, cells[0]["colour"], look) if end else None


def label_ends(ax, ends: list[tuple]) -> None:
    """Each line's name right of the panel, level with the line's last point and nudged apart
    so that no two overlap; a thin stroke joins it to the point."""
    if not ends:
        return
    # in axes fraction; the panel's height before the layout, which only makes it taller
    gap = LABEL_SIZE * 1.25 / (ax.get_position().height * ax.figure.get_figheight() * 72)
    to_axes = ax.transData + ax.transAxes.inverted()
    ends = sorted(ends, key=lambda e: to_axes.transform((e[0], e[1]))[1])
    heights = [to_axes.transform((x, y))[1] for x, y, *_ in ends]
    for i in range(len(heights)):
        heights[i] = max(heights[i], heights[i - 1] + gap if i else 0.0)
    for i in reversed(range(len(heights))):
        heights[i] = min(heights[i], heights[i + 1] - gap if i + 1 < len(heights) else 1.0)
    for height, (x, y, name, colour, look) in zip(heights, ends):
        ax.annotate(name, xy=(x, y), xytext=(1.03, height), textcoords="axes fraction", va="center",
                    color=colour, fontsize=LABEL_SIZE, fontweight="bold" if look else "normal",
                    alpha=0.8 if look is False else 1.0, annotation_clip=False, gid="end-label",
                    arrowprops={"arrowstyle": "-", "color": colour, "linewidth": 0.5, "alpha": 0.5})


def drawn_cells(run: Run, metric: str) -> list[dict]:
    """The cells the main figure draws: all, less paced ones where the metric restates the schedule."""
    return [c for c in run.cells if not (metric in SCHEDULED and paced(c))]


def machines_of(runs: list[Run], every: list[tuple]) -> tuple[list[str], dict]:
    """Each (file index, cell)'s machine as data, and its words, when the cells come from several:
    the cell's own (`coord`'s machine: a file of several machines names each cell's), else its
    file's cores from the JSON beside it; all one machine named "" otherwise, whose panels name
    none. Each machine gets rows of its own: its own scale."""
    def machine(k: int, cell: dict) -> tuple[str, str]:
        cores = runs[k].machine.get("cores")
        known = cell["coord"].get("machine") or {}
        if known.get("cores") or known.get("cpu"):
            return place(known), cell.get("machine", "")
        return place({"cores": cores}), (f"{cores} cores" if cores else "")
    named = [machine(k, cell) for k, cell in every]
    keys = [key for key, _ in named]
    return keys, (dict(named) if len(set(keys)) > 1 else {key: "" for key in keys})


def build_figure(runs: list[Run], metric: str = "ns_per_message", log_y: bool | None = None) -> Figure:
    """A row of panels per capacity and mode, a column per runtime; per channel, setting and file a
    line through the trimmed means, and the samples as points. log_y None: the metric's default."""
    label_text, default_log, _ = METRICS[metric]
    every = [(k, cell) for k, run in enumerate(runs) for cell in drawn_cells(run, metric)]
    machines, machine_words = machines_of(runs, every)
    panels: dict[tuple, list] = {}
    for (k, cell), machine in zip(every, machines):
        panels.setdefault(((machine, capacity_key(cell), cell["mode"]), cell["runtime"]), []).append((k, cell))
    modes = ordered((c["mode"] for _, c in every), MODE_ORDER)
    rows = [(machine, cap, mode) for machine in dict.fromkeys(machines)
            for cap in dict.fromkeys(capacity_key(c) for _, c in every) for mode in modes]
    capacity_words = {capacity_key(c): capacity_label(c) for _, c in every}
    words = {style_key(c): c.get("merge", "") + "|" + c["setting"] for _, c in every}
    settings = sorted(words, key=lambda key: (words[key], key))

    def draw(ax, k, cells, name, look):
        style = k * len(settings) + settings.index(style_key(cells[0]))
        ys = [c[metric]["trimmed_mean"] if c.get(metric) else math.nan for c in cells]
        end = draw_line(ax, cells, ys, name, look, linestyle=LINE_STYLES[style % len(LINE_STYLES)])
        points = [(c["tasks"], v) for c in cells if c.get(metric) for v in c[metric]["samples"]]
        ax.scatter([x for x, _ in points], [y for _, y in points], color=cells[0]["colour"], s=10,
                   alpha=0.6 * LINE_LOOK[look][1], marker=MARKERS[style % len(MARKERS)], linewidths=0, gid="samples")
        band = draw_interval_and_thin(ax, cells, metric, look, runs[k].fewest_samples)
        return end, ys + [y for _, y in points] + band

    fig, placed = grid(rows, ordered((c["runtime"] for _, c in every), RUNTIME_ORDER), panels, 6.2, 3.6)
    emphasised = False
    for ax, (machine, cap, mode), runtime, panel in placed:
        workers = f"workers {describe(c['workers'] for _, c in panel)}"
        words = [machine_words[machine], mode, runtime, workers, capacity_words[cap]]
        ax.set_title(" · ".join(filter(None, words)), fontsize=10)
        ax.set_ylabel(label_text)
        emphasised |= draw_panel(ax, runs, panel, sorted({c["tasks"] for _, c in every}),
                                 default_log if log_y is None else log_y, line_name, draw)
    legend = ("Line: trimmed mean of the ok samples per cell (without the highest and lowest fifth); "
              "points: the samples; shaded: the trimmed mean's interval"
              + (f"; hollow circle: a cell with fewer than {runs[0].fewest_samples} samples"
                 if runs and runs[0].fewest_samples else "")
              + ("; ×: a bounded cell (a channel so far behind its group's fastest that its samples were stopped "
                 "at a bound: its figure is over the messages taken by then)"
                 if any(c.get("bounded") for _, c in every) else "")
              + (f"; {BOLD}" if emphasised else "")
              + ("; paced cells: in the latency figure" if len(every) < sum(len(r.cells) for r in runs) else "") + ".")
    fig.suptitle(f"Async channel fan-in: {label_text} by number of tasks")
    fig.text(0.0, 0.0, caption(runs, legend), ha="left", va="top", fontsize=8, gid="caption")
    return fig


def draw_interval_and_thin(ax, cells: list[dict], metric: str, look: bool | None, fewest: int) -> list[float]:
    """A line's trimmed-mean intervals as a shaded band and a hollow circle on each thin cell's trimmed
    mean (fewer ok samples than `fewest`). Returns the band's upper ends."""
    colour, alpha = cells[0]["colour"], LINE_LOOK[look][1]
    band = [(c["tasks"], *c[metric]["trimmed_mean_interval"]) for c in cells
            if c.get(metric) and c[metric].get("trimmed_mean_interval")]
    if band:
        ax.fill_between([x for x, _, _ in band], [low for _, low, _ in band], [high for _, _, high in band],
                        color=colour, alpha=0.12 * alpha, linewidth=0, gid="interval")
    thin = [(c["tasks"], c[metric]["trimmed_mean"]) for c in cells if c.get(metric) and c["ok"] < fewest]
    if thin:
        ax.scatter([x for x, _ in thin], [y for _, y in thin], s=36, facecolors="none", edgecolors=colour,
                   linewidths=1.2, alpha=alpha, gid="thin")
    bounded = [(c["tasks"], c[metric]["trimmed_mean"]) for c in cells if c.get(metric) and c.get("bounded")]
    if bounded:
        ax.scatter([x for x, _ in bounded], [y for _, y in bounded], s=44, color=colour, marker="x",
                   linewidths=1.4, alpha=alpha, gid="bounded")
    return [high for _, _, high in band]


def build_latency_figure(runs: list[Run], alone: bool = False) -> Figure:
    """Pooled p99 (µs, log y) by tasks, a panel per capacity, runtime, mode and setting, titled with the
    setting's words (its phase either way); a cell whose pacer fell behind hollow. `alone`: no ns/message figure, as the caption says."""
    every = [(k, cell) for k, run in enumerate(runs) for cell in run.cells if paced(cell)]
    panels: dict[tuple, list] = {}
    for k, cell in every:
        key = (capacity_key(cell), cell["runtime"], cell["mode"], place(cell["coord"]["setting"]))
        panels.setdefault((key, 0), []).append((k, cell))
    capacity_words = {capacity_key(c): capacity_label(c) for _, c in every}
    setting_words = {place(c["coord"]["setting"]): c["phased_setting"] for _, c in every}
    rows = sorted({row for row, _ in panels}, key=lambda p: ([capacity_key(c) for _, c in every].index(p[0]),
                  rank(p[1], RUNTIME_ORDER), rank(p[2], MODE_ORDER), setting_words[p[3]]))

    def draw(ax, k, cells, name, look):
        ys = [(c.get("paced") or {}).get("pooled_p99_ns", math.nan) / 1000 for c in cells]
        behind = [(c["tasks"], y) for y, c in zip(ys, cells) if (c.get("paced") or {}).get("pacer_behind")]
        ax.scatter([x for x, _ in behind], [y for _, y in behind], s=40, facecolors="none",
                   edgecolors=cells[0]["colour"], linewidths=1.2)
        return draw_line(ax, cells, ys, name, look, marker="o", markersize=4), ys

    fig, placed = grid(rows, [0], panels, 7.5, 3.4)
    for ax, (cap, runtime, mode, setting), _, panel in placed:
        ax.set_title(" · ".join(filter(None, [runtime, mode, capacity_words[cap]])) + f"\n{setting_words[setting]}",
                     fontsize=9)
        ax.set_ylabel("p99 µs (pooled)")
        draw_panel(ax, runs, panel, sorted({c["tasks"] for _, c in every}), True, lambda c: c["label"], draw)
    legend = ("Line: p99 latency pooled over every delivered message of a cell; hollow circle: the pacer fell behind; "
              "in phase: every task sends its burst at the same instant, out of phase: at a random offset"
              + (f"; {BOLD}" if any(r.highlights for r in runs) else "")
              + ("; no ns/message figure: every cell is paced, and its ns/message restates the schedule"
                 if alone else "") + ".")
    fig.suptitle("Latency under load: pooled p99 by tasks")
    fig.text(0.0, 0.0, caption(runs, legend), ha="left", va="top", fontsize=8, gid="caption")
    return fig


def cell_table(runs: list[Run], metric: str) -> list[str]:
    """One line per cell: the metric's trimmed mean, median, min, max, ok samples (of all
    samples) and clusters when there are several, lowest first per (capacity, mode, runtime, tasks)."""
    several, lines = len(runs) > 1, []
    capacities = len({capacity_key(c) for run in runs for c in run.cells}) > 1
    for run, label in zip(runs, file_labels(runs)):
        for cell in run.cells:
            figures = cell.get(metric)
            order = (cell["capacity"], rank(cell["mode"], MODE_ORDER), rank(cell["runtime"], RUNTIME_ORDER),
                     cell["tasks"], figures["trimmed_mean"] if figures else math.inf, label)
            values = [number(figures[k]) for k in ("trimmed_mean", "median", "min", "max")] if figures else ["-"] * 4
            count = len(figures["samples"]) if figures else 0
            numbers = " ".join(f"{v:>10}" for v in values) + f" {count:>3}"
            clusters = " | ".join(f"{number(c['centre'])} ×{c['share']:.0%}" for c in figures.get("clusters", [])) \
                if figures else ""
            name = line_name(cell) + (f" · {capacity_label(cell)}" if capacities else "")
            lines.append((order, f"{label + '  ' if several else ''}{cell['mode']:<12} {cell['runtime']:<15} "
                                 f"{cell['tasks']:>5} {name:<16} {numbers}/{cell['ok'] + cell['failed']}"
                                 + (f"  clusters {clusters}" if clusters else "")
                                 + (f"  bounded {cell['bounded']}" if cell.get("bounded") else "")))
    header = (f"{'mode':<12} {'runtime':<15} {'tasks':>5} {'channel':<16} {'trimmed':>10} {'median':>10} "
              f"{'min':>10} {'max':>10} ok")
    return [f"# {metric}", ("file  " if several else "") + header] + [text for _, text in sorted(lines)]


def output_path(requested: str | None, first: Path, inputs: list[Path], supported, force: bool) -> Path:
    """The image to write: a new file, or with `force` an existing regular file; never an input."""
    path = Path(requested) if requested else first.with_suffix(".png")
    if path.suffix.lower().lstrip(".") not in supported:
        raise FatalError(f"{path}: cannot tell the image format from the extension; use .png, .svg or .pdf")
    if any(path.resolve() == p.resolve() for p in inputs):
        raise FatalError(f"{path}: refusing to overwrite an input file")
    if path.is_symlink():
        raise FatalError(f"{path} is a symbolic link: plot.py never writes through one, with or without --force; "
                         "give -o a regular file or a new path")
    if path.exists() and not path.is_file():
        raise FatalError(f"{path} is not a regular file: give -o a regular file or a new path")
    if path.exists() and not force:
        raise FatalError(f"{path} already exists: pass --force to replace it, or give -o another path")
    return path


def savefig(fig: Figure, out: Path) -> None:
    """Writes `fig` to `out`, closes it, and prints the path."""
    try:
        fig.savefig(out, dpi=130, bbox_inches="tight")
    except OSError as error:
        raise FatalError(f"{out}: cannot write: {error.strerror or error}") from None
    finally:
        plt.close(fig)
    print(out)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("csv", nargs="*", type=Path,
                        help="channel-bench CSV files, each with X.cells.json beside it (default: newest in results/)")
    parser.add_argument("-o", "--output", help="image to write (.png, .svg, .pdf; default: first CSV with .png)")
    parser.add_argument("--force", action="store_true", help="replace the image if it exists (a regular file)")
    parser.add_argument("--metric", default="ns_per_message",
                        help=f"what the y axis shows: {', '.join(METRICS)} (default: %(default)s)")
    scale = parser.add_mutually_exclusive_group()
    scale.add_argument("--log-y", dest="log_y", action="store_const", const=True,
                       help="logarithmic y axis (the default for the latency metrics)")
    scale.add_argument("--linear-y", dest="log_y", action="store_const", const=False, help="linear y axis")
    parser.add_argument("--table", action="store_true",
                        help="print each cell's trimmed mean, median, min, max and clusters instead of drawing")
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    try:
        args = parse_args(argv)
    except SystemExit as exit:  # argparse: --help (0) or a usage error (2)
        return exit.code if isinstance(exit.code, int) else 0
    try:
        if args.metric not in METRICS:
            raise FatalError(f"unknown metric {args.metric!r}; choose one of {', '.join(METRICS)}")
        paths = args.csv or [newest_csv(Path("results"))]
        runs = [load_run(path) for path in paths]
        for run in runs:
            check_metric(run, args.metric)
        if args.table:
            print("\n".join(cell_table(runs, args.metric)))
            return 0
        supported = FigureCanvasBase.get_supported_filetypes()
        drawn = any(drawn_cells(run, args.metric) for run in runs)
        out = output_path(args.output, runs[0].path, paths, supported, args.force or not drawn)
        any_paced = any(paced(c) for r in runs for c in r.cells)
        latency = out.with_name(f"{out.stem}.latency{out.suffix}")
        if any_paced:  # both images checked before either is written; the first only where it is drawn
            output_path(str(latency), runs[0].path, paths, supported, args.force)
        if drawn:
            savefig(build_figure(runs, args.metric, args.log_y), out)
        else:
            print(f"{out}: not drawn: every cell is paced, and its {args.metric} restates the schedule")
        if any_paced:
            savefig(build_latency_figure(runs, alone=not drawn), latency)
    except FatalError as error:
        print(f"fatal: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

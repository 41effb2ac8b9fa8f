"""Plot channel-bench results: cost per message against the number of tasks.

Draws what the binary computed: X.cells.json beside each X.csv, which every
sweep writes and `channel-bench cells X.csv` makes for any CSV. plot.py parses
no CSV and computes no statistic.

One panel per (mode x runtime): cloned-send / merged-recv in rows,
multi-thread / current-thread in columns. x: sending tasks (log2); y: the
chosen metric (default: wall-clock ns per message). Per channel and setting, a
line through the cells' trimmed means (the headline figure: the mean without the
highest and lowest fifth of the samples) and every ok sample as a
point, so a cell whose samples fall in two clusters shows both; a cell whose
samples all failed leaves a gap, and failures are counted in the caption. A
channel keeps its colour in every plot; the line style tells settings and files
apart. The channel's colour and its name in the legend are the binary's (each cell's
`colour` and `label` in X.cells.json), the same as in the HTML report. The machine
description in X.json, when present, goes into the caption.

With no CSV named, plots the newest CSV in results/. Writes X.png beside the
first CSV unless -o is given, and prints the path written. When the files hold
paced cells (`--pace`), a second figure goes beside it, X.latency.png (the
image's name with .latency before its extension): per channel, the p99 latency
pooled over every delivered message of a cell (`paced.pooled_p99_ns` in
X.cells.json) against the number of tasks, one panel per runtime, mode and
setting (phase, send); a cell whose pacer fell behind is drawn hollow.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # headless: no display needed, before pyplot is imported
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter, NullLocator  # noqa: E402

LATENCY_HINT = "run channel-bench with --latency"
ALLOCS_HINT = "run channel-bench with --count-allocs"

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
DRAWN = {"runtime", "mode", "tasks", "channel", "label", "colour", "setting", "ok", "failed"}
MODE_ORDER = ("cloned-send", "merged-recv")
RUNTIME_ORDER = ("multi-thread", "current-thread")
LINE_STYLES = ("-", "--", ":", "-.", (0, (5, 1, 1, 1, 1, 1)), (0, (1, 3)))
MARKERS = ("o", "s", "^", "D", "v", "P")


class FatalError(Exception):
    """A problem with the input that ends the run with `fatal: ...`, exit 2."""


@dataclass
class Run:
    """One CSV's cells (from X.cells.json) and the machine description beside it."""

    path: Path
    cells: list[dict]
    machine: dict
    skipped_partial_line: bool = False
    # A cell with fewer ok samples is thin and drawn hollow: the binary's threshold, 0 (none)
    # in a cells.json that does not give it.
    fewest_samples: int = 0


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
            warn(f"ignored: {error}")
    stem = cells_path.with_name(cells_path.name.removesuffix(".cells.json") + ".csv")
    return Run(stem, data["cells"], machine if isinstance(machine, dict) else {},
               bool(data.get("skipped_partial_line")), int(data.get("fewest_samples") or 0))


def newest_csv(directory: Path) -> Path:
    candidates = [path for path in directory.glob("*.csv") if path.is_file()]
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
    present = set(values)
    return [v for v in preferred if v in present] + sorted(present - set(preferred))


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
    return cell["label"] + (f" [{cell['setting']}]" if cell["setting"] else "")


def style_key(cell: dict) -> str:
    """What the line style tells apart within a file: the merge strategy and the setting."""
    return cell.get("merge", "") + "|" + cell["setting"]


def caption(runs: list[Run], labels: list[str]) -> str:
    lines = ["Line: trimmed mean of the ok samples per cell (without the highest and lowest fifth); "
             "points: the samples; shaded: the trimmed mean's interval"
             + (f"; hollow circle: a cell with fewer than {runs[0].fewest_samples} samples"
                if runs and runs[0].fewest_samples else "") + "."]
    for run, label in zip(runs, labels):
        cells = run.cells
        ok, failed = sum(c["ok"] for c in cells), sum(c["failed"] for c in cells)
        text = (f"{label + ': ' if len(runs) > 1 else ''}"
                f"{describe(c['messages'] for c in cells)} messages per sample, "
                f"capacity {describe(c['capacity'] for c in cells)}, "
                f"workers {describe(c['workers'] for c in cells)}")
        m = run.machine
        if m.get("cpu_model"):
            text += f"; {m['cpu_model']}" + (f", {m['cores']} cores" if m.get("cores") else "")
        if m.get("os"):
            text += f", {m['os']}"
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
    return "\n".join(textwrap.fill(line, 170, subsequent_indent="    ") for line in lines)


def build_figure(runs: list[Run], metric: str = "ns_per_message", log_y: bool | None = None) -> Figure:
    """One panel per (mode, runtime) present; per channel and setting (and file) a line
    through the trimmed means and the samples as points. log_y None: the metric's default."""
    label_text, default_log, _ = METRICS[metric]
    every = [cell for run in runs for cell in run.cells]
    modes = ordered((c["mode"] for c in every), MODE_ORDER)
    runtimes = ordered((c["runtime"] for c in every), RUNTIME_ORDER)
    tasks = sorted({c["tasks"] for c in every})
    labels = file_labels(runs)
    settings = sorted({style_key(c) for c in every})
    fig, axes = plt.subplots(len(modes), len(runtimes), sharex=True, sharey=True, squeeze=False,
                             figsize=(5.5 * len(runtimes) + 2.5, 3.8 * len(modes) + 1.0),
                             layout="constrained")
    legend = {}
    for i, mode in enumerate(modes):
        for j, runtime in enumerate(runtimes):
            ax = axes[i][j]
            panel = [c for c in every if (c["mode"], c["runtime"]) == (mode, runtime)]
            ax.set_title(f"{mode} · {runtime}" + (f" · workers {describe(c['workers'] for c in panel)}"
                                                   if panel else ""))
            for k, run in enumerate(runs):
                lines: dict[str, list[dict]] = {}
                for cell in run.cells:
                    if (cell["mode"], cell["runtime"]) == (mode, runtime):
                        lines.setdefault(line_name(cell), []).append(cell)
                for name, cells in sorted(lines.items()):
                    cells.sort(key=lambda c: c["tasks"])
                    style = k * len(settings) + settings.index(style_key(cells[0]))
                    colour = cells[0]["colour"]
                    label = name + (f" · {labels[k]}" if len(runs) > 1 else "")
                    xs = [c["tasks"] for c in cells]
                    ys = [c[metric]["trimmed_mean"] if c.get(metric) else math.nan for c in cells]
                    (line,) = ax.plot(xs, ys, color=colour, label=label, linewidth=1.5,
                                      linestyle=LINE_STYLES[style % len(LINE_STYLES)])
                    points = [(c["tasks"], v) for c in cells if c.get(metric) for v in c[metric]["samples"]]
                    ax.scatter([x for x, _ in points], [y for _, y in points], color=colour, s=10,
                               alpha=0.6, marker=MARKERS[style % len(MARKERS)], linewidths=0, gid="samples")
                    draw_interval_and_thin(ax, cells, metric, colour, run.fewest_samples)
                    legend.setdefault(label, line)
            ax.set_xscale("log", base=2)
            ax.set_xticks(tasks, labels=[str(t) for t in tasks])
            ax.xaxis.set_minor_locator(NullLocator())
            ax.grid(True, which="major", alpha=0.3)
            if i == len(modes) - 1:
                ax.set_xlabel("tasks")
            if j == 0:
                ax.set_ylabel(label_text)
    if default_log if log_y is None else log_y:
        y = axes[0][0]
        y.set_yscale("log")
        # 10 20 50 100 rather than 10^1 2x10^1: these are ns, read as numbers
        y.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        y.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        y.yaxis.set_minor_formatter(NullFormatter())
    else:
        axes[0][0].set_ylim(bottom=0)
    # the legend's order: channels as the binary orders the cells (its channels first, as
    # listed), then by name
    channels = list(dict.fromkeys(c["channel"] for c in every))
    names = sorted(legend, key=lambda name: (rank(name.split(" ")[0], tuple(channels)), name))
    fig.legend([legend[n] for n in names], names, loc="outside right upper", fontsize=9,
               title="channel" + (" · file" if len(runs) > 1 else ""))
    fig.suptitle(f"Async channel fan-in: {label_text} by number of tasks")
    fig.text(0.0, 0.0, caption(runs, labels), ha="left", va="top", fontsize=8, gid="caption")
    return fig


def draw_interval_and_thin(ax, cells: list[dict], metric: str, colour: str, fewest: int) -> None:
    """A line's interval as a shaded band (each cell's trimmed-mean interval, where it has one),
    and a hollow circle on each thin cell's trimmed mean (fewer ok samples than `fewest`)."""
    band = [(c["tasks"], *c[metric]["trimmed_mean_interval"]) for c in cells
            if c.get(metric) and c[metric].get("trimmed_mean_interval")]
    if band:
        ax.fill_between([x for x, _, _ in band], [low for _, low, _ in band], [high for _, _, high in band],
                        color=colour, alpha=0.12, linewidth=0, gid="interval")
    thin = [(c["tasks"], c[metric]["trimmed_mean"]) for c in cells if c.get(metric) and c["ok"] < fewest]
    if thin:
        ax.scatter([x for x, _ in thin], [y for _, y in thin], s=36, facecolors="none", edgecolors=colour,
                   linewidths=1.2, gid="thin")


def paced_cells(runs: list[Run]) -> list[dict]:
    """The cells with a paced answer (`paced` in X.cells.json), of every file."""
    return [cell for run in runs for cell in run.cells if cell.get("paced")]


def build_latency_figure(runs: list[Run]) -> Figure:
    """Pooled p99 (µs, log y) against tasks: one panel per (runtime, mode, setting), a line
    per channel in its colour; a cell whose pacer fell behind is a hollow point."""
    cells = paced_cells(runs)
    panels = sorted({(c["runtime"], c["mode"], c["setting"]) for c in cells},
                    key=lambda p: (rank(p[0], RUNTIME_ORDER), rank(p[1], MODE_ORDER), p[2]))
    tasks = sorted({c["tasks"] for c in cells})
    fig, axes = plt.subplots(len(panels), 1, sharex=True, squeeze=False,
                             figsize=(8.0, 3.4 * len(panels) + 1.0), layout="constrained")
    legend = {}
    for ax, (runtime, mode, setting) in zip((row[0] for row in axes), panels):
        ax.set_title(f"{runtime} · {mode} · {setting}", fontsize=9)
        lines: dict[str, list[dict]] = {}
        for cell in cells:
            if (cell["runtime"], cell["mode"], cell["setting"]) == (runtime, mode, setting):
                lines.setdefault(cell["label"], []).append(cell)
        for name, line_cells in sorted(lines.items()):
            line_cells.sort(key=lambda c: c["tasks"])
            colour = line_cells[0]["colour"]
            xs = [c["tasks"] for c in line_cells]
            ys = [c["paced"]["pooled_p99_ns"] / 1000 if c["paced"].get("pooled_p99_ns") else math.nan
                  for c in line_cells]
            (line,) = ax.plot(xs, ys, color=colour, label=name, linewidth=1.5, marker="o", markersize=4)
            behind = [(x, y) for x, y, c in zip(xs, ys, line_cells) if c["paced"].get("pacer_behind")]
            ax.scatter([x for x, _ in behind], [y for _, y in behind], s=40, facecolors="none",
                       edgecolors=colour, linewidths=1.2)
            legend.setdefault(name, line)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xticks(tasks, labels=[str(t) for t in tasks])
        ax.xaxis.set_minor_locator(NullLocator())
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.grid(True, which="major", alpha=0.3)
        ax.set_ylabel("p99 µs (pooled)")
    axes[-1][0].set_xlabel("tasks")
    fig.legend(list(legend.values()), list(legend), loc="outside right upper", fontsize=9, title="channel")
    fig.suptitle("Latency under load: pooled p99 by tasks")
    return fig


def latency_path(image: Path) -> Path:
    """X.png → X.latency.png: the latency figure beside the throughput one."""
    return image.with_name(f"{image.stem}.latency{image.suffix}")


def cell_table(runs: list[Run], metric: str) -> list[str]:
    """One line per cell: the metric's trimmed mean, median, min, max, ok samples (of all
    samples) and clusters when there are several, lowest first within each (mode, runtime, tasks)."""
    several = len(runs) > 1
    lines = []
    for run, label in zip(runs, file_labels(runs)):
        for cell in run.cells:
            figures = cell.get(metric)
            order = (rank(cell["mode"], MODE_ORDER), rank(cell["runtime"], RUNTIME_ORDER),
                     cell["tasks"], figures["trimmed_mean"] if figures else math.inf, label)
            values = [number(figures[k]) for k in ("trimmed_mean", "median", "min", "max")] if figures else ["-"] * 4
            count = len(figures["samples"]) if figures else 0
            numbers = " ".join(f"{v:>10}" for v in values) + f" {count:>3}"
            clusters = " | ".join(f"{number(c['centre'])} ×{c['share']:.0%}"
                                  for c in (figures or {}).get("clusters", []))
            file = f"{label}  " if several else ""
            lines.append((order, f"{file}{cell['mode']:<12} {cell['runtime']:<15} {cell['tasks']:>5} "
                                 f"{line_name(cell):<16} {numbers}/{cell['ok'] + cell['failed']}"
                                 + (f"  clusters {clusters}" if clusters else "")))
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
    try:
        fig.savefig(out, dpi=130, bbox_inches="tight")
    except OSError as error:
        raise FatalError(f"{out}: cannot write: {error.strerror or error}") from None


def warn(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)


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
                        help="print each cell's trimmed mean, median, min, max and clusters (lowest first per mode, "
                        "runtime and tasks) "
                        "instead of drawing")
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
        fig = build_figure(runs, args.metric, args.log_y)
        try:
            out = output_path(args.output, runs[0].path, paths, fig.canvas.get_supported_filetypes(), args.force)
            latency = latency_path(out) if paced_cells(runs) else None
            if latency is not None:
                # Checked before anything is written, as the first image is.
                output_path(str(latency), runs[0].path, paths, fig.canvas.get_supported_filetypes(), args.force)
            savefig(fig, out)
        finally:
            plt.close(fig)
        print(out)
        if latency is not None:
            lat_fig = build_latency_figure(runs)
            try:
                savefig(lat_fig, latency)
            finally:
                plt.close(lat_fig)
            print(latency)
    except FatalError as error:
        print(f"fatal: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

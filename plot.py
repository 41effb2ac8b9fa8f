"""Plot a channel-bench CSV: cost per message against the number of tasks.

One panel per (mode x runtime) found in the file: cloned-send / merged-recv
in rows, multi-thread / current-thread in columns. In each panel the x axis
is the number of sending tasks (log2), the y axis the median over the `ok`
samples of the chosen metric (default: wall-clock ns per message), one line
per channel, with the min-max of those samples as a shaded band. Failed
samples (status other than `ok`) are left out and counted in the caption.
The machine description in X.json beside X.csv, when present, goes into the
caption.

Several CSVs (two machines, before/after) are overlaid: colour is always the
channel, line style is the file.

With no CSV named, plots the newest CSV in results/. Writes X.png beside the
first CSV unless -o is given, and prints the path written.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import statistics
import sys
import textwrap
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import matplotlib

matplotlib.use("Agg")  # headless: no display needed, before pyplot is imported
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter, NullLocator  # noqa: E402

# ---------------------------------------------------------------------------
# The CSV contract

STR_COLUMNS = ("channel", "mode", "runtime")
INT_COLUMNS = (
    "workers",
    "tasks",
    "messages",
    "capacity",
    "capacity_per_channel",
    "payload_bytes",
    "sample",
    "elapsed_ns",
)
# The columns every channel-bench CSV has, in the order the binary writes
# them. Later versions append columns; those are kept as raw strings.
REQUIRED_COLUMNS = (
    *STR_COLUMNS,
    *INT_COLUMNS,
    "ns_per_message",
    "cpu_ns",
    "status",
)
TYPES: dict[str, Callable[[str], object]] = {
    **{name: str for name in STR_COLUMNS},
    **{name: int for name in INT_COLUMNS},
    "ns_per_message": float,
    "cpu_ns": int,
    "status": str,
}
# A log2 x axis cannot show 0 tasks, and cpu_ns / messages needs messages > 0.
POSITIVE_COLUMNS = ("tasks", "messages")

MODE_ORDER = ("cloned-send", "merged-recv")
RUNTIME_ORDER = ("multi-thread", "current-thread")

Row = dict  # column name -> value; required columns typed, extras raw str


class FatalError(Exception):
    """A problem with the input that ends the run with `fatal: ...`, exit 2."""


class InvalidValue(Exception):
    """A well-formed field whose value makes no sense; never from a cut line."""


# ---------------------------------------------------------------------------
# Metrics: name -> what the y axis shows and how to get it from a row


@dataclass(frozen=True)
class Metric:
    label: str  # y-axis label
    columns: tuple[str, ...]  # CSV columns it reads; each must be in the file
    value: Callable[[Row], float]


def column_metric(name: str, label: str) -> Metric:
    """A metric that is a plain numeric CSV column."""
    return Metric(label, (name,), lambda row: float(row[name]))


METRICS: dict[str, Metric] = {
    "ns_per_message": column_metric("ns_per_message", "ns per message (wall clock)"),
    "cpu_ns_per_message": Metric(
        "CPU ns per message (cpu_ns / messages)",
        ("cpu_ns", "messages"),
        lambda row: row["cpu_ns"] / row["messages"],
    ),
    # A new plain column is one line, e.g.:
    # "lat_p99_ns": column_metric("lat_p99_ns", "p99 latency, ns"),
}

# ---------------------------------------------------------------------------
# Loading


@dataclass
class Run:
    """One CSV file, its rows, and the machine description beside it."""

    path: Path
    columns: list[str]
    rows: list[Row]
    machine: dict = field(default_factory=dict)  # from X.json; {} if absent
    skipped_partial_line: bool = False

    @property
    def ok_rows(self) -> list[Row]:
        return [row for row in self.rows if is_ok(row)]

    @property
    def failed_rows(self) -> list[Row]:
        return [row for row in self.rows if not is_ok(row)]


def is_ok(row: Row) -> bool:
    return row["status"].strip() == "ok"


def parse_row(header: list[str], fields: list[str]) -> Row:
    """Typed row from one CSV record.

    ValueError: too few fields or an unparsable number, as a line cut short
    by a killed run leaves. InvalidValue: anything else that is wrong.
    """
    if len(fields) != len(header):
        raise ValueError(f"{len(fields)} fields, the header has {len(header)}")
    row: Row = dict(zip(header, fields))
    for name in REQUIRED_COLUMNS:
        convert = TYPES[name]
        text = row[name]
        try:
            value = convert(text)
        except ValueError:
            kind = {int: "an integer", float: "a number"}[convert]
            raise ValueError(f"column {name}: {text!r} is not {kind}") from None
        if convert is float and not math.isfinite(value):
            raise InvalidValue(f"column {name}: {text!r} is not a finite number")
        if convert is int and value < (1 if name in POSITIVE_COLUMNS else 0):
            raise InvalidValue(f"column {name}: {text!r} is out of range")
        row[name] = value
    if not row["channel"].strip():
        raise InvalidValue("column channel is empty")
    return row


def parse_csv(text: str, name: str) -> tuple[list[str], list[Row], bool]:
    """Header, rows and whether a partial last line was skipped.

    A run killed mid-write leaves a partial last line; that one is skipped
    with a warning. A bad line anywhere else is a FatalError.
    """
    if not text.strip():
        raise FatalError(f"{name}: the file is empty")
    if "\x00" in text:
        raise FatalError(f"{name}: not a channel-bench CSV (binary data)")
    # The binary writes each row whole, newline last: a file that stops mid-line was cut
    # off by a killed run, and its last line is partial however well it parses.
    cut_tail = not text.endswith("\n") and "\n" in text
    if cut_tail:
        text = text[: text.rindex("\n") + 1]
    lines = iter(text.splitlines(keepends=True))
    reader = csv.reader(lines, strict=True)
    records = []
    cut_quote = None  # a quoted field still open at the end of the file
    try:
        for fields in reader:
            records.append((reader.line_num, fields))
    except csv.Error as error:
        if next(lines, None) is not None or len(records) < 2:
            raise FatalError(f"{name} line {reader.line_num}: not valid CSV: {error}") from None
        cut_quote = (reader.line_num, error)

    header = [column.strip() for column in records[0][1]]
    missing = [column for column in REQUIRED_COLUMNS if column not in header]
    if "channel" not in header or len(missing) > len(REQUIRED_COLUMNS) // 2:
        raise FatalError(
            f"{name}: not a channel-bench CSV: the first line should be the header "
            f"{','.join(REQUIRED_COLUMNS)}"
        )
    if missing:
        raise FatalError(f"{name}: missing columns: {', '.join(missing)}")

    body = [(line, fields) for line, fields in records[1:] if fields]  # skip blank lines
    rows: list[Row] = []
    skipped = False
    if cut_quote:
        warn(f"{name} line {cut_quote[0]}: {cut_quote[1]}; skipped partial last line")
        skipped = True
    if cut_tail:
        warn(f"{name}: no newline at the end; skipped partial last line")
        skipped = True
    for index, (line, fields) in enumerate(body):
        try:
            rows.append(parse_row(header, fields))
        except ValueError as error:
            is_last = index == len(body) - 1
            if is_last and len(fields) <= len(header):
                warn(f"{name} line {line}: {error}; skipped partial last line")
                skipped = True
            else:
                raise FatalError(f"{name} line {line}: {error}") from None
        except InvalidValue as error:
            raise FatalError(f"{name} line {line}: {error}") from None
    if not rows:
        raise FatalError(f"{name}: no samples, only a header")
    return header, rows, skipped


def load_machine(csv_path: Path) -> dict:
    """The machine description in X.json beside X.csv; {} if absent or unusable."""
    path = csv_path.with_suffix(".json")
    if not path.is_file():
        return {}
    try:
        machine = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        warn(f"{path}: ignored, not readable JSON: {error}")
        return {}
    if not isinstance(machine, dict):
        warn(f"{path}: ignored, not a JSON object")
        return {}
    expected = {
        "cpu_model": str,
        "cores": int,
        "os": str,
        "hostname": str,
        "rustc": str,
        "crates": dict,
        "git_commit": str,
        "command_line": list,
        "started_utc": str,
    }
    usable = {}
    for key, kind in expected.items():
        value = machine.get(key)
        if value is None:
            continue
        if isinstance(value, kind) and not (kind is int and isinstance(value, bool)):
            usable[key] = value
        else:
            warn(f"{path}: ignored {key}: expected {kind.__name__}, got {value!r}")
    return usable


def load_run(path: Path) -> Run:
    name = str(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise FatalError(f"{name}: no such file") from None
    except OSError as error:
        raise FatalError(f"{name}: cannot read: {error.strerror or error}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise FatalError(f"{name}: not a channel-bench CSV (not UTF-8 text)") from None
    header, rows, skipped = parse_csv(text, name)
    run = Run(path, header, rows, load_machine(path), skipped)
    if not run.ok_rows:
        raise FatalError(f"{name}: no ok samples: all {len(rows)} failed")
    return run


def newest_csv(directory: Path) -> Path:
    candidates = [path for path in directory.glob("*.csv") if path.is_file()]
    if not candidates:
        raise FatalError(
            f"no CSV in {directory}/; run the benchmark first (make bench) "
            "or name a CSV to plot"
        )
    return max(candidates, key=lambda path: path.stat().st_mtime)


# ---------------------------------------------------------------------------
# Statistics: pure functions


@dataclass(frozen=True)
class CellStats:
    median: float
    low: float
    high: float
    count: int


CellKey = tuple  # (channel, mode, runtime, tasks)


def summarize(values: list[float]) -> CellStats:
    """Median (mean of the two middle values for an even count), min, max."""
    if not values:
        raise ValueError("no values to summarize")
    return CellStats(statistics.median(values), min(values), max(values), len(values))


def aggregate(rows: list[Row], value: Callable[[Row], float]) -> dict[CellKey, CellStats | None]:
    """Per cell (channel, mode, runtime, tasks): stats of value() over the ok rows.

    A cell whose samples all failed maps to None, so the plot can leave a gap.
    """
    values: dict[CellKey, list[float]] = {}
    for row in rows:
        key = (row["channel"], row["mode"], row["runtime"], row["tasks"])
        cell = values.setdefault(key, [])
        if is_ok(row):
            cell.append(value(row))
    return {key: summarize(cell) if cell else None for key, cell in values.items()}


def metric_function(run: Run, metric_name: str) -> Callable[[Row], float]:
    """value(row) for the metric, raising FatalError that names the file."""
    metric = METRICS[metric_name]
    absent = [column for column in metric.columns if column not in run.columns]
    if absent:
        raise FatalError(
            f"{run.path}: metric {metric_name} needs column {', '.join(absent)}, "
            "which this file does not have"
        )

    def value(row: Row) -> float:
        try:
            result = metric.value(row)
        except (ValueError, TypeError, ZeroDivisionError):
            raise FatalError(
                f"{run.path}: metric {metric_name}: a sample of "
                f"{row['channel']} {row['mode']} {row['runtime']} "
                f"tasks={row['tasks']} has no numeric value"
            ) from None
        if not math.isfinite(result):
            raise FatalError(f"{run.path}: metric {metric_name}: non-finite value {result}")
        return result

    return value


def ordered(values, preferred: tuple[str, ...]) -> list[str]:
    """The known values in their preferred order, then any others sorted."""
    present = set(values)
    return [v for v in preferred if v in present] + sorted(present - set(preferred))


def describe(values) -> str:
    """'65536' for one value, '1/8' for a few, 'a–b (n values)' for many."""
    distinct = sorted(set(values))
    if len(distinct) <= 4:
        return "/".join(str(v) for v in distinct)
    return f"{distinct[0]}–{distinct[-1]} ({len(distinct)} values)"


# ---------------------------------------------------------------------------
# Presentation

# Fixed so that a channel has the same colour in every plot we publish.
CHANNEL_COLOURS = {
    "tokio-mpsc": "#1f77b4",
    "flume": "#ff7f0e",
    "async-channel": "#2ca02c",
    "futures-channel": "#d62728",
    "kanal": "#9467bd",
    "thingbuf": "#8c564b",
    "tachyonix": "#e377c2",
    "crossfire": "#17becf",
    "tokio-recv-many": "#393b79",
}
CHANNEL_ORDER = tuple(CHANNEL_COLOURS)  # legend and drawing order
FALLBACK_COLOURS = (
    "#7f7f7f",
    "#bcbd22",
    "#843c39",
    "#637939",
    "#e7969c",
    "#6b6ecf",
    "#bd9e39",
    "#3182bd",
    "#31a354",
    "#756bb1",
)
LINE_STYLES = ("-", "--", ":", "-.", (0, (5, 1, 1, 1, 1, 1)), (0, (1, 3)))
MARKERS = ("o", "s", "^", "D", "v", "P")


def channel_colour(channel: str) -> str:
    """Fixed colour for known channels; for others one chosen by a hash of
    the name that is the same in every process (unlike hash())."""
    if channel in CHANNEL_COLOURS:
        return CHANNEL_COLOURS[channel]
    return FALLBACK_COLOURS[zlib.crc32(channel.encode("utf-8")) % len(FALLBACK_COLOURS)]


def channel_rank(channel: str) -> int:
    """Position in the fixed order; unknown channels after the known ones."""
    return CHANNEL_ORDER.index(channel) if channel in CHANNEL_ORDER else len(CHANNEL_ORDER)


def file_labels(runs: list[Run]) -> list[str]:
    """Hostnames if every file has one and they differ, else file stems
    (the paths as given if stems collide)."""
    hosts = [run.machine.get("hostname") for run in runs]
    if all(hosts) and len(set(hosts)) == len(hosts):
        return hosts
    stems = [run.path.stem for run in runs]
    if len(set(stems)) == len(stems):
        return stems
    return [str(run.path) for run in runs]


def caption_lines(run: Run, label: str | None) -> list[str]:
    rows = run.rows
    measured = (
        f"{describe(r['messages'] for r in rows)} messages per sample, "
        f"capacity {describe(r['capacity'] for r in rows)}, "
        f"payload {describe(r['payload_bytes'] for r in rows)} bytes, "
        f"workers {describe(r['workers'] for r in rows)}"
    )
    machine = run.machine
    if "cpu_model" in machine:
        cores = f", {machine['cores']} cores" if "cores" in machine else ""
        measured += f"; {machine['cpu_model']}{cores}"
    elif "cores" in machine:
        measured += f"; {machine['cores']} cores"
    if "os" in machine:
        measured += f", {machine['os']}"

    failed = run.failed_rows
    if failed:
        per_channel: dict[str, int] = {}
        for row in failed:
            per_channel[row["channel"]] = per_channel.get(row["channel"], 0) + 1
        which = ", ".join(f"{name}: {count}" for name, count in sorted(per_channel.items()))
        outcome = f"{len(failed)} of {len(rows)} samples failed and are left out ({which})"
    else:
        outcome = f"all {len(rows)} samples ok"
    if run.skipped_partial_line:
        outcome += "; a partial last line was skipped"

    details = []
    if "hostname" in machine:
        details.append(f"host {machine['hostname']}")
    if "rustc" in machine:
        details.append(machine["rustc"])
    if machine.get("git_commit"):
        details.append(f"commit {machine['git_commit'][:10]}")
    if "started_utc" in machine:
        details.append(f"started {machine['started_utc']}")
    if machine.get("crates"):
        details.append(
            "crates " + ", ".join(f"{k} {v}" for k, v in sorted(machine["crates"].items()))
        )

    prefix = f"{label}: " if label else ""
    lines = [f"{prefix}{measured}; {outcome}."]
    if details:
        lines.append("    " + "; ".join(details))
    return lines


def build_figure(runs: list[Run], metric_name: str = "ns_per_message", log_y: bool = False) -> Figure:
    """The figure for these runs: one panel per (mode, runtime) present."""
    metric = METRICS[metric_name]
    cells = [aggregate(run.rows, metric_function(run, metric_name)) for run in runs]
    all_rows = [row for run in runs for row in run.rows]
    modes = ordered((r["mode"] for r in all_rows), MODE_ORDER)
    runtimes = ordered((r["runtime"] for r in all_rows), RUNTIME_ORDER)
    tasks = sorted({r["tasks"] for r in all_rows})
    several = len(runs) > 1
    labels = file_labels(runs)

    fig, axes = plt.subplots(
        len(modes),
        len(runtimes),
        figsize=(5.5 * len(runtimes) + 2.5, 3.8 * len(modes) + 1.0),
        sharex=True,
        sharey=True,
        squeeze=False,
        layout="constrained",
    )
    legend: dict[tuple, tuple] = {}  # (channel rank, channel, file) -> (label, line)
    for i, mode in enumerate(modes):
        for j, runtime in enumerate(runtimes):
            ax = axes[i][j]
            panel_rows = [r for r in all_rows if r["mode"] == mode and r["runtime"] == runtime]
            title = f"{mode} · {runtime}"
            if panel_rows:
                title += f" · workers {describe(r['workers'] for r in panel_rows)}"
            else:
                ax.text(0.5, 0.5, "not measured", ha="center", va="center", transform=ax.transAxes)
            ax.set_title(title)
            for k, (run, run_cells) in enumerate(zip(runs, cells)):
                channels = ordered(
                    (c for (c, m, rt, _t) in run_cells if m == mode and rt == runtime),
                    CHANNEL_ORDER,
                )
                for channel in channels:
                    points = sorted(
                        (t, stats)
                        for (c, m, rt, t), stats in run_cells.items()
                        if (c, m, rt) == (channel, mode, runtime)
                    )
                    xs = [t for t, _ in points]
                    # NaN breaks the line where every sample of a cell failed
                    ys = [s.median if s else math.nan for _, s in points]
                    lows = [s.low if s else math.nan for _, s in points]
                    highs = [s.high if s else math.nan for _, s in points]
                    colour = channel_colour(channel)
                    label = f"{channel} · {labels[k]}" if several else channel
                    (line,) = ax.plot(
                        xs,
                        ys,
                        color=colour,
                        linestyle=LINE_STYLES[k % len(LINE_STYLES)],
                        marker=MARKERS[k % len(MARKERS)],
                        markersize=4,
                        linewidth=1.5,
                        label=label,
                    )
                    ax.fill_between(xs, lows, highs, color=colour, alpha=0.12, linewidth=0)
                    legend.setdefault((channel_rank(channel), channel, k), (label, line))

            ax.set_xscale("log", base=2)
            ax.set_xticks(tasks, labels=[str(t) for t in tasks])
            ax.xaxis.set_minor_locator(NullLocator())
            ax.grid(True, which="major", alpha=0.3)
            if i == len(modes) - 1:
                ax.set_xlabel("tasks")
            if j == 0:
                ax.set_ylabel(f"median {metric.label}")
            ax.tick_params(axis="x", labelsize=8 if len(tasks) > 10 else 9)

    if log_y:
        y = axes[0][0]
        y.set_yscale("log")
        # 10 20 50 100 rather than 10^1 2x10^1: these are ns, read as numbers
        y.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        y.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        y.yaxis.set_minor_formatter(NullFormatter())
    else:
        axes[0][0].set_ylim(bottom=0)

    entries = [legend[key] for key in sorted(legend)]  # by channel, then file
    fig.legend(
        [line for _, line in entries],
        [label for label, _ in entries],
        loc="outside right upper",
        title="channel · file" if several else "channel",
        fontsize=9,
    )
    title = f"Async channel fan-in: median {metric.label} by number of tasks"
    if several:
        styles = {"-": "solid", "--": "dashed", ":": "dotted", "-.": "dash-dot"}
        title += "\n" + ", ".join(
            f"{label} {styles.get(LINE_STYLES[k % len(LINE_STYLES)], 'style ' + str(k + 1))}"
            for k, label in enumerate(labels)
        )
    fig.suptitle(title)

    caption = ["Points: median of the ok samples per cell; shaded band: their min–max."]
    for run, label in zip(runs, labels):
        caption += caption_lines(run, label if several else None)
    wrapped = "\n".join(
        textwrap.fill(line, 170, subsequent_indent=" " * (len(line) - len(line.lstrip()) + 4))
        for line in caption
    )
    fig.text(0.0, 0.0, wrapped, ha="left", va="top", fontsize=8, gid="caption")
    return fig


def output_path(requested: str | None, first_csv: Path, inputs: list[Path], supported) -> Path:
    path = Path(requested) if requested else first_csv.with_suffix(".png")
    extension = path.suffix.lower().lstrip(".")
    if extension not in supported:
        raise FatalError(
            f"{path}: cannot tell the image format from the extension; "
            "use .png, .svg or .pdf"
        )
    if any(path.resolve() == p.resolve() for p in inputs):
        raise FatalError(f"{path}: refusing to overwrite an input file")
    return path


# ---------------------------------------------------------------------------
# Command line


def cell_table(runs: list[Run], metric_name: str) -> list[str]:
    """One line per cell: the metric's median, min, max over the ok samples, and how many
    samples were ok. Sorted by mode, runtime, tasks, then median, so each group's fastest
    channel comes first."""
    labels = file_labels(runs) if len(runs) > 1 else [None]
    lines = []
    for run, label in zip(runs, labels):
        stats = aggregate(run.rows, metric_function(run, metric_name))
        totals: dict[CellKey, int] = {}
        for row in run.rows:
            key = (row["channel"], row["mode"], row["runtime"], row["tasks"])
            totals[key] = totals.get(key, 0) + 1
        for (channel, mode, runtime, tasks), cell in stats.items():
            order = (MODE_ORDER.index(mode) if mode in MODE_ORDER else len(MODE_ORDER), mode,
                     RUNTIME_ORDER.index(runtime) if runtime in RUNTIME_ORDER else len(RUNTIME_ORDER),
                     runtime, tasks, cell.median if cell else math.inf, channel)
            figures = (f"{cell.median:10.1f} {cell.low:10.1f} {cell.high:10.1f} {cell.count:>3}"
                       if cell else f"{'-':>10} {'-':>10} {'-':>10} {0:>3}")
            file = f"{label}  " if label else ""
            key = (channel, mode, runtime, tasks)
            lines.append((label or "", order,
                          f"{file}{mode:<12} {runtime:<15} {tasks:>5} {channel:<16} {figures}/{totals[key]}"))
    lines.sort(key=lambda line: (line[1], line[0]))
    header = f"{'mode':<12} {'runtime':<15} {'tasks':>5} {'channel':<16} {'median':>10} {'min':>10} {'max':>10} ok"
    return [f"# {metric_name}", ("file  " if len(runs) > 1 else "") + header] + [line for _, _, line in lines]


def warn(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "csv", nargs="*", type=Path, help="channel-bench CSV files (default: newest in results/)"
    )
    parser.add_argument(
        "-o", "--output", help="image to write (.png, .svg, .pdf; default: first CSV with .png)"
    )
    parser.add_argument(
        "--metric",
        default="ns_per_message",
        help=f"what the y axis shows: {', '.join(METRICS)} (default: %(default)s)",
    )
    parser.add_argument("--log-y", action="store_true", help="logarithmic y axis")
    parser.add_argument(
        "--table",
        action="store_true",
        help="print each cell's median, min and max (fastest first per mode, runtime and tasks) "
        "instead of drawing",
    )
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    try:
        args = parse_args(argv)
    except SystemExit as exit:  # argparse: --help (0) or a usage error (2)
        return exit.code if isinstance(exit.code, int) else 0
    try:
        if args.metric not in METRICS:
            raise FatalError(
                f"unknown metric {args.metric!r}; choose one of {', '.join(METRICS)}"
            )
        paths = args.csv or [newest_csv(Path("results"))]
        runs = [load_run(path) for path in paths]
        if args.table:
            print("\n".join(cell_table(runs, args.metric)))
            return 0
        fig = build_figure(runs, args.metric, args.log_y)
        try:
            out = output_path(args.output, paths[0], paths, fig.canvas.get_supported_filetypes())
            try:
                fig.savefig(out, dpi=130, bbox_inches="tight")
            except OSError as error:
                raise FatalError(f"{out}: cannot write: {error.strerror or error}") from None
        finally:
            plt.close(fig)
    except FatalError as error:
        print(f"fatal: {error}", file=sys.stderr)
        return 2
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

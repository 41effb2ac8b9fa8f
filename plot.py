"""Plot a channel-bench CSV: cost per message against the number of tasks.

One panel per (mode x runtime) found in the file: cloned-send / merged-recv
in rows, multi-thread / current-thread in columns. In each panel the x axis
is the number of sending tasks (log2), the y axis the median over the `ok`
samples of the chosen metric (default: wall-clock ns per message), one line
per channel, with the min-max of those samples as a shaded band. Failed
samples (status other than `ok`) are left out and counted in the caption, and so
are samples that have no value for the metric (latency without --latency,
allocations without --count-allocs). Latency metrics default to a log y axis.
The machine description in X.json beside X.csv, when present, goes into the
caption.

Lines are split by configuration as well as channel: merge strategy
(merged-recv), payload, pacing and sink. Only what differs in the plotted data
shows in the labels, e.g. `kanal (select-all)`; a plain run keeps `kanal`. A
channel keeps its colour; line style and marker tell configurations apart.

Several CSVs (two machines, before/after) are overlaid: colour is always the
channel, line style is the file (and configuration).

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
# Columns appended after `status` (issue 6). A file written before them lacks them,
# and a file may hold any of them empty; load_run() fills the defaults (see
# complete_row). Empty numbers read as None; strings are stripped.
OPTIONAL_COLUMNS: dict[str, Callable[[str], object]] = {
    "merge": str,  # merged-recv: futures-buffered / select-all / stream-map; cloned-send: ""
    "payload": str,  # "1200" (fixed) or "300..2000" (uniform per message)
    "seed": int,  # of the size generator; None for a fixed payload
    "bytes": int,  # payload bytes moved in the sample
    "mb_per_s": float,  # payload 10^6 bytes per second of wall time
    "pace_ns": int,  # interval between a task's bursts; None: unpaced
    "burst": int,  # messages per burst; None: unpaced
    "pace_actual_ns": float,  # measured mean interval between bursts; None: unpaced
    "sink": str,  # "none" or "file"
    "lat_p50_ns": int,  # send -> receive latency; None without --latency
    "lat_p99_ns": int,
    "lat_p999_ns": int,
    "lat_max_ns": int,
    "allocs_per_message": float,  # None without --count-allocs
    "alloc_bytes_per_message": float,
}
# Optional numbers that must be at least 1 rather than 0.
POSITIVE_OPTIONAL = ("pace_ns", "burst")
DEFAULT_MERGE = "futures-buffered"  # what merged-recv used before the merge column

MODE_ORDER = ("cloned-send", "merged-recv")
RUNTIME_ORDER = ("multi-thread", "current-thread")

Row = dict  # column name -> value; required and optional columns typed, others raw str


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
    value: Callable[[Row], float | None]  # None: this row has no value (left out)
    hint: str = ""  # how to get a file that has values, for the error when none does
    log_y: bool = False  # default y axis; --log-y / --linear-y override
    table_format: str = "10.1f"


def column_metric(name: str, label: str, hint: str = "", **options) -> Metric:
    """A metric that is a plain numeric CSV column; an empty cell is no value."""

    def value(row: Row) -> float | None:
        text = row.get(name)
        return None if text is None or text == "" else float(text)

    return Metric(label, (name,), value, hint, **options)


LATENCY_HINT = "run channel-bench with --latency"
ALLOCS_HINT = "run channel-bench with --count-allocs"

METRICS: dict[str, Metric] = {
    "ns_per_message": column_metric("ns_per_message", "ns per message (wall clock)"),
    "cpu_ns_per_message": Metric(
        "CPU ns per message (cpu_ns / messages)",
        ("cpu_ns", "messages"),
        lambda row: row["cpu_ns"] / row["messages"],
    ),
    # Derived from bytes and elapsed_ns where the file has no mb_per_s column.
    "mb_per_s": Metric(
        "payload MB/s (10^6 bytes per second)", (), lambda row: row["mb_per_s"]
    ),
    # Latencies span orders of magnitude: log y by default.
    "lat_p50_ns": column_metric("lat_p50_ns", "p50 latency (ns)", LATENCY_HINT, log_y=True),
    "lat_p99_ns": column_metric("lat_p99_ns", "p99 latency (ns)", LATENCY_HINT, log_y=True),
    "lat_p999_ns": column_metric("lat_p999_ns", "p99.9 latency (ns)", LATENCY_HINT, log_y=True),
    "lat_max_ns": column_metric("lat_max_ns", "max latency (ns)", LATENCY_HINT, log_y=True),
    "allocs_per_message": column_metric(
        "allocs_per_message", "allocations per message", ALLOCS_HINT, table_format="10.4g"
    ),
    "alloc_bytes_per_message": column_metric(
        "alloc_bytes_per_message", "bytes allocated per message", ALLOCS_HINT
    ),
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
    for name, convert in OPTIONAL_COLUMNS.items():
        if name in row:
            row[name] = convert_optional(name, convert, row[name])
    if not row["channel"].strip():
        raise InvalidValue("column channel is empty")
    return complete_row(row)


def convert_optional(name: str, convert: Callable[[str], object], text: str) -> object:
    """An optional column's value: stripped text, or a number (None when empty)."""
    text = text.strip()
    if convert is str:
        return text
    if not text:
        return None
    try:
        value = convert(text)
    except ValueError:
        kind = {int: "an integer", float: "a number"}[convert]
        raise ValueError(f"column {name}: {text!r} is not {kind}") from None
    if not math.isfinite(value):
        raise InvalidValue(f"column {name}: {text!r} is not a finite number")
    if value < (1 if name in POSITIVE_OPTIONAL else 0):
        raise InvalidValue(f"column {name}: {text!r} is out of range")
    return value


def complete_row(row: Row) -> Row:
    """Fill the optional columns a file lacks (or holds empty, where the value can be
    worked out) with what the run that wrote it did."""
    if "merge" not in row:  # before the merge column every merged-recv used one strategy
        row["merge"] = DEFAULT_MERGE if row["mode"] == "merged-recv" else ""
    if not row.get("payload"):
        row["payload"] = str(row["payload_bytes"])
    if not row.get("sink"):
        row["sink"] = "none"
    if row.get("bytes") is None:
        row["bytes"] = row["messages"] * row["payload_bytes"]
    if row.get("mb_per_s") is None:
        # bytes / 10^6 per (elapsed_ns / 10^9) seconds
        row["mb_per_s"] = row["bytes"] * 1000 / row["elapsed_ns"] if row["elapsed_ns"] else None
    for name in OPTIONAL_COLUMNS:
        row.setdefault(name, None)
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


def cell_key(row: Row) -> CellKey:
    return (row["channel"], row["mode"], row["runtime"], row["tasks"])


def considered(rows: list[Row], value: Callable[[Row], float | None]) -> list[Row]:
    """The rows a metric uses: failed ones (they mark a cell that failed) and ok ones
    that have a value; an ok row with an empty cell for the metric is left out."""
    return [row for row in rows if not is_ok(row) or value(row) is not None]


def aggregate(
    rows: list[Row], value: Callable[[Row], float | None]
) -> dict[CellKey, CellStats | None]:
    """Per cell (channel, mode, runtime, tasks): stats of value() over the ok rows.

    A cell whose samples all failed maps to None, so the plot can leave a gap. An ok
    row whose value() is None (an empty cell) is left out, as if it were not there.
    """
    values: dict[CellKey, list[float]] = {}
    for row in rows:
        if not is_ok(row):
            values.setdefault(cell_key(row), [])
            continue
        result = value(row)
        if result is not None:
            values.setdefault(cell_key(row), []).append(result)
    return {key: summarize(cell) if cell else None for key, cell in values.items()}


def metric_function(run: Run, metric_name: str) -> Callable[[Row], float | None]:
    """value(row) for the metric (None where the row has none), raising FatalError
    that names the file, also when no ok row of the file has a value."""
    metric = METRICS[metric_name]
    how = f": {metric.hint}" if metric.hint else ""
    absent = [column for column in metric.columns if column not in run.columns]
    if absent:
        raise FatalError(
            f"{run.path}: metric {metric_name} needs column {', '.join(absent)}, "
            f"which this file does not have{how}"
        )

    def value(row: Row) -> float | None:
        try:
            result = metric.value(row)
        except (ValueError, TypeError, ZeroDivisionError):
            raise FatalError(
                f"{run.path}: metric {metric_name}: a sample of "
                f"{row['channel']} {row['mode']} {row['runtime']} "
                f"tasks={row['tasks']} has no numeric value"
            ) from None
        if result is None:
            return None
        if not math.isfinite(result):
            raise FatalError(f"{run.path}: metric {metric_name}: non-finite value {result}")
        return result

    if all(value(row) is None for row in run.ok_rows):
        raise FatalError(f"{run.path}: no ok row has {metric_name}{how}")
    return value


# ---------------------------------------------------------------------------
# Configurations: what besides the channel tells two lines of a panel apart

Config = tuple  # (merge, payload, pace, sink); pace is (pace_ns, burst), (None, None) unpaced

MERGE_ORDER = (DEFAULT_MERGE, "select-all", "stream-map")
SINK_ORDER = ("none", "file")


def config_of(row: Row) -> Config:
    return (row["merge"], row["payload"], (row["pace_ns"], row["burst"]), row["sink"])


def duration(ns: int) -> str:
    """100 µs, 2 ms, 1500 ns: the largest unit that divides the value."""
    for unit, size in (("s", 10**9), ("ms", 10**6), ("µs", 10**3)):
        if ns % size == 0:
            return f"{ns // size} {unit}"
    return f"{ns} ns"


def pace_text(pace: tuple, compact: bool = False) -> str:
    pace_ns, burst = pace
    if pace_ns is None:
        return "unpaced"
    every = duration(pace_ns).replace(" ", "") if compact else duration(pace_ns)
    if burst is None:
        return f"every{every}" if compact else f"every {every}"
    return f"{burst}/{every}" if compact else f"{burst} msg / {every}"


def payload_rank(text: str) -> tuple:
    """Fixed sizes by size, then ranges by their bounds, then anything else."""
    bounds = text.split("..")
    try:
        numbers = tuple(int(b) for b in bounds)
    except ValueError:
        return (2, (), text)
    return (len(numbers) > 1, numbers, text)


def merge_rank(merge: str) -> tuple:
    """Known strategies in order, the default first; cloned-send's empty merge ranks (and
    so is styled) with the default strategy."""
    merge = merge or DEFAULT_MERGE
    return (MERGE_ORDER.index(merge) if merge in MERGE_ORDER else len(MERGE_ORDER), merge)


@dataclass(frozen=True)
class Dimension:
    name: str  # for the legend title and the table
    rank: Callable[[object], tuple]  # sort order; the default value first
    label: Callable[[object], str]  # in a legend label; "" leaves it out
    table: Callable[[object], str]  # in --table: no spaces


DIMENSIONS = (
    Dimension(
        "merge",
        merge_rank,
        lambda v: v,
        lambda v: f"merge={v}" if v else "",
    ),
    Dimension(
        "payload",
        payload_rank,
        lambda v: f"{v} B",
        lambda v: f"payload={v}",
    ),
    Dimension(
        "pace",
        lambda v: (v[0] is not None, v[0] or 0, v[1] or 0),
        pace_text,
        lambda v: f"pace={pace_text(v, compact=True)}",
    ),
    Dimension(
        "sink",
        lambda v: (SINK_ORDER.index(v) if v in SINK_ORDER else len(SINK_ORDER), v),
        lambda v: f"sink {v}",
        lambda v: f"sink={v}",
    ),
)


def varying_dimensions(rows: list[Row]) -> tuple[int, ...]:
    """Indices of the DIMENSIONS that take more than one value in these rows, so that
    a plain run keeps plain channel labels. Cloned-send has no merge strategy: its empty
    merge does not count."""
    shown = []
    for i in range(len(DIMENSIONS)):
        present = {config_of(row)[i] for row in rows}
        if i == 0:
            present.discard("")
        if len(present) > 1:
            shown.append(i)
    return tuple(shown)


def config_rank(config: Config, dims: tuple[int, ...]) -> tuple:
    return tuple(DIMENSIONS[i].rank(config[i]) for i in dims)


def config_label(config: Config, dims: tuple[int, ...]) -> str:
    """'select-all, 300..2000 B' — the shown dimensions' values; '' when none."""
    return ", ".join(text for i in dims if (text := DIMENSIONS[i].label(config[i])))


def config_table(config: Config, dims: tuple[int, ...]) -> str:
    """'merge=select-all,payload=300..2000' for --table; '-' when none."""
    return ",".join(text for i in dims if (text := DIMENSIONS[i].table(config[i]))) or "-"


def split_by_config(rows: list[Row]) -> dict[Config, list[Row]]:
    groups: dict[Config, list[Row]] = {}
    for row in rows:
        groups.setdefault(config_of(row), []).append(row)
    return groups


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
        f"payload {payload_caption(rows)} bytes, "
        f"workers {describe(r['workers'] for r in rows)}"
    )
    paces = {(r["pace_ns"], r["burst"]) for r in rows}
    if paces != {(None, None)}:
        measured += ", paced " + "/".join(
            pace_text(pace) for pace in sorted(paces, key=DIMENSIONS[2].rank)
        )
    sinks = {r["sink"] for r in rows}
    if sinks != {"none"}:
        measured += f", sink {'/'.join(sorted(sinks, key=DIMENSIONS[3].rank))}"
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


def payload_caption(rows: list[Row]) -> str:
    """'1200' as before for fixed payloads; with drawn sizes the ranges and their seeds."""
    if all(r["payload"] == str(r["payload_bytes"]) for r in rows):
        return describe(r["payload_bytes"] for r in rows)
    text = "/".join(sorted({r["payload"] for r in rows}, key=payload_rank))
    seeds = {r["seed"] for r in rows if r["seed"] is not None}
    if seeds:
        text += f" (seed {describe(seeds)})"
    return text


def build_figure(
    runs: list[Run], metric_name: str = "ns_per_message", log_y: bool | None = None
) -> Figure:
    """The figure for these runs: one panel per (mode, runtime) present, one line per
    channel and configuration (and file). log_y None: the metric's default."""
    metric = METRICS[metric_name]
    if log_y is None:
        log_y = metric.log_y
    value_fns = [metric_function(run, metric_name) for run in runs]
    used = [considered(run.rows, value) for run, value in zip(runs, value_fns)]
    # per file, per configuration: the cells
    cells = [
        {config: aggregate(rows, value) for config, rows in split_by_config(run_rows).items()}
        for run_rows, value in zip(used, value_fns)
    ]
    all_rows = [row for run in runs for row in run.rows]
    plotted = [row for rows in used for row in rows]
    modes = ordered((r["mode"] for r in all_rows), MODE_ORDER)
    runtimes = ordered((r["runtime"] for r in all_rows), RUNTIME_ORDER)
    tasks = sorted({r["tasks"] for r in all_rows})
    several = len(runs) > 1
    labels = file_labels(runs)
    dims = varying_dimensions(plotted)
    # One line style and marker per (file, shown configuration); configurations that
    # look alike in the legend (cloned-send's "" and the default merge) share one.
    styles = sorted({config_rank(config_of(row), dims) for row in plotted})
    style_count = len(styles)

    def style_index(k: int, config: Config) -> int:
        return k * style_count + styles.index(config_rank(config, dims))

    fig, axes = plt.subplots(
        len(modes),
        len(runtimes),
        figsize=(5.5 * len(runtimes) + 2.5, 3.8 * len(modes) + 1.0),
        sharex=True,
        sharey=True,
        squeeze=False,
        layout="constrained",
    )
    legend: dict[tuple, tuple] = {}  # (channel rank, channel, config rank, file) -> (label, line)
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
            for k, run_cells in enumerate(cells):
                lines = sorted(
                    {
                        (channel_rank(c), c, config_rank(config, dims), config)
                        for config, config_cells in run_cells.items()
                        for (c, m, rt, _t) in config_cells
                        if m == mode and rt == runtime
                    }
                )
                for _rank, channel, crank, config in lines:
                    points = sorted(
                        (t, stats)
                        for (c, m, rt, t), stats in run_cells[config].items()
                        if (c, m, rt) == (channel, mode, runtime)
                    )
                    xs = [t for t, _ in points]
                    # NaN breaks the line where every sample of a cell failed
                    ys = [s.median if s else math.nan for _, s in points]
                    lows = [s.low if s else math.nan for _, s in points]
                    highs = [s.high if s else math.nan for _, s in points]
                    colour = channel_colour(channel)
                    described = config_label(config, dims)
                    label = f"{channel} ({described})" if described else channel
                    if several:
                        label += f" · {labels[k]}"
                    style = style_index(k, config)
                    (line,) = ax.plot(
                        xs,
                        ys,
                        color=colour,
                        linestyle=LINE_STYLES[style % len(LINE_STYLES)],
                        marker=MARKERS[style % len(MARKERS)],
                        markersize=4,
                        linewidth=1.5,
                        label=label,
                    )
                    ax.fill_between(xs, lows, highs, color=colour, alpha=0.12, linewidth=0)
                    legend.setdefault((channel_rank(channel), channel, crank, described, k),
                                      (label, line))
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

    entries = [legend[key] for key in sorted(legend)]  # by channel, configuration, file
    legend_title = "channel"
    if dims:
        legend_title += f" ({', '.join(DIMENSIONS[i].name for i in dims)})"
    fig.legend(
        [line for _, line in entries],
        [label for label, _ in entries],
        loc="outside right upper",
        title=legend_title + (" · file" if several else ""),
        fontsize=9,
    )
    title = f"Async channel fan-in: median {metric.label} by number of tasks"
    if several and style_count == 1:  # else the styles are the legend's to tell
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
    channel comes first. A config column (merge=...,payload=...,pace=...,sink=...) when
    the configurations differ; ok rows without a value for the metric are left out."""
    metric = METRICS[metric_name]
    labels = file_labels(runs) if len(runs) > 1 else [None]
    value_fns = [metric_function(run, metric_name) for run in runs]
    used = [considered(run.rows, value) for run, value in zip(runs, value_fns)]
    dims = varying_dimensions([row for rows in used for row in rows])
    configs = [(config_table(config_of(row), dims)) for rows in used for row in rows]
    width = max(len("config"), *map(len, configs)) if dims else 0
    lines = []
    for run_rows, value, label in zip(used, value_fns, labels):
        for config, rows in split_by_config(run_rows).items():
            stats = aggregate(rows, value)
            totals: dict[CellKey, int] = {}
            for row in rows:
                totals[cell_key(row)] = totals.get(cell_key(row), 0) + 1
            shown = f"{config_table(config, dims):<{width}} " if dims else ""
            for key, cell in stats.items():
                channel, mode, runtime, tasks = key
                order = (MODE_ORDER.index(mode) if mode in MODE_ORDER else len(MODE_ORDER), mode,
                         RUNTIME_ORDER.index(runtime) if runtime in RUNTIME_ORDER else len(RUNTIME_ORDER),
                         runtime, tasks, cell.median if cell else math.inf, channel,
                         config_rank(config, dims))
                f = metric.table_format
                figures = (f"{cell.median:{f}} {cell.low:{f}} {cell.high:{f}} {cell.count:>3}"
                           if cell else f"{'-':>10} {'-':>10} {'-':>10} {0:>3}")
                file = f"{label}  " if label else ""
                lines.append((label or "", order,
                              f"{file}{mode:<12} {runtime:<15} {tasks:>5} {channel:<16} {shown}"
                              f"{figures}/{totals[key]}"))
    lines.sort(key=lambda line: (line[1], line[0]))
    config_header = f"{'config':<{width}} " if dims else ""
    header = (f"{'mode':<12} {'runtime':<15} {'tasks':>5} {'channel':<16} {config_header}"
              f"{'median':>10} {'min':>10} {'max':>10} ok")
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
    scale = parser.add_mutually_exclusive_group()
    scale.add_argument(
        "--log-y",
        dest="log_y",
        action="store_const",
        const=True,
        help="logarithmic y axis (the default for the latency metrics)",
    )
    scale.add_argument(
        "--linear-y", dest="log_y", action="store_const", const=False, help="linear y axis"
    )
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

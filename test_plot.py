"""Tests for plot.py on small CSVs written into tmp_path."""

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

import plot

HEADER = list(plot.REQUIRED_COLUMNS)
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
CHANNELS = ["tokio-mpsc", "flume", "async-channel", "futures-channel", "kanal"]


@pytest.fixture(autouse=True)
def close_figures():
    """build_figure() leaves its figure open for the test to inspect; close them after."""
    yield
    plot.plt.close("all")


def row(channel="flume", mode="cloned-send", runtime="multi-thread", tasks=1, sample=0,
        ns=10.0, cpu_ns=None, messages=1000, status="ok", workers=4, **extra):
    """One CSV row as a dict; elapsed_ns follows from ns per message."""
    return {
        "channel": channel,
        "mode": mode,
        "runtime": runtime,
        "workers": workers,
        "tasks": tasks,
        "messages": messages,
        "capacity": 128,
        "capacity_per_channel": 128,
        "payload_bytes": 8,
        "sample": sample,
        "elapsed_ns": int(ns * messages),
        "ns_per_message": ns,
        "cpu_ns": int(ns * messages * 2) if cpu_ns is None else cpu_ns,
        "status": status,
        **extra,
    }


def sweep(channels=CHANNELS, modes=("cloned-send", "merged-recv"),
          runtimes=("multi-thread", "current-thread"), tasks=(1, 2, 4), samples=3):
    """A full grid of ok rows with distinct, deterministic values."""
    rows = []
    for c, channel in enumerate(channels):
        for mode in modes:
            for runtime in runtimes:
                for t in tasks:
                    for s in range(samples):
                        ns = 20.0 + 5 * c + math.log2(t) * (1 + c) + s
                        rows.append(row(channel, mode, runtime, t, s, ns,
                                        workers=1 if runtime == "current-thread" else 8))
    return rows


def write_csv(path, rows, header=None, machine=None):
    """Write rows as the binary does: header, comma separated, quoted when needed."""
    import csv

    header = header or (HEADER + [k for k in rows[0] if k not in HEADER] if rows else HEADER)
    with open(path, "w", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(header)
        for r in rows:
            writer.writerow([r.get(column, "") for column in header])
    if machine is not None:
        path.with_suffix(".json").write_text(json.dumps(machine))
    return path


def run_fatal(argv, capsys):
    """main() must exit 2 with a `fatal:` line and no traceback."""
    code = plot.main([str(a) for a in argv])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith("fatal:"), err
    assert "Traceback" not in err
    return err


def caption(fig):
    texts = [t.get_text() for t in fig.texts if t.get_gid() == "caption"]
    assert len(texts) == 1
    return texts[0]


def line_data(ax, label):
    lines = [line for line in ax.get_lines() if line.get_label() == label]
    assert len(lines) == 1, [line.get_label() for line in ax.get_lines()]
    return dict(zip(lines[0].get_xdata(), lines[0].get_ydata()))


# ---------------------------------------------------------------------------
# Pure functions


def test_summarize_median_min_max():
    assert plot.summarize([5.0]) == plot.CellStats(5.0, 5.0, 5.0, 1)
    assert plot.summarize([3.0, 1.0, 2.0]) == plot.CellStats(2.0, 1.0, 3.0, 3)
    # even count: mean of the two middle values
    assert plot.summarize([10.0, 1.0, 4.0, 2.0]) == plot.CellStats(3.0, 1.0, 10.0, 4)
    with pytest.raises(ValueError):
        plot.summarize([])


def test_aggregate_leaves_out_failed_samples():
    rows = [
        row(tasks=1, ns=10.0),
        row(tasks=1, ns=12.0, sample=1),
        row(tasks=1, ns=11.0, sample=2),
        row(tasks=1, ns=1e9, sample=3, status="lost: sender 0 delivered 9 of 10"),
        row(tasks=2, ns=50.0, status="timeout"),
    ]
    cells = plot.aggregate(rows, lambda r: r["ns_per_message"])
    assert cells[("flume", "cloned-send", "multi-thread", 1)] == plot.CellStats(11.0, 10.0, 12.0, 3)
    assert cells[("flume", "cloned-send", "multi-thread", 2)] is None


def test_cpu_metric_is_cpu_ns_over_messages(tmp_path):
    rows = [row(tasks=1, cpu_ns=3000, messages=1000, sample=s) for s in range(3)]
    rows += [row(tasks=2, cpu_ns=c, messages=500, sample=s) for s, c in enumerate([500, 1500, 4000])]
    run = plot.load_run(write_csv(tmp_path / "r.csv", rows))
    cells = plot.aggregate(run.rows, plot.metric_function(run, "cpu_ns_per_message"))
    assert cells[("flume", "cloned-send", "multi-thread", 1)].median == 3.0
    assert cells[("flume", "cloned-send", "multi-thread", 2)] == plot.CellStats(3.0, 1.0, 8.0, 3)

    fig = plot.build_figure([run], "cpu_ns_per_message")
    assert line_data(fig.axes[0], "flume") == {1: 3.0, 2: 3.0}
    assert "CPU ns per message" in fig.axes[0].get_ylabel()


def test_fixed_and_fallback_colours():
    assert plot.channel_colour("flume") == plot.CHANNEL_COLOURS["flume"]
    assert len(set(plot.CHANNEL_COLOURS.values())) == len(plot.CHANNEL_COLOURS)
    # the fallback must not depend on the process (PYTHONHASHSEED), so compare
    # with a fresh interpreter under a different hash seed
    code = "import plot; print(plot.channel_colour('my-new-channel'))"
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env=env, cwd=Path(plot.__file__).parent, check=True)
    assert other.stdout.strip() == plot.channel_colour("my-new-channel")
    assert plot.channel_colour("my-new-channel") in plot.FALLBACK_COLOURS


def test_describe_values():
    assert plot.describe([4, 4, 4]) == "4"
    assert plot.describe([8, 1, 8]) == "1/8"
    assert plot.describe(range(1, 11)) == "1–10 (10 values)"


# ---------------------------------------------------------------------------
# The figure


def test_one_line_per_channel_per_panel_and_task_ticks(tmp_path):
    csv_path = write_csv(tmp_path / "r.csv", sweep(tasks=(1, 2, 4, 64)))
    fig = plot.build_figure([plot.load_run(csv_path)])
    titles = [ax.get_title() for ax in fig.axes]
    assert [t.split(" · ")[:2] for t in titles] == [
        ["cloned-send", "multi-thread"],
        ["cloned-send", "current-thread"],
        ["merged-recv", "multi-thread"],
        ["merged-recv", "current-thread"],
    ]
    for ax in fig.axes:
        assert sorted(line.get_label() for line in ax.get_lines()) == sorted(CHANNELS)
        assert list(ax.get_xticks()) == [1, 2, 4, 64]
    for ax in fig.axes[2:]:  # shared x: only the bottom row is labelled
        assert [t.get_text() for t in ax.get_xticklabels()] == ["1", "2", "4", "64"]
        assert ax.get_xscale() == "log"
        assert len(ax.collections) == len(CHANNELS)  # one min-max band each
    # median of samples 20, 21, 22 (+ offsets) for tokio-mpsc at 1 task
    assert line_data(fig.axes[0], "tokio-mpsc")[1] == 21.0
    # shared y axis
    assert fig.axes[0].get_ylim() == fig.axes[3].get_ylim()


def test_only_modes_and_runtimes_present(tmp_path):
    rows = sweep(channels=["flume"], modes=("merged-recv",), runtimes=("current-thread",))
    fig = plot.build_figure([plot.load_run(write_csv(tmp_path / "r.csv", rows))])
    assert len(fig.axes) == 1
    assert fig.axes[0].get_title().startswith("merged-recv · current-thread")


def test_failed_samples_have_no_point_and_do_not_move_the_line(tmp_path):
    rows = [row(tasks=t, ns=10.0 * t, sample=s) for t in (1, 4) for s in range(3)]
    rows += [row(tasks=2, ns=5.0, status="timeout", sample=s) for s in range(3)]
    rows += [row(tasks=4, ns=1e12, sample=9, status="lost: sender 3 delivered 16383 of 16384; "
                 "first gap: expected seq 17, got 18")]
    csv_path = write_csv(tmp_path / "r.csv", rows)
    run = plot.load_run(csv_path)
    assert len(run.failed_rows) == 4
    fig = plot.build_figure([run])
    ax = fig.axes[0]
    points = line_data(ax, "flume")
    assert points[1] == 10.0 and points[4] == 40.0
    assert math.isnan(points[2])  # every sample at 2 tasks failed: a gap
    assert ax.get_ylim()[1] < 1000  # the huge failed value is not in the band
    assert "4 of 10 samples failed and are left out" in caption(fig)


def test_log_y(tmp_path):
    fig = plot.build_figure([plot.load_run(write_csv(tmp_path / "r.csv", sweep()))], log_y=True)
    assert all(ax.get_yscale() == "log" for ax in fig.axes)
    fig = plot.build_figure([plot.load_run(write_csv(tmp_path / "r.csv", sweep()))])
    assert all(ax.get_yscale() == "linear" for ax in fig.axes)


def test_caption_from_json(tmp_path):
    machine = {"cpu_model": "AMD EPYC 9654", "cores": 96, "os": "Linux 6.8", "hostname": "box",
               "rustc": "rustc 1.83.0", "crates": {"flume": "0.11.1"}, "git_commit": None,
               "command_line": ["channel-bench"], "started_utc": "2025-01-02T03:04:05Z"}
    csv_path = write_csv(tmp_path / "r.csv", sweep(), machine=machine)
    fig = plot.build_figure([plot.load_run(csv_path)])
    text = caption(fig)
    for expected in ["1000 messages per sample", "capacity 128", "payload 8 bytes",
                     "workers 1/8", "AMD EPYC 9654, 96 cores", "all 180 samples ok", "flume 0.11.1"]:
        assert expected in text


def test_malformed_json_is_left_out_with_a_warning(tmp_path, capsys):
    csv_path = write_csv(tmp_path / "r.csv", sweep())
    csv_path.with_suffix(".json").write_text("{not json")
    assert plot.main([str(csv_path)]) == 0
    out, err = capsys.readouterr()
    assert "warning:" in err and "r.json" in err
    assert out.strip() == str(tmp_path / "r.png")


def test_several_csvs_overlay_with_distinct_styles(tmp_path):
    a = write_csv(tmp_path / "a.csv", sweep(channels=["flume", "kanal"]), machine={"hostname": "alpha"})
    b = write_csv(tmp_path / "b.csv", sweep(channels=["flume", "kanal"]), machine={"hostname": "beta"})
    fig = plot.build_figure([plot.load_run(a), plot.load_run(b)])
    ax = fig.axes[0]
    labels = sorted(line.get_label() for line in ax.get_lines())
    assert labels == ["flume · alpha", "flume · beta", "kanal · alpha", "kanal · beta"]
    styles = {line.get_label(): line.get_linestyle() for line in ax.get_lines()}
    assert styles["flume · alpha"] == styles["kanal · alpha"]
    assert styles["flume · alpha"] != styles["flume · beta"]
    colours = {line.get_label(): line.get_color() for line in ax.get_lines()}
    assert colours["flume · alpha"] == colours["flume · beta"] != colours["kanal · alpha"]


def test_same_hostnames_label_by_file_stem(tmp_path):
    a = write_csv(tmp_path / "before.csv", sweep(channels=["flume"]), machine={"hostname": "box"})
    b = write_csv(tmp_path / "after.csv", sweep(channels=["flume"]), machine={"hostname": "box"})
    fig = plot.build_figure([plot.load_run(a), plot.load_run(b)])
    assert sorted(line.get_label() for line in fig.axes[0].get_lines()) == [
        "flume · after", "flume · before"]


def test_colours_equal_across_plots(tmp_path):
    one = write_csv(tmp_path / "one.csv", sweep(channels=["kanal", "flume"]))
    two = write_csv(tmp_path / "two.csv", sweep(channels=["flume", "zebra-chan", "kanal", "tokio-mpsc"]))
    colours = []
    for path in (one, two):
        fig = plot.build_figure([plot.load_run(path)])
        colours.append({line.get_label(): line.get_color() for line in fig.axes[0].get_lines()})
    assert colours[0]["flume"] == colours[1]["flume"] == plot.CHANNEL_COLOURS["flume"]
    assert colours[0]["kanal"] == colours[1]["kanal"] == plot.CHANNEL_COLOURS["kanal"]
    assert colours[1]["zebra-chan"] == plot.channel_colour("zebra-chan")


def test_extra_columns_are_tolerated_and_usable_as_metric(tmp_path, monkeypatch):
    rows = [row(tasks=1, sample=s, merge="select", lat_p99_ns=100 + s) for s in range(3)]
    run = plot.load_run(write_csv(tmp_path / "r.csv", rows))
    assert run.rows[0]["merge"] == "select"
    monkeypatch.setitem(plot.METRICS, "lat_p99_ns", plot.column_metric("lat_p99_ns", "p99 ns"))
    fig = plot.build_figure([run], "lat_p99_ns")
    assert line_data(fig.axes[0], "flume") == {1: 101.0}


# ---------------------------------------------------------------------------
# The command line


def test_writes_png_next_to_csv(tmp_path, capsys):
    csv_path = write_csv(tmp_path / "run.csv", sweep())
    assert plot.main([str(csv_path)]) == 0
    png = tmp_path / "run.png"
    assert capsys.readouterr().out.strip() == str(png)
    assert png.read_bytes().startswith(PNG_MAGIC)


def test_output_svg(tmp_path, capsys):
    csv_path = write_csv(tmp_path / "run.csv", sweep(channels=["flume"]))
    svg = tmp_path / "x.svg"
    assert plot.main([str(csv_path), "-o", str(svg), "--log-y"]) == 0
    assert capsys.readouterr().out.strip() == str(svg)
    assert b"<svg" in svg.read_bytes()[:1000]
    assert not (tmp_path / "run.png").exists()


def test_script_entry_point(tmp_path):
    csv_path = write_csv(tmp_path / "run.csv", sweep(channels=["flume"]))
    script = Path(plot.__file__)
    ok = subprocess.run([sys.executable, str(script), str(csv_path)], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.strip() == str(tmp_path / "run.png")
    bad = subprocess.run([sys.executable, str(script), str(tmp_path / "nope.csv")],
                         capture_output=True, text=True)
    assert bad.returncode == 2
    assert bad.stderr.startswith("fatal:") and "nope.csv" in bad.stderr
    assert "Traceback" not in bad.stderr
    usage = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True)
    assert usage.returncode == 0 and "cloned-send" in usage.stdout


def test_no_argument_plots_newest_in_results(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    results = tmp_path / "results"
    results.mkdir()
    old = write_csv(results / "old.csv", sweep(channels=["flume"]))
    new = write_csv(results / "new.csv", sweep(channels=["kanal"]))
    os.utime(old, (2_000_000_000, 2_000_000_000))  # "old" is newest by mtime
    os.utime(new, (1_000_000_000, 1_000_000_000))
    assert plot.main([]) == 0
    assert capsys.readouterr().out.strip() == str(Path("results") / "old.png")
    assert (results / "old.png").read_bytes().startswith(PNG_MAGIC)
    assert not (results / "new.png").exists()


def test_no_argument_and_no_results(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    err = run_fatal([], capsys)
    assert "make bench" in err


def test_partial_last_line_is_skipped_with_warning(tmp_path, capsys):
    csv_path = write_csv(tmp_path / "r.csv", sweep(channels=["flume"]))
    with open(csv_path, "a") as f:
        f.write("kanal,cloned-send,multi-thread,8,1,1000,12")  # killed mid-write
    run = plot.load_run(csv_path)
    assert "skipped partial last line" in capsys.readouterr().err
    assert {r["channel"] for r in run.rows} == {"flume"}
    assert run.skipped_partial_line

    for cut in ['kanal,cloned-send,multi-thread,8,1,1000,128,128,8,0,12000,12.', '"lost: x, y']:
        text = csv_path.read_text().rsplit("\n", 1)[0] + "\n" + cut
        csv_path.write_text(text)
        assert plot.main([str(csv_path)]) == 0
        assert "skipped partial last line" in capsys.readouterr().err


def test_unparsable_number_on_last_line_is_skipped(tmp_path, capsys):
    rows = sweep(channels=["flume"]) + [row(channel="kanal")]
    rows[-1]["ns_per_message"] = "12.3.4"
    run = plot.load_run(write_csv(tmp_path / "r.csv", rows))
    assert "skipped partial last line" in capsys.readouterr().err
    assert "kanal" not in {r["channel"] for r in run.rows}


def not_cbench(tmp_path):
    path = tmp_path / "other.csv"
    path.write_text("command,mean,stddev,median\nsleep 1,1.0,0.01,1.0\n")
    return path


def binary(tmp_path):
    path = tmp_path / "binary.csv"
    path.write_bytes(bytes(range(256)) * 4)
    return path


def not_csv(tmp_path):
    path = tmp_path / "notes.csv"
    path.write_text("# Notes\n\nThis is a README, not a CSV.\n")
    return path


def empty(tmp_path):
    path = tmp_path / "empty.csv"
    path.write_text("")
    return path


def header_only(tmp_path):
    path = tmp_path / "header.csv"
    path.write_text(",".join(HEADER) + "\n")
    return path


def missing_columns(tmp_path):
    header = [c for c in HEADER if c not in ("cpu_ns", "status")]
    return write_csv(tmp_path / "missing.csv", sweep(channels=["flume"]), header=header)


def no_ok_rows(tmp_path):
    return write_csv(tmp_path / "failed.csv", [row(status="timeout", sample=s) for s in range(3)])


def non_numeric_middle(tmp_path):
    rows = sweep(channels=["flume"])
    rows[2]["tasks"] = "many"
    return write_csv(tmp_path / "nonnum.csv", rows)


def short_line_middle(tmp_path):
    path = write_csv(tmp_path / "short.csv", sweep(channels=["flume"]))
    lines = path.read_text().splitlines()
    lines[3] = lines[3].rsplit(",", 2)[0]
    path.write_text("\n".join(lines) + "\n")
    return path


def zero_tasks(tmp_path):
    # well-formed but impossible: fatal even on the last line
    return write_csv(tmp_path / "zero.csv", sweep(channels=["flume"]) + [row(tasks=0)])


@pytest.mark.parametrize("make, expected", [
    (lambda tmp: tmp / "missing-file.csv", "no such file"),
    (not_cbench, "not a channel-bench CSV"),
    (binary, "not a channel-bench CSV"),
    (not_csv, "not a channel-bench CSV"),
    (empty, "empty"),
    (header_only, "no samples"),
    (missing_columns, "missing columns: cpu_ns, status"),
    (no_ok_rows, "no ok samples"),
    (non_numeric_middle, "line 4: column tasks: 'many' is not an integer"),
    (short_line_middle, "line 4"),
    (zero_tasks, "column tasks"),
    (lambda tmp: tmp, "cannot read"),  # a directory
])
def test_bad_input_is_fatal(tmp_path, capsys, make, expected):
    path = make(tmp_path)
    err = run_fatal([path], capsys)
    assert expected in err
    assert str(path) in err


def test_bad_file_among_several_is_named(tmp_path, capsys):
    good = write_csv(tmp_path / "good.csv", sweep(channels=["flume"]))
    err = run_fatal([good, empty(tmp_path)], capsys)
    assert "empty.csv" in err and "good.csv" not in err


def test_unknown_metric(tmp_path, capsys):
    csv_path = write_csv(tmp_path / "r.csv", sweep(channels=["flume"]))
    err = run_fatal([csv_path, "--metric", "bogus"], capsys)
    assert "bogus" in err and "cpu_ns_per_message" in err


def test_metric_column_absent_from_file(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(plot.METRICS, "lat_p99_ns", plot.column_metric("lat_p99_ns", "p99 ns"))
    csv_path = write_csv(tmp_path / "r.csv", sweep(channels=["flume"]))
    err = run_fatal([csv_path, "--metric", "lat_p99_ns"], capsys)
    assert "lat_p99_ns" in err and "r.csv" in err


def test_unsupported_output_extension(tmp_path, capsys):
    csv_path = write_csv(tmp_path / "r.csv", sweep(channels=["flume"]))
    err = run_fatal([csv_path, "-o", tmp_path / "plot.xyz"], capsys)
    assert "plot.xyz" in err
    run_fatal([csv_path, "-o", csv_path], capsys)  # never overwrite the input
    assert csv_path.read_text().startswith("channel,")


def test_unwritable_output(tmp_path, capsys):
    csv_path = write_csv(tmp_path / "r.csv", sweep(channels=["flume"]))
    err = run_fatal([csv_path, "-o", tmp_path / "no-such-dir" / "x.png"], capsys)
    assert "x.png" in err


def test_table_lists_each_cell_fastest_first(tmp_path, capsys):
    rows = [
        row("flume", tasks=1, sample=0, ns=30.0), row("flume", tasks=1, sample=1, ns=50.0),
        row("kanal", tasks=1, sample=0, ns=20.0), row("kanal", tasks=1, sample=1, ns=900.0, status="lost: x"),
        row("flume", tasks=2, sample=0, ns=5.0),
    ]
    path = write_csv(tmp_path / "t.csv", rows)
    assert plot.main([str(path), "--table"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "# ns_per_message"
    cells = [line.split() for line in out[2:]]
    # tasks 1: kanal (20, its failed sample left out) before flume (median 40); then tasks 2.
    assert [(c[2], c[3]) for c in cells] == [("1", "kanal"), ("1", "flume"), ("2", "flume")]
    assert cells[0][4:] == ["20.0", "20.0", "20.0", "1/2"]
    assert cells[1][4:] == ["40.0", "30.0", "50.0", "2/2"]
    assert not (tmp_path / "t.png").exists()


def test_a_last_line_cut_inside_a_value_is_skipped_even_if_it_parses(tmp_path, capsys):
    # Killed while writing "ok": the row reads as a failed sample unless the missing
    # newline gives it away.
    rows = sweep(channels=["kanal"], modes=("cloned-send",), runtimes=("multi-thread",), tasks=(1,), samples=3)
    path = write_csv(tmp_path / "cut.csv", rows)
    text = path.read_text()
    path.write_text(text + text.splitlines()[-1][:-1])
    runs = [plot.load_run(path)]
    assert len(runs[0].rows) == 3 and not runs[0].failed_rows
    assert "skipped partial last line" in capsys.readouterr().err


# ---------------------------------------------------------------------------
# Issue 6: configuration columns, latency, allocations, throughput

NEW_HEADER = HEADER + list(plot.OPTIONAL_COLUMNS)


def new_row(channel="kanal", mode="merged-recv", tasks=1, sample=0, ns=10.0, merge=None,
            payload="8", seed="", pace_ns="", burst="", sink="none", lat=None, allocs="",
            alloc_bytes="", status="ok", runtime="multi-thread"):
    """A row as the binary writes it after issue 6; lat=None leaves the latency cells empty."""
    r = row(channel, mode, runtime, tasks, sample, ns, status=status)
    if merge is None:
        merge = "futures-buffered" if mode == "merged-recv" else ""
    lats = ("", "", "", "") if lat is None else (lat, lat * 10, lat * 100, lat * 1000)
    r.update(merge=merge, payload=payload, seed=seed, bytes=r["messages"] * 8,
             mb_per_s=round(r["messages"] * 8 * 1000 / r["elapsed_ns"], 3),
             pace_ns=pace_ns, burst=burst, pace_actual_ns=pace_ns, sink=sink,
             lat_p50_ns=lats[0], lat_p99_ns=lats[1], lat_p999_ns=lats[2], lat_max_ns=lats[3],
             allocs_per_message=allocs, alloc_bytes_per_message=alloc_bytes)
    return r


def write_new(path, rows):
    return write_csv(path, rows, header=NEW_HEADER)


def labels_of(ax):
    return sorted(line.get_label() for line in ax.get_lines())


def test_old_csv_loads_with_defaults(tmp_path):
    rows = [row(mode="cloned-send", ns=20.0), row(mode="merged-recv", ns=40.0)]
    run = plot.load_run(write_csv(tmp_path / "old.csv", rows))
    cloned, merged = run.rows
    assert cloned["merge"] == "" and merged["merge"] == "futures-buffered"
    for r in run.rows:
        assert r["payload"] == "8" and r["sink"] == "none"
        assert r["bytes"] == 1000 * 8
        assert r["seed"] is r["pace_ns"] is r["burst"] is r["pace_actual_ns"] is None
        assert all(r[name] is None for name in ("lat_p50_ns", "lat_p99_ns", "lat_p999_ns",
                                                 "lat_max_ns", "allocs_per_message",
                                                 "alloc_bytes_per_message"))
    # 8000 bytes in 20000 ns = 400 MB/s; in 40000 ns = 200 MB/s
    assert cloned["mb_per_s"] == 400.0 and merged["mb_per_s"] == 200.0
    assert plot.varying_dimensions(run.rows) == ()
    fig = plot.build_figure([run])
    assert [labels_of(ax) for ax in fig.axes] == [["flume"], ["flume"]]


def test_new_csv_plots_latency_on_a_log_axis(tmp_path, capsys):
    rows = [new_row(tasks=t, sample=s, lat=1000 * t + s) for t in (1, 4) for s in range(3)]
    rows += [new_row(tasks=2, sample=s, lat=5, status="timeout") for s in range(2)]
    path = write_new(tmp_path / "lat.csv", rows)
    run = plot.load_run(path)
    assert run.rows[0]["lat_p99_ns"] == 10000 and run.rows[0]["merge"] == "futures-buffered"
    fig = plot.build_figure([run], "lat_p99_ns")
    ax = fig.axes[0]
    points = line_data(ax, "kanal")
    assert points[1] == 10010.0 and points[4] == 40010.0 and math.isnan(points[2])
    assert ax.get_yscale() == "log"
    assert "p99 latency (ns)" in ax.get_ylabel()
    assert plot.build_figure([run], "lat_p99_ns", log_y=False).axes[0].get_yscale() == "linear"
    assert line_data(plot.build_figure([run], "lat_max_ns").axes[0], "kanal")[1] == 1001000.0

    for extra in ([], ["--linear-y"], ["--log-y"]):
        assert plot.main([str(path), "--metric", "lat_p99_ns", *extra]) == 0
        assert capsys.readouterr().out.strip() == str(tmp_path / "lat.png")
        assert (tmp_path / "lat.png").read_bytes().startswith(PNG_MAGIC)
    assert plot.main([str(path), "--log-y", "--linear-y"]) == 2  # usage error


@pytest.mark.parametrize("metric, hint", [
    ("lat_p99_ns", "run channel-bench with --latency"),
    ("lat_p50_ns", "run channel-bench with --latency"),
    ("allocs_per_message", "run channel-bench with --count-allocs"),
    ("alloc_bytes_per_message", "run channel-bench with --count-allocs"),
])
def test_metric_without_values_is_one_line_fatal(tmp_path, capsys, metric, hint):
    # a new file with the columns empty (only a failed sample has a value), and an old one
    rows = [new_row(sample=s) for s in range(3)]
    rows.append(new_row(sample=3, lat=7, allocs=1.5, alloc_bytes=9.0, status="timeout"))
    new = write_new(tmp_path / "new.csv", rows)
    old = write_csv(tmp_path / "old.csv", sweep(channels=["flume"]))
    for path in (new, old):
        for extra in ([], ["--table"]):
            err = run_fatal([path, "--metric", metric, *extra], capsys)
            assert err.count("\n") == 1, err
            assert str(path) in err and metric in err and hint in err
    assert f"{new}: no ok row has {metric}: {hint}" in run_fatal([new, "--metric", metric], capsys)


def test_two_merge_strategies_are_two_lines(tmp_path):
    rows = []
    for s in range(3):
        rows.append(new_row(mode="cloned-send", sample=s, ns=10.0))
        rows.append(new_row(merge="futures-buffered", sample=s, ns=20.0))
        rows.append(new_row(merge="select-all", sample=s, ns=30.0))
        rows.append(new_row("flume", merge="select-all", sample=s, ns=50.0))
    fig = plot.build_figure([plot.load_run(write_new(tmp_path / "m.csv", rows))])
    cloned, merged = fig.axes
    assert labels_of(cloned) == ["kanal"]  # cloned-send has no merge strategy
    assert labels_of(merged) == ["flume (select-all)", "kanal (futures-buffered)",
                                 "kanal (select-all)"]
    assert line_data(merged, "kanal (futures-buffered)") == {1: 20.0}
    assert line_data(merged, "kanal (select-all)") == {1: 30.0}
    lines = {line.get_label(): line for line in merged.get_lines()}
    fb, sa = lines["kanal (futures-buffered)"], lines["kanal (select-all)"]
    assert fb.get_color() == sa.get_color() == plot.CHANNEL_COLOURS["kanal"]
    assert (fb.get_linestyle(), fb.get_marker()) != (sa.get_linestyle(), sa.get_marker())
    # a strategy has one style whatever the channel; the default keeps the solid line
    assert lines["flume (select-all)"].get_linestyle() == sa.get_linestyle()
    assert fb.get_linestyle() == "-"
    legend = fig.legends[0]
    assert legend.get_title().get_text() == "channel (merge)"
    assert [t.get_text() for t in legend.get_texts()] == [
        "flume (select-all)", "kanal", "kanal (futures-buffered)", "kanal (select-all)"]
    assert lines["kanal (futures-buffered)"].get_linestyle() == cloned.get_lines()[0].get_linestyle()


def test_one_merge_strategy_keeps_plain_labels(tmp_path):
    rows = [new_row(mode=m, sample=s, lat=100) for m in ("cloned-send", "merged-recv")
            for s in range(2)]
    fig = plot.build_figure([plot.load_run(write_new(tmp_path / "p.csv", rows))])
    assert [labels_of(ax) for ax in fig.axes] == [["kanal"], ["kanal"]]
    assert fig.legends[0].get_title().get_text() == "channel"


def test_payload_pace_and_sink_split_lines_only_where_they_vary(tmp_path):
    rows = []
    for s in range(2):
        rows.append(new_row(sample=s, ns=10.0, payload="1200"))
        rows.append(new_row(sample=s, ns=11.0, payload="300..2000", seed=42))
        rows.append(new_row(sample=s, ns=12.0, payload="1200", pace_ns=100000, burst=16))
        rows.append(new_row(sample=s, ns=13.0, payload="1200", sink="file"))
    fig = plot.build_figure([plot.load_run(write_new(tmp_path / "c.csv", rows))])
    ax = fig.axes[0]
    assert labels_of(ax) == sorted([
        "kanal (1200 B, unpaced, sink none)",
        "kanal (300..2000 B, unpaced, sink none)",
        "kanal (1200 B, 16 msg / 100 µs, sink none)",
        "kanal (1200 B, unpaced, sink file)",
    ])
    assert line_data(ax, "kanal (1200 B, 16 msg / 100 µs, sink none)") == {1: 12.0}
    styles = {(line.get_linestyle(), line.get_marker()) for line in ax.get_lines()}
    assert len(styles) == 4
    assert "payload 1200/300..2000 (seed 42) bytes" in caption(fig)


def test_several_csvs_differing_in_payload(tmp_path):
    a = write_new(tmp_path / "a.csv", [new_row(sample=s, payload="1200") for s in range(2)])
    b = write_new(tmp_path / "b.csv", [new_row(sample=s, payload="300..2000", seed=1)
                                       for s in range(2)])
    ax = plot.build_figure([plot.load_run(a), plot.load_run(b)]).axes[0]
    assert labels_of(ax) == ["kanal (1200 B) · a", "kanal (300..2000 B) · b"]
    # an old CSV with the same payload as a new one: no payload in the labels
    old = write_csv(tmp_path / "old.csv", [row("kanal", "merged-recv", sample=s) for s in range(2)])
    ax = plot.build_figure([plot.load_run(old), plot.load_run(write_new(
        tmp_path / "new.csv", [new_row(sample=s, payload="8") for s in range(2)]))]).axes[0]
    assert labels_of(ax) == ["kanal · new", "kanal · old"]


def test_empty_latency_cells_are_left_out(tmp_path, capsys):
    rows = [new_row(tasks=1, sample=0, lat=100), new_row(tasks=1, sample=1),
            new_row(tasks=1, sample=2, lat=300),
            new_row(tasks=2, sample=0), new_row(tasks=2, sample=1),  # no latency at 2 tasks
            new_row(tasks=4, sample=0, lat=50)]
    path = write_new(tmp_path / "e.csv", rows)
    run = plot.load_run(path)
    value = plot.metric_function(run, "lat_p50_ns")
    cells = plot.aggregate(run.rows, value)
    assert cells[("kanal", "merged-recv", "multi-thread", 1)] == plot.CellStats(200.0, 100.0, 300.0, 2)
    assert ("kanal", "merged-recv", "multi-thread", 2) not in cells
    assert line_data(plot.build_figure([run], "lat_p50_ns").axes[0], "kanal") == {1: 200.0, 4: 50.0}
    # ns_per_message still uses every row
    assert plot.aggregate(run.rows, plot.metric_function(run, "ns_per_message"))[
        ("kanal", "merged-recv", "multi-thread", 1)].count == 3
    assert plot.main([str(path), "--table", "--metric", "lat_p50_ns"]) == 0
    cells = [line.split() for line in capsys.readouterr().out.splitlines()[2:]]
    assert [(c[2], c[4], c[-1]) for c in cells] == [("1", "200.0", "2/2"), ("4", "50.0", "1/1")]


def test_table_shows_the_configuration(tmp_path, capsys):
    rows = [new_row(mode="cloned-send", sample=0, ns=15.0),
            new_row(merge="futures-buffered", sample=0, ns=20.0),
            new_row(merge="select-all", sample=0, ns=30.0),
            new_row(merge="stream-map", sample=0, ns=25.0, sink="file")]
    path = write_new(tmp_path / "t.csv", rows)
    assert plot.main([str(path), "--table"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].split() == ["mode", "runtime", "tasks", "channel", "config", "median", "min",
                              "max", "ok"]
    cells = [line.split() for line in out[2:]]
    assert [(c[0], c[4], c[5]) for c in cells] == [
        ("cloned-send", "sink=none", "15.0"),
        ("merged-recv", "merge=futures-buffered,sink=none", "20.0"),
        ("merged-recv", "merge=stream-map,sink=file", "25.0"),
        ("merged-recv", "merge=select-all,sink=none", "30.0"),
    ]
    # a plain run: no config column, as before
    plain = write_new(tmp_path / "plain.csv", [new_row(sample=0)])
    assert plot.main([str(plain), "--table"]) == 0
    assert "config" not in capsys.readouterr().out


def test_table_with_pace_and_several_files(tmp_path, capsys):
    a = write_new(tmp_path / "a.csv", [new_row(sample=0, ns=20.0)])
    b = write_new(tmp_path / "b.csv", [new_row(sample=0, ns=10.0, pace_ns=2000000, burst=4)])
    assert plot.main([str(a), str(b), "--table"]) == 0
    cells = [line.split() for line in capsys.readouterr().out.splitlines()[2:]]
    assert [(c[0], c[5], c[6]) for c in cells] == [
        ("b", "pace=4/2ms", "10.0"), ("a", "pace=unpaced", "20.0")]


def test_alloc_and_throughput_metrics(tmp_path, capsys):
    rows = [new_row(tasks=t, sample=s, ns=10.0 * t, allocs=a, alloc_bytes=b)
            for t, a, b in ((1, 0.0012, 24.0), (2, 2.0, 48.0)) for s in range(3)]
    path = write_new(tmp_path / "a.csv", rows)
    run = plot.load_run(path)
    fig = plot.build_figure([run], "allocs_per_message")
    assert line_data(fig.axes[0], "kanal") == {1: 0.0012, 2: 2.0}
    assert "allocations per message" in fig.axes[0].get_ylabel()
    assert fig.axes[0].get_yscale() == "linear"
    assert line_data(plot.build_figure([run], "alloc_bytes_per_message").axes[0], "kanal") == {
        1: 24.0, 2: 48.0}
    # 8000 bytes in 10000 ns = 800 MB/s, the column as written
    assert line_data(plot.build_figure([run], "mb_per_s").axes[0], "kanal") == {1: 800.0, 2: 400.0}
    assert plot.main([str(path), "--table", "--metric", "allocs_per_message"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "# allocs_per_message"
    assert out[2].split()[4:] == ["0.0012", "0.0012", "0.0012", "3/3"]
    for metric in ("allocs_per_message", "alloc_bytes_per_message", "mb_per_s"):
        assert plot.main([str(path), "--metric", metric, "-o", str(tmp_path / f"{metric}.png")]) == 0
        assert (tmp_path / f"{metric}.png").read_bytes().startswith(PNG_MAGIC)
    capsys.readouterr()
    # an old CSV: MB/s worked out from messages x payload_bytes and elapsed_ns
    old = write_csv(tmp_path / "old.csv", [row(ns=16.0, sample=s) for s in range(2)])
    assert plot.main([str(old), "--table", "--metric", "mb_per_s"]) == 0
    assert capsys.readouterr().out.splitlines()[2].split()[4] == "500.0"


def test_bad_value_in_a_new_column(tmp_path, capsys):
    rows = [new_row(sample=s, lat=100) for s in range(3)]
    rows[1]["lat_p99_ns"] = "fast"
    err = run_fatal([write_new(tmp_path / "bad.csv", rows)], capsys)
    assert "line 3: column lat_p99_ns: 'fast' is not an integer" in err
    rows[1]["lat_p99_ns"] = -5
    assert "column lat_p99_ns: '-5' is out of range" in run_fatal(
        [write_new(tmp_path / "neg.csv", rows)], capsys)
    rows[1]["lat_p99_ns"] = 1000
    rows[2]["allocs_per_message"] = "inf"
    assert "not a finite number" in run_fatal([write_new(tmp_path / "inf.csv", rows)], capsys)
    # cut short on the last line: skipped like any partial last line
    rows[2]["allocs_per_message"] = "0."
    rows[2]["lat_p99_ns"] = "12.5"
    run = plot.load_run(write_new(tmp_path / "cut.csv", rows))
    assert len(run.rows) == 2 and "skipped partial last line" in capsys.readouterr().err

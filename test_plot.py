"""Tests for plot.py: small X.cells.json fixtures written into tmp_path, and CSVs turned into
X.cells.json by the debug binary (`cargo test` or `cargo build` makes it; `make test` runs the
Rust tests first)."""

import json
import math
import os
import statistics
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

import plot

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
CHANNELS = ["tokio-mpsc", "flume", "async-channel", "futures-channel", "kanal"]
ROOT = Path(__file__).parent
BINARY = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "debug" / "channel-bench"


@pytest.fixture(autouse=True)
def close_figures():
    """build_figure() leaves its figure open for the test to inspect; close them after."""
    yield
    plot.plt.close("all")


def trimmed_mean(values):
    """The binary's headline: the mean without the lowest and highest fifth of the values."""
    ordered = sorted(values)
    cut = int(len(ordered) * 0.2)
    return statistics.fmean(ordered[cut:len(ordered) - cut])


def figures(values):
    """What the binary writes for one metric of one cell (the intervals left out)."""
    if not values:
        return None
    return {"samples": list(values), "trimmed_mean": trimmed_mean(values), "median": statistics.median(values),
            "min": min(values), "max": max(values)}


def colour_of(channel):
    """A colour per channel name for the fixtures (the binary's own is tested with the binary)."""
    return f"#{zlib.crc32(channel.encode()) & 0xFFFFFF:06x}"


def cell(channel="flume", tasks=1, samples=(10.0,), mode="cloned-send", runtime="multi-thread",
         failed=0, setting="", workers=4, merge=None, **metrics):
    """One cell of X.cells.json (an unpaced setting words itself the same either way: its
    `phased_setting` is `setting`); cpu_ns_per_message is twice ns_per_message unless given."""
    metrics.setdefault("cpu_ns_per_message", [2 * v for v in samples])
    label = channel + (f" via {merge}" if merge else "")
    fields = {"send": "wait", "latency": setting == "latency", "allocs": False}
    coord = {"runtime": runtime, "workers": workers, "capacity": {"shared": 128}, "mode": mode, "setting": fields,
             "machine": {"cores": 0, "cpu": ""}}
    entry = {"name": f"{runtime}/{mode}/tasks={tasks}/{label}", "runtime": runtime, "mode": mode,
             "tasks": tasks, "channel": channel, "merge": merge, "label": label, "colour": colour_of(channel),
             "messages": 1000, "capacity": 128, "workers": workers,
             "setting": setting, "phased_setting": setting or None, "coord": coord, "ok": len(samples),
             "failed": failed,
             "ns_per_message": figures(samples)}
    if failed:
        entry["first_failure"] = "timeout: after 30s"
    entry.update({name: figures(values) for name, values in metrics.items()})
    return {key: value for key, value in entry.items() if value is not None}


def sweep(channels=CHANNELS, modes=("cloned-send", "merged-recv"),
          runtimes=("multi-thread", "current-thread"), tasks=(1, 2, 4), samples=3):
    """A full grid of cells with distinct, deterministic samples."""
    return [cell(channel, t, [20.0 + 5 * c + math.log2(t) * (1 + c) + s for s in range(samples)],
                 mode, runtime, workers=1 if runtime == "current-thread" else 8)
            for c, channel in enumerate(channels) for mode in modes for runtime in runtimes for t in tasks]


def write_run(csv_path, cells, machine=None):
    """X.cells.json (and X.json when `machine` is given) beside X.csv; returns X.csv."""
    csv_path.with_suffix(".cells.json").write_text(
        json.dumps({"csv": str(csv_path), "confidence": 0.9, "skipped_partial_line": False, "cells": cells}))
    if machine is not None:
        csv_path.with_suffix(".json").write_text(json.dumps(machine))
    return csv_path


def load(tmp_path, cells, name="r.csv", machine=None):
    return plot.load_run(write_run(tmp_path / name, cells, machine))


def run_fatal(argv, capsys):
    """main() must exit 2 with one `fatal:` line and no traceback."""
    code = plot.main([str(a) for a in argv])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith("fatal:") and err.count("\n") == 1, err
    assert "Traceback" not in err
    return err


def caption(fig):
    texts = [t.get_text() for t in fig.texts if t.get_gid() == "caption"]
    assert len(texts) == 1
    return " ".join(texts[0].split())  # unwrapped


def line_data(ax, label):
    lines = [line for line in ax.get_lines() if line.get_label() == label]
    assert len(lines) == 1, [line.get_label() for line in ax.get_lines()]
    return dict(zip(lines[0].get_xdata(), lines[0].get_ydata()))


def labels_of(ax):
    return sorted(line.get_label() for line in ax.get_lines())


def binary():
    if not BINARY.is_file():
        pytest.fail(f"{BINARY} is missing: build it with `cargo build` (make test does)")
    return BINARY


def channel_bench(*args, check=True):
    result = subprocess.run([str(binary()), *map(str, args)], capture_output=True, text=True)
    if check:
        assert result.returncode == 0, result.stderr
    return result


# ---------------------------------------------------------------------------
# Pure functions


def test_a_cells_json_without_the_binarys_colours_is_refused(tmp_path, capsys):
    old = {key: value for key, value in cell().items() if key not in ("colour", "label")}
    err = run_fatal([write_run(tmp_path / "old.csv", [old])], capsys)
    assert "channel-bench cells" in err and "--force" in err


def test_describe_values():
    assert plot.describe([4, 4, 4]) == "4"
    assert plot.describe([8, 1, 8]) == "1/8"
    assert plot.describe(range(1, 11)) == "1–10 (10 values)"


# ---------------------------------------------------------------------------
# The figure


def test_one_line_per_channel_per_panel_with_samples_as_points(tmp_path):
    fig = plot.build_figure([load(tmp_path, sweep(tasks=(1, 2, 4, 64)))])
    assert [ax.get_title().split(" · ")[:2] for ax in fig.axes] == [
        ["cloned-send", "multi-thread"], ["cloned-send", "current-thread"],
        ["merged-recv", "multi-thread"], ["merged-recv", "current-thread"]]
    for ax in fig.axes:
        assert labels_of(ax) == sorted(CHANNELS)
        assert list(ax.get_xticks()) == [1, 2, 4, 64]
        assert ax.get_xscale() == "log"
        # one scatter of samples per channel: 4 task counts x 3 samples
        samples = [points for points in ax.collections if points.get_gid() == "samples"]
        assert [len(points.get_offsets()) for points in samples] == [12] * len(CHANNELS)
    assert [t.get_text() for t in fig.axes[2].get_xticklabels()] == ["1", "2", "4", "64"]
    # the trimmed mean of samples 20, 21, 22 for tokio-mpsc at 1 task
    assert line_data(fig.axes[0], "tokio-mpsc")[1] == 21.0


def test_only_modes_and_runtimes_present(tmp_path):
    run = load(tmp_path, sweep(channels=["flume"], modes=("merged-recv",), runtimes=("current-thread",)))
    fig = plot.build_figure([run])
    assert len(fig.axes) == 1
    assert fig.axes[0].get_title().startswith("merged-recv · current-thread")


def test_a_failed_cell_is_a_gap_and_failures_are_counted(tmp_path):
    cells = [cell(tasks=1, samples=[10.0, 10.0, 10.0]), cell(tasks=2, samples=[], failed=3),
             cell(tasks=4, samples=[40.0, 40.0, 40.0], failed=1)]
    fig = plot.build_figure([load(tmp_path, cells)])
    points = line_data(fig.axes[0], "flume")
    assert points[1] == 10.0 and points[4] == 40.0 and math.isnan(points[2])
    assert "4 of 10 samples failed and are left out" in caption(fig)


def test_disturbed_samples_are_counted_in_the_caption_and_not_drawn(tmp_path):
    cells = [cell(tasks=1, samples=[10.0, 11.0, 10.5]), cell(tasks=2, samples=[20.0, 21.0, 20.5])]
    cells[1]["disturbed"] = [45.0, 47.0]
    fig = plot.build_figure([load(tmp_path, cells)])
    assert "2 samples measured while other cells around them were slow too are left out" in caption(fig)
    drawn = [y for collection in fig.axes[0].collections for _, y in collection.get_offsets()]
    assert 45.0 not in drawn and 20.0 in drawn


def test_log_y(tmp_path):
    run = load(tmp_path, sweep())
    assert all(ax.get_yscale() == "log" for ax in plot.build_figure([run], log_y=True).axes)
    assert all(ax.get_yscale() == "linear" for ax in plot.build_figure([run]).axes)


def test_caption_from_the_machine_description(tmp_path):
    machine = {"cpu_model": "AMD EPYC 9654", "cores": 96, "os": "Linux 6.8", "hostname": "box",
               "rustc": "rustc 1.83.0", "crates": {"flume": "0.11.1"}, "git_commit": None,
               "command_line": ["channel-bench"], "started_utc": "2025-01-02T03:04:05Z"}
    text = caption(plot.build_figure([load(tmp_path, sweep(), machine=machine)]))
    for expected in ["1000 messages per sample", "capacity 128", "workers 1/8",
                     "AMD EPYC 9654, 96 cores", "all 180 samples ok", "flume 0.11.1"]:
        assert expected in text


def test_malformed_machine_description_is_left_out_with_a_warning(tmp_path, capsys):
    path = write_run(tmp_path / "r.csv", sweep())
    path.with_suffix(".json").write_text("{not json")
    assert plot.main([str(path)]) == 0
    out, err = capsys.readouterr()
    assert "warning:" in err and "r.json" in err
    assert out.strip() == str(tmp_path / "r.png")


def test_several_files_overlay_with_distinct_styles_and_the_same_colours(tmp_path):
    a = load(tmp_path, sweep(channels=["flume", "kanal"]), "a.csv", {"hostname": "alpha"})
    b = load(tmp_path, sweep(channels=["flume", "kanal"]), "b.csv", {"hostname": "beta"})
    ax = plot.build_figure([a, b]).axes[0]
    assert labels_of(ax) == ["flume · alpha", "flume · beta", "kanal · alpha", "kanal · beta"]
    styles = {line.get_label(): line.get_linestyle() for line in ax.get_lines()}
    assert styles["flume · alpha"] == styles["kanal · alpha"] != styles["flume · beta"]
    colours = {line.get_label(): line.get_color() for line in ax.get_lines()}
    assert colours["flume · alpha"] == colours["flume · beta"] != colours["kanal · alpha"]
    # the same host twice: labelled by file stem
    before = load(tmp_path, sweep(channels=["flume"]), "before.csv", {"hostname": "box"})
    after = load(tmp_path, sweep(channels=["flume"]), "after.csv", {"hostname": "box"})
    assert labels_of(plot.build_figure([before, after]).axes[0]) == ["flume · after", "flume · before"]


def test_each_machine_has_panels_of_its_own_at_its_own_scale(tmp_path):
    two = {"cpu_model": "Xeon", "cores": 2, "os": "linux", "hostname": "vm"}
    sixteen = dict(two, cores=16)
    fast = [c for c in sweep(modes=("cloned-send",), runtimes=("multi-thread",))]
    slow = [dict(c, ns_per_message=figures([v * 40 for v in c["ns_per_message"]["samples"]])) for c in fast]
    fig = plot.build_figure([load(tmp_path, fast, "two.csv", two), load(tmp_path, slow, "sixteen.csv", sixteen)])
    titles = [ax.get_title() for ax in fig.axes]
    assert [t.split(" · ")[0] for t in titles] == ["2 cores", "16 cores"], titles
    tops = [ax.get_ylim()[1] for ax in fig.axes]
    assert tops[1] > 10 * tops[0], tops
    # One file of several machines names each cell's machine: the same panels.
    def on(c, cores):
        return dict(c, machine=f"{cores} cores (Xeon)", coord={**c["coord"], "machine": {"cores": cores, "cpu": "Xeon"}})
    cells = [on(c, 2) for c in fast] + [on(c, 16) for c in slow]
    fig = plot.build_figure([load(tmp_path, cells, "both.csv")])
    assert [ax.get_title().split(" · ")[0] for ax in fig.axes] == ["2 cores (Xeon)", "16 cores (Xeon)"]


def test_colours_equal_across_plots(tmp_path):
    colours = []
    for name, channels in (("one.csv", ["kanal", "flume"]), ("two.csv", ["flume", "zebra-chan", "kanal"])):
        ax = plot.build_figure([load(tmp_path, sweep(channels=channels), name)]).axes[0]
        colours.append({line.get_label(): line.get_color() for line in ax.get_lines()})
    assert colours[0]["flume"] == colours[1]["flume"] == colour_of("flume")
    assert colours[0]["kanal"] == colours[1]["kanal"] == colour_of("kanal")
    assert colours[1]["zebra-chan"] == colour_of("zebra-chan")


def test_merge_strategies_and_settings_are_lines_of_their_own(tmp_path):
    cells = [cell("kanal", mode="merged-recv", samples=[20.0]),
             cell("kanal", mode="merged-recv", samples=[30.0], merge="select-all"),
             cell("kanal", mode="merged-recv", samples=[40.0], setting="latency")]
    ax = plot.build_figure([load(tmp_path, cells)]).axes[0]
    assert labels_of(ax) == ["kanal", "kanal [latency]", "kanal via select-all"]
    lines = {line.get_label(): line for line in ax.get_lines()}
    assert len({line.get_color() for line in lines.values()}) == 1
    assert len({str(line.get_linestyle()) for line in lines.values()}) == 3
    assert line_data(ax, "kanal via select-all") == {1: 30.0}


def test_other_metrics_come_from_their_own_figures(tmp_path, capsys):
    cells = [cell("kanal", t, [10.0 * t] * 3, lat_p99_ns=[1000.0 * t + s for s in range(3)],
                  allocs_per_message=[0.0012] * 3) for t in (1, 4)]
    cells.append(cell("kanal", 2, [], failed=2))
    path = write_run(tmp_path / "m.csv", cells)
    run = plot.load_run(path)
    fig = plot.build_figure([run], "lat_p99_ns")
    ax = fig.axes[0]
    points = line_data(ax, "kanal")
    assert points[1] == 1001.0 and points[4] == 4001.0 and math.isnan(points[2])
    assert ax.get_yscale() == "log" and "p99 latency" in ax.get_ylabel()
    assert plot.build_figure([run], "lat_p99_ns", log_y=False).axes[0].get_yscale() == "linear"
    assert line_data(plot.build_figure([run], "cpu_ns_per_message").axes[0], "kanal")[4] == 80.0
    assert plot.main([str(path), "--table", "--metric", "allocs_per_message"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "# allocs_per_message"
    assert out[2].split()[4:] == ["0.0012", "0.0012", "0.0012", "0.0012", "3/3"]
    for extra in ([], ["--linear-y", "--force"], ["--log-y", "--force"]):
        assert plot.main([str(path), "--metric", "lat_p99_ns", *extra]) == 0
        assert (tmp_path / "m.png").read_bytes().startswith(PNG_MAGIC)
    assert plot.main([str(path), "--log-y", "--linear-y"]) == 2  # usage error


@pytest.mark.parametrize("metric, hint", [
    ("lat_p99_ns", "run channel-bench with --latency"),
    ("allocs_per_message", "run channel-bench with --count-allocs"),
])
def test_metric_without_values_is_one_line_fatal(tmp_path, capsys, metric, hint):
    path = write_run(tmp_path / "r.csv", sweep(channels=["flume"]))
    for extra in ([], ["--table"]):
        err = run_fatal([path, "--metric", metric, *extra], capsys)
        assert f"{path}: no ok sample has {metric}: {hint}" in err


# ---------------------------------------------------------------------------
# The command line


def test_writes_png_next_to_csv(tmp_path, capsys):
    path = write_run(tmp_path / "run.csv", sweep())
    assert plot.main([str(path)]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "run.png")
    assert (tmp_path / "run.png").read_bytes().startswith(PNG_MAGIC)


def test_output_svg(tmp_path, capsys):
    path = write_run(tmp_path / "run.csv", sweep(channels=["flume"]))
    svg = tmp_path / "x.svg"
    assert plot.main([str(path), "-o", str(svg), "--log-y"]) == 0
    assert capsys.readouterr().out.strip() == str(svg)
    assert b"<svg" in svg.read_bytes()[:1000]
    assert not (tmp_path / "run.png").exists()


def test_script_entry_point(tmp_path):
    path = write_run(tmp_path / "run.csv", sweep(channels=["flume"]))
    script = ROOT / "plot.py"
    ok = subprocess.run([sys.executable, str(script), str(path)], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.strip() == str(tmp_path / "run.png")
    bad = subprocess.run([sys.executable, str(script), str(tmp_path / "nope.csv")], capture_output=True, text=True)
    assert bad.returncode == 2
    assert bad.stderr.startswith("fatal:") and "nope.csv" in bad.stderr and "Traceback" not in bad.stderr
    usage = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True)
    assert usage.returncode == 0 and "cloned-send" in usage.stdout and "cells.json" in usage.stdout


def test_no_argument_plots_newest_in_results(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "results").mkdir()
    old = write_run(tmp_path / "results" / "old.csv", sweep(channels=["flume"]))
    new = write_run(tmp_path / "results" / "new.csv", sweep(channels=["kanal"]))
    for path in (old, new):
        path.write_text("channel\n")
    os.utime(old, (2_000_000_000, 2_000_000_000))  # "old" is newest by mtime
    os.utime(new, (1_000_000_000, 1_000_000_000))
    sidecar = tmp_path / "results" / "new.latency.csv"  # newer still, but a run's latency sidecar
    sidecar.write_text("row,lat_histogram\n")
    os.utime(sidecar, (3_000_000_000, 3_000_000_000))
    assert plot.main([]) == 0
    assert capsys.readouterr().out.strip() == str(Path("results") / "old.png")
    assert not (tmp_path / "results" / "new.png").exists()


def test_no_argument_and_no_results(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert "make bench" in run_fatal([], capsys)


def test_a_csv_without_its_cells_json_names_the_command_that_makes_it(tmp_path, capsys):
    path = tmp_path / "r.csv"
    path.write_text("channel\n")
    err = run_fatal([path], capsys)
    assert f"{tmp_path / 'r.cells.json'}: not found; make it with `channel-bench cells {path}`" in err
    assert "no such file" in run_fatal([tmp_path / "missing.csv"], capsys)


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", '{"cells": 3}', "\udcff"])
def test_a_bad_cells_json_is_fatal(tmp_path, capsys, text):
    path = tmp_path / "r.csv"
    path.with_suffix(".cells.json").write_bytes(text.encode("utf-8", "surrogateescape"))
    err = run_fatal([path], capsys)
    assert "r.cells.json" in err


def test_bad_file_among_several_is_named(tmp_path, capsys):
    good = write_run(tmp_path / "good.csv", sweep(channels=["flume"]))
    err = run_fatal([good, tmp_path / "bad.csv"], capsys)
    assert "bad.csv" in err and "good.csv" not in err


def test_unknown_metric(tmp_path, capsys):
    err = run_fatal([write_run(tmp_path / "r.csv", sweep()), "--metric", "bogus"], capsys)
    assert "bogus" in err and "cpu_ns_per_message" in err


def test_bad_output_paths(tmp_path, capsys):
    path = write_run(tmp_path / "r.csv", sweep(channels=["flume"]))
    path.write_text("channel\n")
    assert "plot.xyz" in run_fatal([path, "-o", tmp_path / "plot.xyz"], capsys)
    run_fatal([path, "-o", path], capsys)  # never the input
    assert path.read_text() == "channel\n"
    assert "x.png" in run_fatal([path, "-o", tmp_path / "no-such-dir" / "x.png"], capsys)


def test_table_lists_each_cell_fastest_first(tmp_path, capsys):
    cells = [cell("flume", 1, [30.0, 50.0]), cell("kanal", 1, [20.0], failed=1), cell("flume", 2, [5.0]),
             cell("kanal", 2, [], failed=2)]
    path = write_run(tmp_path / "t.csv", cells)
    assert plot.main([str(path), "--table"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "# ns_per_message"
    assert out[1].split() == ["mode", "runtime", "tasks", "channel", "trimmed", "median", "min", "max", "ok"]
    rows = [line.split() for line in out[2:]]
    assert [(r[2], r[3]) for r in rows] == [("1", "kanal"), ("1", "flume"), ("2", "flume"), ("2", "kanal")]
    assert rows[0][4:] == ["20.0", "20.0", "20.0", "20.0", "1/2"]
    assert rows[1][4:] == ["40.0", "40.0", "30.0", "50.0", "2/2"]
    assert rows[3][4:] == ["-", "-", "-", "-", "0/2"]


def test_table_names_the_clusters_of_a_mixed_cell(tmp_path, capsys):
    mixed = cell("crossfire", 64, [40.0, 41.0, 39.0, 120.0, 121.0])
    mixed["ns_per_message"]["clusters"] = [{"centre": 40.0, "share": 0.6, "count": 3},
                                           {"centre": 120.5, "share": 0.4, "count": 2}]
    path = write_run(tmp_path / "m.csv", [mixed, cell("kanal", 64, [60.0, 61.0])])
    assert plot.main([str(path), "--table"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "clusters" not in lines[2]
    assert lines[3].endswith("5/5  clusters 40.0 ×60% | 120.5 ×40%"), lines[3]


def test_an_existing_image_is_replaced_only_with_force(tmp_path, capsys):
    path = write_run(tmp_path / "r.csv", [cell(samples=[20.0])])
    (tmp_path / "r.png").write_bytes(b"mine")
    assert plot.main([str(path)]) == 2
    assert "r.png already exists: pass --force" in capsys.readouterr().err
    assert (tmp_path / "r.png").read_bytes() == b"mine"
    assert plot.main([str(path), "--force"]) == 0
    assert (tmp_path / "r.png").read_bytes().startswith(PNG_MAGIC)
    (tmp_path / "folder.png").mkdir()
    assert plot.main([str(path), "--force", "-o", str(tmp_path / "folder.png")]) == 2
    assert "is not a regular file" in capsys.readouterr().err
    assert not (tmp_path / "t.png").exists()


@pytest.mark.parametrize("force", [[], ["--force"]])
def test_a_symbolic_link_is_never_written_through(tmp_path, capsys, force):
    path = write_run(tmp_path / "r.csv", [cell(samples=[20.0])])
    target = tmp_path / "target.png"
    target.write_bytes(b"mine")
    for link in (tmp_path / "r.png", tmp_path / "other.png"):
        link.symlink_to(target)
        argv = [path, *force] + (["-o", link] if link.name == "other.png" else [])
        err = run_fatal(argv, capsys)
        assert "symbolic link" in err and str(link) in err
        assert target.read_bytes() == b"mine" and link.is_symlink()
    dangling = tmp_path / "dangling.png"
    dangling.symlink_to(tmp_path / "nowhere.png")
    assert "symbolic link" in run_fatal([path, *force, "-o", dangling], capsys)
    assert not (tmp_path / "nowhere.png").exists()


def test_table_of_several_files(tmp_path, capsys):
    a = write_run(tmp_path / "a.csv", [cell(samples=[20.0])])
    b = write_run(tmp_path / "b.csv", [cell(samples=[10.0])])
    assert plot.main([str(a), str(b), "--table"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()[2:]]
    assert [(r[0], r[5]) for r in rows] == [("b", "10.0"), ("a", "20.0")]


# ---------------------------------------------------------------------------
# With the binary: a CSV, its cells.json, and the binary's other readers agree


def csv_of(rows):
    """A channel-bench CSV of (channel, runtime, tasks, ns, status) rows."""
    header = "channel,mode,runtime,workers,tasks,messages,capacity,capacity_per_channel,payload_bytes," \
             "sample,elapsed_ns,ns_per_message,cpu_ns,status"
    lines = [f"{c},cloned-send,{rt},2,{t},1000,64,64,1200,{i + 1},{int(ns * 1000)},{ns},{int(ns * 2000)},{status}"
             for i, (c, rt, t, ns, status) in enumerate(rows)]
    return "\n".join([header, *lines]) + "\n"


AGREEMENT_ROWS = [
    *[("kanal", "multi-thread", 1, ns, "ok") for ns in (100.0, 101.5, 99.25, 100.75, 98.0)],
    *[("flume", "multi-thread", 1, ns, "ok") for ns in (130.0, 131.5, 129.0)],
    ("flume", "multi-thread", 1, 900.0, "lost: 1 of 1000 messages missing"),
    *[("kanal", "current-thread", 8, ns, "ok") for ns in (55.5, 54.0)],
    *[("tokio-mpsc", "current-thread", 8, ns, "timeout: after 30s") for ns in (1.0, 2.0)],
]


def test_cells_json_from_the_binary_is_what_plot_draws_and_compare_and_summary_print(tmp_path, capsys):
    path = tmp_path / "agree.csv"
    path.write_text(csv_of(AGREEMENT_ROWS))
    result = channel_bench("cells", path)
    assert result.stdout.strip() == f"cells: {tmp_path / 'agree.cells.json'}"
    cells = json.loads((tmp_path / "agree.cells.json").read_text())["cells"]
    expected = {}
    for channel, runtime, tasks, ns, status in AGREEMENT_ROWS:
        expected.setdefault((runtime, tasks, channel), []).extend([ns] if status == "ok" else [])
    assert {(c["runtime"], c["tasks"], c["channel"]): c.get("ns_per_message", {}).get("samples", [])
            for c in cells} == expected
    means = {(c["runtime"], c["tasks"], c["channel"]): c["ns_per_message"]["trimmed_mean"]
             for c in cells if "ns_per_message" in c}
    assert means == pytest.approx({key: trimmed_mean(v) for key, v in expected.items() if v})

    # plot.py --table: the same cells, the same trimmed means (the headline figure)
    assert plot.main([str(path), "--table"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()[2:]]
    assert {(r[1], int(r[2]), r[3]) for r in rows} == set(expected)
    assert {(r[1], int(r[2]), r[3]): r[4] for r in rows if r[4] != "-"} == {
        key: f"{m:.1f}" for key, m in means.items()}

    # compare, the file against itself: the same cells, the same trimmed means
    compared = channel_bench("compare", path, path).stdout.splitlines()
    table = {(r[0], int(r[2]), r[3]): r[4] for r in map(str.split, compared[1:]) if len(r) > 4 and r[2].isdigit()}
    assert set(table) == set(expected)
    assert {key: m for key, m in table.items() if key in means} == {key: f"{m:.1f}" for key, m in means.items()}

    # summary: the same channels, ranked or named as not ranked (its figures are checked
    # against the cells in tests/agreement.rs)
    # (the page's Markdown: the console shows the picks alone)
    summary = channel_bench("summary", "--out", "-", path).stdout
    named = {word.strip("(),:*|").rstrip("\u2020") for word in summary.split()}
    assert {channel for _, _, channel in expected} <= named
    assert "| not ranked |" in summary
    assert "| flume (" in summary or ", flume (" in summary
    assert "tokio-mpsc (" in summary

    # plot.py draws exactly those trimmed means
    fig = plot.build_figure([plot.load_run(path)])
    assert line_data(fig.axes[0], "kanal") == {1: means[("multi-thread", 1, "kanal")]}


def test_a_csv_plotted_through_the_binary(tmp_path, capsys):
    path = tmp_path / "run.csv"
    path.write_text(csv_of(AGREEMENT_ROWS))
    run_fatal([path], capsys)  # no cells.json yet
    channel_bench("cells", path)
    assert plot.main([str(path)]) == 0
    assert (tmp_path / "run.png").read_bytes().startswith(PNG_MAGIC)
    # The cells.json plot.py read is left as it is by a second `cells`, and said so.
    kept = channel_bench("cells", path, check=False)
    assert kept.returncode == 0 and "left as it is (--force replaces it)" in kept.stdout


def test_a_custom_channel_has_the_same_colour_in_the_html_report_and_the_png(tmp_path):
    rows = [(channel, "multi-thread", tasks, 100.0 + tasks + i, "ok")
            for channel in ("my-own-channel", "kanal") for tasks in (1, 4) for i in range(3)]
    path = tmp_path / "own.csv"
    path.write_text(csv_of(rows))
    channel_bench("cells", path)
    channel_bench("report", path)
    html = (tmp_path / "own.html").read_text()
    cells = json.loads((tmp_path / "own.cells.json").read_text())["cells"]
    ax = plot.build_figure([plot.load_run(path)]).axes[0]
    drawn = {line.get_label(): line.get_color() for line in ax.get_lines()}
    for channel in ("my-own-channel", "kanal"):
        colour = {c["colour"] for c in cells if c["channel"] == channel}
        assert len(colour) == 1, colour
        (colour,) = colour
        assert f'data-channel="{channel}" fill="{colour}"' in html
        assert drawn[channel] == colour
    assert drawn["my-own-channel"] != drawn["kanal"]


def test_a_paced_run_gets_a_latency_figure_of_the_pooled_p99_beside_the_throughput_one(tmp_path, capsys):
    # A tiny paced sweep by the binary: its cells.json carries each cell's pooled p99.
    csv = tmp_path / "paced.csv"
    channel_bench("--pace", "10ms", "--duration", "30ms", "--tasks", "1,4", "--send", "try", "--latency",
                  "--channels", "kanal,flume", "--samples", "1", "--max-time", "0", "--warmup", "0",
                  "--runtimes", "current-thread", "--modes", "cloned-send", "--capacity", "1024", "--out", csv)
    assert plot.main([str(csv)]) == 0
    written = capsys.readouterr().out.splitlines()
    latency = tmp_path / "paced.latency.png"
    # every cell paced: no ns/message figure (it restates the schedule), one line saying so
    assert written == [f"{tmp_path / 'paced.png'}: not drawn: every cell is paced, and its ns_per_message "
                       "restates the schedule", str(latency)]
    assert latency.read_bytes().startswith(PNG_MAGIC) and not (tmp_path / "paced.png").exists()
    run = plot.load_run(csv)
    fig = plot.build_latency_figure([run], alone=True)
    assert "no ns/message figure: every cell is paced" in caption(fig)
    ax = fig.axes[0]
    first, second = ax.get_title().split("\n")
    assert first.startswith("current-thread · cloned-send · ") and ", out of phase, " in second
    for cell in filter(lambda c: "paced" in c, run.cells):  # a cell with no ok sample has no p99
        points = line_data(ax, cell["label"])
        assert points[cell["tasks"]] == pytest.approx(cell["paced"]["pooled_p99_ns"] / 1000)
    colours = {line.get_label(): line.get_color() for line in ax.get_lines()}
    assert colours == {c["label"]: c["colour"] for c in run.cells}
    # A second run leaves the image alone without --force.
    assert plot.main([str(csv)]) == 2
    assert "already exists" in capsys.readouterr().err


def test_an_unpaced_run_gets_no_latency_figure(tmp_path, capsys):
    path = write_run(tmp_path / "run.csv", sweep())
    assert plot.main([str(path)]) == 0
    assert not (tmp_path / "run.latency.png").exists()


def test_thin_cells_are_hollow_and_each_line_has_its_interval_band(tmp_path):
    cells = [cell("flume", 1, [10.0, 11.0, 12.0]), cell("flume", 2, [20.0])]
    cells[0]["ns_per_message"]["trimmed_mean_interval"] = [10.2, 11.8]
    path = write_run(tmp_path / "thin.csv", cells)
    data = json.loads(path.with_suffix(".cells.json").read_text())
    data["fewest_samples"] = 3
    path.with_suffix(".cells.json").write_text(json.dumps(data))
    fig = plot.build_figure([plot.load_run(path)])
    ax = fig.axes[0]
    thin = [c for c in ax.collections if c.get_gid() == "thin"]
    assert len(thin) == 1 and [list(p) for p in thin[0].get_offsets()] == [[2.0, 20.0]]
    assert len(thin[0].get_facecolors()) == 0  # hollow
    assert [c.get_gid() for c in ax.collections].count("interval") == 1
    assert "hollow circle: a cell with fewer than 3 samples" in " ".join(caption(fig).split())
    # Without the binary's threshold nothing is drawn hollow.
    write_run(tmp_path / "old.csv", cells)
    fig = plot.build_figure([load(tmp_path, cells, name="old.csv")])
    assert not [c for c in fig.axes[0].collections if c.get_gid() == "thin"]


def test_a_bounded_cell_is_marked_on_its_line_named_in_the_caption_and_counted_in_the_table(tmp_path):
    cells = [cell("flume", 1, [10.0, 11.0, 12.0]), cell("kanal", 1, [90.0, 95.0, 99.0])]
    cells[1]["bounded"] = 2
    run = load(tmp_path, cells)
    fig = plot.build_figure([run])
    marks = [c for c in fig.axes[0].collections if c.get_gid() == "bounded"]
    assert len(marks) == 1 and [list(p) for p in marks[0].get_offsets()] == [[1.0, pytest.approx(284 / 3)]]
    assert "×: a bounded cell" in " ".join(caption(fig).split())
    table = plot.cell_table([run], "ns_per_message")
    assert [line.endswith("bounded 2") for line in table[2:]] == [False, True]
    fig = plot.build_figure([load(tmp_path, cells[:1], name="calm.csv")])
    assert "bounded" not in caption(fig)


# ---------------------------------------------------------------------------
# Capacities, scales, highlights, end labels, phases


def with_capacity(cells, capacity, label=None):
    """The cells at `capacity` slots (per task when `label` says so), with the binary's
    `capacity_label` when given."""
    kind = "per-task" if label and label.endswith("per task") else "shared"
    for c in cells:
        c.update({"capacity": capacity, "name": c["name"] + f"/capacity={capacity}"})
        c["coord"] = {**c["coord"], "capacity": {kind: capacity}}
        c.update({"capacity_label": label} if label else {})
    return cells


def write_highlights(path, highlights):
    data = json.loads(path.with_suffix(".cells.json").read_text())
    path.with_suffix(".cells.json").write_text(json.dumps({**data, "highlights": highlights}))
    return path


def test_each_capacity_is_a_row_of_panels_that_never_share_a_line(tmp_path):
    small = with_capacity(sweep(channels=["flume", "kanal"], tasks=(1, 64)), 256, "256 slots per task")
    large = with_capacity(sweep(channels=["flume", "kanal"], tasks=(1, 64)), 65536)  # an older file: no label
    for c in large:
        c["ns_per_message"] = figures([10 * v for v in c["ns_per_message"]["samples"]])
    fig = plot.build_figure([load(tmp_path, small + large)])
    titles = [ax.get_title() for ax in fig.axes]
    assert [t.split(" · ")[0:2] + t.split(" · ")[3:] for t in titles] == [
        [mode, runtime, capacity] for capacity in ("256 slots per task", "65,536 slots")
        for mode in ("cloned-send", "merged-recv") for runtime in ("multi-thread", "current-thread")]
    for ax, title in zip(fig.axes, titles):
        assert labels_of(ax) == ["flume", "kanal"]  # one line per channel: the capacities apart
        scale = 10 if "65,536" in title else 1
        assert line_data(ax, "flume")[1] == pytest.approx(scale * trimmed_mean([20.0, 21.0, 22.0]))
    assert "capacity 256 slots per task, 65,536 slots" in caption(fig)


def test_each_panel_has_a_y_scale_its_own_lines_fill(tmp_path):
    cells = sweep(channels=["flume", "kanal"], runtimes=("multi-thread",))
    cells += [cell(c, t, [2.0 + s for s in range(3)], mode, "current-thread", workers=1)
              for c in ("flume", "kanal") for mode in ("cloned-send", "merged-recv") for t in (1, 2, 4)]
    fig = plot.build_figure([load(tmp_path, cells)])
    multi, current = fig.axes[0].get_ylim(), fig.axes[1].get_ylim()
    assert fig.axes[1].get_title().startswith("cloned-send · current-thread")
    assert multi[0] == current[0] == 0
    assert current[1] < 5 < 20 < multi[1] < 40  # each filled by its own lines and samples
    assert all(ax.get_xscale() == "log" for ax in fig.axes)


def test_the_highlighted_channels_are_drawn_thicker_and_on_top(tmp_path):
    path = write_run(tmp_path / "h.csv", with_capacity(sweep(), 1024, "1,024 slots"))
    coord = {"runtime": "multi-thread", "workers": 8, "capacity": {"shared": 1024}, "mode": "cloned-send",
             "setting": {"send": "wait", "latency": False, "allocs": False}, "machine": {"cores": 0, "cpu": ""}}
    write_highlights(path, [{"coord": coord, "channels": ["kanal", "flume"]}])
    fig = plot.build_figure([plot.load_run(path)])
    lines = {line.get_label(): line for line in fig.axes[0].get_lines()}
    thick = {name for name, line in lines.items() if line.get_linewidth() > 2}
    assert thick == {"kanal", "flume"}
    assert max(lines[n].get_linewidth() for n in lines if n not in thick) < 1.5
    assert min(lines[n].get_zorder() for n in thick) > max(lines[n].get_zorder() for n in lines if n not in thick)
    assert all(lines[n].get_alpha() < 1 for n in lines if n not in thick)
    # a panel the highlights do not name: every line as it always was
    assert {line.get_linewidth() for line in fig.axes[1].get_lines()} == {1.5}
    assert "bold: the band picks" in caption(fig)
    assert "bold" not in caption(plot.build_figure([load(tmp_path, sweep(), "plain.csv")]))


def test_a_highlight_is_a_channel_and_its_merge_not_its_label(tmp_path):
    cells = [cell("kanal", t, [20.0 + t], "merged-recv", merge=m) for m in ("select-all", "stream-map") for t in (1, 2)]
    path = write_run(tmp_path / "m.csv", cells)
    write_highlights(path, [{"coord": cells[0]["coord"], "channels": [{"channel": "kanal", "merge": "select-all"}]}])
    lines = {line.get_label(): line for line in plot.build_figure([plot.load_run(path)]).axes[0].get_lines()}
    thick = {name for name, line in lines.items() if line.get_linewidth() > 2}
    assert thick == {"kanal via select-all"}, lines
    # an older file's bare name: every merge of the channel
    write_highlights(path, [{"coord": cells[0]["coord"], "channels": ["kanal"]}])
    lines = plot.build_figure([plot.load_run(path)]).axes[0].get_lines()
    assert {line.get_label() for line in lines if line.get_linewidth() > 2} == {"kanal via select-all", "kanal via stream-map"}


def test_a_line_is_a_channel_merge_and_setting_as_data_whatever_their_words(tmp_path):
    plain = [cell("kanal", t, [20.0 + t]) for t in (1, 2)]
    batched = [cell("kanal", t, [30.0 + t]) for t in (1, 2)]
    for c in batched:  # another setting that words itself as the plain one does
        c["coord"] = {**c["coord"], "setting": {**c["coord"]["setting"], "batch": 2}}
    lines = plot.build_figure([load(tmp_path, plain + batched)]).axes[0].get_lines()
    assert sorted(list(line.get_ydata()) for line in lines) == [[21.0, 22.0], [31.0, 32.0]]


def test_every_line_is_named_at_its_right_end_without_overlaps(tmp_path):
    # five channels whose lines end within 0.1 ns of each other: their names are nudged apart
    cells = [cell(c, t, [100.0 + 0.02 * i] * 3) for i, c in enumerate(CHANNELS) for t in (1, 8)]
    fig = plot.build_figure([load(tmp_path, cells)])
    ax = fig.axes[0]
    names = [t for t in ax.texts if t.get_gid() == "end-label"]
    assert sorted(t.get_text() for t in names) == sorted(CHANNELS)
    assert {t.get_color() for t in names} == {colour_of(c) for c in CHANNELS}
    assert all(t.xy[0] == 8 and t.xyann[0] > 1 for t in names)  # at the line's end, right of the axes
    heights = sorted(t.xyann[1] for t in names)
    gap = plot.LABEL_SIZE / (ax.get_window_extent().height * 72 / fig.dpi)
    assert all(b - a >= gap for a, b in zip(heights, heights[1:])) and 0 <= heights[0] < heights[-1] <= 1
    assert not fig.legends


def paced_cell(channel, tasks, p99_ns, phase):
    """A paced cell as the binary exports it, out of phase when `phase` is `random`."""
    c = cell(channel, tasks, [4e6] * 2,
             setting=f"paced 5 every 20ms, {'random phase, ' if phase == 'random' else ''}send try, latency")
    words = "out of phase" if phase == "random" else "in phase"
    c["phased_setting"] = f"paced 5 every 20ms, {words}, send try, latency"
    c["coord"]["setting"] = {"pace_ns": 20_000_000, "burst": 5, "phase": phase, "send": "try", "latency": True,
                             "allocs": False}
    c["paced"] = {"pooled_p99_ns": p99_ns, "pacer_behind": False, "overflow_share": 0.0, "drop_share": 0.0}
    return c


def test_the_latency_panels_name_their_phase_and_an_all_paced_run_has_no_ns_per_message_figure(tmp_path, capsys):
    cells = [paced_cell(c, t, 1000 * t * (i + 1) + 10 * (phase == "random"), phase)
             for i, c in enumerate(["flume", "kanal"]) for t in (1, 300) for phase in ("random", "aligned")]
    path = write_run(tmp_path / "sfu.csv", with_capacity(cells, 1024))
    assert plot.main([str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{tmp_path / 'sfu.png'}: not drawn: every cell is paced")
    assert out[1:] == [str(tmp_path / "sfu.latency.png")] and not (tmp_path / "sfu.png").exists()
    fig = plot.build_latency_figure([plot.load_run(path)], alone=True)
    assert [ax.get_title() for ax in fig.axes] == [
        f"multi-thread · cloned-send · 1,024 slots\npaced 5 every 20ms, {phase}, send try, latency"
        for phase in ("in phase", "out of phase")]
    assert line_data(fig.axes[1], "kanal") == {1: 2.01, 300: 600.01}
    assert all(ax.get_yscale() == "log" for ax in fig.axes)
    assert len([t for t in fig.axes[0].texts if t.get_gid() == "end-label"]) == 2
    # beside unpaced cells, the ns/message figure leaves the paced ones to the latency figure
    both = write_run(tmp_path / "both.csv", cells + sweep(channels=["flume"]))
    assert plot.main([str(both)]) == 0
    assert capsys.readouterr().out.split() == [str(tmp_path / "both.png"), str(tmp_path / "both.latency.png")]
    fig = plot.build_figure([plot.load_run(both)])
    assert all(labels_of(ax) == ["flume"] for ax in fig.axes)
    assert "paced cells: in the latency figure" in caption(fig)

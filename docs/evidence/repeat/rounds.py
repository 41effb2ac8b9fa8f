"""One run, round by round: each ok sample's ns/message over its cell's median (every channel, a dot
each), and beside it the reading of the machine taken before the sample (the round trip between
cores for a multi-thread sample, the loop step for a current-thread one) over the run's median
reading; the rounds the run judged slow (`summary --json`'s host_noise.machine.slow_rounds) shaded.

    .venv/bin/python docs/evidence/repeat/rounds.py X.csv OUT.png [BINARY]

BINARY defaults to target/release/channel-bench. Drawing only: every judgement is the binary's.
"""

import csv
import json
import statistics
import subprocess
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

source, out = sys.argv[1], sys.argv[2]
binary = sys.argv[3] if len(sys.argv) > 3 else "target/release/channel-bench"
answer = json.loads(subprocess.run([binary, "summary", source, "--json"], check=True, capture_output=True,
                                   text=True).stdout)
machine = answer.get("host_noise", {}).get("machine") or {}
slow = set(machine.get("slow_rounds", []))

rows = [row for row in csv.DictReader(open(source)) if row["status"] == "ok" and row.get("round")]
cell = lambda row: (row["channel"], row["mode"], row["runtime"], row["tasks"], row["capacity"], row["batch"],
                    row["record_bytes"])
values = defaultdict(list)
for row in rows:
    values[cell(row)].append(float(row["ns_per_message"]))
medians = {key: statistics.median(found) for key, found in values.items()}
reading = lambda row: row["machine_handoff_ns"] if row["runtime"] == "multi-thread" else row["machine_loop_ns"]
typical = {runtime: statistics.median(float(reading(row)) for row in rows if row["runtime"] == runtime and reading(row))
           for runtime in {row["runtime"] for row in rows}}

figure, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(12, 6.5), height_ratios=[3, 1.4])
colours = {"multi-thread": "#1f77b4", "current-thread": "#d62728"}
for runtime, colour in colours.items():
    mine = [row for row in rows if row["runtime"] == runtime]
    top.scatter([int(row["round"]) for row in mine],
                [float(row["ns_per_message"]) / medians[cell(row)] for row in mine],
                s=4, alpha=0.35, color=colour, label=f"{runtime} samples")
    read = [row for row in mine if reading(row)]
    bottom.scatter([int(row["round"]) for row in read], [float(reading(row)) / typical[runtime] for row in read],
                   s=4, alpha=0.5, color=colour,
                   label=f"{runtime}: {'round trip between cores' if runtime == 'multi-thread' else 'loop step'}")
for axis in (top, bottom):
    axis.set_yscale("log")
    axis.axhline(1.0, color="grey", linewidth=0.8)
    for round_ in sorted(slow):
        axis.axvspan(round_ - 0.5, round_ + 0.5, color="orange", alpha=0.25, linewidth=0)
top.set_ylabel("ns/message over its cell's median")
bottom.set_ylabel("reading over the\nrun's median")
bottom.set_xlabel("round")
said = f"{len(slow)} slow rounds shaded" if slow else "no slow round"
top.set_title(f"{source.rsplit('/', 1)[-1]}: every sample by round, the machine's reading beside it ({said})")
top.legend(loc="upper right", markerscale=3)
bottom.legend(loc="upper right", markerscale=3, fontsize=8)
figure.tight_layout()
figure.savefig(out, dpi=110)
print(out)

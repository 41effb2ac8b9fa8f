"""Per-cell agreement between runs, of the seed benchmark and of channel-bench on the seed's
36 cells (cloned-send, multi-thread, tokio/flume/async-channel/futures-channel, tasks
1..512), from each side's runs of one sitting.

    python3 docs/evidence/noisy-host/seed-agreement.py --seed S1.log S2.log S3.log \
        --ours O1.csv O2.csv O3.csv [--binary PATH]

A seed log is its stdout (`# multi_thread, tasks: N, ...` headings, then one line per run of
a channel with its ns/message); a cell's figure there is the mean of its lines. Ours is the
trimmed mean of `channel-bench cells`. For every cell and every two runs of a side, the ratio
of the two figures (larger over smaller); prints each side's median, 90th percentile and worst.
"""

import json
import re
import statistics
import subprocess
import sys
from itertools import combinations

NAMES = {"tokio": "tokio-mpsc", "flume": "flume", "async-channel": "async-channel", "futures-channel": "futures-channel"}


def seed_cells(path):
    cells, tasks = {}, None
    for line in open(path):
        heading = re.match(r"# multi_thread,\s+tasks: (\d+)", line)
        if heading:
            tasks = int(heading.group(1))
            continue
        row = re.match(r"cloned-send (\S+)\s+\d+ ms\s+(\d+) ns/message", line)
        if row and tasks is not None:
            cells.setdefault((NAMES[row.group(1)], tasks), []).append(float(row.group(2)))
    return {key: statistics.mean(values) for key, values in cells.items()}


def our_cells(binary, csv):
    written = subprocess.run([binary, "cells", csv, "--out", "-"], check=True, capture_output=True, text=True)
    return {(c["channel"], c["tasks"]): c["ns_per_message"]["trimmed_mean"] for c in json.loads(written.stdout)["cells"] if c.get("ok", 0) > 0}


def agreement(runs):
    ratios = []
    for a, b in combinations(runs, 2):
        for key in a.keys() & b.keys():
            ratios.append(max(a[key], b[key]) / max(min(a[key], b[key]), 1e-9))
    ratios.sort()
    return statistics.median(ratios), ratios[int(0.9 * (len(ratios) - 1))], ratios[-1], len(ratios)


def main(argv):
    binary = argv[argv.index("--binary") + 1] if "--binary" in argv else "target/release/channel-bench"
    seed = argv[argv.index("--seed") + 1 : argv.index("--ours")]
    ours = [a for a in argv[argv.index("--ours") + 1 :] if a.endswith(".csv")]
    for name, runs in (("seed", [seed_cells(p) for p in seed]), ("channel-bench", [our_cells(binary, p) for p in ours])):
        median, p90, worst, count = agreement(runs)
        print(f"{name}: {count} cell pairs, ratio between runs median {median:.3f}, p90 {p90:.3f}, worst {worst:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

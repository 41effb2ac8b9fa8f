"""How far two runs' per-cell figures agree: from `channel-bench cells` of each.

    python3 docs/evidence/noisy-host/cell-agreement.py A.csv B.csv [--binary PATH]

Prints, over the cells both runs measured: the median, 90th percentile and worst ratio between
the two runs' trimmed means (the larger over the smaller), per runtime too; how many cells
rest on one sample in each run; and in how many groups (runtime, mode, task count) the two
runs name the same fastest channel.
"""

import json
import statistics
import subprocess
import sys


def cells(binary, csv):
    written = subprocess.run([binary, "cells", csv, "--out", "-"], check=True, capture_output=True, text=True)
    found = json.loads(written.stdout)["cells"]
    return {(c["runtime"], c["mode"], c["tasks"], c["channel"]): c for c in found if c.get("ok", 0) > 0}


def quantile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def main(argv):
    binary = argv[argv.index("--binary") + 1] if "--binary" in argv else "target/release/channel-bench"
    a, b = [arg for arg in argv if arg.endswith(".csv")][:2]
    first, second = cells(binary, a), cells(binary, b)
    shared = sorted(first.keys() & second.keys())
    ratios = {}
    for key in shared:
        x, y = first[key]["ns_per_message"]["trimmed_mean"], second[key]["ns_per_message"]["trimmed_mean"]
        ratios[key] = max(x, y) / min(x, y)
    for name, subset in [("all", shared)] + [(r, [k for k in shared if k[0] == r]) for r in ("current-thread", "multi-thread")]:
        values = [ratios[k] for k in subset]
        if values:
            print(f"{name}: {len(values)} cells, ratio between runs median {statistics.median(values):.3f}, "
                  f"p90 {quantile(values, 0.9):.3f}, worst {max(values):.3f}")
    for label, found in (("A", first), ("B", second)):
        thin = sum(1 for c in found.values() if c["ok"] == 1)
        print(f"{label}: {thin} of {len(found)} cells with one sample")
    groups = sorted({k[:3] for k in shared})
    same = 0
    for group in groups:
        fastest = []
        for found in (first, second):
            members = [c for k, c in found.items() if k[:3] == group]
            fastest.append(min(members, key=lambda c: c["ns_per_message"]["trimmed_mean"])["channel"])
        same += fastest[0] == fastest[1]
    print(f"same fastest channel in {same} of {len(groups)} groups")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

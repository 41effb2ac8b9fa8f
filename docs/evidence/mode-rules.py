"""How often a cell called mixed in one A/A sweep is mixed in the other, under variants of the
clusters rule (`stats::clusters`: a log-scale gap of at least a ratio, at least twice the widest gap
inside either side, at least k samples a side), re-implemented here to try other settings.

The files this script cites were removed from the working tree; they are in the repository at
commit 6d7aacb (`git show 6d7aacb:PATH`).

Reads the per-cell samples that `channel-bench cells` writes (disturbed samples left out),
into a folder of their own laid out as results/ is:

    for f in results/reference/aa/*.csv results/reference/aa-noisy-host/run*.csv results/reference/aa-busier-host/run*.csv; do
        mkdir -p "/tmp/modes/$(dirname "$f")"
        channel-bench cells --out "/tmp/modes/${f%.csv}.cells.json" "$f"
    done
    python3 docs/evidence/mode-rules.py /tmp/modes/results

and prints, per day and variant, the mixed cells per run and, over every pair of that day's
sweeps read both ways, how many cells mixed in one were mixed in the other.
"""

import itertools
import json
import math
import sys
from pathlib import Path

DAYS = {"quiet": "aa/*.cells.json", "noisier": "aa-noisy-host/run*.cells.json", "noisiest": "aa-busier-host/run*.cells.json"}
VARIANTS = [(2, 1.5), (3, 1.5), (2, 1.8)]


def clusters(values, min_count, ratio, over_inner=2.0):
    """The index ranges of the clusters of sorted `values`, as `stats::clusters` finds them."""
    n = len(values)
    if n == 0:
        return []

    def gap(i):
        return math.log(values[i + 1] / values[i])

    cuts = [i for i in range(n - 1) if gap(i) >= math.log(ratio)]
    while True:
        ranges = list(zip([0] + [cut + 1 for cut in cuts], [cut + 1 for cut in cuts] + [n]))
        small = next((at for at, (start, end) in enumerate(ranges) if end - start < min_count), None)
        if small is not None:
            left = small - 1 if small > 0 else None
            right = small if small < len(cuts) else None
            if left is None and right is None:
                return ranges
            if left is None or right is None:
                cuts.pop(left if right is None else right)
            else:
                cuts.pop(left if gap(cuts[left]) <= gap(cuts[right]) else right)
            continue

        def inner(bounds):
            return max([gap(i) for i in range(bounds[0], bounds[1] - 1)] + [0.0])

        def strength(at):
            return gap(cuts[at]) / max(inner(ranges[at]), inner(ranges[at + 1]), 1e-12)

        weak = [at for at in range(len(cuts)) if strength(at) < over_inner]
        if not weak:
            return ranges
        cuts.pop(min(weak, key=strength))


def samples(path):
    cells = json.loads(path.read_text())["cells"]
    return {cell["name"]: sorted(cell["ns_per_message"]["samples"]) for cell in cells}


if __name__ == "__main__":
    here = Path(sys.argv[1])
    for min_count, ratio in VARIANTS:
        for day, pattern in DAYS.items():
            runs = [samples(path) for path in sorted(here.glob(pattern))]
            mixed = [{name for name, values in run.items() if len(clusters(values, min_count, ratio)) > 1} for run in runs]
            again = sum(len(one & other) for one, other in itertools.permutations(mixed, 2))
            called = sum(len(one) for one, _ in itertools.permutations(mixed, 2))
            print(
                f"{min_count} a side, gap {ratio}x, {day}: {min(map(len, mixed))}-{max(map(len, mixed))} mixed per run; "
                f"mixed in one, mixed in the other: {again} of {called}"
            )

"""How one pair of channels compares in each run, and whether that moves inside a run.

For every CSV given (one run each), per mode on one runtime: the geometric mean of channel A's
ns/message over channel B's in the rounds where both were measured (A/B < 1: A is faster), over
each third of the run's rounds in turn. A pair that moves between thirds drifts inside the run;
one that is steady inside each run but differs between runs moves with the run (its process,
or the host's state over the hours between runs).

    python3 docs/evidence/host-state-trial/pair-ratio.py crossfire kanal current-thread \
        docs/evidence/host-state-trial/eight-channels/*.csv
"""

import collections
import csv
import math
import sys


def thirds(path, a, b, runtime):
    rounds = collections.defaultdict(dict)
    with open(path, newline="") as file:
        for row in csv.DictReader(file):
            if row["status"] == "ok" and row["runtime"] == runtime and not row["pace_ns"]:
                rounds[(row["mode"], row["tasks"], row["round"])][row["channel"]] = float(row["ns_per_message"])
    by_mode = collections.defaultdict(list)
    for (mode, _, round_), found in rounds.items():
        if a in found and b in found:
            by_mode[mode].append((int(round_), math.log(found[a] / found[b])))
    for mode, ratios in sorted(by_mode.items()):
        ratios.sort()
        parts = [ratios[i * len(ratios) // 3 : (i + 1) * len(ratios) // 3] for i in range(3)]
        means = [math.exp(sum(r for _, r in part) / len(part)) for part in parts if part]
        yield mode, len(ratios), means


if __name__ == "__main__":
    a, b, runtime, *paths = sys.argv[1:]
    for path in paths:
        for mode, count, means in thirds(path, a, b, runtime):
            shown = ", ".join(f"{mean:.3f}" for mean in means)
            print(f"{path}: {runtime} {mode} {a}/{b} over {count} rounds, by thirds: {shown}")

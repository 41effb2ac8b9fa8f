"""Whether runs of one build differ beyond what their samples predict.

For each cell (mode, tasks, channel) found in every CSV of a folder, one CSV per run: the
variance of the runs' means of log ns/message, over the mean within-run variance divided by
the samples per run. About 1 when the runs differ no more than their samples say; larger
when something lasting a whole run (the process, or the host over minutes) moves a cell.

    python3 docs/evidence/process-trial/variance.py docs/evidence/process-trial/blocks-one-process

prints the median, the 90th percentile and the largest of that ratio over the cells.
"""

import collections
import csv
import math
import statistics
import sys
from pathlib import Path


def ratios(folder):
    runs = collections.defaultdict(dict)
    for path in sorted(Path(folder).glob("*.csv")):
        with open(path, newline="") as file:
            for row in csv.DictReader(file):
                if row["status"] == "ok":
                    cell = (row["mode"], row["tasks"], row["channel"])
                    runs[cell].setdefault(path.name, []).append(math.log(float(row["ns_per_message"])))
    found = []
    for by_run in runs.values():
        samples = list(by_run.values())
        if len(samples) < 2 or min(map(len, samples)) < 2:
            continue
        per_run = min(map(len, samples))
        within = statistics.mean(statistics.variance(run) for run in samples)
        found.append(statistics.variance([statistics.mean(run) for run in samples]) / (within / per_run))
    return sorted(found)


if __name__ == "__main__":
    found = ratios(sys.argv[1])
    print(
        f"{sys.argv[1]}: {len(found)} cells, median {statistics.median(found):.2f}, "
        f"90th percentile {found[int(0.9 * len(found))]:.2f}, largest {found[-1]:.2f}"
    )

"""How often each cell's repeat interval in one run holds the other run's figure, both ways, for
two runs of one command: `python3 held.py A.csv B.csv [BINARY]` (BINARY defaults to
target/release/channel-bench). Prints the share held and the intervals' upper side as a multiple
of the figure (median and p90)."""
import json
import subprocess
import sys

BINARY = sys.argv[3] if len(sys.argv) > 3 else "target/release/channel-bench"


def cells(csv):
    out = subprocess.run([BINARY, "cells", csv, "--out", "-"], check=True, capture_output=True, text=True).stdout
    return {c["name"]: c for c in json.loads(out)["cells"] if c.get("ok", 0) > 0 and c.get("ns_per_message")}


a, b = cells(sys.argv[1]), cells(sys.argv[2])
held = counted = without = 0
widths = []
for mine, other in ((a, b), (b, a)):
    for name in mine.keys() & other.keys():
        figures = mine[name]["ns_per_message"]
        interval = figures.get("repeat_interval")
        if not interval:
            without += 1
            continue
        counted += 1
        held += interval[0] <= other[name]["ns_per_message"]["trimmed_mean"] <= interval[1]
        widths.append(interval[1] / figures["trimmed_mean"])
widths.sort()
print(f"repeat interval holds the other run's figure: {held} of {counted} ({100 * held / max(counted, 1):.1f}%), "
      f"{without} cells without one; upper side x{widths[len(widths) // 2]:.3f} median, "
      f"x{widths[int(0.9 * len(widths))]:.3f} p90")

"""Whether a known slowdown of each band's leader shows: in the answer, and in `compare`.

    python3 docs/evidence/process-per-round/slowed-leaders.py A.csv B.csv CHANNEL,CHANNEL,... [--binary PATH]

B is the same sweep as A with CHANNEL_BENCH_SLOW slowing the listed channels (the faults build).
For every band of A's answer (`summary --json`) whose leader is one of them: the leader's figure
over the fastest channel of the band that was not slowed (from the CSVs: the geometric mean over
the band's task counts of each cell's median ns/message), in A and in B; the band counts when B's
ratio is higher. Then `compare A B`: of the slowed leaders' cells at their bands' task counts,
how many it calls slower.
"""

import collections
import csv
import json
import math
import statistics
import subprocess
import sys


def medians(path):
    found = collections.defaultdict(list)
    with open(path, newline="") as file:
        for row in csv.DictReader(file):
            if row["status"] == "ok" and not row["pace_ns"]:
                found[(row["runtime"], row["mode"], int(row["tasks"]), row["channel"])].append(float(row["ns_per_message"]))
    return {key: statistics.median(values) for key, values in found.items()}


def band_figure(cells, runtime, mode, tasks, channel):
    values = [cells.get((runtime, mode, count, channel)) for count in tasks]
    if any(value is None for value in values):
        return None
    return math.exp(sum(math.log(value) for value in values) / len(values))


def main(a, b, slowed, binary):
    answer = json.loads(subprocess.run([binary, "summary", "--json", a], capture_output=True, text=True, check=True).stdout)
    cells_a, cells_b = medians(a), medians(b)
    channels = {key[3] for key in cells_a}
    counted, higher, moves, leader_cells = 0, 0, [], set()
    for band in answer["bands"]:
        leader = band["leader"]["channel"]
        if leader not in slowed:
            continue
        runtime, mode, tasks = band["runtime"], band["mode"], band["tasks"]
        leader_cells |= {(runtime, mode, count, leader) for count in tasks}
        unslowed = [
            (figure, channel)
            for channel in channels - set(slowed)
            if (figure := band_figure(cells_a, runtime, mode, tasks, channel)) is not None
        ]
        if not unslowed:
            continue
        _, rival = min(unslowed)
        ratio = lambda cells: band_figure(cells, runtime, mode, tasks, leader) / band_figure(cells, runtime, mode, tasks, rival)
        before, after = ratio(cells_a), ratio(cells_b)
        counted += 1
        higher += after > before
        moves.append(after / before - 1)
        print(f"{runtime} {mode} {band['band']}: {leader}/{rival} {before:.3f} -> {after:.3f}")
    print(f"bands led by a slowed channel: {counted}; its ratio to the fastest unslowed channel rose in {higher}"
          f" (median {100 * statistics.median(moves):+.1f}%)")
    table = subprocess.run([binary, "compare", a, b], capture_output=True, text=True).stdout
    called = collections.Counter()
    for line in table.splitlines():
        parts = line.split()
        if len(parts) > 4 and (parts[0], parts[1], parts[2].isdigit() and int(parts[2]), parts[3]) in leader_cells:
            called[parts[-1]] += 1
    print(f"compare: of the {len(leader_cells)} slowed leaders' cells, called slower {called['slower']},"
          f" faster {called['faster']}, no change {called['~']}")


if __name__ == "__main__":
    args = sys.argv[1:]
    binary = "target/release/channel-bench"
    if "--binary" in args:
        at = args.index("--binary")
        binary = args[at + 1]
        del args[at : at + 2]
    main(args[0], args[1], args[2].split(","), binary)

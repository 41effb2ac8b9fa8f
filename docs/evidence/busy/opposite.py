"""Two runs' answers against each other: the bands where each run's leader puts the other's behind
beyond the noise, and how far each channel's ratio to the first run's leader moved, per runtime.

    python3 docs/evidence/busy/opposite.py A.csv B.csv BINARY

Reads `BINARY summary --json` of each. The root mean square of the moves over the pairs of a free
and a busy run is what `results::noise::Metric::busy_drift` is set from.
"""
import json
import math
import statistics
import subprocess
import sys


def answer(binary, csv):
    found = subprocess.run([binary, "summary", "--json", csv], capture_output=True, text=True, check=True)
    bands = {}
    for band in json.loads(found.stdout)["bands"]:
        others = ([band["runner_up"]] if band.get("runner_up") else []) + band.get("contenders", [])
        key = (band["runtime"], band["mode"], band["band"], json.dumps(band.get("capacity")), band.get("setting", ""))
        entries = {other["channel"]: other for other in others}
        entries[band["leader"]["channel"]] = {"ratio": 1.0, "verdict": "leader"}
        bands[key] = (band["leader"]["channel"], entries)
    return bands


def main(a, b, binary):
    first, second = answer(binary, a), answer(binary, b)
    opposite, separated, moves = [], [0, 0], {}
    for key in sorted(first.keys() & second.keys()):
        (lead_a, in_a), (lead_b, in_b) = first[key], second[key]
        separated[0] += sum(entry["verdict"] == "separated" for entry in in_a.values())
        separated[1] += sum(entry["verdict"] == "separated" for entry in in_b.values())
        behind = lambda entries, channel: entries.get(channel, {}).get("verdict") == "separated"
        if lead_a != lead_b and behind(in_b, lead_a) and behind(in_a, lead_b):
            opposite.append((key, lead_a, lead_b))
        if lead_a not in in_b:
            continue
        for channel in (in_a.keys() & in_b.keys()) - {lead_a}:
            moved = math.log(in_b[channel]["ratio"] / in_b[lead_a]["ratio"]) - math.log(in_a[channel]["ratio"])
            moves.setdefault(key[0], []).append(moved)
    print(f"{a} against {b}: {len(opposite)} bands whose leaders each put the other behind beyond the noise {opposite}")
    print(f"  verdicts separated: {separated[0]} and {separated[1]}")
    for runtime, moved in sorted(moves.items()):
        rms = math.sqrt(sum(m * m for m in moved) / len(moved))
        print(f"  {runtime}: {len(moved)} pairs; log ratio moved by a median {statistics.median(moved):+.3f}, "
              f"root mean square {rms:.3f}, most {max(moved, key=abs):+.3f}")


if __name__ == "__main__":
    main(*sys.argv[1:4])

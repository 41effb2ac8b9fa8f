"""How decisive two runs' answers are, and whether they agree: from `channel-bench summary --json`.

    python3 docs/evidence/host-state-trial/aa-verdicts.py A.csv B.csv [--binary PATH]

A and B may each be several runs separated by commas (pooled). Prints, for the answer of each,
and for each capacity when the runs hold several (bands are per capacity):

- decisive bands: the leader separated from the runner-up, or tied with it within 10%
  (current-thread) / 15% (multi-thread), the interval's far end;
- contradicted bands: one answer has channel X separated behind leader L, the other has X
  as the leader with L separated behind it;
- pairs (a channel against its band's leader, the same leader in both) whose two estimates
  differ beyond the 95% interval of their difference (the two intervals' half-widths added in
  quadrature, on the log scale): about 5% of the pairs when each interval is right;
- of those pairs' estimates called separated in one answer (read either way), how many lie
  outside the other answer's interval;
- per runtime, how far those pairs' log ratios moved between the two answers: the robust
  standard deviation (1.4826 × the median absolute deviation from the median) of the change,
  and the same over √2, the figure `Metric::drift` takes for paired speed (one run's share).
"""

import json
import math
import statistics
import subprocess
import sys

TIE_LIMIT = {"current-thread": 1.10, "multi-thread": 1.15}


def answer(binary, runs):
    found = subprocess.run([binary, "summary", "--json", *runs.split(",")], capture_output=True, text=True, check=True)
    bands = {}
    for band in json.loads(found.stdout)["bands"]:
        others = ([band["runner_up"]] if band.get("runner_up") else []) + band.get("contenders", [])
        capacity = band.get("capacity")
        capacity = "" if capacity is None else " ".join(f"{rule} {slots}" for rule, slots in capacity.items())
        bands[(band["runtime"], band["mode"], band["band"], capacity)] = (
            band["leader"]["channel"],
            band.get("runner_up"),
            {other["channel"]: other for other in others},
        )
    return bands


def decisive(runtime, runner_up):
    return runner_up is not None and (
        runner_up["verdict"] == "separated" or runner_up["interval"][1] <= TIE_LIMIT[runtime]
    )


def half_width(other):
    low, high = other["interval"]
    return (math.log(high) - math.log(low)) / (2 * 1.96)


def main(a, b, binary):
    first, second = answer(binary, a), answer(binary, b)
    totals = [0, 0, 0, 0, 0, 0]
    for capacity in sorted({key[3] for key in first} | {key[3] for key in second}):
        if capacity:
            print(f"\n## at {capacity}")
        at = lambda bands: {key: value for key, value in bands.items() if key[3] == capacity}
        totals = [t + c for t, c in zip(totals, report(a, at(first), b, at(second)))]
    decisive_a, decisive_b, bands, contradicted, pairs, differ = totals
    print(
        f"\nin all: {decisive_a} and {decisive_b} of {bands} bands decisive; {contradicted} contradicted; "
        f"{differ} of {pairs} pairs ({100 * differ / max(pairs, 1):.1f}%) beyond their combined 95% interval"
    )


def report(a, first, b, second):
    contradicted, pairs, differ = [], 0, 0
    separated, outside = 0, 0
    moved = {}
    for key in first.keys() & second.keys():
        (lead_a, _, others_a), (lead_b, _, others_b) = first[key], second[key]
        if lead_a != lead_b:
            behind_in_a = others_a.get(lead_b, {}).get("verdict") == "separated"
            behind_in_b = others_b.get(lead_a, {}).get("verdict") == "separated"
            if behind_in_a and behind_in_b:
                contradicted.append(key)
            continue
        for channel in others_a.keys() & others_b.keys():
            x, y = others_a[channel], others_b[channel]
            pairs += 1
            gap = abs(math.log(x["ratio"]) - math.log(y["ratio"]))
            differ += gap > 1.96 * math.hypot(half_width(x), half_width(y))
            moved.setdefault(key[0], []).append(math.log(x["ratio"]) - math.log(y["ratio"]))
            for one, other in ((x, y), (y, x)):
                if one["verdict"] == "separated":
                    separated += 1
                    outside += not other["interval"][0] <= one["ratio"] <= other["interval"][1]
    counts = []
    for name, bands in ((a, first), (b, second)):
        count = sum(decisive(key[0], runner_up) for key, (_, runner_up, _) in bands.items())
        counts.append(count)
        print(f"{name}: {count} of {len(bands)} bands decisive")
    print(f"contradicted bands: {len(contradicted)} {contradicted if contradicted else ''}".rstrip())
    print(f"pairs under the same leader in both: {pairs}; estimates that differ beyond their combined 95% interval: {differ}")
    print(f"estimates called separated (read either way): {separated}; outside the other answer's interval: {outside}")
    for runtime, changes in sorted(moved.items()):
        centre = statistics.median(changes)
        spread = 1.4826 * statistics.median(abs(change - centre) for change in changes)
        print(f"{runtime}: {len(changes)} pairs, robust sd of the change of a log ratio {spread:.4f} (over √2: {spread / math.sqrt(2):.4f})")
    return counts + [len(first.keys() & second.keys()), len(contradicted), pairs, differ]


if __name__ == "__main__":
    args = sys.argv[1:]
    binary = "target/release/channel-bench"
    if "--binary" in args:
        at = args.index("--binary")
        binary = args[at + 1]
        del args[at : at + 2]
    main(args[0], args[1], binary)

"""Per-cell agreement of two runs of one command: `python3 named.py A.csv B.csv [BINARY]` (BINARY
defaults to target/release/channel-bench). Prints the ratio of the larger figure (trimmed mean,
ns/message) to the smaller, median / p90 / worst, over every cell both runs measured and over the
cells the answer names (each band's leader and runner-up in either run); then, for the named
cells, the same ratio had the figure been another statistic of the same kept samples (median,
geometric mean, mean of the faster half, fastest), to show how much of the disagreement the
choice of statistic could remove. How often a cell's printed interval (its repeat interval)
holds the other run's figure is `held.py`'s to say."""
import json, math, subprocess, sys, statistics
B = sys.argv[3] if len(sys.argv) > 3 else "target/release/channel-bench"
def cells(csv):
    out = subprocess.run([B, "cells", csv, "--out", "-"], check=True, capture_output=True, text=True).stdout
    res = {}
    for c in json.loads(out)["cells"]:
        if c.get("ok", 0) > 0 and c.get("ns_per_message"):
            res[(c["runtime"], c["mode"], c["tasks"], c["channel"], c["capacity"])] = c
    return res
def named(csv):
    out = subprocess.run([B, "summary", csv, "--json"], check=True, capture_output=True, text=True).stdout
    keys = set()
    for b in json.loads(out)["bands"]:
        cap = list(b["capacity"].values())[0] if isinstance(b["capacity"], dict) else b["capacity"]
        for who in ("leader", "runner_up"):
            if b.get(who):
                for t in b["tasks"]:
                    keys.add((b["runtime"], b["mode"], t, b[who]["channel"], cap))
    return keys
a, b = cells(sys.argv[1]), cells(sys.argv[2])
both = a.keys() & b.keys()
def q(v, p): v = sorted(v); return v[min(len(v) - 1, int(p * len(v)))]
def ratios(keys, figure):
    return [max(figure(a[k]), figure(b[k])) / min(figure(a[k]), figure(b[k])) for k in keys]
def spread(r): return f"ratio median {statistics.median(r):.3f}, p90 {q(r, 0.9):.3f}, worst {max(r):.3f}"
trimmed = lambda c: c["ns_per_message"]["trimmed_mean"]
print(f"all cells: {len(both)} cells, {spread(ratios(both, trimmed))}")
names = both & (named(sys.argv[1]) | named(sys.argv[2]))
print(f"named cells: {len(names)} cells, {spread(ratios(names, trimmed))}")
samples = lambda c: sorted(c["ns_per_message"]["samples"])
others = {
    "median": lambda c: statistics.median(samples(c)),
    "geometric mean": lambda c: math.exp(statistics.mean(math.log(x) for x in samples(c))),
    "mean of the faster half": lambda c: statistics.mean(samples(c)[:(len(samples(c)) + 1) // 2]),
    "fastest": lambda c: samples(c)[0],
}
for name, figure in others.items():
    print(f"named cells by their {name}: {spread(ratios(names, figure))}")

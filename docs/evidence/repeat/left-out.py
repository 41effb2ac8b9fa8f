"""How the samples a run left out compare with those it kept: `python3 left-out.py CELLS.json...`
(the `.cells.json` files a sweep writes beside its CSV). For each runtime, over every cell with a
sample left out, prints how many left-out samples there are, the median of each one's ratio to
its cell's kept median (ns/message), and the share of them faster than that median."""
import json, math, statistics, sys
from collections import defaultdict

ratios = defaultdict(list)
for path in sys.argv[1:]:
    for cell in json.load(open(path))["cells"]:
        figure = cell.get("ns_per_message")
        if not figure or not cell.get("disturbed"):
            continue
        for value in cell["disturbed"]:
            ratios[cell["runtime"]].append(math.log(value / figure["median"]))
for runtime, logs in sorted(ratios.items()):
    faster = 100 * sum(r < 0 for r in logs) / len(logs)
    print(f"{runtime}: {len(logs)} samples left out, median {math.exp(statistics.median(logs)):.2f}× "
          f"their cell's kept median, {faster:.0f}% faster than it")

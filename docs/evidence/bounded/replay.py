"""Replays a sweep's CSV with the bound: each sample of a channel not kept, in file order, whose
elapsed exceeds max(BOUND_CUT x its group's fastest full sample so far (earlier rows, its round
included), BOUND_FLOOR) would have cost the bound instead. Prints measured time before and after,
and the time of the five slowest channels. A model: warm-ups and teardown are not in the CSV."""
import csv, sys, collections
CUT, FLOOR = 4.0, 0.1e9
for path in sys.argv[1:]:
    rows = list(csv.DictReader(open(path)))
    fastest = {}
    before = after = 0.0
    per = collections.Counter(); per_after = collections.Counter()
    bounded = 0
    for r in rows:
        if r['status'] != 'ok' or r.get('pace_ns'):
            continue
        e = float(r['elapsed_ns'])
        g = (r['runtime'], r['workers'], r['mode'], r['tasks'], r['capacity'], r.get('task_capacity',''), r['payload'], r.get('merge',''))
        f = fastest.get(g)
        cost = e
        if f is not None and e > max(CUT * f, FLOOR):
            cost = max(CUT * f, FLOOR); bounded += 1
        else:
            fastest[g] = min(f, e) if f is not None else e
        before += e; after += cost
        per[r['channel']] += e; per_after[r['channel']] += cost
    slow = [c for c, _ in per.most_common(5)]
    print(f"{path}: measured {before/1e9:.1f} s -> {after/1e9:.1f} s with the bound ({bounded} of {len(rows)} samples bounded); "
          f"five slowest {', '.join(slow)}: {sum(per[c] for c in slow)/1e9:.1f} s -> {sum(per_after[c] for c in slow)/1e9:.1f} s")

#!/usr/bin/env python3
"""Counts an A/B run's calls: `channel-bench ab --from X.csv --json | calls.py CHANNEL`.

For the channel named (the one slowed on one side, or none for an A/A), how many of its cells
and bands per runtime were called slower; for every other channel, how many cells and bands
were called changed at all (false calls when only CHANNEL changed).
"""
import json
import sys


def main():
    slowed = sys.argv[1] if len(sys.argv) > 1 else None
    text = sys.stdin.read()
    verdicts = json.loads(text[text.index("{"):])
    for kind in ("cells", "bands"):
        changes = verdicts[kind]
        mine = [c for c in changes if c["channel"] == slowed]
        others = [c for c in changes if c["channel"] != slowed]
        for runtime in ("current-thread", "multi-thread"):
            of = [c for c in mine if c["runtime"] == runtime]
            if of:
                slower = sum(c["call"] == "higher" for c in of)
                print(f"{slowed} {kind} {runtime}: {slower} of {len(of)} called slower")
        changed = [c for c in others if c["call"] != "tied"]
        print(f"other channels' {kind}: {len(changed)} of {len(others)} called changed")
        for c in changed:
            print(f"  {c['channel']} {c['place']}: {c['ratio']:.2f} [{c['low']:.2f}-{c['high']:.2f}] {c['call']}")
    detectable = ", ".join(f"{runtime} {half * 100:.0f}%" for runtime, half in verdicts["detectable"])
    print(f"can detect: {detectable}")


if __name__ == "__main__":
    main()

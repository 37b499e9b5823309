#!/usr/bin/env python3
"""Compares the --json outputs of two runs of remat-run / remat-gpu-run.

  compare-runs.py A.json B.json [--rtol R] [--atol A] [--bitwise] [--same-peak]

Per result: with --bitwise the FNV-1a 64 hashes of the bytes must be equal;
otherwise |sum_A - sum_B| <= rtol * abs_sum_A + atol and likewise for abs_sum
(the sums run over every element, so this bounds the accumulated error of the
whole tensor relative to its magnitude). --same-peak also requires equal
peak_bytes (the bytes allocated by the step itself, inputs excluded).
Prints one line per result and OK or MISMATCH; exits 1 on a mismatch.
"""
import argparse
import json
import sys


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--rtol", type=float, default=1e-4)
    p.add_argument("--atol", type=float, default=1e-5)
    p.add_argument("--bitwise", action="store_true")
    p.add_argument("--same-peak", action="store_true")
    args = p.parse_args()
    with open(args.a) as f:
        a = json.load(f)
    with open(args.b) as f:
        b = json.load(f)
    ok = True
    if len(a["results"]) != len(b["results"]):
        print("MISMATCH: %d vs %d results" % (len(a["results"]), len(b["results"])))
        return 1
    for ra, rb in zip(a["results"], b["results"]):
        if args.bitwise:
            good = ra["fnv1a64"] == rb["fnv1a64"]
            detail = "fnv1a64 %s vs %s" % (ra["fnv1a64"], rb["fnv1a64"])
        else:
            bound = args.rtol * ra["abs_sum"] + args.atol
            d1 = abs(ra["sum"] - rb["sum"])
            d2 = abs(ra["abs_sum"] - rb["abs_sum"])
            good = d1 <= bound and d2 <= bound
            detail = "sum %.9g vs %.9g (|diff| %.3g, abs_sum |diff| %.3g, bound %.3g)" % (
                ra["sum"], rb["sum"], d1, d2, bound)
        ok &= good
        print("result #%d %s: %s %s" % (ra["index"], ra["type"], "ok" if good else "MISMATCH", detail))
    if args.same_peak:
        good = a["peak_bytes"] == b["peak_bytes"]
        ok &= good
        print("peak_bytes %d vs %d: %s" % (a["peak_bytes"], b["peak_bytes"], "ok" if good else "MISMATCH"))
    print("OK" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Checks a data-parallel run of remat-run against the single-process step.

  check_data_parallel.py SINGLE.json RANKS.json REMAT.json PLANNED.mlir

SINGLE.json: `remat-run --json --print-results` of the step on the whole
batch; RANKS.json and REMAT.json: `mpirun -np N remat-run --json
--print-results` of the annotated step without and with rematerialization.
Checks, and prints one line per check:
  * every rank's results (loss and updated parameters) equal the
    single-process results within |a - b| <= ATOL + RTOL * |b| per element
    (the reduction order differs: partial sums per rank, then the all-reduce);
  * every rank holds bitwise the same results (replicated parameters);
  * per rank, the rematerialized run is bitwise identical to the plain one;
  * per rank, the rematerialized run's measured peak plus its inputs is
    within the per-rank budget the planner was given: the `budget = N` of
    the `remat.plan` in PLANNED.mlir (remat-opt's output for the per-rank
    step).
Exits non-zero on the first failed check.
"""
import json
import re
import sys

RTOL = 1e-5
ATOL = 1e-6


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def main(argv):
    if len(argv) != 5:
        fail("usage: check_data_parallel.py SINGLE RANKS REMAT PLANNED")
    with open(argv[1]) as f:
        single = json.load(f)
    with open(argv[2]) as f:
        plain = json.load(f)["per_rank"]
    with open(argv[3]) as f:
        remat = json.load(f)["per_rank"]
    with open(argv[4]) as f:
        plan = re.search(r"remat\.plan = #remat\.plan<[^>]*budget = (\d+)",
                         f.read())
    if not plan:
        fail("no remat.plan with a budget in " + argv[4])
    budget = int(plan.group(1))

    worst = 0.0
    for report in plain + remat:
        if len(report["results"]) != len(single["results"]):
            fail("rank %d returned %d results, the single-process step %d" %
                 (report["rank"], len(report["results"]),
                  len(single["results"])))
    for report in plain:
        for mine, ref in zip(report["results"], single["results"]):
            for a, b in zip(mine["values"], ref["values"]):
                if abs(a - b) > ATOL + RTOL * abs(b):
                    fail("rank %d result #%d: %r vs %r" %
                         (report["rank"], mine["index"], a, b))
                worst = max(worst, abs(a - b))
    print("ok: %d ranks match the single-process step within "
          "%g + %g |ref| (largest difference %.3g)" %
          (len(plain), ATOL, RTOL, worst))

    hashes = [[r["fnv1a64"] for r in report["results"]] for report in plain]
    if any(h != hashes[0] for h in hashes):
        fail("ranks disagree on their results")
    print("ok: every rank holds bitwise the same results")

    for a, b in zip(plain, remat):
        if [r["fnv1a64"] for r in a["results"]] != \
           [r["fnv1a64"] for r in b["results"]]:
            fail("rank %d: rematerialized results differ" % a["rank"])
    print("ok: rematerialized == plain, bitwise, on every rank")

    for report in remat:
        used = report["peak_bytes"] + report["input_bytes"]
        if used > budget:
            fail("rank %d: measured %d bytes, over the budget of %d" %
                 (report["rank"], used, budget))
        print("ok: rank %d measured %d bytes (peak %d + inputs %d) within "
              "its budget of %d" % (report["rank"], used, report["peak_bytes"],
                                    report["input_bytes"], budget))


if __name__ == "__main__":
    main(sys.argv)

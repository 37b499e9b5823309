#!/usr/bin/env python3
"""Checks a data-parallel run of remat-run against the single-process step.

  check_data_parallel.py [--sharded] SINGLE.json RANKS.json REMAT.json PLANNED.mlir

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
With --ranks-only (no SINGLE.json: a hand-written per-rank step with no
single-process twin), the first check is left out and, as with --sharded,
the ranks must agree bitwise on the loss only.
With --sharded (a fully sharded step, remat-import-torch --fsdp), every
result of rank >= 1 (an updated parameter or optimizer state slot) is the
rank's shard along dimension 0 of a padded result: the ranks' shards,
concatenated in rank order with the padding dropped, must equal the
single-process result; the 0-d results (the loss, AdamW's step count) are
replicated: the ranks must agree on them bitwise.
Every value, the padding rows included, must be finite.
Exits non-zero on the first failed check.
"""
import json
import math
import re
import sys

RTOL = 1e-5
ATOL = 1e-6


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def replicated(result):
    """Whether a result of a sharded step is the same on every rank: a 0-d
    one (the loss, AdamW's step count); the others are shards."""
    return not re.match(r"tensor<[0-9?]", result["type"])


def assembled(plain, sharded):
    """Per rank, its result values as the single-process step's: with
    `sharded`, every sharded result is the concatenation of all the ranks'
    shards (the padding is dropped by the caller's zip)."""
    if not sharded:
        return [[r["values"] for r in report["results"]] for report in plain]
    whole = {i: [v for report in plain for v in report["results"][i]["values"]]
             for i, r in enumerate(plain[0]["results"]) if not replicated(r)}
    return [[whole.get(i, r["values"]) for i, r in enumerate(report["results"])]
            for report in plain]


def check_finite(reports):
    """Every value of every result (padding rows included) is finite,
    where the values were printed (--print-results)."""
    for report in reports:
        for index, r in enumerate(report["results"]):
            if not all(math.isfinite(v) for v in r.get("values", [])):
                fail("rank %d result #%d holds a NaN or infinity" %
                     (report["rank"], index))


def check_single(single, plain, remat, sharded):
    """Every rank's results against the single-process step's."""
    worst = 0.0
    for report in plain + remat:
        if len(report["results"]) != len(single["results"]):
            fail("rank %d returned %d results, the single-process step %d" %
                 (report["rank"], len(report["results"]),
                  len(single["results"])))
    for report, values in zip(plain, assembled(plain, sharded)):
        for index, (mine, ref) in enumerate(zip(values, single["results"])):
            if len(mine) < len(ref["values"]):
                fail("rank %d result #%d: %d values, the single-process "
                     "step %d" % (report["rank"], index, len(mine),
                                  len(ref["values"])))
            for a, b in zip(mine, ref["values"]):
                if abs(a - b) > ATOL + RTOL * abs(b):
                    fail("rank %d result #%d: %r vs %r" %
                         (report["rank"], index, a, b))
                worst = max(worst, abs(a - b))
    print("ok: %d ranks match the single-process step within "
          "%g + %g |ref| (largest difference %.3g)" %
          (len(plain), ATOL, RTOL, worst))


def with_floats(report):
    """`report` (one remat-run --json report) with every printed value a
    float: remat-run writes a NaN or infinity as "nan", "inf" or "-inf",
    which JSON lacks as numbers; float() reads them, check_finite names
    them."""
    for result in report["results"]:
        result["values"] = [float(v) for v in result.get("values", [])]
    return report


def load_ranks(path):
    """The per-rank reports of `mpirun remat-run --json`."""
    with open(path) as f:
        return [with_floats(r) for r in json.load(f)["per_rank"]]


def main(argv):
    sharded = "--sharded" in argv or "--ranks-only" in argv
    ranks_only = "--ranks-only" in argv
    argv = [a for a in argv if a not in ("--sharded", "--ranks-only")]
    if len(argv) != (4 if ranks_only else 5):
        fail("usage: check_data_parallel.py [--sharded] SINGLE RANKS REMAT "
             "PLANNED | --ranks-only RANKS REMAT PLANNED")
    if not ranks_only:
        with open(argv.pop(1)) as f:
            single = with_floats(json.load(f))
    plain, remat = load_ranks(argv[1]), load_ranks(argv[2])
    with open(argv[3]) as f:
        plan = re.search(r"remat\.plan = #remat\.plan<[^>]*budget = (\d+)",
                         f.read())
    if not plan:
        fail("no remat.plan with a budget in " + argv[3])
    budget = int(plan.group(1))
    check_finite(plain + remat)
    if not ranks_only:
        check_single(single, plain, remat, sharded)

    hashes = [[r["fnv1a64"] for r in report["results"]
               if not sharded or replicated(r)] for report in plain]
    if any(h != hashes[0] for h in hashes):
        fail("ranks disagree on their results")
    others = len(hashes[0]) - 1
    print("ok: every rank holds bitwise the same %s" % (
        "results" if not sharded else "loss" if not others else
        "loss and %d other 0-d result(s)" % others))

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

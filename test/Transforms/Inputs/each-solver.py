#!/usr/bin/env python3
"""Runs --remat-select-checkpoints with every solver of the registry.

The names come from `remat-solve --list-solvers`, so the test follows the
registry instead of copying it. Checks that
  * every listed name is accepted by the pass and, unless it starts with an
    --optional prefix (solvers of a missing optional dependency), yields a
    plan (`remat.plan` naming that solver) on the input;
  * without `solver=`, the pass plans with `auto`;
  * the names the pass's unknown-solver error lists are exactly the listed
    ones, so pass and CLI accept the same set.
Prints one line per check; exits 1 if any failed.
"""

import argparse
import re
import subprocess
import sys

UNKNOWN = "no-such-solver"
LIST_RE = re.compile(r"unknown solver '" + UNKNOWN +
                     r"'; the registered solvers are: (.*)$", re.M)


def run(argv):
    return subprocess.run(argv, capture_output=True, text=True)


def plan(args, options):
    return run([args.remat_opt, args.input,
                "--remat-select-checkpoints=" + " ".join(options),
                "--mlir-print-op-on-diagnostic=false"])


def planned_solver(out):
    match = re.search(r'remat\.plan = #remat\.plan<solver = "([^"]+)"',
                      out.stdout)
    return match.group(1) if match else None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("input")
    parser.add_argument("--remat-opt", default="remat-opt")
    parser.add_argument("--remat-solve", default="remat-solve")
    parser.add_argument("--options", default="",
                        help="further options of the pass, e.g. budget=96")
    parser.add_argument("--optional", action="append", default=[],
                        help="name prefix of solvers that need a missing "
                             "optional dependency: accepted, no plan needed")
    args = parser.parse_args()
    extra = args.options.split()

    listed = run([args.remat_solve, "--list-solvers"])
    names = [line.split()[0] for line in listed.stdout.splitlines()
             if line.strip()]
    if listed.returncode != 0 or not names:
        sys.exit("remat-solve --list-solvers failed:\n" + listed.stderr)

    failures = 0
    for name in names:
        out = plan(args, ["solver=" + name] + extra)
        if any(name.startswith(prefix) for prefix in args.optional):
            ok = "unknown solver" not in out.stderr
            what = "accepted"
        else:
            ok = out.returncode == 0 and planned_solver(out) == name
            what = "plan"
        print("%s: %s %s" % (name, what, "ok" if ok else "FAILED"))
        if not ok:
            failures += 1
            print(out.stderr)

    out = plan(args, extra)
    ok = out.returncode == 0 and planned_solver(out) == "auto"
    print("default: plan by %s %s" % (planned_solver(out),
                                      "ok" if ok else "FAILED"))
    failures += not ok

    out = plan(args, ["solver=" + UNKNOWN] + extra)
    match = LIST_RE.search(out.stderr)
    accepted = match.group(1).split(", ") if match else []
    ok = out.returncode != 0 and sorted(accepted) == sorted(names)
    print("unknown-solver error lists the %d listed names: %s" %
          (len(names), "ok" if ok else "FAILED"))
    if not ok:
        failures += 1
        print(out.stderr)

    print("%d solver(s), %d failure(s)" % (len(names), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# ===- remat-memory-check.py - predicted vs measured peak heap bytes -------=== #
#
# Part of the remat-opt project.
#
# ===-----------------------------------------------------------------------=== #
"""Compares remat's memory analysis with the heap bytes a program really uses.

For each training-step file, with the same lowering remat-run executes
(remat-lower-to-cpu, default options unless --pipeline-options is given):

  tensor     remat-opt --remat-annotate-costs --remat-memory-report
             peak of the tensor-level model, arguments resident (the solver's
             model);
  bufferized remat-opt --remat-bufferize | remat-opt --remat-memory-report
             {count-arguments=false}: the analysis on the memref IR that runs;
  measured   remat-run --json: peak bytes malloc'd through the allocation
             hooks; `input_bytes` are the arguments, allocated by remat-run.

and checks the relations docs/Running.md derives:

  measured == bufferized                                   (exact)
  0 <= tensor - (measured + input_bytes) <= bound,
  bound = the largest non-argument value live at the tensor-model peak
          (one result written in place into a dying operand at that op).

Prints one line per file (or --json) and exits 1 if a relation fails.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile


def find_tool(name):
    """`name` on PATH, else in $REMAT_BUILD_DIR/bin or the repository's
    build/bin (where scripts/build.sh puts it), else the bare name."""
    if shutil.which(name):
        return name
    root = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    build = os.environ.get("REMAT_BUILD_DIR", os.path.join(root, "build"))
    candidate = os.path.join(build, "bin", name)
    return candidate if os.access(candidate, os.X_OK) else name


def run(cmd, stdin=None):
    try:
        proc = subprocess.run(cmd, input=stdin, capture_output=True,
                              text=True)
    except FileNotFoundError:
        sys.exit("remat-memory-check: cannot run '%s': not on PATH nor in "
                 "build/bin; build it (scripts/build.sh) or pass --%s=PATH" %
                 (cmd[0], os.path.basename(cmd[0])))
    if proc.returncode != 0:
        sys.stderr.write("remat-memory-check: command failed: %s\n%s" %
                         (" ".join(cmd), proc.stderr))
        sys.exit(2)
    return proc.stdout


def report(remat_opt, text, extra_options=""):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "report.json")
        options = ("output=%s %s" % (path, extra_options)).strip()
        run([remat_opt, "-", "--remat-memory-report=" + options, "-o",
             os.devnull], stdin=text)
        with open(path) as f:
            return json.load(f)["functions"]


def check_file(args, path):
    with open(path) as f:
        source = f.read()
    annotated = run([args.remat_opt, "--remat-annotate-costs"], stdin=source)
    bufferize = "--remat-bufferize"
    pipeline = "remat-lower-to-cpu"
    if args.pipeline_options:
        bufferize += "=" + args.pipeline_options
        pipeline += "{" + args.pipeline_options + "}"
    bufferized = run([args.remat_opt, bufferize], stdin=source)
    measured = json.loads(run([args.remat_run, path, "--json",
                               "--opt-level=0",
                               "--pipeline=builtin.module(%s)" % pipeline]))
    entry = measured["entry"]

    def pick(functions):
        for function in functions:
            if function["name"] == entry:
                return function
        sys.stderr.write("remat-memory-check: no report for '%s'\n" % entry)
        sys.exit(2)

    tensor = pick(report(args.remat_opt, annotated))
    padding = "count-alignment-padding=true" if "buffer-alignment" in (
        args.pipeline_options or "") else ""
    buffer = pick(report(args.remat_opt, bufferized,
                         "count-arguments=false" +
                         (" " + padding if padding else "")))

    result = {
        "file": os.path.basename(path),
        "entry": entry,
        "tensor_peak": tensor["peak_bytes"],
        "tensor_resident": tensor["resident_bytes"],
        "bufferized_peak": buffer["peak_bytes"],
        "measured_peak": measured["peak_bytes"],
        "input_bytes": measured["input_bytes"],
        "num_allocs": measured["num_allocs"],
    }
    slack = result["tensor_peak"] - (result["measured_peak"] +
                                     result["input_bytes"])
    bound = max([v["bytes"] for v in tensor["live_at_peak"]
                 if v["op"] != "argument"] or [0])
    result["tensor_minus_measured"] = slack
    result["bound"] = bound
    failures = []
    if result["measured_peak"] != result["bufferized_peak"]:
        failures.append("measured %d != bufferized prediction %d" %
                        (result["measured_peak"], result["bufferized_peak"]))
    if result["tensor_resident"] != result["input_bytes"]:
        failures.append("resident %d != input bytes %d" %
                        (result["tensor_resident"], result["input_bytes"]))
    if not 0 <= slack <= bound:
        failures.append("tensor - (measured + inputs) = %d outside [0, %d]" %
                        (slack, bound))
    result["ok"] = not failures
    result["failures"] = failures
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--remat-opt", default=find_tool("remat-opt"))
    parser.add_argument("--remat-run", default=find_tool("remat-run"))
    parser.add_argument("--pipeline-options", default="",
                        help="options of remat-lower-to-cpu / remat-bufferize")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    results = [check_file(args, path) for path in args.files]
    if args.json:
        json.dump(results, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        for r in results:
            print("%s @%s: tensor=%d (resident %d) bufferized=%d measured=%d "
                  "inputs=%d tensor-(measured+inputs)=%d bound=%d allocs=%d %s"
                  % (r["file"], r["entry"], r["tensor_peak"],
                     r["tensor_resident"], r["bufferized_peak"],
                     r["measured_peak"], r["input_bytes"],
                     r["tensor_minus_measured"], r["bound"], r["num_allocs"],
                     "OK" if r["ok"] else "FAIL: " + "; ".join(r["failures"])))
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""The largest training batch that fits a memory budget, five real models,
four strategies, next to the ratios Checkmate published.

For each model (torchvision, 224x224, float32, decomposed joint graph as in
bench/models.py) and each budget this finds the largest batch, in samples,
with

  (a) checkpoint-all, (b) Chen et al. sqrt(n) (`chen-sqrt`, articulation
      points), (d) our `auto`: `remat-solve --mode=max-batch` on the graph
      traced at --batch and 2 x --batch (its batch scaling);
  (c) PyTorch's `min_cut_rematerialization_partition`, re-traced at every
      batch it is asked at: its saved set pinned and scheduled by our
      simulator exactly as bench/models.py does, the batch searched from a
      guess (the batch-B saved set scaled) by galloping and bisection;

and verifies every answer on the step re-traced at that batch: the graph has
the structure of the scaled one, and the answer's schedule replayed on it
peaks within the budget. At the next batch, checkpoint-all's schedule
replayed on the re-traced graph exceeds the budget (a proof: its schedule
does not depend on the batch), and `auto` is asked again (no plan there is
not a proof: auto is not exact). min-cut's answer is verified by its search
(traced at B and B + 1). Fake tensors throughout: nothing is computed.
Traces and results are cached in --work (delete it to rerun).

  bench/max-batch.py [--models resnet18,...] [--budgets 16GiB,2GiB]
                     [--time-limit S] [--work DIR] [--markdown FILE]
"""

import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tools", "remat-report"))
sys.path.insert(0, os.path.join(ROOT, "tools", "remat-import-torch"))

import models  # noqa: E402  (bench/models.py, after the path tweak)
import report_plots  # noqa: E402
import solve_runner  # noqa: E402

MODELS = ["resnet18", "resnet50", "vgg16", "mobilenet_v2", "vit_b_16"]
GIB = 1 << 30
# The strategies remat-solve --mode=max-batch searches.
SOLVERS = ["checkpoint-all", "chen-sqrt", "auto"]
# Checkmate (Jain et al., MLSys 2020), section 6.4 and the captions of its
# Figures 6 and 7: largest batch on a 16 GB V100, 224x224, costs capped at
# one extra forward pass. Only the numbers its text states.
CHECKMATE = {
    "vgg16": ("VGG19", "167 → Chen √n 197 (1.18×), Checkmate 289 (1.73×)"),
    "mobilenet_v2": ("MobileNet (v1)", "Checkmate 1105 = 5.1× checkpoint-all"
                     ", 1.73× the best baseline (greedy)"),
    "resnet50": ("ResNet50", "in Figure 6's bars only; no number in the text"),
}
START = time.monotonic()


def log(text):
    sys.stderr.write("max-batch.py [%5.0f s]: %s\n" % (
        time.monotonic() - START, text))
    sys.stderr.flush()


def parse_budget(text):
    """'16GiB', '512MiB' or bytes."""
    for suffix, scale in (("GiB", GIB), ("MiB", 1 << 20)):
        if text.endswith(suffix):
            return int(float(text[:-len(suffix)]) * scale)
    return int(text)


def budget_label(budget):
    return solve_runner.human(budget).replace(".0 ", " ")


def load(path):
    with open(path) as f:
        return json.load(f)


def save(path, value):
    with open(path, "w") as f:
        json.dump(value, f)


class Model:
    """One model's traces (cached per batch) and its scaled graph."""

    def __init__(self, args, name):
        self.args, self.name = args, name
        self.stem = os.path.join(args.work, "%s_r%d" % (name, args.resolution))

    def traced(self, batch):
        """(path of the graph traced at `batch`, min-cut's sets there)."""
        path = "%s_b%d.json" % (self.stem, batch)
        sets_path = "%s_b%d.saved.json" % (self.stem, batch)
        if not (os.path.exists(path) and os.path.exists(sets_path)):
            start = time.monotonic()
            graph, sets = models.trace_model(self.name, batch,
                                             self.args.resolution)
            save(path, graph)
            save(sets_path, sets)
            log("%s: traced at batch %d in %.0f s" % (
                self.name, batch, time.monotonic() - start))
        return path, load(sets_path)

    def scaled(self):
        """Path of the graph traced at --batch with its batch scaling (from
        the trace at twice the batch)."""
        path = "%s.scaled.json" % self.stem
        if not os.path.exists(path):
            import graph_export
            batch = self.args.batch
            graph = load(self.traced(batch)[0])
            graph_export.add_batch_scaling(
                graph, load(self.traced(2 * batch)[0]), batch)
            save(path, graph)
        return path

    def solve(self, key, graph_path, solver, *extra):
        """remat-solve's result, cached under `key`."""
        path = "%s.%s.json" % (self.stem, key)
        if not os.path.exists(path):
            result, seconds = solve_runner.solve(
                self.args.remat_solve, graph_path, solver,
                "--time-limit=%g" % self.args.time_limit, *extra)
            result["wall_seconds"] = seconds
            save(path, result)
        return load(path)

    def max_batch(self, solver, budget, graph_path=None, tag=""):
        return self.solve("%s%s.%d.max-batch" % (solver, tag, budget),
                          graph_path or self.scaled(), solver,
                          "--mode=max-batch", "--budget=%d" % budget)

    def min_cut_at(self, batch, budget):
        """Our schedule of min-cut's saved set at `batch` under `budget`."""
        path, sets = self.traced(batch)
        pinned = "%s_b%d.mincut.json" % (self.stem, batch)
        if not os.path.exists(pinned):
            save(pinned, models.pin_saved_set(load(path), sets))
        return self.solve("mincut_b%d.%d" % (batch, budget), pinned,
                          models.SAVED_SET_SCHEDULER, "--budget=%d" % budget)


def search_min_cut(model, budget):
    """(largest batch at which min-cut's saved set fits, {batch: result}).
    The guess: max-batch on the saved set of the base trace, scaled; then
    galloping from it and bisection, each probe a fresh trace. Assumes the
    fit is monotone in the batch, like every max-batch search."""
    base = models.pin_saved_set(load(model.scaled()), model.traced(
        model.args.batch)[1])
    base_path = "%s.mincut.scaled.json" % model.stem
    save(base_path, base)
    guess = model.max_batch(models.SAVED_SET_SCHEDULER, budget, base_path,
                            tag=".pinned")["stats"].get("batch") or 1
    probes = {}

    def fits(batch):
        if batch not in probes:
            probes[batch] = model.min_cut_at(batch, budget)
            log("%s: min-cut at %d samples: %s" % (
                model.name, batch, probes[batch]["status"]))
        return solve_runner.solved(probes[batch])

    lo, hi, step = 0, max(1, guess), 1
    if fits(hi):
        lo = hi
        while fits(lo + step):
            lo, step = lo + step, 2 * step
        hi = lo + step
    else:
        while hi - step >= 1 and not fits(hi - step):
            hi, step = hi - step, 2 * step
        lo = max(0, hi - step)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid
    return lo, guess, probes


def same_structure(graph, other):
    keys = ("name", "deps", "kind", "alias_of")
    return len(graph["nodes"]) == len(other["nodes"]) and all(
        n.get(k) == m.get(k) for n, m in zip(graph["nodes"], other["nodes"])
        for k in keys)


def replayed_peak(model, batch, result):
    """Peak of `result`'s schedule replayed on the step traced at `batch`
    (None when the traced graph's structure differs from the scaled one)."""
    graph = load(model.traced(batch)[0])
    if not same_structure(graph, load(model.scaled())):
        return None
    return max(live for _, live in report_plots.replay(graph, result["steps"]))


def verify(model, solver, budget, result):
    """What re-tracing says about `solver`'s max-batch answer."""
    batch = result["stats"].get("batch") or 0
    check = {"batch": batch}
    if batch < 1:
        return check
    check["peak"] = replayed_peak(model, batch, result)
    check["fits"] = check["peak"] is not None and check["peak"] <= budget
    check["same_peak"] = check["peak"] == result["stats"]["peak_bytes"]
    if solver == "checkpoint-all":
        above = replayed_peak(model, batch + 1, result)
        check["next"] = "its schedule peaks at %s MiB" % solve_runner.mib(
            above)
        check["next_ok"] = above is not None and above > budget
    elif solver == "auto":
        path = model.traced(batch + 1)[0]
        again = model.solve("auto_b%d.%d" % (batch + 1, budget), path,
                            "auto", "--budget=%d" % budget)
        check["next_ok"] = not solve_runner.solved(again)
        check["next"] = (
            "no plan (auto is not exact: not a proof)" if check["next_ok"]
            else "auto, asked again, finds a plan (the search's time-bound "
            "probe did not): the answer is a lower bound")
    else:
        check["next"] = "not re-traced (one trace less; the search found " \
            "no plan there on the scaled graph)"
        check["next_ok"] = True
    return check


def run_budget(model, budget):
    row = {"model": model.name, "budget": budget, "answers": {}}
    for solver in SOLVERS:
        result = model.max_batch(solver, budget)
        log("%s at %s: %s max batch %s (%.0f s)" % (
            model.name, budget_label(budget), solver,
            result["stats"].get("batch"), result["wall_seconds"]))
        row["answers"][solver] = {"result": summary(result),
                                  "check": verify(model, solver, budget,
                                                  result)}
    cut, guess, probes = search_min_cut(model, budget)
    row["answers"]["min-cut"] = {
        "result": summary(probes.get(cut, {"stats": {}}), cut),
        "check": {"batch": cut, "guess": guess, "traces": sorted(probes),
                  "fits": cut < 1 or solve_runner.solved(probes[cut]),
                  "next_ok": not solve_runner.solved(probes[cut + 1]),
                  "next": "min-cut's saved set at %d samples: %s" % (
                      cut + 1, probes[cut + 1]["status"])}}
    log("%s at %s: min-cut max batch %d (guess %d, %d traces)" % (
        model.name, budget_label(budget), cut, guess, len(probes)))
    for answer in row["answers"].values():
        stats = answer["result"]
        if stats["batch"] >= 1:
            graph = load(model.traced(stats["batch"])[0])
            stats["one_forward"] = stats["cost"] <= (
                stats["checkpoint_all_cost"] +
                models.forward_cost(graph)) * (1 + 1e-9)
    return row


def summary(result, batch=None):
    """The figures of a result the tables show."""
    stats = dict(result.get("stats", {}))
    stats["status"] = result.get("status")
    if batch is not None:
        stats["batch"] = batch
    stats["batch"] = stats.get("batch") or 0
    stats["seconds"] = result.get("wall_seconds")
    return stats


def cell(stats, reference):
    """'B (r×, +o %)' of one answer; † when over one extra forward."""
    if stats["batch"] < 1:
        return "none"
    ratio = ("%.2f×, " % (stats["batch"] / reference)) if reference else ""
    return "%d (%s+%.0f %%%s)" % (stats["batch"], ratio,
                                  100 * stats["overhead"],
                                  "" if stats["one_forward"] else " †")


COLUMNS = [("checkpoint-all", "checkpoint-all"), ("chen-sqrt", "Chen √n"),
           ("min-cut", "PyTorch min-cut"), ("auto", "ours: auto")]


def batch_table(rows, budget):
    lines = ["| model | " + " | ".join(t for _, t in COLUMNS) +
             " | Checkmate's published (its model) |",
             "|---|" + "---:|" * len(COLUMNS) + "---|"]
    for row in rows:
        if row["budget"] != budget:
            continue
        answers = row["answers"]
        reference = answers["checkpoint-all"]["result"]["batch"]
        theirs = CHECKMATE.get(row["model"])
        lines.append("| %s | %s | %s |" % (
            row["model"], " | ".join(cell(answers[s]["result"], reference)
                                     for s, _ in COLUMNS),
            "%s: %s" % theirs if theirs else "not in Checkmate"))
    return "\n".join(lines)


def check_table(rows):
    """Each answer re-traced at its batch (and the next)."""
    lines = ["| model | budget | strategy | batch | replayed peak at the "
             "batch, re-traced | = remat-solve's | at batch + 1, re-traced |",
             "|---|---:|---|---:|---:|---|---|"]
    for row in rows:
        for solver, title in COLUMNS:
            check = row["answers"][solver]["check"]
            if solver == "min-cut":
                peak = row["answers"][solver]["result"].get("peak_bytes")
                same = "searched on traces at %s" % ", ".join(
                    str(b) for b in check["traces"])
            else:
                peak, same = check.get("peak"), (
                    "yes" if check.get("same_peak") else "**no**")
            lines.append("| %s | %s | %s | %d | %s%s | %s | %s |" % (
                row["model"], budget_label(row["budget"]), title,
                check["batch"], solve_runner.mib(peak),
                "" if check.get("fits") else " (**over the budget**)", same,
                check.get("next", "-")))
    return "\n".join(lines)


def render(args, rows):
    parts = []
    for budget in args.budgets:
        parts += ["### Largest batch under %s\n" % budget_label(budget),
                  batch_table(rows, budget), ""]
    parts += ["### Verification\n", check_table(rows), ""]
    return "\n".join(parts)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--budgets", default="16GiB,2GiB",
                        help="comma-separated: 16GiB, 512MiB or bytes")
    parser.add_argument("--batch", type=int, default=8,
                        help="the batch of the base trace (scaling from it "
                        "and twice it)")
    parser.add_argument("--resolution", type=int, default=224)
    models.add_run_arguments(parser, 4.0, "bench-max-batch")
    args = parser.parse_args()
    if not args.remat_solve:
        sys.exit("max-batch.py: no remat-solve (build it, or --remat-solve)")
    args.budgets = [parse_budget(b) for b in args.budgets.split(",")]
    os.makedirs(args.work, exist_ok=True)
    rows = []
    for name in args.models.split(","):
        model = Model(args, name)
        for budget in args.budgets:
            rows.append(run_budget(model, budget))
    save(os.path.join(args.work, "rows.json"), rows)
    log("done in %.0f minutes" % ((time.monotonic() - START) / 60))
    text = render(args, rows)
    models.write_markdown(args, text)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Checks that plans get no worse as the budget grows.

  check_monotone.py PLAN.json...

Each PLAN is remat-solve's result JSON (docs/SolverFormat.md) for the same
graph, solver and effort at one budget. Sorted by budget, a larger budget
must be met whenever a smaller one was, with no more compute: a user who
gives the planner more memory never gets a plan that recomputes more.
Prints one line per plan; exits 1 at the first violation.
"""

import json
import sys


def read_plan(path):
    with open(path) as handle:
        plan = json.load(handle)
    stats = plan["stats"]
    what = (plan["graph"]["structure"], plan["graph"]["cost"], stats["solver"],
            stats["mode"])
    return stats["budget"], stats["cost"], path, what


def main():
    plans = sorted(read_plan(path) for path in sys.argv[1:])
    if len(set(plan[3] for plan in plans)) != 1:
        sys.exit("error: the plans are not of one graph, solver and mode")
    best = None  # (budget, cost) of the cheapest plan at a smaller budget
    status = 0
    for budget, cost, path, _ in plans:
        print("budget %d: %s" % (budget, "no plan" if cost is None
                                  else "cost %d" % cost))
        if best is not None and (cost is None or cost > best[1]):
            print("error: %s at budget %d is worse than the plan at budget "
                  "%d (cost %d)" % (path, budget, best[0], best[1]))
            status = 1
        if cost is not None and (best is None or cost <= best[1]):
            best = (budget, cost)
    print("monotone" if status == 0 else "not monotone")
    sys.exit(status)


if __name__ == "__main__":
    main()

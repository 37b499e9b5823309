"""The numbers and pictures of remat-report (and bench/models.py).

* `replay` turns a remat-solve schedule into the bytes live after every
  compute step, by the memory model of docs/SolverFormat.md; remat-report
  checks its peak against remat-solve's `peak_bytes`, so the two cannot
  drift apart silently.
* `layer_table` splits the forward values the backward reads into kept
  (computed once) and recomputed (computed again), grouped by module path.
* `best_point` / `best_lower_bound` read a Pareto curve at any budget.
* `plot_memory`, `plot_curves`, `plot_layers` draw them with matplotlib
  (Agg backend: no display needed).
"""

import collections

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend choice)

from solve_runner import human, unit  # noqa: E402


class ReplayError(Exception):
    pass


def normalize(graph):
    """Fills in the optional node fields with their defaults
    (docs/SolverFormat.md), in place; returns the graph."""
    for i, n in enumerate(graph.get("nodes", [])):
        n.setdefault("id", i)
        n.setdefault("kind", "forward")
        n.setdefault("deps", [])
        n.setdefault("cost", 0)
        n.setdefault("name", "n%d" % i)
    return graph


def resident_parts(graph):
    """The resident bytes by what holds them: "parameters", "optimizer
    state" (`param` nodes at path `optimizer`, remat-import-torch
    --optimizer), "inputs" (data, buffers, constants, fixed_bytes)."""
    parts = collections.OrderedDict([
        ("parameters", 0), ("optimizer state", 0),
        ("inputs", graph.get("fixed_bytes", 0))])
    for n in graph["nodes"]:
        if n["kind"] == "param":
            state = n.get("path") == "optimizer"
            parts["optimizer state" if state else "parameters"] += n["bytes"]
        elif n["kind"] == "input":
            parts["inputs"] += n["bytes"]
    return parts


def replay(graph, steps):
    """[(node id, live bytes after computing it)] for every compute step."""
    nodes = graph["nodes"]
    resident = sum(resident_parts(graph).values())
    storage_of = {}     # live node -> its storage instance
    refs = collections.Counter()
    size = {}
    live = resident
    timeline = []
    for step in steps:
        node = nodes[step["node"]]
        nid = node["id"]
        if step["op"] == "compute":
            base = node.get("alias_of")
            if base is not None:
                if nodes[base]["kind"] in ("input", "param"):
                    storage = ("resident", base)
                    size.setdefault(storage, 0)
                elif base not in storage_of:
                    raise ReplayError("view %s of a dead base" % node["name"])
                else:
                    storage = storage_of[base]
            else:
                storage = (nid, len(timeline))
                size[storage] = node["bytes"]
            storage_of[nid] = storage
            if refs[storage] == 0:
                live += size[storage]
            refs[storage] += 1
            timeline.append((nid, live))
        else:
            storage = storage_of.pop(nid)
            refs[storage] -= 1
            if refs[storage] == 0:
                live -= size[storage]
    return timeline


def peak_of(timeline):
    """(index into timeline, node id, bytes) of the first highest point."""
    index = max(range(len(timeline)), key=lambda i: (timeline[i][1], -i))
    return index, timeline[index][0], timeline[index][1]


def compute_counts(steps):
    return collections.Counter(s["node"] for s in steps if s["op"] == "compute")


def layer_of(path, depth):
    """'layer1.0' for 'layer1.0.conv1' at depth 2; '(top)' for ''."""
    return ".".join(path.split(".")[:depth]) if path else "(top)"


def layer_table(graph, steps, depth=2):
    """{layer: {"kept": bytes, "recomputed": bytes, "recompute_flops": f}}
    over the forward values some backward node reads, in forward order."""
    nodes = graph["nodes"]
    read_by_backward = set()
    for n in nodes:
        if n["kind"] == "backward":
            read_by_backward.update(n["deps"])
    counts = compute_counts(steps)
    table = collections.OrderedDict()
    for n in nodes:
        if n["kind"] != "forward":
            continue
        row = table.setdefault(layer_of(n.get("path", ""), depth), {
            "kept": 0, "recomputed": 0, "recompute_flops": 0.0})
        extra = counts[n["id"]] - 1
        if extra > 0:
            row["recomputed"] += n["bytes"]
            row["recompute_flops"] += extra * n["cost"]
        elif n["id"] in read_by_backward:
            row["kept"] += n["bytes"]
    return collections.OrderedDict(
        (k, v) for k, v in table.items()
        if v["kept"] or v["recomputed"])


def best_point(points, budget):
    """The cheapest point of a curve whose peak fits `budget`, or None."""
    fits = [p for p in points if p["peak_bytes"] <= budget]
    return min(fits, key=lambda p: (p["cost"], p["peak_bytes"])) if fits \
        else None


def best_lower_bound(curves, budget, floor):
    """The best proven lower bound on the cost at `budget`: a bound proven
    at a budget at least as large holds for smaller budgets too."""
    bounds = [p["lower_bound"] for c in curves for p in c.get("points", [])
              if p["budget"] >= budget and p.get("lower_bound") is not None]
    return max(bounds + [floor])


def _save(fig, path):
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)


def resident_label(parts):
    """'1.2 MiB: parameters 0.4 MiB, optimizer state 0.8 MiB, inputs
    4.0 KiB' (parts of resident_parts; empty ones left out)."""
    return "%s: %s" % (human(sum(parts.values())), ", ".join(
        "%s %s" % (k, human(v)) for k, v in parts.items() if v))


def plot_memory(series, budget, path, title, resident=None):
    """(a) series: [(label, graph, timeline)]; one line each over the
    fraction of its schedule, the budget line, each peak labelled, and the
    resident bytes (`resident`: resident_parts) as a shaded band."""
    fig, ax = plt.subplots(figsize=(9, 4.2))
    name, size = unit(max(b for _, _, t in series for _, b in t))
    if resident:
        ax.axhspan(0, sum(resident.values()) / size, color="grey",
                   alpha=0.15, label="resident " + resident_label(resident))
    for k, (label, graph, timeline) in enumerate(series):
        n = len(timeline)
        xs = [i / max(n - 1, 1) for i in range(n)]
        ys = [b / size for _, b in timeline]
        line, = ax.plot(xs, ys, label="%s (%d steps)" % (label, n), lw=1.2)
        i, nid, peak = peak_of(timeline)
        node = graph["nodes"][nid]
        ax.annotate("peak %s at %s\n(%s)" % (
            human(peak), node["name"], node.get("path") or "-"),
            xy=(xs[i], peak / size), xytext=(10, -28 - 24 * k),
            textcoords="offset points", fontsize=8, color=line.get_color(),
            arrowprops=dict(arrowstyle="->", color=line.get_color()))
        ax.plot([xs[i]], [peak / size], "o", color=line.get_color())
    if budget:
        ax.axhline(budget / size, color="red", ls="--", lw=1,
                   label="budget %s" % human(budget))
    ax.set_xlabel("progress through the training step (fraction of steps)")
    ax.set_ylabel("live memory (%s)" % name)
    ax.set_title(title)
    ax.legend(fontsize=8, loc="upper left")
    ax.grid(alpha=0.3)
    _save(fig, path)


def plot_curves(curves, path, title, marker=None):
    """(b) recompute overhead against peak memory, one step line per solver
    (budgets from checkpoint-all down to its smallest); `marker` = (label,
    peak bytes, cost) of a single plan to show as a point."""
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    ref = next(iter(curves.values()))
    all_peak, all_cost = (ref["checkpoint_all_peak_bytes"],
                          ref["checkpoint_all_cost"])
    styles = ["-", "--", "-.", ":"]
    for k, (solver, curve) in enumerate(curves.items()):
        points = sorted(curve.get("points", []), key=lambda p: p["peak_bytes"])
        if not points:
            continue
        xs = [100.0 * p["peak_bytes"] / all_peak for p in points]
        ys = [100.0 * (p["cost"] / all_cost - 1) for p in points]
        ax.step(xs, ys, where="post", ls=styles[k % len(styles)], lw=1.4,
                marker=".", label=solver)
    bounds = [c["budget_lower_bound"] for c in curves.values()
              if c.get("budget_lower_bound")]
    if bounds:
        ax.axvline(100.0 * max(bounds) / all_peak, color="grey", ls=":",
                   lw=1, label="budget lower bound")
    if marker:
        label, peak, cost = marker
        ax.plot([100.0 * peak / all_peak], [100.0 * (cost / all_cost - 1)],
                "k*", ms=11, label=label)
    ax.set_xlabel("peak memory (%% of checkpoint-all, %s)" % human(all_peak))
    ax.set_ylabel("recompute overhead (% of one step's compute)")
    ax.set_title(title)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    _save(fig, path)


def plot_layers(table, path, title):
    """(c) kept vs recomputed bytes per layer, stacked bars."""
    names = list(table)
    name, size = unit(max([v["kept"] + v["recomputed"]
                           for v in table.values()] + [1]))
    kept = [table[k]["kept"] / size for k in names]
    again = [table[k]["recomputed"] / size for k in names]
    fig, ax = plt.subplots(figsize=(max(6, 0.35 * len(names) + 2), 4.2))
    xs = range(len(names))
    ax.bar(xs, kept, label="kept for the backward", color="tab:blue")
    ax.bar(xs, again, bottom=kept, label="recomputed", color="tab:orange")
    ax.set_xticks(list(xs))
    ax.set_xticklabels(names, rotation=60, ha="right", fontsize=8)
    ax.set_ylabel("forward values the backward reads (%s)" % name)
    ax.set_title(title)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3, axis="y")
    _save(fig, path)

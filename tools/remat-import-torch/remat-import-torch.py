#!/usr/bin/python3
"""remat-import-torch: trace one PyTorch training step into remat-opt's inputs.

Traces forward + loss + backward of a torchvision classification model
(--model resnet18) or of a user's nn.Module (--module file.py:Class) with
functorch's AOT autograd into the joint forward+backward graph of aten ops
(fake tensors: no real compute), adds the update of --optimizer if given,
and writes

  --emit-mlir out.mlir    linalg-on-tensors training IR for remat-opt
  --emit-graph out.json   the remat-solve JSON graph (docs/SolverFormat.md)
                          that remat-opt builds from that IR (mlir_graph.py),
                          or, with --graph-from=aten, from the aten ops
                          (graph_export.py)

See docs/Importer.md for the op coverage, the cost model and the numerics.
Runs on Debian's /usr/bin/python3 with python3-torch 1.13 and
python3-torchvision 0.14.
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import graph_export  # noqa: E402  (after the path tweak)
import mlir_export  # noqa: E402
import mlir_graph  # noqa: E402
import model_spec  # noqa: E402
import optimizer_spec  # noqa: E402
import roofline  # noqa: E402
import torch_trace  # noqa: E402


def main(argv=None):
    p = argparse.ArgumentParser(
        prog="remat-import-torch",
        description="Trace one training step (forward, loss, backward) of "
        "a PyTorch model into remat-opt's inputs.")
    # Not required by argparse: --list-lowerings needs no model.
    model_spec.add_arguments(p, require_source=False)
    p.add_argument("--decompose", action="store_true",
                   help="--graph-from=aten and --list-ops: decompose norms, "
                   "activations, softmax and losses into primitive aten ops "
                   "(always done for the MLIR)")
    p.add_argument("--emit-graph", metavar="FILE",
                   help="write the remat-solve JSON graph")
    p.add_argument("--graph-from", choices=["mlir", "aten"], default="mlir",
                   help="--emit-graph: 'mlir' (default), the graph remat-opt "
                   "--remat-annotate-costs --remat-infer-phases "
                   "--remat-export-graph builds from the MLIR step (one cost "
                   "and storage model with remat-opt; batch scaling from the "
                   "IR shapes); 'aten', the importer's own graph of the aten "
                   "ops (for ops the MLIR lowering does not cover, "
                   "--decompose; batch scaling from a second trace)")
    p.add_argument("--remat-opt", metavar="PATH",
                   help="the remat-opt of --graph-from=mlir (default: "
                   "$REMAT_BUILD_DIR/bin, next to this script, build/bin, "
                   "PATH)")
    p.add_argument("--emit-mlir", metavar="FILE",
                   help="write linalg-on-tensors training IR")
    p.add_argument("--device", choices=sorted(roofline.load_devices()),
                   help="graph: costs are the roofline time on this device "
                   "in picoseconds (max of FLOPs / peak and bytes moved / "
                   "HBM bandwidth) instead of FLOPs (docs/CostModel.md; "
                   "remat-annotate-costs{device=...} for --graph-from=mlir)")
    p.add_argument("--list-ops", action="store_true",
                   help="print the aten ops of the joint graph with counts")
    p.add_argument("--list-lowerings", action="store_true",
                   help="print every op the MLIR lowering covers and the "
                   "function that lowers it, then exit")
    p.add_argument("--shard", type=int, metavar="N",
                   help="--emit-mlir: the per-rank step of N data-parallel "
                   "ranks (batch split, gradients and batch-norm "
                   "statistics all-reduced; see docs/Distributed.md)")
    p.add_argument("--fsdp", action="store_true",
                   help="with --shard N: fully sharded data parallel "
                   "(parameters, gradients, the optimizer's state and its "
                   "step split along dimension 0 over the ranks, "
                   "parameters all-gathered before use, gradients "
                   "reduce-scattered)")
    optimizer_spec.add_arguments(p)
    args = p.parse_args(argv)
    if args.list_lowerings:
        return list_lowerings()
    if not (args.model or args.module):
        p.error("one of the arguments --model --module is required")
    if not (args.emit_graph or args.emit_mlir or args.list_ops):
        p.error("nothing to do: give --emit-graph, --emit-mlir or --list-ops")
    model_spec.check_arguments(p, args)
    if args.shard is not None and (args.shard < 1 or not args.emit_mlir or
                                   args.emit_graph):
        p.error("--shard needs a positive number of ranks and --emit-mlir "
                "(without --emit-graph)")
    if args.decompose and args.emit_graph and args.graph_from != "aten":
        p.error("--decompose applies to --graph-from=aten and --list-ops "
                "(the MLIR, and so the default graph, is always decomposed)")
    if args.device and not args.emit_graph:
        p.error("--device applies to --emit-graph only (for the MLIR, "
                "remat-opt --remat-annotate-costs=device=%s)" % args.device)
    if args.fsdp and args.shard is None:
        p.error("--fsdp needs --shard N")
    args.opt = optimizer_spec.from_arguments(p, args)
    if args.shard is not None and args.opt is not None and not args.fsdp:
        p.error("--shard takes an optimizer only with --fsdp: the plain "
                "data-parallel step returns all-reduced gradients")

    try:
        return emit(args, model_spec.ModelSpec.create(args))
    except (torch_trace.ImportError_, graph_export.UnknownOps,
            mlir_export.UnsupportedOps, mlir_graph.RematOptError) as e:
        sys.stderr.write("remat-import-torch: error: %s\n" % e)
        return 1


def list_lowerings():
    """The one table of lowerings (lowerings/registry.py), one op a line."""
    import lowerings
    for op, fn in sorted(lowerings.TABLE.items()):
        print("%-45s %s.%s" % (op, fn.__module__, fn.__name__))
    return 0


def device_of(args):
    """The roofline.Device of --device, or None."""
    return roofline.load_devices()[args.device] if args.device else None


def add_batch_scaling(graph, spec, args):
    """Traces the step again at twice the batch and gives the aten `graph`
    its batch scaling; when that fails, warns and leaves the graph without
    (remat-solve --mode=max-batch then refuses it rather than guess)."""
    batch = spec.batch
    try:
        double = spec.with_batch(2 * batch)
        joint = torch_trace.trace(double, decompose=args.decompose)
        graph_export.add_batch_scaling(
            graph, graph_export.to_graph(joint, spec.name, args.opt,
                                         device_of(args)), batch)
    except (torch_trace.ImportError_, graph_export.UnknownOps,
            graph_export.NotLinear) as e:
        sys.stderr.write("remat-import-torch: warning: the graph carries no "
                         "batch scaling: %s\n" % e)


def write_graph(graph, path):
    with open(path, "w") as f:
        json.dump(graph, f)
        f.write("\n")


def emit(args, spec):
    """--list-ops, the graph and the MLIR that `args` ask for."""
    aten_graph = args.emit_graph and args.graph_from == "aten"
    if aten_graph or args.list_ops:
        joint = torch_trace.trace(spec, decompose=args.decompose)
        if args.list_ops:
            for op, count in sorted(joint.op_counts().items()):
                print("%6d %s" % (count, op))
        if aten_graph:
            graph = graph_export.to_graph(joint, spec.name, args.opt,
                                          device_of(args))
            add_batch_scaling(graph, spec, args)
            write_graph(graph, args.emit_graph)
    if args.shard:
        return emit_data_parallel_mlir(args, spec)
    if args.emit_mlir or (args.emit_graph and not aten_graph):
        emit_mlir_and_graph(args, spec, None if aten_graph else args.emit_graph)
    return 0


def emit_mlir_and_graph(args, spec, graph_path):
    """The MLIR step, written to --emit-mlir if given; its graph, built by
    remat-opt (mlir_graph.py), to `graph_path` if given."""
    tool = mlir_graph.find_remat_opt(args.remat_opt) if graph_path else None
    joint = torch_trace.trace(spec, decompose=True, for_mlir=True)
    try:
        fn = mlir_export.to_function(joint, spec.name, args.opt)
    except mlir_export.UnsupportedOps as e:
        if graph_path:
            e.args = (str(e) + "\n(--graph-from=aten writes the graph from "
                      "the aten ops)",)
        raise
    if args.emit_mlir:
        with open(args.emit_mlir, "w") as f:
            f.write(fn.text())
    if graph_path:
        write_graph(mlir_graph.to_graph(tool, fn, joint, args.opt,
                                        args.device), graph_path)


def emit_data_parallel_mlir(args, spec):
    """--emit-mlir with --shard N: the per-rank step of N data-parallel
    ranks (shard_export.py), batch norm synchronized over the ranks; with
    --fsdp, parameters, gradients, optimizer state and step sharded too."""
    import shard_export
    local = shard_export.per_rank_spec(spec, args.shard)
    joint = torch_trace.trace(
        local, decompose=True, for_mlir=True,
        decompositions=shard_export.sync_batch_norm_decompositions(args.shard))
    sharding = shard_export.FullySharded(args.shard) if args.fsdp else None
    fn = mlir_export.to_function(joint, spec.name, args.opt, sharding)
    reduced = 1 if args.fsdp else 1 + len(mlir_export.trainable(joint))
    shard_export.to_data_parallel(fn, args.shard, reduced)
    with open(args.emit_mlir, "w") as f:
        f.write(fn.text())
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""remat-import-torch --shard N: the data-parallel per-rank step.

Upstream `--remat-shard-partition` (sharding-propagation + shard-partition)
cannot partition an imported step: the importer's convolutions pad their
input with `tensor.pad`, which has no sharding interface in MLIR 22 (nor do
`tensor.collapse_shape`, `tensor.expand_shape`, `tensor.extract_slice` and
`tensor.insert_slice`, which the importer emits for flatten, views and
pooling; MLIR 22 gives the tensor dialect's sharding interface to
`tensor.empty` and `tensor.splat` only). So `--shard N` writes the per-rank
program itself, with explicit `shard` collectives:

* the step traced at the per-rank batch B/N (the caller traces it);
* a 1-D `shard.grid @dp(shape = N)`;
* each input argument (after the parameters) marked
  `{remat.split_dim = 0 : i64}`: the rank's block of the global batch
  (the runners feed it that block of the single-process input);
* each result (the loss and every gradient, means over the rank's B/N
  samples) all-reduced over the grid (`shard.all_reduce`, sum) and divided
  by N: the mean over the global batch, as the single-process step on B
  samples computes it, up to the order of the sums.

This holds when the samples of a batch are independent (the loss is a mean
of per-sample losses); batch norm in training mode is not (its statistics
are over the batch: SyncBatchNorm would all-reduce them), and is refused.
See docs/Distributed.md.
"""

import copy
import re

import torch_trace


def per_rank_spec(spec, ranks):
    """`spec` at the per-rank batch: batch / ranks samples. Raises
    ImportError_ when the batch does not split evenly or the model couples
    the samples of a batch."""
    batch = spec.input_shape[0]
    if ranks < 1 or batch % ranks:
        raise torch_trace.ImportError_(
            "--shard %d: the batch, %d, is not a multiple of %d ranks"
            % (ranks, batch, ranks))
    import torch.nn as nn
    coupled = [name for name, m in spec.model.named_modules()
               if isinstance(m, nn.modules.batchnorm._BatchNorm) and m.training]
    if coupled:
        raise torch_trace.ImportError_(
            "--shard: batch norm in training mode (%s) couples the samples of "
            "a batch; per-rank statistics would not compute the "
            "single-process step (SyncBatchNorm is not supported)"
            % ", ".join(coupled))
    local = copy.copy(spec)
    local.input_shape = [batch // ranks] + spec.input_shape[1:]
    return local


_SIGNATURE = re.compile(r"func\.func @(\w+)\((.*?)\)\s*->\s*\((.*?)\) \{\n",
                        re.S)
_ARG = re.compile(r"(%\w+): (tensor<[^>]*>)(?: \{remat\.data\})?( loc\([^)]*\))?")
_RETURN = re.compile(r"^(\s*)func\.return (.*?) : (.*?)( loc\([^)]*\))?$",
                     re.M)


def to_data_parallel(text, ranks):
    """The per-rank step `text` (traced at the per-rank batch) as the rank
    program of an N-rank data-parallel step (see the module comment)."""
    m = _SIGNATURE.search(text)
    args = _ARG.findall(m.group(2))
    results = _split_types(m.group(3))
    nparams = len(results) - 1
    signature = m.group(2)
    for name, ty, loc in args[nparams:]:
        signature = signature.replace(
            "%s: %s {remat.data}%s" % (name, ty, loc),
            "%s: %s {remat.data, remat.split_dim = 0 : i64}%s" % (name, ty, loc),
            1)
    r = _RETURN.search(text, m.end())
    indent, values, types = r.group(1), r.group(2).split(", "), r.group(3)
    lines = [indent + "// Data parallel over %d ranks: each result is a mean "
             "over the rank's samples;" % ranks,
             indent + "// the mean over all samples is their sum over the "
             "ranks divided by %d." % ranks,
             indent + '%%dp_ranks = arith.constant %s : f32 loc("dp")'
             % _float(ranks)]
    reduced = []
    for i, (value, ty) in enumerate(zip(values, results)):
        lines += _all_reduce_mean(indent, i, value, ty)
        reduced.append("%%dp_mean%d" % i)
    ret = "%sfunc.return %s : %s%s" % (indent, ", ".join(reduced), types,
                                        r.group(4) or "")
    body = text[m.end():r.start()] + "\n".join(lines) + "\n" + ret
    head = text[:m.start()] + "shard.grid @dp(shape = %d)\n\n" % ranks
    return (head + text[m.start():m.start(2)] + signature +
            text[m.end(2):m.end()] + body + text[r.end():])


def _split_types(text):
    """The types of a comma-separated list (commas inside <> kept)."""
    types, depth, start = [], 0, 0
    for i, c in enumerate(text):
        depth += {"<": 1, ">": -1}.get(c, 0)
        if c == "," and depth == 0:
            types.append(text[start:i].strip())
            start = i + 1
    types.append(text[start:].strip())
    return [t for t in types if t]


def _float(value):
    return "%.6e" % value


def _all_reduce_mean(indent, i, value, ty):
    """`value` (a tensor of type `ty`, f32) summed over the grid, then
    divided by its number of processes."""
    if not ty.endswith("xf32>") and ty != "tensor<f32>":
        raise torch_trace.ImportError_(
            "--shard: result %d has type %s (only f32 results are reduced)"
            % (i, ty))
    rank = ty.count("x")
    dims = ", ".join("d%d" % d for d in range(rank))
    identity = "affine_map<(%s) -> (%s)>" % (dims, dims)
    loops = ", ".join(['"parallel"'] * rank)
    return [
        indent + "%%dp_sum%d = shard.all_reduce %s on @dp grid_axes = [0] : "
        "%s -> %s loc(\"dp/all_reduce\")" % (i, value, ty, ty),
        indent + "%%dp_init%d = tensor.empty() : %s loc(\"dp\")" % (i, ty),
        indent + "%%dp_mean%d = linalg.generic {indexing_maps = [%s, %s], "
        "iterator_types = [%s]} ins(%%dp_sum%d : %s) outs(%%dp_init%d : %s) {"
        % (i, identity, identity, loops, i, ty, i, ty),
        indent + "^bb0(%in: f32, %out: f32):",
        indent + "  %q = arith.divf %in, %dp_ranks : f32",
        indent + "  linalg.yield %q : f32",
        indent + "} -> %s loc(\"dp/mean\")" % ty,
    ]

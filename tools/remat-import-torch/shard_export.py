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
* the loss and every gradient (means over the rank's B/N samples)
  all-reduced over the grid (`shard.all_reduce`, sum) and divided by N: the
  mean over the global batch, as the single-process step on B samples
  computes it, up to the order of the sums;
* the updated buffers (batch norm's running statistics) returned as they
  are: every rank computes the same values.

This holds when the samples of a batch are independent (the loss is a mean
of per-sample losses). Batch norm in training mode couples them (its
statistics are over the batch): the step is traced with a synchronized batch
norm (`sync_batch_norm_decompositions`, PyTorch's SyncBatchNorm), whose
forward all-reduces the per-channel sum of x and then the sum of squared
deviations from the global mean, and whose backward all-reduces the sums of
dy and of dy * (x - mean). See docs/Distributed.md for the derivation.
"""

import re

import torch_trace


def per_rank_spec(spec, ranks):
    """`spec` at the per-rank batch: batch / ranks samples. Raises
    ImportError_ when the batch does not split evenly."""
    batch = spec.batch
    if ranks < 1 or batch % ranks:
        raise torch_trace.ImportError_(
            "--shard %d: the batch, %d, is not a multiple of %d ranks"
            % (ranks, batch, ranks))
    return spec.with_batch(batch // ranks)


_LIBRARY = []


def _all_reduce_op():
    """torch.ops.remat.all_reduce_sum: the sum of a tensor over the ranks
    (mlir_export lowers it to `shard.all_reduce` on @dp). Traced only: its
    kernels return their input's shape (Meta) or value (one process)."""
    import torch
    if not _LIBRARY:
        library = torch.library.Library("remat", "DEF")
        library.define("all_reduce_sum(Tensor x) -> Tensor")
        library.impl("all_reduce_sum", lambda x: torch.empty_like(x), "Meta")
        library.impl("all_reduce_sum", lambda x: x.clone(), "CPU")
        _LIBRARY.append(library)
    return torch.ops.remat.all_reduce_sum


def sync_batch_norm_decompositions(ranks):
    """{aten op: function}: native_batch_norm and its backward in training
    mode with the batch statistics of all `ranks` ranks (the per-rank step
    sees B/N samples); eval mode is PyTorch's own decomposition."""
    import torch
    from torch._decomp import decompositions as base
    aten = torch.ops.aten
    all_reduce = _all_reduce_op()

    def forward(x, weight, bias, running_mean, running_var, training,
                momentum, eps):
        if not training:
            return base.native_batch_norm(x, weight, bias, running_mean,
                                          running_var, training, momentum, eps)
        dims, shape, count = _channel_layout(x, ranks)
        mean = all_reduce(torch.sum(x, dims)) / count
        xmu = x - mean.view(shape)
        var = all_reduce(torch.sum(xmu * xmu, dims)) / count
        rstd = torch.rsqrt(var + eps)
        out = xmu * rstd.view(shape)
        if weight is not None:
            out = out * weight.view(shape)
        if bias is not None:
            out = out + bias.view(shape)
        if running_mean is not None:
            running_mean.copy_(momentum * mean + (1 - momentum) * running_mean)
        if running_var is not None:
            unbiased = var * (count / (count - 1))
            running_var.copy_(momentum * unbiased + (1 - momentum) * running_var)
        return out, mean, rstd

    def backward(dy, x, weight, running_mean, running_var, save_mean,
                 save_invstd, train, eps, output_mask):
        if not train:
            return base.native_batch_norm_backward(
                dy, x, weight, running_mean, running_var, save_mean,
                save_invstd, train, eps, output_mask)
        dims, shape, count = _channel_layout(x, ranks)
        xmu = x - save_mean.view(shape)
        sum_dy = torch.sum(dy, dims)  # this rank's: the bias gradient
        sum_dy_xmu = torch.sum(dy * xmu, dims)
        mean_dy = all_reduce(sum_dy) / count
        mean_dy_xmu = all_reduce(sum_dy_xmu) / count
        scale = save_invstd if weight is None else save_invstd * weight
        proj = xmu * (mean_dy_xmu * save_invstd * save_invstd).view(shape)
        dx = (dy - proj - mean_dy.view(shape)) * scale.view(shape)
        return (dx, sum_dy_xmu * save_invstd if output_mask[1] else None,
                sum_dy if output_mask[2] else None)

    return {aten.native_batch_norm.default: forward,
            aten.native_batch_norm_backward.default: backward}


def _channel_layout(x, ranks):
    """The reduced dimensions of a batch norm on x (all but the channels),
    the broadcast shape of a per-channel value, and the number of samples
    per channel over all ranks."""
    dims = [0] + list(range(2, x.dim()))
    shape = [1, x.shape[1]] + [1] * (x.dim() - 2)
    return dims, shape, x.numel() // x.shape[1] * ranks


_SIGNATURE = re.compile(r"func\.func @(\w+)\((.*?)\)\s*->\s*\((.*?)\) \{\n",
                        re.S)
_RETURN = re.compile(r"^(\s*)func\.return (.*?) : (.*?)( loc\([^)]*\))?$",
                     re.M)


def to_data_parallel(text, ranks, reduced):
    """The per-rank step `text` (traced at the per-rank batch) as the rank
    program of an N-rank data-parallel step (see the module comment): its
    first `reduced` results (the loss and the gradients) are all-reduced
    means, the others (the updated buffers) returned as they are."""
    m = _SIGNATURE.search(text)
    results = _split_types(m.group(3))
    signature = m.group(2).replace(
        " {remat.data} loc(", " {remat.data, remat.split_dim = 0 : i64} loc(")
    r = _RETURN.search(text, m.end())
    indent, values, types = r.group(1), r.group(2).split(", "), r.group(3)
    lines = [indent + "// Data parallel over %d ranks: each result is a mean "
             "over the rank's samples;" % ranks,
             indent + "// the mean over all samples is their sum over the "
             "ranks divided by %d." % ranks,
             indent + '%%dp_ranks = arith.constant %s : f32 loc("dp")'
             % _float(ranks)]
    returned = []
    for i, (value, ty) in enumerate(zip(values, results)):
        if i >= reduced:
            returned.append(value)
            continue
        lines += _all_reduce_mean(indent, i, value, ty)
        returned.append("%%dp_mean%d" % i)
    ret = "%sfunc.return %s : %s%s" % (indent, ", ".join(returned), types,
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

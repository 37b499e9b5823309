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

With --fsdp (fully sharded data parallel, FullySharded) the parameters are
split over the ranks too:

* each parameter argument is the rank's shard: ceil(d0 / N) rows of its
  dimension 0 (the last shard padded), marked `{remat.split_dim = 0 : i64}`
  like the data, so the runners feed rank r rows [r*s, (r+1)*s) of the
  single-process parameter padded to N*s rows;
* each parameter is gathered (`shard.all_gather`, then the padding sliced
  off) right before its first use in the step;
* each gradient is padded with zero rows to N*s, reduce-scattered
  (`shard.reduce_scatter`, sum) and divided by N: the rank's shard of the
  gradient of the global batch;
* each optimizer state slot (SGD's momentum buffer, AdamW's exp_avg and
  exp_avg_sq) is an argument holding the rank's shard, padded like its
  parameter; AdamW's step count stays replicated (one int64 per rank);
* the optimizer step (--optimizer) runs on the shard right after the
  gradient's reduce-scatter; the padding rows of a gradient are zero, so
  the step keeps those of the parameter and its state finite (AdamW's
  0 / (sqrt(0) + eps) is 0 for eps > 0) and they never reach a real row
  (the gather slices them off);
* the results are the loss (all-reduced), the rank's shard of each
  gradient or updated parameter, the updated buffers, then the new
  optimizer state (the step count, then the rank's shard of each slot),
  in the order of the single-process step's results.

This holds when the samples of a batch are independent (the loss is a mean
of per-sample losses). Batch norm in training mode couples them (its
statistics are over the batch): the step is traced with a synchronized batch
norm (`sync_batch_norm_decompositions`, PyTorch's SyncBatchNorm), whose
forward all-reduces the per-channel sum of x and then the sum of squared
deviations from the global mean, and whose backward all-reduces the sums of
dy and of dy * (x - mean). See docs/Distributed.md for the derivation.
"""

import torch_trace
from lowerings.optimizer import step_count, update_one
from lowerings.registry import Deferred
from mlir_emitter import Value, identity_map


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


def to_data_parallel(fn, ranks, reduced):
    """Makes `fn` (an mlir_emitter.Function, the step traced at the
    per-rank batch) the rank program of an N-rank data-parallel step (see
    the module comment): its first `reduced` results (the loss and the
    gradients) become all-reduced means, the others (the updated buffers)
    stay as they are."""
    fn.before.append("shard.grid @dp(shape = %d)" % ranks)
    fn.before.append("")
    for arg in fn.args:
        if "remat.data" in arg.attrs:
            arg.attrs.append("remat.split_dim = 0 : i64")
    e = fn.body
    e.comment("Data parallel over %d ranks: each result is a mean over the "
              "rank's samples;" % ranks)
    e.comment("the mean over all samples is their sum over the ranks "
              "divided by %d." % ranks)
    e.loc = "dp"
    count = e.constant("%.6e" % ranks, "f32", e.exact("dp_ranks"))
    for i, value in enumerate(fn.results[:reduced]):
        fn.results[i] = _all_reduce_mean(e, i, value, count)


def _all_reduce_mean(e, i, value, count):
    """`value` (an f32 tensor) summed over the grid, then divided by
    `count`, its number of processes."""
    if value.elt != "f32":
        raise torch_trace.ImportError_(
            "--shard: result %d has type %s (only f32 results are reduced)"
            % (i, value.type))
    e.loc = "dp/all_reduce"
    total = Value(e.let(e.exact("dp_sum%d" % i), "shard.all_reduce %s on @dp grid_axes = [0]"
                        " : %s -> %s" % (value.name, value.type, value.type)),
                  value.shape, value.elt)
    e.loc = "dp"
    return _divide(e, total, count, "dp_init%d" % i, "dp_mean%d" % i)


def _divide(e, value, count, init_hint, hint):
    """`value` divided by the f32 scalar `count`, elementwise; the new
    values are named exactly `init_hint` and `hint`, located where `e.loc`
    says plus "/mean"."""
    init = e.empty(value.shape, value.elt, e.exact(init_hint))
    e.loc += "/mean"
    ident = identity_map(value.rank)
    with e.restyled(label_indent=""):
        return e.generic([value], [ident], [init], [ident], ["parallel"] * value.rank,
                         lambda b, a: b.op("arith.divf", [a[0], count], "f32", "q"),
                         e.exact(hint), arg_hints=["in", "out"])[0]


class FullySharded:
    """--fsdp: the parameters, their gradients, the optimizer's state and
    its step split along dimension 0 over the `ranks` ranks of @dp (module
    comment). mlir_export.to_function calls `parameter` for each parameter
    argument, `state` for each optimizer state argument, `expect` once
    before lowering the graph and `after` after each node, then takes
    `results` and `new_state`."""

    def __init__(self, ranks):
        self.ranks = ranks
        self.shards = []  # (shard argument, full shape, label) per parameter

    def rows(self, shape):
        """The rows of a shard of a parameter of `shape`: ceil(d0 / N)."""
        return -(-shape[0] // self.ranks)

    def parameter(self, cx, hint, shape, elt, label):
        """The shard argument of parameter `label`; returns the Deferred
        gather of the whole parameter. Raises ImportError_ for a parameter
        that has no dimension 0 or is not f32."""
        if not shape or elt != "f32":
            raise torch_trace.ImportError_(
                "--fsdp: parameter '%s' (%s) cannot be sharded along "
                "dimension 0: only f32 parameters of rank >= 1 can"
                % (label, "a scalar" if not shape else elt))
        shard = cx.function.argument(hint, [self.rows(shape)] + shape[1:], elt,
                                     ["remat.split_dim = 0 : i64"], label)
        self.shards.append((shard, shape, label))
        return Deferred(lambda cx: self._gather(cx.e, shard, shape, label))

    def _gather(self, e, shard, shape, label):
        """The whole parameter from the ranks' shards, emitted where `e`
        is: an all-gather, then the padding rows sliced off."""
        saved = e.loc
        e.loc = "%s/all_gather" % label
        whole = [shard.shape[0] * self.ranks] + shape[1:]
        t = Value("", whole, shard.elt).type
        v = Value(e.let("gathered", "shard.all_gather %s on @dp grid_axes = [0] "
                        "gather_axis = 0 : %s -> %s" % (shard.name, shard.type, t)),
                  whole, shard.elt)
        if whole != shape:
            v = e.extract_slice(v, [0] * len(shape), shape, [1] * len(shape), shape)
        e.loc = saved
        return v

    def state(self, cx, hint, shape, elt, label):
        """The argument of optimizer state `label` (whose whole value has
        `shape`): a slot the rank's shard, padded like its parameter;
        AdamW's step count (a scalar) replicated."""
        if not shape:
            return cx.function.argument(hint, shape, elt, loc=label)
        return cx.function.argument(hint, [self.rows(shape)] + shape[1:], elt,
                                    ["remat.split_dim = 0 : i64"], label)

    def expect(self, grads, names, opt, state):
        """The gradient nodes of the parameters (in `parameter` order),
        their names, the optimizer (None: no update) and its state
        arguments (`state`, opt.state_names order)."""
        self.grads, self.names, self.opt = list(grads), list(names), opt
        self.out = [None] * len(self.grads)
        state = list(state)
        self.step = state.pop(0) if opt is not None and opt.has_step else None
        width = len(opt.slots) if opt is not None else 0
        trainable = [i for i, g in enumerate(self.grads) if g is not None]
        self.slots = {i: state[k * width:(k + 1) * width]
                      for k, i in enumerate(trainable)}
        self.new_step, self.new_slots, self.scalars = [], {}, None

    def after(self, cx, node):
        """Called after each node is lowered: right after a parameter's
        gradient, its shard (reduce-scattered, divided by N) and, with an
        optimizer, the updated shard and state."""
        for i, g in enumerate(self.grads):
            if g is node:
                self.out[i] = self._shard_gradient(cx, i, cx.val(node))

    def _shard_gradient(self, cx, i, g):
        """Gradient `g` of parameter i padded to N * rows with zero rows,
        reduce-scattered, divided by N: the rank's shard of the gradient of
        the global batch; then the optimizer's step on the shard when
        there is one (its new state kept for `new_state`). The padding
        rows of a gradient are zero, so the step leaves those of the
        parameter and its state finite (AdamW: 0 / (0 + eps))."""
        e = cx.e
        shard, shape, label = self.shards[i]
        e.loc = "%s/reduce_scatter" % label
        count = e.constant("%.6e" % self.ranks, "f32", "fsdp_ranks")
        pad = shard.shape[0] * self.ranks - shape[0]
        padded = e.pad(g, [0] * len(shape), [pad] + [0] * (len(shape) - 1), 0.0)
        total = Value(e.let("scattered", "shard.reduce_scatter %s on @dp grid_axes = [0] "
                            "scatter_axis = 0 : %s -> %s"
                            % (padded.name, padded.type, shard.type)),
                      shard.shape, shard.elt)
        grad = _divide(e, total, count, "fsdp_init%d" % i, "fsdp_grad%d" % i)
        if self.opt is None:
            return grad
        if self.scalars is None:
            self.new_step, self.scalars = step_count(e, self.opt, self.step)
        outs = update_one(e, self.opt, self.names[i], shard, grad,
                          self.slots[i], self.scalars)
        self.new_slots[i] = outs[1:]
        return outs[0]

    def results(self):
        """The rank's shard of every gradient or updated parameter."""
        missing = [self.names[i] for i, v in enumerate(self.out) if v is None]
        if missing:
            raise torch_trace.ImportError_(
                "--fsdp: no gradient was lowered for %s" % ", ".join(missing))
        return self.out

    def new_state(self):
        """The new optimizer state (opt.state_names order): AdamW's step
        count, then the rank's shard of every slot."""
        if self.opt is None:
            return []
        return self.new_step + [v for i in sorted(self.new_slots)
                                for v in self.new_slots[i]]

#!/usr/bin/python3
"""Checks an imported training step against PyTorch.

Takes the importer's options for what to trace (model_spec.add_arguments:
--model or --module, --module-args, --input-shape, --input,
--example-inputs, --loss, --dtype). Runs the IR written by
`remat-import-torch --emit-mlir` (--mlir) with remat-run on remat-run's
deterministic inputs (docs/Running.md: argument k, element i is
sin(0.1 i + k) / 2 for floats, (i + k) mod 4 for integers (random
below the step's `remat.high` where it has one: labels, token ids), (i + k)
mod 2 for booleans), computes the same step in PyTorch (train mode) on the
same values in float64 (the reference) and in the step's type (--dtype: f32, f64, bf16),
and compares the loss and every trainable parameter's gradient with the
reference. Without --mlir it prints the reference only. A quantity passes
when our error is at most rtol * scale + atol, or at most --slack (4) times
PyTorch's own error in the step's type (small batch norms are
ill-conditioned: there float32 PyTorch itself is far from float64). With --perturb EPS, PyTorch's own error is instead how far its
float64 step moves when every float input is scaled by 1 + EPS cos(i): the
conditioning of the step at rounding level, for float64 steps that amplify
rounding beyond any fixed rtol (resnet50 at 64x64: 1e-15 moves its gradients
by 2e-5). Measured per quantity:

  * per tensor, when its values are printed (results of at most
    --max-values elements in all): max |ours - ref|, scale max |ref|;
  * always: the sum and the sum of magnitudes, scale sum |ref|.

With --optimizer (the importer's options, optimizer_spec.py) the results
compared are the parameters after torch.optim's step and the optimizer's
new state, which PyTorch starts from remat-run's values for the state
arguments (AdamW's step count an integer, its exp_avg_sq non-negative:
remat-run runs a copy of the step that reads those arguments through |x|,
--save-run-input keeps it; with --no-run that copy is all it writes: a
per-rank step of remat-import-torch --shard --fsdp, for mpirun). The buffers (arguments after the parameters)
get remat-run's values too, and the buffers PyTorch's step updates in place
(batch norm's running statistics) are compared after the loss and the
parameters' results, in named_buffers order; the new optimizer state last.

Prints one line per result, the worst relative error (ours and PyTorch's
own in the step's type, both against float64), the worst relative
difference between ours and PyTorch's step in the same type, and 'numerics
PASS' or 'numerics FAIL'.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import model_spec  # noqa: E402
import optimizer_spec  # noqa: E402
import torch_trace  # noqa: E402
from mlir_emitter import (Emitter, Value, parse_tensor_type,  # noqa: E402
                          read_signatures, rename_values, tokens)


def random_bits(k, n):
    """remat-run's pseudo-random stream of argument k, elements 0..n-1
    (docs/Running.md): SplitMix64's first output for the state k * 2^32 + i,
    as uint64."""
    with numpy.errstate(over="ignore"):
        z = (numpy.uint64(k) << numpy.uint64(32)) + numpy.arange(n, dtype=numpy.uint64)
        z = z + numpy.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> numpy.uint64(30))) * numpy.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> numpy.uint64(27))) * numpy.uint64(0x94D049BB133111EB)
        return z ^ (z >> numpy.uint64(31))


def remat_run_value(k, shape, dtype, perturb=0.0, high=None, bernoulli=None):
    """remat-run's input k; floats times (1 + perturb cos(i)) if asked;
    with `high` (remat.high) integers in [0, high), with `bernoulli`
    (remat.bernoulli) a 0/1 mask of that probability of a 1; booleans
    (i + k) mod 2."""
    n = 1
    for d in shape:
        n *= d
    i = torch.arange(n, dtype=torch.float64)
    if bernoulli is not None:
        u = (random_bits(k, n) >> numpy.uint64(11)).astype(numpy.float64) * 2.0 ** -53
        v = torch.from_numpy((u < bernoulli).astype(numpy.float64)).to(dtype)
    elif dtype.is_floating_point:
        v = torch.sin(0.1 * i + k) * 0.5
        if perturb:
            v = v * (1 + perturb * torch.cos(i))
        v = v.to(dtype)
    elif dtype == torch.bool:
        v = (torch.arange(n) + k) % 2 == 1
    elif high is not None:
        v = torch.from_numpy((random_bits(k, n) % numpy.uint64(high)).astype(numpy.int64))
        v = v.to(dtype)
    else:
        v = ((torch.arange(n) + k) % RUN_INT_RANGE).to(dtype)
    return v.reshape(shape)


# remat-run's integer inputs are (i + k) mod 4 (docs/Running.md).
RUN_INT_RANGE = 4


def buffer_values(model, first, spec_dtype, dtype):
    """Every buffer as remat-run gives it, argument `first` onwards (float
    buffers converted like the parameters; num_batches_tracked stays int)."""
    out = {}
    for k, (n, t) in enumerate(model.named_buffers(), first):
        if t.dtype.is_floating_point:
            out[n] = remat_run_value(k, list(t.shape), spec_dtype).to(dtype)
        else:
            out[n] = remat_run_value(k, list(t.shape), t.dtype)
    return out


def data_values(spec, first, dtype, perturb):
    """The step's data arguments (spec.inputs: forward's inputs, then the
    labels) as remat-run gives them from argument `first` on, float ones
    converted to `dtype`."""
    values = []
    for k, i in enumerate(spec.inputs, first):
        if i.dtype.is_floating_point:
            values.append(remat_run_value(k, i.shape, i.dtype, perturb)
                          .to(dtype))
            continue
        values.append(remat_run_value(k, i.shape, i.dtype, high=i.high))
    return values


class Dropout:
    """F.dropout and Tensor.bernoulli_ (stochastic depth's draw) with
    remat-run's values for the masks: the imported step takes each mask as
    an argument after the data arguments, in call order, marked
    remat.bernoulli = the probability of a 1 (docs/Importer.md,
    "Dropout")."""

    def __init__(self, first, spec_dtype, dtype):
        self.first, self.spec_dtype, self.dtype = first, spec_dtype, dtype
        self.masks = 0

    def mask(self, shape, keep):
        k = self.first + self.masks
        self.masks += 1
        return remat_run_value(k, list(shape), self.spec_dtype,
                               bernoulli=keep).to(self.dtype)

    def __call__(self, input, p=0.5, training=True, inplace=False):
        if not training or p == 0:
            return input
        return input * self.mask(input.shape, 1 - p) / (1 - p)

    def bernoulli_(self, tensor, p=0.5, generator=None):
        if isinstance(p, torch.Tensor):
            raise ValueError("bernoulli_ with probabilities from a tensor")
        with torch.no_grad():
            return tensor.copy_(self.mask(tensor.shape, float(p)))

    def __enter__(self):
        self.saved = F.dropout, torch.Tensor.bernoulli_
        F.dropout = self
        torch.Tensor.bernoulli_ = lambda t, *a, **k: self.bernoulli_(t, *a, **k)
        return self

    def __exit__(self, *exc):
        F.dropout, torch.Tensor.bernoulli_ = self.saved
        return False


def torch_step(spec, dtype, args, perturb=0.0):
    """The step's results in PyTorch on remat-run's inputs (perturbed by
    `perturb`, relative), with their labels: the loss, the gradient of
    every trainable parameter (or the parameter after the optimizer's
    step), the buffers the step updates, then the optimizer's new state."""
    model = spec.model.to(dtype)
    model.train()
    params = {n: remat_run_value(k, list(t.shape), spec.dtype, perturb)
              .to(dtype).requires_grad_(t.requires_grad)
              for k, (n, t) in enumerate(model.named_parameters())}
    names = [n for n, t in model.named_parameters() if t.requires_grad]
    buffers = buffer_values(model, len(params), spec.dtype, dtype)
    # Updated in place: native_batch_norm's kernel writes the running
    # statistics without bumping the tensors' versions, so compare values.
    before = {n: t.clone() for n, t in buffers.items()}
    state = state_values(args.opt, [params[n] for n in names],
                         len(params) + len(buffers), spec.dtype, dtype)
    first = len(params) + len(buffers) + len(state)  # the first data argument
    data = data_values(spec, first, dtype, perturb)
    tensors = {**params, **buffers}
    tensors.update((a, tensors[n])
                   for a, n in torch_trace.tied_names(model).items())
    with Dropout(first + len(data), spec.dtype, dtype):
        loss = spec.loss_of(spec.forward(tensors, data), data)
    grads = torch.autograd.grad(loss, [params[n] for n in names])
    values, labels, new_state = parameter_results(params, names, grads,
                                                  state, args.opt)
    updated = [n for n, t in buffers.items() if not torch.equal(t, before[n])]
    state_labels = ["s " + n for n in args.opt.state_names(names)] \
        if args.opt else []
    return ([loss.detach().double()] + values +
            [buffers[n].double() for n in updated] +
            [t.double() for t in new_state],
            ["loss"] + labels + ["b " + n for n in updated] + state_labels)


def state_values(opt, params, first, spec_dtype, dtype):
    """The optimizer's state as remat-run gives it from argument `first`
    on (optimizer_spec's order): the step count an integer in [0, 4), a
    slot of its parameter's type; exp_avg_sq through |x| (see
    `nonnegative_state`)."""
    if opt is None:
        return []
    names = opt.state_names(["p%d" % i for i in range(len(params))])
    shapes = [list(p.shape) for p in params for _ in opt.slots]
    out = []
    if opt.has_step:
        out.append(remat_run_value(first, [], torch.int64))
    for k, (name, shape) in enumerate(zip(names[len(out):], shapes),
                                      first + len(out)):
        v = remat_run_value(k, shape, spec_dtype).to(dtype)
        out.append(v.abs() if name.endswith(".exp_avg_sq") else v)
    return out


def parameter_results(params, names, grads, state, opt):
    """What the step returns per trainable parameter, with labels, and the
    new optimizer state: the gradients, or the parameters after
    torch.optim's step from `state` (optimizer_spec.Optimizer.torch_step)."""
    if opt is None:
        return ([g.detach().double() for g in grads],
                ["d " + n for n in names], [])
    tensors = [params[n].detach().clone() for n in names]
    new_state = opt.torch_step(tensors, [g.detach() for g in grads], state)
    return [t.double() for t in tensors], ["p " + n for n in names], new_state


def nonnegative_state(text, opt, first):
    """The step `text` with every exp_avg_sq argument (AdamW's, from
    argument `first` on) read through |x|: remat-run's values are negative
    half the time, a second moment never is. The copy remat-run runs."""
    if opt is None or "exp_avg_sq" not in opt.slots:
        return text
    sig = read_signatures(text)[0]
    e = Emitter()
    e.names.reserve(t.text for t in tokens(text[sig.start:sig.body_end])
                    if t.text.startswith("%"))
    e.loc = "check-numerics/abs"
    renames = {}
    slot = first + int(opt.has_step) + opt.slots.index("exp_avg_sq")
    for name, type_ in sig.args[slot::len(opt.slots)]:
        if not name.endswith("_exp_avg_sq"):
            break  # past the state: the data arguments
        shape, elt = parse_tensor_type(type_)
        v = Value("%" + name, shape, elt)
        renames[v.name] = e.elementwise([v], shape, elt, lambda b, s: b.op(
            "math.absf", s, elt)).name
    body_start = text.index("\n", sig.body_start) + 1
    return (text[:body_start] + "\n".join(e.lines) + "\n" +
            rename_values(text[body_start:sig.body_end], renames) +
            text[sig.body_end:])


def within(ours_err, torch_err, scale, args):
    """Our error w.r.t. the float64 reference is within rtol, or within
    --slack times PyTorch's own float32 error."""
    return ours_err <= args.rtol * scale + args.atol or \
        ours_err <= args.slack * torch_err


def parse_args():
    p = argparse.ArgumentParser(
        description="Compare an imported training step, run by remat-run, "
        "with PyTorch's. Takes the importer's options for what to trace.")
    model_spec.add_arguments(p)
    p.add_argument("--mlir", help="the imported step (without it, only "
                   "PyTorch's reference results are printed)")
    optimizer_spec.add_arguments(p)
    p.add_argument("--save-run-input", metavar="FILE",
                   help="write the IR remat-run runs (with --optimizer "
                   "adamw: exp_avg_sq read through |x|) to FILE")
    p.add_argument("--remat-run", default="remat-run")
    p.add_argument("--pipeline", help="remat-run --pipeline")
    p.add_argument("--opt-level", type=int,
                   help="remat-run --opt-level (LLVM optimization of the "
                   "JIT; 0 compiles full models in a fraction of the time)")
    p.add_argument("--rtol", type=float, default=1e-4)
    p.add_argument("--atol", type=float, default=1e-6)
    p.add_argument("--slack", type=float, default=4.0)
    p.add_argument("--rtol-torch", type=float,
                   help="also fail where a result differs from PyTorch's "
                   "step in the same type (--dtype) by more than this, "
                   "relative as rtol (bf16: both comparisons matter)")
    p.add_argument("--max-values", type=int, default=1 << 20)
    p.add_argument("--perturb", type=float, default=0.0,
                   help="measure PyTorch's own error (for --slack) as its "
                   "float64 step's change when every float input is scaled "
                   "by 1 + PERTURB cos(i), instead of its float32 error")
    p.add_argument("--no-run", action="store_true",
                   help="with --mlir and --save-run-input: only write the "
                   "IR remat-run would run and exit (for a per-rank step "
                   "of remat-import-torch --shard, run under mpirun)")
    args = p.parse_args()
    if args.no_run and not (args.mlir and args.save_run_input):
        p.error("--no-run needs --mlir and --save-run-input")
    model_spec.check_arguments(p, args)
    args.opt = optimizer_spec.from_arguments(p, args)
    return args


def reference(args):
    """(labels, PyTorch's float64 results, PyTorch's own error's results,
    what those are, the first argument after the parameters and buffers):
    PyTorch's own is its step in the step's type, or with --perturb its
    float64 step on inputs perturbed at rounding level."""
    spec = model_spec.ModelSpec.create(args)
    bound_integer_inputs(spec, args.mlir)
    first_state = first_state_of(spec)
    expected, labels = torch_step(spec, torch.float64, args)
    other = model_spec.DTYPE_NAMES[spec.dtype]
    if args.perturb:
        theirs, _ = torch_step(spec, torch.float64, args, args.perturb)
        other = "f64 perturbed"
    else:
        try:
            theirs, _ = torch_step(spec, spec.dtype, args)
        except RuntimeError as err:  # an op without a kernel of that type
            raise torch_trace.ImportError_(
                "PyTorch's own %s step fails, so there is no error of "
                "PyTorch's to compare ours with: %s" % (other, err))
    return labels, expected, theirs, other, first_state


def bound_integer_inputs(spec, mlir=None):
    """Gives spec's integer inputs the bounds remat-run draws them below:
    the `remat.high` of the step `mlir` (the data arguments, first the
    inputs, then the dropout masks), or without it the bounds the importer
    gives (input_bounds.py: the step is traced as for --emit-mlir)."""
    if all(i.dtype.is_floating_point or i.dtype == torch.bool
           for i in spec.inputs):
        return
    if mlir is None:
        torch_trace.trace(spec, decompose=True, for_mlir=True)
        return
    with open(mlir) as f:
        sig = read_signatures(f.read())[0]
    data = [a for a in sig.arg_attributes if "remat.data" in a and
            "remat.bernoulli" not in a]
    for i, attrs in zip(spec.inputs, data):
        high = re.search(r"remat\.high = (\d+)", attrs)
        i.high = int(high.group(1)) if high else None


def first_state_of(spec):
    """The first argument of the step after the parameters and buffers:
    the optimizer's state when there is one."""
    return len(list(spec.model.named_parameters())) + \
        len(list(spec.model.named_buffers()))


def write_run_input(args, first_state, path):
    """Writes to `path` the step --mlir as remat-run runs it (see
    `nonnegative_state`); the optimizer's state starts at argument
    `first_state`."""
    with open(args.mlir) as f:
        text = nonnegative_state(f.read(), args.opt, first_state)
    with open(path, "w") as f:
        f.write(text)


def run_ours(args, total, first_state):
    """remat-run's results of the imported step (values printed when all
    results hold at most --max-values elements); the optimizer's state
    starts at argument `first_state`."""
    path = args.save_run_input
    if path is None:
        tmp = tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False)
        path = tmp.name
        tmp.close()
    write_run_input(args, first_state, path)
    try:
        return run_remat_run(args, path, total)
    finally:
        if args.save_run_input is None:
            os.unlink(path)


def run_remat_run(args, path, total):
    cmd = [args.remat_run, path, "--json"]
    if total <= args.max_values:
        cmd.append("--print-results")
    if args.pipeline:
        cmd.append("--pipeline=" + args.pipeline)
    if args.opt_level is not None:
        cmd.append("--opt-level=%d" % args.opt_level)
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit("remat-run failed:\n" + run.stderr)
    results = json.loads(run.stdout)["results"]
    for got in results:
        # A NaN or infinity comes as "nan", "inf" or "-inf" (JSON has none).
        for key in ("sum", "abs_sum"):
            got[key] = float(got[key])
        if "values" in got:
            got["values"] = [float(v) for v in got["values"]]
    return results


def errors(got, want, theirs, other, args):
    """(relative error, PyTorch's own relative error, mismatches, relative
    difference from PyTorch's own step) of one result: its sums, and its
    values when printed."""
    w, t = want.flatten(), theirs.flatten()
    floor = args.atol / args.rtol
    rel_same = 0.0
    checks = [("sum", got["sum"], float(w.sum()), float(t.sum()),
               float(w.abs().sum())),
              ("abs_sum", got["abs_sum"], float(w.abs().sum()),
               float(t.abs().sum()), float(w.abs().sum()))]
    rel = rel_torch = 0.0
    errs = []
    for what, ours, ref, torch_value, scale in checks:
        e_ours, e_torch = abs(ours - ref), abs(torch_value - ref)
        rel = max(rel, e_ours / (scale + floor))
        rel_torch = max(rel_torch, e_torch / (scale + floor))
        rel_same = max(rel_same, abs(ours - torch_value) / (scale + floor))
        if not within(e_ours, e_torch, scale, args):
            errs.append("%s %.9g vs %.9g (torch %s %.9g)"
                        % (what, ours, ref, other, torch_value))
    if "values" in got:
        g = torch.tensor(got["values"], dtype=torch.float64)
        maxabs = float(w.abs().max())
        e_ours = float((g - w).abs().max())
        e_torch = float((t - w).abs().max())
        rel = max(rel, e_ours / (maxabs + floor))
        rel_torch = max(rel_torch, e_torch / (maxabs + floor))
        rel_same = max(rel_same,
                       float((g - t).abs().max()) / (maxabs + floor))
        if not within(e_ours, e_torch, maxabs, args):
            errs.append("max |diff| %.3g (torch %s %.3g)"
                        % (e_ours, other, e_torch))
    if args.rtol_torch is not None and rel_same > args.rtol_torch:
        errs.append("%.3g from torch %s's step (--rtol-torch %g)"
                    % (rel_same, other, args.rtol_torch))
    return rel, rel_torch, errs, rel_same


def shape_text(t):
    return "x".join(map(str, t.shape)) or "scalar"


def main():
    args = parse_args()
    try:
        if args.no_run:
            spec = model_spec.ModelSpec.create(args)
            write_run_input(args, first_state_of(spec), args.save_run_input)
            return 0
        labels, expected, theirs, other, first_state = reference(args)
    except torch_trace.ImportError_ as e:
        sys.exit("check-numerics: error: %s" % e)
    if not args.mlir:
        # PyTorch only: the results the imported step must return.
        for label, want, t in zip(labels, expected, theirs):
            rel = float((t - want).abs().max()) / \
                (float(want.abs().max()) + args.atol / args.rtol)
            print("%-40s %-12s sum %.9g torch %s rel %.2e" % (
                label, shape_text(want), float(want.sum()), other, rel))
        print("reference only: %d results" % len(labels))
        return 0
    results = run_ours(args, sum(t.numel() for t in expected), first_state)
    if len(results) != len(expected):
        sys.exit("remat-run returned %d results, PyTorch %d"
                 % (len(results), len(expected)))
    ok = True
    worst = worst_torch = worst_same = 0.0
    for label, want, t, got in zip(labels, expected, theirs, results):
        rel, rel_torch, errs, rel_same = errors(got, want, t, other, args)
        worst, worst_torch = max(worst, rel), max(worst_torch, rel_torch)
        worst_same = max(worst_same, rel_same)
        status = "ok" if not errs else "MISMATCH " + "; ".join(errs)
        print("%-40s %-12s rel %.2e %s" % (label, shape_text(want), rel,
                                           status))
        ok = ok and not errs
    # rel: error / (scale + atol / rtol), so that a quantity within
    # rtol * scale + atol has rel <= rtol.
    print("worst relative error %.2e (rtol %g; torch %s %.2e)" %
          (worst, args.rtol, other, worst_torch))
    print("worst relative difference from torch %s: %.2e" % (other, worst_same))
    print("numerics PASS" if ok else "numerics FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Checks an imported training step against PyTorch.

Takes the importer's options for what to trace (model_spec.add_arguments:
--model or --module, --module-args, --input-shape, --input,
--example-inputs, --loss, --dtype). Runs the IR written by
`remat-import-torch --emit-mlir` (--mlir) with remat-run on remat-run's
deterministic inputs (docs/Running.md: argument k, element i is
sin(0.1 i + k) / 2 for floats and (i + k) mod 4 for integers: labels, token
ids), computes the same step in PyTorch (train mode) on the same values in
float64 (the reference) and float32, and compares the loss and every
trainable parameter's gradient with the reference. Without --mlir it prints
the reference only. A quantity passes when our error is at most
rtol * scale + atol, or at most --slack (4) times PyTorch float32's own error
(small batch norms are ill-conditioned: there float32 PyTorch itself is far
from float64). With --perturb EPS, PyTorch's own error is instead how far its
float64 step moves when every float input is scaled by 1 + EPS cos(i): the
conditioning of the step at rounding level, for float64 steps that amplify
rounding beyond any fixed rtol (resnet50 at 64x64: 1e-15 moves its gradients
by 2e-5). Measured per quantity:

  * per tensor, when its values are printed (results of at most
    --max-values elements in all): max |ours - ref|, scale max |ref|;
  * always: the sum and the sum of magnitudes, scale sum |ref|.

With --sgd-lr the results compared are the parameters after
torch.optim.SGD's step (the step imported with --sgd-lr). The buffers
(arguments after the parameters) get remat-run's values too, and the buffers
PyTorch's step updates in place (batch norm's running statistics) are
compared after the loss and the parameters' results, in named_buffers order.

Prints one line per result and 'numerics PASS' or 'numerics FAIL'.
"""

import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import model_spec  # noqa: E402
import torch_trace  # noqa: E402


def remat_run_value(k, shape, dtype, perturb=0.0):
    """remat-run's input k; floats times (1 + perturb cos(i)) if asked."""
    n = 1
    for d in shape:
        n *= d
    i = torch.arange(n, dtype=torch.float64)
    if dtype.is_floating_point:
        v = torch.sin(0.1 * i + k) * 0.5
        if perturb:
            v = v * (1 + perturb * torch.cos(i))
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
    converted to `dtype`. Raises ImportError_ for an input remat-run's
    values do not fit: booleans, integers bounded below 4 (token ids of a
    vocabulary smaller than remat-run's range)."""
    values = []
    for k, i in enumerate(spec.inputs, first):
        if i.dtype == torch.bool:
            raise torch_trace.ImportError_(
                "input '%s' is bool: remat-run gives no boolean inputs"
                % i.name)
        if i.dtype.is_floating_point:
            values.append(remat_run_value(k, i.shape, i.dtype, perturb)
                          .to(dtype))
            continue
        if i.high is not None and i.high < RUN_INT_RANGE:
            raise torch_trace.ImportError_(
                "input '%s' takes values below %d only; remat-run's integer "
                "inputs are (i + k) mod %d" % (i.name, i.high, RUN_INT_RANGE))
        values.append(remat_run_value(k, i.shape, i.dtype))
    return values


class Dropout:
    """F.dropout with remat-run's values for the masks: the imported step
    takes each dropout mask as an argument after the data arguments, in
    call order (docs/Importer.md, "Dropout")."""

    def __init__(self, first, spec_dtype, dtype):
        self.first, self.spec_dtype, self.dtype = first, spec_dtype, dtype
        self.masks = 0

    def __call__(self, input, p=0.5, training=True, inplace=False):
        if not training or p == 0:
            return input
        k = self.first + self.masks
        self.masks += 1
        mask = remat_run_value(k, list(input.shape), self.spec_dtype)
        return input * mask.to(self.dtype) / (1 - p)

    def __enter__(self):
        self.saved = F.dropout
        F.dropout = self
        return self

    def __exit__(self, *exc):
        F.dropout = self.saved
        return False


def torch_step(spec, dtype, args, perturb=0.0):
    """The step's results in PyTorch on remat-run's inputs (perturbed by
    `perturb`, relative), with their labels: the loss, the gradient of
    every trainable parameter (or what an update rule makes of them,
    `parameter_results`), then the buffers the step updates."""
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
    first = len(params) + len(buffers)  # the first data argument
    data = data_values(spec, first, dtype, perturb)
    tensors = {**params, **buffers}
    tensors.update((a, tensors[n])
                   for a, n in torch_trace.tied_names(model).items())
    with Dropout(first + len(data), spec.dtype, dtype):
        loss = spec.loss_of(spec.forward(tensors, data), data)
    grads = torch.autograd.grad(loss, [params[n] for n in names])
    values, labels = parameter_results(params, names, grads, args)
    updated = [n for n, t in buffers.items() if not torch.equal(t, before[n])]
    return ([loss.detach().double()] + values +
            [buffers[n].double() for n in updated],
            ["loss"] + labels + ["b " + n for n in updated])


def parameter_results(params, names, grads, args):
    """What the step returns per trainable parameter, with labels: its
    gradient, or the parameter after the update rule the step was imported
    with (--sgd-lr: torch.optim.SGD's step). Update rules belong here."""
    if args.sgd_lr is None:
        return ([g.detach().double() for g in grads],
                ["d " + n for n in names])
    tensors = [params[n].detach().clone() for n in names]
    for t, g in zip(tensors, grads):
        t.grad = g.detach()
    torch.optim.SGD(tensors, lr=args.sgd_lr).step()
    return [t.double() for t in tensors], ["p " + n for n in names]


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
    p.add_argument("--sgd-lr", type=float,
                   help="the step was imported with --sgd-lr: compare the "
                   "updated parameters with torch.optim.SGD's")
    p.add_argument("--remat-run", default="remat-run")
    p.add_argument("--pipeline", help="remat-run --pipeline")
    p.add_argument("--opt-level", type=int,
                   help="remat-run --opt-level (LLVM optimization of the "
                   "JIT; 0 compiles full models in a fraction of the time)")
    p.add_argument("--rtol", type=float, default=1e-4)
    p.add_argument("--atol", type=float, default=1e-6)
    p.add_argument("--slack", type=float, default=4.0)
    p.add_argument("--max-values", type=int, default=1 << 20)
    p.add_argument("--perturb", type=float, default=0.0,
                   help="measure PyTorch's own error (for --slack) as its "
                   "float64 step's change when every float input is scaled "
                   "by 1 + PERTURB cos(i), instead of its float32 error")
    args = p.parse_args()
    model_spec.check_arguments(p, args)
    return args


def reference(args):
    """(labels, PyTorch's float64 results, PyTorch's own error's results,
    what those are): its float32 step (the step's type), or with --perturb
    its float64 step on inputs perturbed at rounding level."""
    spec = model_spec.ModelSpec.create(args)
    expected, labels = torch_step(spec, torch.float64, args)
    other = "f32" if spec.dtype == torch.float32 else "f64"
    if args.perturb:
        theirs, _ = torch_step(spec, torch.float64, args, args.perturb)
        other = "f64 perturbed"
    else:
        theirs, _ = torch_step(spec, spec.dtype, args)
    return labels, expected, theirs, other


def run_ours(args, total):
    """remat-run's results of the imported step (values printed when all
    results hold at most --max-values elements)."""
    cmd = [args.remat_run, args.mlir, "--json"]
    if total <= args.max_values:
        cmd.append("--print-results")
    if args.pipeline:
        cmd.append("--pipeline=" + args.pipeline)
    if args.opt_level is not None:
        cmd.append("--opt-level=%d" % args.opt_level)
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit("remat-run failed:\n" + run.stderr)
    return json.loads(run.stdout)["results"]


def errors(got, want, theirs, other, args):
    """(relative error, PyTorch's own relative error, mismatches) of one
    result: its sums, and its values when printed."""
    w, t = want.flatten(), theirs.flatten()
    floor = args.atol / args.rtol
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
        if not within(e_ours, e_torch, maxabs, args):
            errs.append("max |diff| %.3g (torch %s %.3g)"
                        % (e_ours, other, e_torch))
    return rel, rel_torch, errs


def shape_text(t):
    return "x".join(map(str, t.shape)) or "scalar"


def main():
    args = parse_args()
    try:
        labels, expected, theirs, other = reference(args)
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
    results = run_ours(args, sum(t.numel() for t in expected))
    if len(results) != len(expected):
        sys.exit("remat-run returned %d results, PyTorch %d"
                 % (len(results), len(expected)))
    ok = True
    worst = worst_torch = 0.0
    for label, want, t, got in zip(labels, expected, theirs, results):
        rel, rel_torch, errs = errors(got, want, t, other, args)
        worst, worst_torch = max(worst, rel), max(worst_torch, rel_torch)
        status = "ok" if not errs else "MISMATCH " + "; ".join(errs)
        print("%-40s %-12s rel %.2e %s" % (label, shape_text(want), rel,
                                           status))
        ok = ok and not errs
    # rel: error / (scale + atol / rtol), so that a quantity within
    # rtol * scale + atol has rel <= rtol.
    print("worst relative error %.2e (rtol %g; torch %s %.2e)" %
          (worst, args.rtol, other, worst_torch))
    print("numerics PASS" if ok else "numerics FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

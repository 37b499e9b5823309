#!/usr/bin/python3
"""Checks an imported training step against PyTorch.

Runs the IR written by `remat-import-torch --emit-mlir` with remat-run on
remat-run's deterministic inputs (docs/Running.md: argument k, element i is
sin(0.1 i + k) / 2 for floats and (i + k) mod 4 for the int64 labels),
computes the same step in PyTorch (train mode) on the same values in float64
(the reference) and float32, and compares the loss and every parameter
gradient with the reference. A quantity passes when our error is at most
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
from torch.nn.utils import stateless  # noqa: E402

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
        v = ((torch.arange(n) + k) % 4).to(dtype)
    return v.reshape(shape)


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


def torch_step(spec, dtype, sgd_lr=None, perturb=0.0):
    """Loss and parameter gradients (or, with sgd_lr, the parameters after
    one SGD step), then the buffers the step updates, of PyTorch on
    remat-run's inputs (perturbed by `perturb`, relative)."""
    model = spec.model.to(dtype)
    model.train()
    names = [n for n, _ in model.named_parameters()]
    params = {n: remat_run_value(k, list(t.shape), spec.dtype, perturb).to(dtype)
              .requires_grad_()
              for k, (n, t) in enumerate(model.named_parameters())}
    buffers = buffer_values(model, len(names), spec.dtype, dtype)
    # Updated in place: native_batch_norm's kernel writes the running
    # statistics without bumping the tensors' versions, so compare values.
    before = {n: t.clone() for n, t in buffers.items()}
    first = len(names) + len(buffers)  # the input's argument index
    x = remat_run_value(first, spec.input_shape, spec.dtype,
                         perturb).to(dtype)
    y = remat_run_value(first + 1, [spec.input_shape[0]], torch.int64)
    # Dropout masks are arguments of the imported step, after the labels, in
    # call order: give PyTorch's dropout the same masks.
    masks = []

    def dropout(input, p=0.5, training=True, inplace=False):
        if not training or p == 0:
            return input
        k = first + 2 + len(masks)
        mask = remat_run_value(k, list(input.shape), spec.dtype).to(dtype)
        masks.append(mask)
        return input * mask / (1 - p)

    saved = F.dropout
    F.dropout = dropout
    try:
        out = stateless.functional_call(model, {**params, **buffers}, (x,))
    finally:
        F.dropout = saved
    loss = F.cross_entropy(out, y)
    grads = torch.autograd.grad(loss, [params[n] for n in names])
    updated = [n for n, t in buffers.items() if not torch.equal(t, before[n])]
    after = ([buffers[n].double() for n in updated],
             ["b " + n for n in updated])
    if sgd_lr is not None:
        return ([loss.detach().double()] + sgd_step(params, names, grads, sgd_lr)
                + after[0], ["loss"] + ["p " + n for n in names] + after[1])
    return ([loss.detach().double()] + [g.detach().double() for g in grads]
            + after[0], ["loss"] + ["d " + n for n in names] + after[1])


def sgd_step(params, names, grads, lr):
    """The parameters after torch.optim.SGD's step with these gradients."""
    tensors = [params[n].detach().clone() for n in names]
    for t, g in zip(tensors, grads):
        t.grad = g.detach()
    torch.optim.SGD(tensors, lr=lr).step()
    return [t.double() for t in tensors]


def within(ours_err, torch_err, scale, args):
    """Our error w.r.t. the float64 reference is within rtol, or within
    --slack times PyTorch's own float32 error."""
    return ours_err <= args.rtol * scale + args.atol or \
        ours_err <= args.slack * torch_err


def main():
    p = argparse.ArgumentParser()
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--model")
    src.add_argument("--module")
    p.add_argument("--batch", type=int, default=2)
    p.add_argument("--resolution", type=int, default=32)
    p.add_argument("--input-shape", type=lambda s: [int(d) for d in s.split("x")])
    p.add_argument("--num-classes", type=int, default=None)
    p.add_argument("--name")
    p.add_argument("--dtype", choices=["f32", "f64"], default="f32",
                   help="element type the step was imported with")
    p.add_argument("--mlir", required=True, help="the imported step")
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

    spec = torch_trace.ModelSpec.create(args)
    expected, labels = torch_step(spec, torch.float64, args.sgd_lr)
    # PyTorch's own error: its float32 step, or with --perturb its float64
    # step on inputs perturbed at rounding level.
    other = "f32" if spec.dtype == torch.float32 else "f64"
    if args.perturb:
        torch32, _ = torch_step(spec, torch.float64, args.sgd_lr, args.perturb)
        other = "f64 perturbed"
    else:
        torch32, _ = torch_step(spec, spec.dtype, args.sgd_lr)
    total = sum(t.numel() for t in expected)
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
    results = json.loads(run.stdout)["results"]
    if len(results) != len(expected):
        sys.exit("remat-run returned %d results, PyTorch %d" % (len(results), len(expected)))
    ok = True
    worst = worst_torch = 0.0
    for label, want, t32, got in zip(labels, expected, torch32, results):
        w = want.flatten()
        t = t32.flatten()
        scale = float(w.abs().sum())
        errs = []
        rel = 0.0
        for what, ours, ref, theirs in (
                ("sum", got["sum"], float(w.sum()), float(t.sum())),
                ("abs_sum", got["abs_sum"], scale, float(t.abs().sum()))):
            e_ours, e_torch = abs(ours - ref), abs(theirs - ref)
            rel = max(rel, e_ours / (scale + args.atol / args.rtol))
            worst_torch = max(worst_torch,
                              e_torch / (scale + args.atol / args.rtol))
            if not within(e_ours, e_torch, scale, args):
                errs.append("%s %.9g vs %.9g (torch %s %.9g)" % (what, ours, ref, other, theirs))
        if "values" in got:
            g = torch.tensor(got["values"], dtype=torch.float64)
            maxabs = float(w.abs().max())
            e_ours = float((g - w).abs().max())
            e_torch = float((t - w).abs().max())
            rel = max(rel, e_ours / (maxabs + args.atol / args.rtol))
            worst_torch = max(worst_torch,
                              e_torch / (maxabs + args.atol / args.rtol))
            if not within(e_ours, e_torch, maxabs, args):
                errs.append("max |diff| %.3g (torch %s %.3g)" % (e_ours, other, e_torch))
        worst = max(worst, rel)
        status = "ok" if not errs else "MISMATCH " + "; ".join(errs)
        print("%-40s %-12s rel %.2e %s" % (label, "x".join(map(str, want.shape)) or "scalar", rel, status))
        ok = ok and not errs
    # rel: error / (scale + atol / rtol), so that a quantity within
    # rtol * scale + atol has rel <= rtol.
    print("worst relative error %.2e (rtol %g; torch %s %.2e)" %
          (worst, args.rtol, other, worst_torch))
    print("numerics PASS" if ok else "numerics FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

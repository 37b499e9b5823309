#!/usr/bin/python3
"""Checks an imported training step against PyTorch.

Runs the IR written by `remat-import-torch --emit-mlir` with remat-run on
remat-run's deterministic inputs (docs/Running.md: argument k, element i is
sin(0.1 i + k) / 2 for floats and (i + k) mod 4 for the int64 labels),
computes the same step in PyTorch (float32, train mode) on the same values,
and compares the loss and every parameter gradient:

  * per tensor, when its values are printed (tensors of at most
    --max-values elements in all): max |ours - torch| <= rtol * max |torch|
    + atol;
  * always: |sum(ours) - sum(torch)| <= rtol * abs_sum(torch) + atol and
    |abs_sum(ours) - abs_sum(torch)| <= rtol * abs_sum(torch) + atol.

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


def remat_run_value(k, shape, dtype):
    n = 1
    for d in shape:
        n *= d
    i = torch.arange(n, dtype=torch.float64)
    if dtype.is_floating_point:
        v = (torch.sin(0.1 * i + k) * 0.5).to(dtype)
    else:
        v = ((torch.arange(n) + k) % 4).to(dtype)
    return v.reshape(shape)


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
    p.add_argument("--mlir", required=True, help="the imported step")
    p.add_argument("--remat-run", default="remat-run")
    p.add_argument("--pipeline", help="remat-run --pipeline")
    p.add_argument("--rtol", type=float, default=1e-4)
    p.add_argument("--atol", type=float, default=1e-6)
    p.add_argument("--max-values", type=int, default=1 << 20)
    args = p.parse_args()

    spec = torch_trace.ModelSpec.create(args)
    model = spec.model
    model.train()
    names = [n for n, _ in model.named_parameters()]
    params = {n: remat_run_value(k, list(t.shape), t.dtype).requires_grad_()
              for k, (n, t) in enumerate(model.named_parameters())}
    buffers = dict(model.named_buffers())
    x = remat_run_value(len(names), spec.input_shape, torch.float32)
    y = remat_run_value(len(names) + 1, [spec.input_shape[0]], torch.int64)
    out = stateless.functional_call(model, {**params, **buffers}, (x,))
    loss = F.cross_entropy(out, y)
    grads = torch.autograd.grad(loss, [params[n] for n in names])
    expected = [loss.detach()] + [g.detach() for g in grads]
    labels = ["loss"] + ["d " + n for n in names]

    total = sum(t.numel() for t in expected)
    cmd = [args.remat_run, args.mlir, "--json"]
    if total <= args.max_values:
        cmd.append("--print-results")
    if args.pipeline:
        cmd.append("--pipeline=" + args.pipeline)
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit("remat-run failed:\n" + run.stderr)
    results = json.loads(run.stdout)["results"]
    if len(results) != len(expected):
        sys.exit("remat-run returned %d results, PyTorch %d" % (len(results), len(expected)))
    ok = True
    worst = 0.0
    for label, want, got in zip(labels, expected, results):
        w = want.double().flatten()
        scale = float(w.abs().sum())
        errs = []
        d_sum = abs(got["sum"] - float(w.sum()))
        d_abs = abs(got["abs_sum"] - scale)
        rel = max(d_sum, d_abs) / max(scale, 1e-30)
        if d_sum > args.rtol * scale + args.atol:
            errs.append("sum %.9g vs %.9g" % (got["sum"], float(w.sum())))
        if d_abs > args.rtol * scale + args.atol:
            errs.append("abs_sum %.9g vs %.9g" % (got["abs_sum"], scale))
        if "values" in got:
            g = torch.tensor(got["values"], dtype=torch.float64)
            maxabs = float(w.abs().max())
            diff = float((g - w).abs().max())
            rel = max(rel, diff / max(maxabs, 1e-30))
            if diff > args.rtol * maxabs + args.atol:
                errs.append("max |diff| %.3g > %.3g" % (diff, args.rtol * maxabs + args.atol))
        worst = max(worst, rel)
        status = "ok" if not errs else "MISMATCH " + "; ".join(errs)
        print("%-40s %-12s rel %.2e %s" % (label, "x".join(map(str, want.shape)) or "scalar", rel, status))
        ok = ok and not errs
    print("worst relative error %.2e (rtol %g)" % (worst, args.rtol))
    print("numerics PASS" if ok else "numerics FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

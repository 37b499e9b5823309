"""Checks of the importer's emitter and op table (test/Importer/emitter.test).

1. Two lowerings that use the same hints get unique SSA names from the
   emitter: prints a function to stdout (the test verifies it with
   remat-opt) and checks that no name is defined twice in one scope.
2. The op table is the only dispatch: every entry is a function of a
   lowerings module; a lowering put in the table is the one called; an op
   taken out of it is reported unsupported; mlir_export names no op; a
   second lowering of an op is refused.
"""

import argparse
import ast
import os
import sys

TOOL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                    "tools", "remat-import-torch")
sys.path.insert(0, TOOL)

from mlir_emitter import (Emitter, Function, hex_float, read_signatures,  # noqa: E402
                          tokens)


def lower_a(e, v):
    """A lowering that names its values x (outer) and x, r (payload)."""
    y = e.elementwise([v], v.shape, v.elt, lambda b, s: b.op(
        "arith.addf", [b.op("arith.negf", s, v.elt, "x"), s[0]], v.elt, "x"))
    return e.transpose(y, [1, 0], hint="x")


def lower_b(e, v):
    """Another one with the same hints, and an exact name."""
    y = e.elementwise([v, 2.0], v.shape, v.elt, lambda b, s: b.op(
        "arith.mulf", s, v.elt, "x"))
    name = e.let(e.exact("x"), "tensor.empty() : %s" % v.type)
    return y, name


def check_unique(text):
    """Every name is defined once in its scope (regions: their own)."""
    scopes, defined = [set()], 0
    for line in text.splitlines():
        toks = [t.text for t in tokens(line)]
        if toks and toks[0] == "}":
            scopes.pop()
        if toks[:1] == ["^bb0"]:
            names = [t for t in toks if t.startswith("%")]
        else:
            names = toks[:toks.index("=")] if "=" in toks else []
        for n in names:
            assert not any(n in s for s in scopes), "%s defined twice" % n
            scopes[-1].add(n)
            defined += 1
        if toks and toks[-1] == "{":
            scopes.append(set())
    return defined


def emitter_check():
    fn = Function("clash")
    x = fn.argument("x", [2, 3], "f32")
    fn.argument("x", [3], "f32")
    fn.argument("x1", [3], "f32")
    fn.argument("r", [3], "f32")
    y = lower_a(fn.body, x)
    z, _ = lower_b(fn.body, y)
    fn.results = [z]
    text = fn.text()
    sys.stdout.write(text)
    sys.stderr.write("emitter: %d names, all unique\n" % check_unique(text))


def table_check():
    import lowerings
    import mlir_export
    import model_spec
    import torch_trace
    from lowerings import TABLE

    for op, fn in TABLE.items():
        assert fn.__module__.startswith("lowerings."), (op, fn.__module__)
    # mlir_export dispatches nothing itself: it names no aten or prims op.
    src = open(os.path.join(TOOL, "mlir_export.py")).read()
    strings = [n.value for n in ast.walk(ast.parse(src))
               if isinstance(n, ast.Constant) and isinstance(n.value, str)
               and n.value.startswith(("aten.", "prims."))]
    assert not strings, strings

    spec = model_spec.ModelSpec.create(argparse.Namespace(
        model=None, module=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                        "tiny_cnn.py") + ":TinyCNN",
        input_shape=[2, 3, 16, 16], num_classes=None, name=None, dtype="f32"))
    joint = torch_trace.trace(spec, decompose=True, for_mlir=True)
    relu, calls = TABLE["aten.relu"], []

    def recorded(cx, n):
        calls.append(cx.op)
        return relu(cx, n)

    TABLE["aten.relu"] = recorded
    mlir_export.to_mlir(joint, "tinycnn")
    sys.stderr.write("table: aten.relu lowered %d times by the table's entry\n" % len(calls))
    del TABLE["aten.relu"]
    try:
        mlir_export.to_mlir(joint, "tinycnn")
    except mlir_export.UnsupportedOps as e:
        sys.stderr.write("table: without its entry: %s\n" % str(e).replace("\n", " |"))
    TABLE["aten.relu"] = relu
    try:
        lowerings.lowering("aten.relu")(recorded)
    except RuntimeError as e:
        sys.stderr.write("table: %s\n" % e)
    sys.stderr.write("table: %d ops\n" % len(TABLE))


def reader_check():
    """Names read from text and reserved (from a generator) are not given
    again; a declaration at the end of the text is no signature; bf16
    literals round as PyTorch rounds a float32 to bfloat16."""
    e = Emitter()
    e.names.reserve(n for n in ["%e1", "%e2"])
    sys.stderr.write("reader: fresh after reserving %%e1, %%e2: %s\n"
                     % e.empty([1], "f32").name)
    text = ("func.func @step(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
            "  return %a : tensor<2xf32>\n}\n"
            "func.func private @erff(f32) -> f32")
    sigs = read_signatures(text)
    sys.stderr.write("reader: %s\n" % ", ".join(
        "@%s(%s)" % (s.name, ", ".join(a for a, _ in s.args)) for s in sigs))
    import torch
    values = [0.1, 1 / 3, 1 + 2 ** -8, 1 + 3 * 2 ** -8, -2.5, 1e-8, 3.4e38]
    ours = [hex_float(v, "bf16") for v in values]
    theirs = ["0x%04X" % (torch.tensor(v, dtype=torch.float32)
                          .to(torch.bfloat16).view(torch.int16).item() & 0xFFFF)
              for v in values]
    sys.stderr.write("reader: bf16 %s, %s torch's\n" % (
        " ".join(ours), "as" if ours == theirs else "NOT as"))


if __name__ == "__main__":
    emitter_check()
    table_check()
    reader_check()

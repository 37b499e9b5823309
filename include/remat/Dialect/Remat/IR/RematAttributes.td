//===- RematAttributes.td - remat dialect attributes -------*- tablegen -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_REMAT_IR_REMATATTRIBUTES_TD
#define REMAT_DIALECT_REMAT_IR_REMATATTRIBUTES_TD

include "remat/Dialect/Remat/IR/RematDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

class Remat_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Remat_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

//===----------------------------------------------------------------------===//
// CostAttr
//===----------------------------------------------------------------------===//

def Remat_CostAttr : Remat_Attr<"Cost", "cost"> {
  let summary = "Memory and compute cost of an operation's results";
  let description = [{
    Records the cost model of one tensor-producing operation:

    * `bytes` — one entry per result: the bytes of storage the result owns
      once bufferized. Pure views (`tensor.expand_shape`,
      `tensor.collapse_shape`, `tensor.extract_slice`, ...) own no storage and
      record `0`: they alias their source.
    * `flops` — floating-point (or integer) operations to compute all results
      once, counting a fused multiply-add as two.
    * `roofline_ps` (optional) — the time predicted on a device in
      picoseconds: max(flops / peak FLOP/s, bytes moved / HBM bandwidth)
      (`remat-annotate-costs{device=h100}`, docs/CostModel.md);
    * `time_ns` (optional) — a measured time in nanoseconds, from a profile.

    The compute cost planners use (`getComputeCost`) is a time in
    picoseconds when the op has one (`time_ns` x 1000 first, else
    `roofline_ps`), else `flops`.

    ```mlir
    #remat.cost<bytes = [4096], flops = 131072>
    #remat.cost<bytes = [0], flops = 0>
    #remat.cost<bytes = [4096], flops = 131072, roofline_ps = 7336>
    #remat.cost<bytes = [4096, 128], flops = 8192, time_ns = 1500>
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t", "bytes of each result">:$bytes,
    "int64_t":$flops,
    OptionalParameter<"std::optional<int64_t>", "predicted time (ps)">:$roofline_ps,
    OptionalParameter<"std::optional<int64_t>", "profiled time (ns)">:$time_ns
  );
  let assemblyFormat = [{
    `<` `bytes` `=` `[` $bytes `]` `,` `flops` `=` $flops ``
    custom<CostTimes>($roofline_ps, $time_ns) `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Picoseconds in a nanosecond: a measured `time_ns` counts this many
    /// times its value in the planners' time unit.
    static constexpr int64_t kPicosecondsPerNanosecond = 1000;
    /// Sum of the bytes of all results.
    int64_t getTotalBytes() const;
    /// The compute cost planners use: a time in picoseconds when the op has
    /// one (the profiled `time_ns` x 1000 first, else `roofline_ps`),
    /// otherwise the FLOP count.
    double getComputeCost() const;
  }];
}

//===----------------------------------------------------------------------===//
// PhaseAttr
//===----------------------------------------------------------------------===//

def Remat_Phase : I32EnumAttr<"Phase", "phase of a training step", [
    I32EnumAttrCase<"Forward", 0, "forward">,
    I32EnumAttrCase<"Backward", 1, "backward">
  ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::remat";
}

def Remat_PhaseAttr : EnumAttr<Remat_Dialect, Remat_Phase, "phase"> {
  let summary = "Forward or backward phase of an operation";
  let description = [{
    Marks an operation of a training step as part of the forward pass (it
    computes the loss or the other forward outputs) or of the backward pass
    (gradients and the parameter update). Explicit marks win over phase
    inference.

    ```mlir
    %0 = linalg.matmul {remat.phase = #remat.phase<forward>} ...
    ```
  }];
  let assemblyFormat = "`<` $value `>`";
}

//===----------------------------------------------------------------------===//
// KeepAttr
//===----------------------------------------------------------------------===//

def Remat_Keep : I32EnumAttr<"Keep", "checkpointing pin", [
    I32EnumAttrCase<"Always", 0, "always">,
    I32EnumAttrCase<"Never", 1, "never">
  ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::remat";
}

def Remat_KeepAttr : EnumAttr<Remat_Dialect, Remat_Keep, "keep"> {
  let summary = "User pin: always keep or never keep an op's results";
  let description = [{
    Pins the checkpointing decision for all results of an operation, whatever
    the solver would choose:

    * `always` — keep the results resident until their last use; never
      recompute them (PyTorch's `MUST_SAVE`, JAX's `save_only_these_names`);
    * `never` — do not keep the results across the forward/backward boundary;
      recompute them where the backward pass needs them (`PREFER_RECOMPUTE`).

    ```mlir
    %0 = linalg.matmul {remat.keep = #remat.keep<always>} ...
    ```
  }];
  let assemblyFormat = "`<` $value `>`";
}

//===----------------------------------------------------------------------===//
// PlanAttr
//===----------------------------------------------------------------------===//

def Remat_PlanAttr : Remat_Attr<"Plan", "plan"> {
  let summary = "A rematerialization plan chosen for a function";
  let description = [{
    Attached to a `func.func` as `remat.plan` by `--remat-select-checkpoints`.
    It records what was asked and what the solver answered; the schedule
    itself lives on the ops as `remat.steps` (one step index per time the op
    is computed), so that a plan can be inspected, edited, saved with the IR
    and re-applied by `--remat-rematerialize` alone.

    * `solver`, `mode` — the solver and the mode that produced the plan;
    * `status` — the solver's verdict (`optimal`, `feasible`, ...);
    * `budget` — peak-memory budget in bytes, resident arguments included;
    * `predicted_peak` — peak bytes of the schedule under the memory model;
    * `baseline_peak` — peak bytes of the function's original order
      (checkpoint-all);
    * `cost`, `baseline_cost` — compute cost of the schedule and of the
      original order, in the unit of the ops' costs (FLOPs, or picoseconds
      when they carry times: see `#remat.cost`);
    * `lower_bound` (optional) — a proven lower bound on the objective;
    * `arena` (optional) — bytes of the static memory plan of the schedule:
      resident arguments plus one arena holding every other value at a
      planned offset (docs/Arena.md); recorded when the plan was made with
      `arena=true`, and then within the budget.

    ```mlir
    func.func @step(...) attributes {remat.plan = #remat.plan<solver = "chen",
        mode = "min-compute", status = "feasible", budget = 4096,
        predicted_peak = 3072, baseline_peak = 5120, cost = 1200,
        baseline_cost = 1000>} { ... }
    ```
  }];
  let parameters = (ins
    StringRefParameter<"solver name">:$solver,
    StringRefParameter<"solver mode">:$mode,
    StringRefParameter<"solver status">:$status,
    "int64_t":$budget,
    "int64_t":$predicted_peak,
    "int64_t":$baseline_peak,
    "int64_t":$cost,
    "int64_t":$baseline_cost,
    OptionalParameter<"std::optional<int64_t>", "proven lower bound">:$lower_bound,
    OptionalParameter<"std::optional<int64_t>", "arena bytes">:$arena
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // REMAT_DIALECT_REMAT_IR_REMATATTRIBUTES_TD

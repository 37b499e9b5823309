//===- Passes.td - remat-opt passes ------------------------*- tablegen -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_TRANSFORMS_PASSES_TD
#define REMAT_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

// The `functions=` option of every function-level pass and of
// `--remat-pipeline` (include/remat/Transforms/FunctionFilter.h).
defvar RematFunctionsOption =
    ListOption<"functions", "functions", "std::string",
               "Names of the functions to work on (default: every public "
               "function with a body); a name that is no function with a "
               "body is an error">;

defvar RematGatherPolicyOption =
    Option<"gatherPolicy", "gather-policy", "::remat::GatherPolicy",
           "::remat::GatherPolicy::Plan",
           "What the plan may do with the all-gather of a parameter shard "
           "(docs/Distributed.md)", "REMAT_GATHER_POLICY_CL_VALUES">;

def RematAnnotateCosts : Pass<"remat-annotate-costs", "::mlir::func::FuncOp"> {
  let summary = "Attach #remat.cost (bytes per result, FLOPs) to tensor ops";
  let description = [{
    Computes, for every tensor-producing operation of a function (nested ones
    included), the bytes each result occupies once bufferized and the FLOPs
    the operation performs, and records them as a `remat.cost` attribute.
    Views that alias their source once bufferized (`tensor.expand_shape`,
    `tensor.collapse_shape`, `tensor.extract_slice`, `tensor.cast`,
    `tensor.reshape`, `tensor.bitcast`, `bufferization.to_tensor`) own no
    storage and get `bytes = [0]`; so do `tensor.empty` (its buffer belongs
    to the op that writes it) and constants (read-only globals). FLOPs of a
    linalg op are its iteration-domain size times the arithmetic ops of its
    payload (a multiply-add counts 2); elementwise arith/math on tensors
    count one per element; `scf.for` is its trip count times its body,
    `scf.if` its costlier branch. docs/CostModel.md lists every rule.

    With `dynamic-size-hint=N`, every dynamic dimension counts as N (with a
    warning on each op whose cost used it), the function records
    `remat.dynamic_size_hint = N`, which planning uses to size dynamic
    arguments, and gets at its top one `cf.assert` per dynamic argument
    dimension that fails at run time when the actual size exceeds N.

    An op that already carries a `remat.cost` keeps it: users can cost ops
    the model does not know by hand. An unsupported tensor-producing op, a
    dynamic shape (without `dynamic-size-hint`) or a size that overflows
    64 bits is an error at the op's location; so is a `func.call` (inline
    the callee first: `--remat-pipeline` does). Only the functions
    `functions=` selects are costed (default: every public function with a
    body).

    With `profile=<path>`, a JSON file of measured times
    (`{"ops": [ {"loc": "model.py:12:3", "time_ns": 1500},
    {"name": "fc1", "time_ns": 800} ]}`) sets `time_ns` on the ops it
    matches: by file location first, then by `NameLoc` name, then by
    operation name (e.g. `"linalg.matmul"`).

    With `device=h200|h100|a100`, every costed op also gets `roofline_ps`,
    the time the roofline model predicts on that device: max(FLOPs / peak
    FLOP/s, bytes read and written / HBM bandwidth), in picoseconds, with
    the data-sheet numbers of include/remat/Analysis/Devices.h. Planners then
    use that time (or a profiled `time_ns`) as the cost to minimize: a
    recomputed pointwise op costs its memory traffic. The function records
    the device as `remat.cost_device`.

    With `link=nvlink` (the default) or `link=pcie`, each `shard`
    all-gather, reduce-scatter and all-reduce costs its ring time on that
    link, (N - 1) steps of latency plus chunk bytes / bandwidth (twice as
    many for an all-reduce): in picoseconds with a device, in
    FLOP-equivalents (10 per picosecond) without. `link=none` costs every
    collective 0. docs/Distributed.md states the presets.

    Before:
    ```mlir
    %0 = linalg.matmul ins(%a, %b : tensor<32x64xf32>, tensor<64x32xf32>)
                       outs(%i : tensor<32x32xf32>) -> tensor<32x32xf32>
    ```
    After:
    ```mlir
    %0 = linalg.matmul {remat.cost = #remat.cost<bytes = [4096], flops = 131072>}
           ins(%a, %b : tensor<32x64xf32>, tensor<64x32xf32>)
           outs(%i : tensor<32x32xf32>) -> tensor<32x32xf32>
    ```
    (4096 = 32 * 32 * 4 bytes; 131072 = 2 * 32 * 32 * 64.)
  }];
  let dependentDialects = ["::remat::RematDialect"];
  let options = [
    Option<"dynamicSizeHint", "dynamic-size-hint", "int64_t",
           /*default=*/"0",
           "Size assumed for every dynamic dimension, with a warning on each "
           "op it affects (0: dynamic shapes are an error)">,
    Option<"warnings", "warnings", "bool", /*default=*/"true",
           "Warn at each op whose cost used the dynamic-size hint or the "
           "allow-unknown fallback (errors are always reported)">,
    Option<"allowUnknown", "allow-unknown", "bool", /*default=*/"false",
           "Cost unsupported tensor-producing ops from their result types "
           "with 0 FLOPs and a warning, instead of failing">,
    Option<"profilePath", "profile", "std::string", /*default=*/"\"\"",
           "JSON file of measured op times (see docs/CostModel.md) that "
           "sets time_ns on the ops it matches">,
    Option<"device", "device", "::remat::Device", "::remat::Device::None",
           "Predict each op's time on this device (roofline_ps: max of "
           "FLOPs / peak and bytes moved / HBM bandwidth); plans then "
           "minimize time in picoseconds instead of FLOPs",
           "REMAT_DEVICE_CL_VALUES">,
    Option<"link", "link", "::remat::Link", "::remat::Link::NVLink",
           "Cost each collective by its ring time on this link (bytes / "
           "bandwidth + latency a step; picoseconds with a device, "
           "FLOP-equivalents at 10 FLOP/ps without; none: 0)",
           "REMAT_LINK_CL_VALUES">,
    RematFunctionsOption,
  ];
}

def RematInferPhases : Pass<"remat-infer-phases", "::mlir::func::FuncOp"> {
  let summary = "Mark each op of a training step as forward or backward";
  let description = [{
    In a training-step function (forward and backward in one `func.func` on
    tensors), the forward pass is every op that the forward outputs depend
    on, and the backward pass is the rest. The forward outputs are the
    results that `loss=` and `forward-results=` name; when neither is given,
    the loss is inferred: the first floating-point scalar result (a 0-d
    float tensor or a float; integer scalars only when no result is a float
    scalar), wherever it is among the results, or result 0 if none is. When
    several results could be the loss (a 0-d bias update next to it), the
    pass warns at the function, naming them and the one it took. Records the
    result as `remat.phase` on each top-level op of the body (ops nested in
    regions share their ancestor's phase); explicit `remat.phase` marks are
    kept and win over inference, and an op explicitly marked forward makes
    everything it depends on forward. An explicit mark that contradicts what
    the forward outputs alone imply is kept with a warning at the op.
    Function arguments are not ops and get no mark.

    A function with no results, with a multi-block body, given an
    out-of-range result index, or a `loss=` result that is not a scalar is
    an error at the function's location. Only the functions `functions=`
    selects are classified (default: every public function with a body).

    Before:
    ```mlir
    func.func @step(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
      %y = math.exp %x : tensor<4xf32>
      %g = arith.mulf %y, %y : tensor<4xf32>
      return %y, %g : tensor<4xf32>, tensor<4xf32>
    }
    ```
    After:
    ```mlir
      %y = math.exp %x {remat.phase = #remat.phase<forward>} : tensor<4xf32>
      %g = arith.mulf %y, %y {remat.phase = #remat.phase<backward>} : tensor<4xf32>
    ```
  }];
  let dependentDialects = ["::remat::RematDialect"];
  let options = [
    Option<"loss", "loss", "int64_t", /*default=*/"-1",
           "Index of the result that is the loss, a scalar (-1: inferred, "
           "the first floating-point scalar result, with a warning when "
           "several could be)">,
    ListOption<"forwardResults", "forward-results", "unsigned",
               "Indices of further results that are forward outputs (every "
               "op they depend on is forward); with neither option, the "
               "inferred loss">,
    RematFunctionsOption,
  ];
}

//===----------------------------------------------------------------------===//
// Rematerialization (docs/Rematerialization.md)
//===----------------------------------------------------------------------===//

def RematSelectCheckpoints
    : Pass<"remat-select-checkpoints", "::mlir::func::FuncOp"> {
  let summary = "Choose which activations to keep and which to recompute";
  let description = [{
    Translates a cost-annotated training step (run `--remat-annotate-costs`
    and `--remat-infer-phases` first) into the checkpointing problem, runs
    the chosen solver and records its schedule on the IR, without changing
    the program: `remat.plan` on the function says what was asked and
    answered, and `remat.steps` on each op lists the schedule steps at which
    the op is computed (the first is the original computation, the others
    recomputations). `--remat-rematerialize` applies the plan; in between it
    can be inspected, edited or saved with the IR. Only the functions
    `functions=` selects are planned (default: every public function with a
    body; a private helper would otherwise be planned as a training step).

    `solver` names a solver of the registry that `remat-solve` uses too
    (include/remat/Solver/Core/Solver.h; `remat-solve --list-solvers` lists the
    names, docs/Solvers.md describes them). The default, `auto`, is the
    portfolio: the best verified answer of the fast solvers. An unknown name
    is an error at each function that lists the registered names.

    The budget is in bytes, resident arguments included: `4096`, `64KiB`,
    `1.5MiB`, `2GiB`, or a percentage of the checkpoint-all peak (`70%`);
    empty means 100 %; `min` plans at the smallest budget the solver meets
    (the min-budget search), recorded as a min-compute plan at that budget. An infeasible budget is an error that names the
    smallest budget the solver can meet: asked at exactly that budget, with
    the same `effort`, the solver returns the plan the search found there.
    Remarks report the solver status, the gap to its lower bound, the
    predicted peak and the compute overhead.

    The searches are bounded by `effort` (a count of work: moves evaluated,
    schedule steps simulated), not by the clock, so the same IR and options
    give the same plan on any machine, idle or loaded. `time-limit` is a
    safety cap only; a plan that it cut short says so in its remark.

    With `mode=max-batch` (a step whose batch dimension, dimension 0 of the
    data arguments, is dynamic and costed at its `dynamic-size-hint`), the
    plan is for the largest batch whose plan the solver fits in `budget`
    (remat-solve's max-batch search on the graph's batch scaling): the
    function's dynamic-size guard and costs move to that batch, the
    schedule is checked at it, and `remat.batch` on the function and a
    remark report it. A static batch dimension, another dynamic dimension,
    no budget, or a budget that one sample does not fit (the error names
    the smallest that does) are errors at the function.

    With `schedule=<file>`, the schedule is not solved but read from the
    result JSON of `remat-solve -o` for the graph `--remat-export-graph`
    wrote (docs/SolverFormat.md). It is recorded exactly as solving would
    record it (solver, mode and status from the file), after checks that
    each fail with an error at the function: the file is readable and
    well-formed (the error names the JSON path), its "graph" fingerprint is
    this function's graph (the error says what differs: node count,
    structure, sizes or costs), its status is optimal or feasible, and the
    simulator accepts it within the budget (`budget` if given, else the
    file's).

    Input:
    ```mlir
    %0 = linalg.matmul {remat.phase = #remat.phase<forward>, ...} ...
    ```
    Output (a 2-op schedule in which `%0` is recomputed at step 5):
    ```mlir
    func.func @step(...) attributes {remat.plan = #remat.plan<solver = "auto",
        mode = "min-compute", status = "feasible", budget = 4096, ...>} {
      %0 = linalg.matmul {remat.steps = array<i64: 0, 5>, ...} ...
    ```
  }];
  let options = [
    Option<"solver", "solver", "std::string", /*default=*/"\"auto\"",
           "Name of the registered solver that chooses the schedule (see "
           "remat-solve --list-solvers); auto = the portfolio">,
    Option<"mode", "mode", "::remat::Mode", "::remat::Mode::MinCompute",
           "What the plan optimizes", "::remat::planModeValues()">,
    Option<"budget", "budget", "std::string", /*default=*/"\"\"",
           "Peak-memory budget: bytes, bytes with a KiB/MiB/GiB suffix, or "
           "a percentage of the checkpoint-all peak (e.g. 70%); empty = "
           "100%; min = the smallest budget the solver meets">,
    Option<"effort", "effort", "double", /*default=*/"1.0",
           "How much the solvers search: their work budget as a multiple of "
           "the default (1). The plan depends on it, not on the machine's "
           "speed or load">,
    Option<"timeLimit", "time-limit", "double", /*default=*/"600.0",
           "Wall-clock safety cap, in seconds: a search still running then "
           "stops with its best plan so far, and the remark says so (that "
           "plan may differ between runs)">,
    Option<"dataArgs", "data-args", "unsigned", /*default=*/"1",
           "Number of leading function arguments that hold data (inputs); "
           "the others are parameters. Ignored when arguments are marked "
           "remat.data: the marked ones are the data">,
    RematGatherPolicyOption,
    RematFunctionsOption,
    Option<"schedule", "schedule", "std::string", /*default=*/"\"\"",
           "Apply this saved schedule (remat-solve's result JSON) instead "
           "of solving; it must be for this function's graph">,
    Option<"arena", "arena", "bool", /*default=*/"false",
           "Make the budget cover the static memory plan too (resident "
           "bytes plus one arena, docs/Arena.md) and record it in "
           "remat.plan">,
    Option<"arenaAlignment", "arena-alignment", "int64_t", /*default=*/"16",
           "Alignment of every offset in that arena">,
    Option<"hostLink", "host-link", "std::string", /*default=*/"\"none\"",
           "Offload to host memory over this link as well as recompute "
           "(docs/Offload.md): none, pcie4, pcie5, c2c or ideal">,
    Option<"hostBudget", "host-budget", "std::string", /*default=*/"\"\"",
           "With host-link: the most pinned host memory the plan may hold "
           "(bytes, optionally with a KiB/MiB/GiB suffix); empty = "
           "unlimited">,
    Option<"gathersOnHostLink", "gathers-on-host-link", "bool",
           /*default=*/"false",
           "With host-link: the parameter gathers cross the host link too, "
           "so gathers and copies wait for each other">,
    Option<"offload", "offload", "::remat::OffloadChoice",
           "::remat::OffloadChoice::Joint",
           "With host-link: keep, recompute or offload (joint), keep or "
           "offload (offload), keep or recompute (recompute)",
           "::remat::offloadChoiceValues()">
  ];
  let dependentDialects = ["::remat::RematDialect"];
}

def RematExportGraph : Pass<"remat-export-graph", "::mlir::ModuleOp"> {
  let summary = "Write the checkpointing problem of a function as JSON";
  let description = [{
    Writes the problem graph of one training step exactly as
    `--remat-select-checkpoints` builds it (same translation, same
    `data-args` and `gather-policy` pins), in the graph JSON of docs/SolverFormat.md, so that
    `remat-solve` can plan it. The plan comes back with
    `--remat-select-checkpoints=schedule=<result.json>`:

    ```sh
    remat-opt step.mlir --remat-annotate-costs --remat-infer-phases \
      --remat-export-graph=output=graph.json -o step.prepared.mlir
    remat-solve graph.json --budget=60% -o schedule.json
    remat-opt step.prepared.mlir \
      --remat-select-checkpoints=schedule=schedule.json --remat-rematerialize
    ```

    Node ids are positions; node names identify the IR: `arg<N>` for
    arguments, `<op name>#<id>@<location>` for ops. The graph is named after
    the function. The IR is not changed.

    The graph carries batch scaling (`batch`, `bytes_per_sample`,
    `cost_per_sample`) from the IR shapes: the batch is dimension 0 of the
    `data-args` arguments, followed through the ops; parameters, their
    gradients and reductions over the batch do not scale, and an op whose
    results the rules cannot place scales whole (an overestimate, never an
    underestimate; docs/Rematerialization.md, "Batch scaling from IR
    shapes"). A step without a batch dimension gets no scaling.

    The module must hold one function with a body, or `function` must name
    one; the function must be cost-annotated and phase-inferred (run
    `--remat-annotate-costs` and `--remat-infer-phases` first). Anything
    else is a located error.
  }];
  let options = [
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "File to write the graph JSON to; '-' is stdout (which also "
           "carries the IR unless -o sends it elsewhere)">,
    Option<"function", "function", "std::string", /*default=*/"",
           "Export the function with this name (default: the only "
           "function with a body)">,
    Option<"dataArgs", "data-args", "unsigned", /*default=*/"1",
           "Number of leading function arguments that hold data (inputs); "
           "the others are parameters. Ignored when arguments are marked "
           "remat.data: the marked ones are the data">,
    RematGatherPolicyOption,
    Option<"arenaAlignment", "arena-alignment", "int64_t", /*default=*/"0",
           "Build the graph `--remat-select-checkpoints` builds with "
           "arena=true and this arena-alignment (region ops' temporaries "
           "reserved at that alignment); 0: as without the arena">,
  ];
}

def RematRematerialize : Pass<"remat-rematerialize", "::mlir::func::FuncOp"> {
  let summary = "Apply the rematerialization plan stored on a function";
  let description = [{
    Reads the `remat.steps` attributes that `--remat-select-checkpoints` (or
    a user) put on the ops of a function and makes the program follow that
    schedule: each op is cloned once per extra step, ops are ordered by step
    (constants first), and every use reads the most recent computation of
    its operand before it, so the original value dies after its last use
    before the recomputation. Clones carry `remat.recomputed`. Ops with
    memory effects are never cloned or reordered among themselves; a plan
    that asks for it is rejected with a located error. A function without
    `remat.steps`, or one that `functions=` does not select (default: every
    public function with a body), is left unchanged.

    So that bufferization frees memory where the plan does, every op writing
    into a `tensor.empty` (original or clone) gets its own
    `bufferization.alloc_tensor` right before it: `cse` merges identical
    `tensor.empty` ops, which made writers share one early buffer, but never
    merges allocations (docs/Rematerialization.md, section 3). Remaining
    `tensor.empty` ops are moved right before their first user. When a clone reads
    exactly the values an earlier computation of the same op reads, `cse`
    would merge them back; such a clone reads its first operand through a
    `remat.barrier` (see `--remat-strip-barriers`).

    Input:
    ```mlir
    %a = linalg.generic {remat.steps = array<i64: 0, 3>} ins(%x ...)   // fwd
    %b = linalg.generic {remat.steps = array<i64: 1>} ins(%a ...)      // fwd
    %c = linalg.generic {remat.steps = array<i64: 2>} ins(%b ...)      // bwd
    %d = linalg.generic {remat.steps = array<i64: 4>} ins(%c, %a ...)  // bwd
    ```
    Output:
    ```mlir
    %a = linalg.generic ins(%x ...)
    %b = linalg.generic ins(%a ...)
    %c = linalg.generic ins(%b ...)
    %x1 = remat.barrier %x
    %a1 = linalg.generic {remat.recomputed} ins(%x1 ...)
    %d = linalg.generic ins(%c, %a1 ...)
    ```
  }];
  let options = [
    Option<"insertBarriers", "insert-barriers", "bool", /*default=*/"true",
           "Route an operand of clones that cse could merge through a "
           "remat.barrier">,
    RematFunctionsOption,
  ];
  let dependentDialects = ["::remat::RematDialect",
                           "::mlir::bufferization::BufferizationDialect"];
}

def RematStripBarriers : Pass<"remat-strip-barriers"> {
  let summary = "Replace every remat.barrier by its operand";
  let description = [{
    Removes the `remat.barrier` ops `--remat-rematerialize` inserted. Run it
    right before bufferization (the `--remat-lower-to-cpu` pipeline does):
    once bufferized, each recomputation has its own allocation and nothing
    merges them; before that, `cse` would undo the rematerialization.

    With `strip-attributes`, also drops every `remat.*` discardable attribute
    (costs, phases, pins, plans): they describe tensor values and become
    wrong once ops are bufferized (a bufferized op has no tensor results).
    A function's `remat.dynamic_size_hint` stays: it describes the
    arguments, whose guards stay too, and `remat-plan-arena` bounds dynamic
    buffers with it. A `remat.plan` that records an arena leaves it as
    `remat.planned_arena` (bytes, arguments included): `remat-plan-arena`
    searches on until its arena meets it (docs/Arena.md).
  }];
  let options = [
    Option<"stripAttributes", "strip-attributes", "bool", /*default=*/"false",
           "Also remove every remat.* discardable attribute (but a "
           "function's remat.dynamic_size_hint; its remat.plan's arena "
           "becomes remat.planned_arena)">,
  ];
}

def RematDecomposeAggregatedOps : Pass<"remat-decompose-aggregated-ops"> {
  let summary = "Decompose linalg ops such as linalg.softmax into generics";
  let description = [{
    Replaces every op implementing `linalg::AggregatedOpInterface` (today
    `linalg.softmax`, and the Winograd transforms) by the ops of its upstream
    decomposition (`decomposeOperation`): for softmax along dimension `d`, a
    max-reduction, `exp(x - max)`, a sum-reduction and a division, each a
    `linalg.generic` (with `linalg.fill`s for the reduction inits). No
    upstream pass does this, and `convert-linalg-to-loops` cannot lower an
    aggregated op, so `--remat-lower-to-cpu` and `--remat-bufferize` run it
    before bufferization. The reduction results are new temporaries of the
    reduced shape that the cost model did not see: the measured heap peak
    can exceed the prediction by their size (docs/Running.md).

    Input:
    ```mlir
    %s = linalg.softmax dimension(1) ins(%x : tensor<2x3xf32>)
                                     outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
    Output (abridged):
    ```mlir
    %max = linalg.generic {iterator_types = ["parallel", "reduction"]} ...
    %exp = linalg.generic ... { arith.subf; math.exp } ...
    %sum = linalg.generic {iterator_types = ["parallel", "reduction"]} ...
    %s = linalg.generic ... { arith.divf } ...
    ```
    An op whose decomposition fails is an error at its location.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::tensor::TensorDialect"];
}

def RematSplitSharedEmpty : Pass<"remat-split-shared-empty"> {
  let summary = "Give every use of a shared tensor.empty its own clone";
  let description = [{
    torch-mlir reuses one `tensor.empty` as the `outs` of several ops far
    apart. One-shot bufferization allocates one buffer at the empty and lets
    every writer that finds it free write into it: the buffer stays live
    from the first writer to the last, across everything in between, while
    the memory model (a result lives from its op to its last use) frees it
    after the first writer's last use, and under-predicts the peak.

    This pass gives each use of a `tensor.empty` with several uses its own
    clone (same operands, same attributes), created right before the op of
    the empty's block that holds the use, and erases the original; each
    writer then gets its own buffer, allocated where it writes and freed
    after its last use, which is what the model counts. `--remat-pipeline`,
    `--remat-lower-to-cpu`, `--remat-bufferize` and `--remat-lower-to-nvvm`
    run it first. An empty with one use is left alone. The values computed
    do not change: an empty's contents are undefined, and no writer may read
    them.

    Input:
    ```mlir
    %e = tensor.empty() : tensor<16xf32>
    %a = linalg.exp ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
    ...
    %b = linalg.abs ins(%y : tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
    ```
    Output:
    ```mlir
    %e = tensor.empty() : tensor<16xf32>
    %a = linalg.exp ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
    ...
    %e_0 = tensor.empty() : tensor<16xf32>
    %b = linalg.abs ins(%y : tensor<16xf32>) outs(%e_0 : tensor<16xf32>) -> tensor<16xf32>
    ```
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def RematFreeAfterLastUse
    : Pass<"remat-free-after-last-use", "::mlir::func::FuncOp"> {
  let summary = "Move each buffer's deallocation right after its last use";
  let description = [{
    Upstream `optimize-allocation-liveness`, which the lowering pipelines ran
    before, without its fault on calls: for every allocation whose only free
    (`memref.dealloc`, any op with a free effect on it) is in the
    allocation's block, moves that free right after the last op of the
    block that uses the buffer, or any value `BufferViewFlowAnalysis` says
    may alias it (views, casts, region arguments). Values of scalar types
    (integers, indices, floats, complex numbers, vectors) hold no buffer:
    their users do not keep it alive. Upstream counts them, and since the
    analysis links every result of a call to every operand, the `f32` that
    `call @f(%buf)` returns made `func.return` the buffer's last user and
    the dealloc was moved after the terminator (invalid IR: "'func.return'
    op must be the last operation"). A buffer whose last user is the
    terminator keeps its free where it is.

    ```mlir
    %a = memref.alloc() : memref<4xf32>
    linalg.exp ins(%x : memref<4xf32>) outs(%a : memref<4xf32>)
    %r = call @sum(%a) : (memref<4xf32>) -> f32
    %b = memref.alloc() : memref<4xf32>
    ...
    memref.dealloc %a : memref<4xf32>
    return %r : f32
    ```
    becomes
    ```mlir
    %a = memref.alloc() : memref<4xf32>
    linalg.exp ins(%x : memref<4xf32>) outs(%a : memref<4xf32>)
    %r = call @sum(%a) : (memref<4xf32>) -> f32
    memref.dealloc %a : memref<4xf32>
    %b = memref.alloc() : memref<4xf32>
    ...
    return %r : f32
    ```
  }];
}

def RematVerifyMemory : Pass<"remat-verify-memory", "::mlir::func::FuncOp"> {
  let summary = "Check a function's peak memory against its budget";
  let description = [{
    Recomputes the peak live bytes of the function's current op order with
    the memory analysis (tensor IR with `remat.cost`, or bufferized IR) and
    fails with a located error, naming the op at the peak, if it exceeds the
    budget: the `budget` option when given, otherwise the budget of the
    function's `remat.plan`. A selected function with neither is an error
    (nothing to verify against); functions that `functions=` does not
    select are skipped. When the plan records an arena (planned with
    `arena=true`), the static memory plan of the function's values is
    planned again on the memory analysis's live ranges and checked too: the
    error names the arena, the sum-of-live peak and the budget. Emits a
    remark with the peak, the budget, the arena if any and, for a
    rematerialized function, the peak before rematerialization and the
    recompute overhead.
  }];
  let options = [
    Option<"budget", "budget", "std::string", /*default=*/"\"\"",
           "Budget in bytes (KiB/MiB/GiB suffixes allowed; a percentage is "
           "relative to the plan's checkpoint-all peak); empty = the plan's">,
    Option<"arenaAlignment", "arena-alignment", "int64_t", /*default=*/"16",
           "Alignment of every offset of the arena checked when the plan "
           "records one">,
    RematFunctionsOption,
  ];
  let dependentDialects = ["::remat::RematDialect"];
}

def RematPlanArena : Pass<"remat-plan-arena", "::mlir::ModuleOp"> {
  let summary = "Place every sized buffer of a bufferized function in one "
                "arena";
  let description = [{
    A static memory plan (docs/Arena.md): on bufferized IR (one block per
    function), every `memref.alloc` whose size is known -- static, or
    dynamic and bounded by the function's dynamic-size hint through the
    guard on an argument's dimension -- becomes a `memref.view` into one
    `memref.alloc` of i8 at an offset planned over the live ranges of the
    memory analysis (greedy best fit by size and by lifetime, then branch
    and bound while the greedy plan is above the most bytes live at once;
    every plan is checked). Deallocations of those buffers disappear; the
    arena is freed before the return, unless results live in it. The
    arena's size goes on the function as `remat.arena_bytes`, and a remark
    reports it with its lower bound. A function where it places no buffer
    (tensor IR, or every buffer left out) gets no `remat.arena_bytes`: the
    runners take the attribute for an arena that runs.

    ```mlir
    %a = memref.alloc() : memref<16xf32>
    linalg.add ins(%x, %x : ...) outs(%a : memref<16xf32>)
    %b = memref.alloc() : memref<16xf32>
    linalg.mul ins(%a, %a : ...) outs(%b : memref<16xf32>)
    memref.dealloc %a : memref<16xf32>
    ```

    becomes

    ```mlir
    %arena = memref.alloc() : memref<128xi8>
    %a = memref.view %arena[%c0][] : memref<128xi8> to memref<16xf32>
    linalg.add ins(%x, %x : ...) outs(%a : memref<16xf32>)
    %b = memref.view %arena[%c64][] : memref<128xi8> to memref<16xf32>
    linalg.mul ins(%a, %a : ...) outs(%b : memref<16xf32>)
    ```

    Returned buffers live in the arena too (the arena then goes to the
    caller: every result's allocated pointer is the arena's, to be freed
    once); the frees of callers in the module are merged into one (a caller
    that returns the results on keeps them out of the arena). Buffers
    allocated in loops, with a layout or memory space, freed together with
    other buffers or of a dynamic size the hint does not bound keep their
    own allocation, and a remark at each says why. A dynamic size in a function without a dynamic-size hint
    (unless `require-hint=false`, which the lowering pipelines pass: the
    buffer then keeps its own allocation), and an arena beyond what the
    index type addresses (or 2^62 bytes), are errors.
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t", /*default=*/"16",
           "Alignment of every offset (a power of two): 16, what malloc "
           "guarantees, keeps each buffer's alignment; the GPU lowering "
           "uses 256, cuMemAlloc's">,
    Option<"effort", "effort", "::remat::ArenaEffort",
           "::remat::ArenaEffort::Exact",
           "How hard to plan: greedy, search (order searches), exact "
           "(branch and bound too, while above the lower bound)",
           "REMAT_ARENA_EFFORT_CL_VALUES">,
    Option<"exactNodes", "exact-nodes", "int64_t", /*default=*/"10000",
           "Branch-and-bound nodes of that search">,
    Option<"resultsInArena", "results-in-arena", "bool", /*default=*/"true",
           "Let returned buffers live in the arena (functions no function "
           "of the module calls)">,
    Option<"requireHint", "require-hint", "bool", /*default=*/"true",
           "A dynamic size in a function that records no dynamic-size hint "
           "is an error; false: its buffer keeps its own allocation">,
    Option<"remarks", "remarks", "bool", /*default=*/"true",
           "Report the arena and every buffer left out in remarks">,
    RematFunctionsOption,
  ];
  let dependentDialects = ["::remat::RematDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def RematMemoryReport : Pass<"remat-memory-report", "::mlir::ModuleOp"> {
  let summary = "Write the liveness and peak memory of each function as JSON";
  let description = [{
    Runs the memory analysis (include/remat/Analysis/MemoryAnalysis.h) on
    every function with a body, for its current op order, and writes one JSON
    document: per function the peak bytes, the top-level op at the peak, the
    bytes live at every top-level op, and the values live at the peak,
    largest first. Works on tensor IR (sizes from `remat.cost`) and on
    bufferized IR (`memref.alloc`/`dealloc`); docs/Rationale.md ("Memory
    model") gives the rules. The IR is not changed.

    ```json
    {"functions": [
      {"name": "step", "peak_bytes": 12288, "peak_op_index": 2,
       "peak_op": "linalg.add", "peak_loc": "step.mlir:12:8",
       "resident_bytes": 4096, "total_bytes": 16384,
       "timeline": [ {"index": 0, "op": "linalg.add", "live_bytes": 8192},
                     ... ],
       "live_at_peak": [ {"value": "%1", "op": "linalg.add",
                          "loc": "step.mlir:9:8", "bytes": 4096},
                         ... ] }
    ] }
    ```

    The report goes to `output`, a file; the default `-` is stderr, never
    stdout, which carries the IR (`remat-opt in.mlir --remat-memory-report
    -o /dev/null 2>report.json` gives just the report; diagnostics then go
    there too, so prefer `output=report.json`).

    Unsupported IR (a multi-block body, a dynamic shape without a cost or
    size hint) is an error at the offending op; so is a `function` option
    naming no function of the module.
  }];
  let options = [
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "File to write the JSON report to; '-' is stderr (stdout "
           "carries the IR)">,
    Option<"function", "function", "std::string", /*default=*/"",
           "Report only the function with this name (default: all)">,
    Option<"countArguments", "count-arguments", "bool", /*default=*/"true",
           "Count function arguments (inputs, parameters) as resident">,
    Option<"requireCosts", "require-costs", "bool", /*default=*/"false",
           "Error on tensor ops without remat.cost instead of using the "
           "size of their result types">,
    Option<"countAlignmentPadding", "count-alignment-padding", "bool",
           /*default=*/"false",
           "Count an allocation with `alignment = A` as its bytes plus A, "
           "what the LLVM lowering asks malloc for">,
  ];
}

#endif // REMAT_TRANSFORMS_PASSES_TD

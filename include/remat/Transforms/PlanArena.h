//===- PlanArena.h - one arena for a bufferized function --------*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The static memory plan of a bufferized function (docs/Arena.md): every
// `memref.alloc` whose size is known becomes a `memref.view` into one arena
// (`memref.alloc` of i8) at an offset planned by Solver/Arena/Arena.h over the
// live ranges of the memory analysis, and its deallocations disappear.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_TRANSFORMS_PLANARENA_H
#define REMAT_TRANSFORMS_PLANARENA_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Support/LLVM.h"

#include <cstdint>
#include <string>

namespace remat {

/// The alignment of every offset by default: what malloc guarantees on the
/// 64-bit hosts we run on, so each buffer keeps the alignment its own
/// allocation had.
constexpr int64_t kDefaultArenaAlignment = 16;

/// The alignment of every offset in the GPU lowering: what cuMemAlloc
/// guarantees.
constexpr int64_t kDefaultGPUArenaAlignment = 256;

/// How hard remat-plan-arena plans (Solver/Arena/Arena.h).
enum class ArenaEffort {
  /// The best single greedy pass (orders x placements).
  Greedy,
  /// Then the order searches.
  Search,
  /// Then branch and bound while above the lower bound (the default).
  Exact,
};

/// The `llvm::cl::values` of an ArenaEffort option.
#define REMAT_ARENA_EFFORT_CL_VALUES                                           \
  ::llvm::cl::values(clEnumValN(::remat::ArenaEffort::Greedy, "greedy",        \
                                "the best single greedy pass"),                \
                     clEnumValN(::remat::ArenaEffort::Search, "search",        \
                                "greedy, then the order searches"),            \
                     clEnumValN(::remat::ArenaEffort::Exact, "exact",          \
                                "greedy, search, then branch and bound"))

struct PlanArenaOptions {
  ArenaEffort effort = ArenaEffort::Exact;
  /// Every offset is a multiple of it (a power of two); so is the arena.
  int64_t alignment = kDefaultArenaAlignment;
  /// Branch-and-bound nodes of the exact planner.
  int64_t exactNodes = 10000;
  /// Let returned buffers live in the arena, which then goes to the caller
  /// (one allocation for all of them, freed once).
  bool resultsInArena = true;
  /// Whether a caller in the module may free the results one by one (then
  /// they keep their own allocations): see mergeResultFrees.
  bool callersFreeEach = false;
  /// A dynamic size in a function without a dynamic-size hint is an error;
  /// false: the buffer keeps its own allocation.
  bool requireHint = true;
  /// Report the arena and the buffers left out in remarks.
  bool remarks = true;
};

/// What planning one function did.
struct ArenaSummary {
  /// The arena's size (0 without buffers to plan).
  int64_t arenaBytes = 0;
  /// The most bytes the planned buffers hold at once (aligned): no arena is
  /// smaller.
  int64_t lowerBound = 0;
  /// What the function's remat.planned_arena leaves the arena (minus the
  /// arguments), which the planner searches on to meet; -1: none.
  int64_t targetBytes = -1;
  /// Buffers placed in the arena, and those that keep their own allocation.
  unsigned planned = 0;
  unsigned unplanned = 0;
  /// The planner of the arena, and whether its size is proven optimal.
  std::string planner;
  bool optimal = false;
  /// Whether returned buffers live in the arena (the caller then owns it),
  /// and which results do.
  bool returned = false;
  llvm::SmallVector<bool> arenaResults;
};

/// Places the buffers of `func` (bufferized, single block) in one arena, as
/// the file comment says, records `remat.arena_bytes` on it and (with
/// `remarks`) reports in a remark; every buffer left out is then named in a
/// remark at its allocation
/// (allocated in a loop, a layout or memory space a view cannot have, a
/// dynamic size the hint does not bound, freed together with another
/// buffer, returned to a caller that frees the results one by one). A call
/// keeps a buffer in the arena: under the ABI that ownership-based
/// deallocation follows, a callee neither frees nor keeps its memref
/// arguments. Fails, with
/// a located error, on a dynamic size in a function that records no
/// dynamic-size hint (with `requireHint`), and on an arena larger than the
/// index type can
/// address or than 2^62 bytes. A function of several blocks is left
/// unchanged (a remark says so).
mlir::FailureOr<ArenaSummary>
planFunctionArena(mlir::func::FuncOp func, const PlanArenaOptions &options);

/// The bytes of the arena `func` really holds: a 1-D static `memref.alloc`
/// of i8 in its entry block that `memref.view` ops carve up, as
/// planFunctionArena makes it. nullopt when it holds none, whatever its
/// `remat.arena_bytes` says.
std::optional<int64_t> getHeldArenaBytes(mlir::func::FuncOp func);

/// The deallocations, in the function holding `call`, of the buffers `call`
/// returns, when every one of them frees exactly one result of `call` and
/// no result escapes the caller (returned, freed by another op): a caller
/// whose frees mergeResultFrees can merge. nullopt otherwise.
std::optional<llvm::SmallVector<mlir::Operation *>>
getMergeableResultFrees(mlir::CallOpInterface call);

/// Makes the caller free the results of `call` that live in the callee's
/// arena (`arenaResults`, ArenaSummary::arenaResults) once: the `frees` of
/// those results (getMergeableResultFrees) go, and one deallocation of the
/// arena (through one of them) follows the last of them.
void mergeResultFrees(mlir::CallOpInterface call,
                      llvm::ArrayRef<mlir::Operation *> frees,
                      llvm::ArrayRef<bool> arenaResults);

} // namespace remat

#endif // REMAT_TRANSFORMS_PLANARENA_H

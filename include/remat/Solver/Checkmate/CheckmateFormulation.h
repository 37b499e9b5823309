//===- CheckmateFormulation.h - Checkmate's MILP as arrays ------*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Formulation (9) of Checkmate (Jain et al., MLSys 2020, §4) with
// frontier-advancing stages, built on the reduced graph of CheckmateModel.h,
// as plain column and row arrays that any LP/MILP solver can load (the
// COIN-OR ones in CheckmateLp.cpp and CheckmateMilp.cpp). Nothing here needs
// COIN-OR.
//
// Columns:
//   R[t,k]  binary, k computed in stage t (R[t,t] = 1 except for delayable
//           sinks such as the loss, see CheckmateModel.h),
//   S[t,i]  binary, i resident when stage t starts (i < t),
//   F[t,i,k] in [0,1], i freed right after k in stage t,
//   U[t,k]  continuous, memory (in units of the gcd of all sizes) right after
//           k is computed in stage t, resident bytes excluded.
// Rows:
//   R[t,k] <= R[t,u] + S[t,u]           for every dependency u of k,
//   S[t+1,i] <= R[t,i] + S[t,i],        outputs: R[n-1,o] + S[n-1,o] >= 1,
//   F[t,i,k] <= R[t,k], F[t,i,k] + S[t+1,i] <= 1,
//   F[t,i,k] + R[t,j] <= 1              for users j <= t of i after k,
//   sum_k F[t,i,k] <= 1                 (tighter than the paper's rows),
//   U[t,k] = U[t,k'] - sum_i b_i F[t,i,k'] + b_k R[t,k]   (k' the previous
//            candidate of the stage in ReducedGraph::order; the first starts
//            from sum_i b_i S[t,i]),
//   U[t,k] + extra_k R[t,k] <= budget   (extra: a coarsened group's transient).
// F needs no integrality for correctness: with R and S integral, F at its
// upper bound is the paper's FREE, and a smaller F only over-counts memory,
// so every MILP solution expands to a schedule within the budget. The MILP
// still declares F binary (`Spec::binaryFrees`): CBC's probing and clique
// cuts then work on the free rows and solve faster (docs/Solvers.md,
// "Formulation"). The LP relaxation is the same.
//
// Variables that cannot be 1 are never created: S[t,i] and R[t,i] (i < t)
// exist only when i can be needed in stage t (a user computed in t, or
// retention into t + 1), outputs are never freed in the last stage, and
// KeepPolicy pins remove R (Always) or S (Never) columns.
//
// Usage:
//   Spec spec;
//   spec.capUnits = capUnits(g, budget, memoryUnit(g));
//   Formulation f = buildFormulation(g, spec);
//   std::vector<double> x;
//   if (solutionFromPlan(g, f, spec, checkpointAllPlan(g), x))
//     assert(checkSolution(f, x).empty());
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_SOLVER_CHECKMATE_CHECKMATEFORMULATION_H
#define REMAT_SOLVER_CHECKMATE_CHECKMATEFORMULATION_H

#include "remat/Solver/Checkmate/Checkmate.h"
#include "remat/Solver/Checkmate/CheckmateModel.h"
#include "remat/Solver/Core/SolverSupport.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace remat {
namespace checkmate {

/// An infinite bound (the value COIN-OR calls COIN_DBL_MAX).
constexpr double kInfinity = std::numeric_limits<double>::max();

/// What the formulation optimizes and under which limits.
struct Spec {
  bool minPeak = false;
  /// Memory cap in units (MinComputeUnderBudget).
  double capUnits = 0;
  /// Compute cap (MinPeakUnderOverhead).
  double costCap = 0;
  /// Objective bonus per R column, for deterministic tie-breaking.
  double eta = 0;
  /// Give up (Formulation::tooLarge) when there would be more R and S
  /// columns than this.
  int64_t maxColumns = std::numeric_limits<int64_t>::max();
  /// Whether F columns are declared integer (see the file comment).
  bool binaryFrees = true;
};

struct FreeCol {
  int t, i, k, col;
};

/// Checkmate's MILP as column/row arrays.
struct Formulation {
  int n = 0;
  double unit = 1;
  std::vector<std::vector<int>> rCol, sCol;
  std::vector<FreeCol> frees;
  /// Per stage, the memory columns in order: U[t,k] and the frees after k.
  struct MemCol {
    int k, u;
    std::vector<int> frees;
  };
  std::vector<std::vector<MemCol>> uCols;
  /// Rows `U + extra R <= cap` (their upper bound moves with the budget).
  std::vector<int> capRows;
  int peakCol = -1;
  int numR = 0;
  /// Set when Spec::maxColumns was exceeded; nothing else is built then.
  bool tooLarge = false;
  int64_t binaries = 0;

  std::vector<double> colLo, colUp, obj;
  std::vector<int> integers;
  /// The coefficients, one element (row, column, value) at a time.
  std::vector<int> elRow, elCol;
  std::vector<double> elVal;
  std::vector<double> rowLo, rowUp;

  int addCol(double lo, double up, double c, bool integer) {
    colLo.push_back(lo);
    colUp.push_back(up);
    obj.push_back(c);
    int col = static_cast<int>(colLo.size()) - 1;
    if (integer)
      integers.push_back(col);
    return col;
  }
  int addRow(double lo, double up) {
    rowLo.push_back(lo);
    rowUp.push_back(up);
    return static_cast<int>(rowLo.size()) - 1;
  }
  void coef(int row, int col, double v) {
    if (col < 0)
      return;
    elRow.push_back(row);
    elCol.push_back(col);
    elVal.push_back(v);
  }
  int numCols() const { return static_cast<int>(colLo.size()); }
  int r(int t, int k) const { return rCol[t][k]; }
  int s(int t, int i) const { return (t < n && i < t) ? sCol[t][i] : -1; }
};

/// The unit memory is measured in: the gcd of every size, so that the memory
/// rows have small integer coefficients.
double memoryUnit(const ReducedGraph &g);

/// The budget available to the reduced graph's values, in units; negative
/// when even the resident bytes do not fit.
double capUnits(const ReducedGraph &g, int64_t budget, double unit);

/// The R and S binaries of the formulation: per stage t, ascending, the
/// nodes that can be computed in t (`r`) and be resident when t starts
/// (`s`). Empty, with `tooLarge` set, when there are more than the cap.
struct StageColumns {
  std::vector<std::vector<int>> r, s;
  int64_t binaries = 0;
  bool tooLarge = false;
};

/// Which R/S can be 1 (see the file comment), stage by stage from the end,
/// with O(n) working memory. Stops as soon as there are more than
/// `maxColumns` binaries: a graph over the cap costs about `maxColumns`
/// steps and bytes, not n^2.
StageColumns findStageColumns(const ReducedGraph &g, int64_t maxColumns);

/// Checkmate's formulation of `g` (the file comment), or one with
/// `tooLarge` set and nothing built when it would have more than
/// `spec.maxColumns` R/S binaries.
Formulation buildFormulation(const ReducedGraph &g, const Spec &spec);

/// Reads a stage plan from a solution vector.
StagePlan planFromSolution(const ReducedGraph &g, const Formulation &f,
                           const double *x);

/// The full column vector of a consistent plan (F at its upper bound), or
/// false if the plan uses a column that does not exist or breaks the cap.
bool solutionFromPlan(const ReducedGraph &g, const Formulation &f,
                      const Spec &spec, const StagePlan &plan,
                      std::vector<double> &x);

/// The first bound or row of `f` that `x` breaks by more than `tolerance`
/// (or is not integral on an integer column), described; empty when `x` is
/// a solution.
std::string checkSolution(const Formulation &f, const std::vector<double> &x,
                          double tolerance = 1e-9);

/// Makes `plan` respect the KeepPolicy pins, rebuilds R from S, prunes
/// useless retentions, and repeats to a fixpoint.
void normalizePlan(const ReducedGraph &g, StagePlan &plan);

//===----------------------------------------------------------------------===//
// What both Checkmate solvers share
//===----------------------------------------------------------------------===//

/// Why the formulation of `g` is not built.
std::string tooLargeMessage(const char *what, const ReducedGraph &g,
                            const CheckmateOptions &opts);

/// When checkpoint-all fits the budget it is optimal for the min-compute
/// objective (every needed node is computed at least once): the result, or
/// a non-feasible result when it does not apply.
SolveResult checkpointAllShortcut(const Graph &graph,
                                  const SolveOptions &options,
                                  const char *solver, WorkMeter &meter);

/// Whether `opts` asks for chain coarsening on a graph whose exact
/// reduction is `exact`.
bool useChains(const ReducedGraph &exact, const CheckmateOptions &opts);

} // namespace checkmate
} // namespace remat

#endif // REMAT_SOLVER_CHECKMATE_CHECKMATEFORMULATION_H

//===- CheckmateCoin.cpp - Checkmate MILP (CBC) and LP rounding (CLP)
//------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Formulation (9) of Checkmate (Jain et al., MLSys 2020, §4) with
// frontier-advancing stages, built on the reduced graph of CheckmateModel.h.
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
// still declares F binary (CheckmateOptions::binaryFrees): CBC's probing and
// clique cuts then work on the free rows, which measured 3.5x less CPU on the
// 17-node chain at 50 % (7.4 s -> 2.1 s). The LP relaxation is the same.
//
// Variables that cannot be 1 are never created: S[t,i] and R[t,i] (i < t)
// exist only when i can be needed in stage t (a user computed in t, or
// retention into t + 1), outputs are never freed in the last stage, and
// KeepPolicy pins remove R (Always) or S (Never) columns.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Checkmate.h"

#include "remat/Solver/CheckmateModel.h"
#include "remat/Solver/ScheduleBuilder.h"
#include "remat/Solver/Simulator.h"
#include "remat/Solver/Solver.h"
#include "remat/Solver/SolverSupport.h"
#include "remat/Solver/Solvers.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <random>
#include <sstream>
#include <string>

#if REMAT_ENABLE_COINOR
#include <csignal>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include "CbcEventHandler.hpp"
#include "CbcModel.hpp"
#include "CbcSolver.hpp"
#include "ClpSimplex.hpp"
#include "CoinMessageHandler.hpp"
#include "CoinPackedMatrix.hpp"
#include "OsiClpSolverInterface.hpp"
#endif

using namespace remat;
using namespace remat::checkmate;

static const char *const kMilpName = "checkmate-milp";
static const char *const kRoundingName = "checkmate-lp-rounding";
static const char *const kBoundName = "checkmate-lp-bound";

SolveResult remat::solveCheckmateMilp(const Graph &graph,
                                      const SolveOptions &options) {
  return solveCheckmateMilp(graph, options, CheckmateOptions());
}

SolveResult remat::solveCheckmateRounding(const Graph &graph,
                                          const SolveOptions &options) {
  return solveCheckmateRounding(graph, options, CheckmateOptions());
}

#if !REMAT_ENABLE_COINOR

static const char *const kNoCoin =
    "this build has no COIN-OR CBC/CLP (REMAT_ENABLE_COINOR is off): install "
    "coinor-libcbc-dev and coinor-libclp-dev and reconfigure";

bool remat::checkmateAvailable() { return false; }

SolveResult remat::solveCheckmateMilp(const Graph &, const SolveOptions &,
                                      const CheckmateOptions &) {
  return failSolve(kMilpName, SolveStatus::Unsupported, kNoCoin, Stopwatch());
}

SolveResult remat::solveCheckmateRounding(const Graph &, const SolveOptions &,
                                          const CheckmateOptions &) {
  return failSolve(kRoundingName, SolveStatus::Unsupported, kNoCoin,
                   Stopwatch());
}

SolveResult remat::checkmateLpBound(const Graph &, const SolveOptions &) {
  return failSolve(kBoundName, SolveStatus::Unsupported, kNoCoin, Stopwatch());
}

#else // REMAT_ENABLE_COINOR

bool remat::checkmateAvailable() { return true; }

namespace {

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
  CoinPackedMatrix matrix() const {
    return CoinPackedMatrix(true, elRow.data(), elCol.data(), elVal.data(),
                            static_cast<int>(elVal.size()));
  }
  int r(int t, int k) const { return rCol[t][k]; }
  int s(int t, int i) const { return (t < n && i < t) ? sCol[t][i] : -1; }
};

} // namespace

/// The unit memory is measured in: the gcd of every size, so that the memory
/// rows have small integer coefficients.
static double memoryUnit(const ReducedGraph &g) {
  int64_t unit = 0;
  for (int i = 0; i < g.size(); ++i) {
    unit = std::gcd(unit, g.bytes[i]);
    unit = std::gcd(unit, g.extraBytes[i]);
  }
  return unit > 0 ? static_cast<double>(unit) : 1.0;
}

static int lastUse(const ReducedGraph &g, int i) {
  int last = g.isOutput[i] ? g.size() : i;
  for (int j : g.users[i])
    last = std::max(last, j);
  return last;
}

static bool neverRetain(const ReducedGraph &g, int t, int i) {
  return g.keep[i] == KeepPolicy::Never && g.isForward[i] && !g.isOutput[i] &&
         t >= g.firstBackward;
}

namespace {
/// The R and S binaries of the formulation: per stage t, ascending, the
/// nodes that can be computed in t (`r`) and be resident when t starts
/// (`s`). Empty, with `tooLarge` set, when there are more than the cap.
struct StageColumns {
  std::vector<std::vector<int>> r, s;
  int64_t binaries = 0;
  bool tooLarge = false;
};
} // namespace

/// Which R/S can be 1 (see the file comment), stage by stage from the end,
/// with O(n) working memory. Stops as soon as there are more than
/// `maxColumns` binaries: a graph over the cap costs about `maxColumns`
/// steps and bytes, not n^2 (the 50,000-node chain: milliseconds).
static StageColumns findStageColumns(const ReducedGraph &g,
                                     int64_t maxColumns) {
  const int n = g.size();
  StageColumns columns;
  auto giveUp = [&] {
    columns.r.clear();
    columns.s.clear();
    columns.tooLarge = true;
    return std::move(columns);
  };
  // R[t,t] exists in every stage.
  if (n > maxColumns)
    return giveUp();
  columns.r.resize(n);
  columns.s.resize(n);
  // S of stage t + 1, and R and S of stage t, by node.
  std::vector<char> nextS(n), needR(n), needS(n);
  for (int i = 0; i < n; ++i)
    nextS[i] = g.isOutput[i];
  for (int t = n - 1; t >= 0; --t) {
    for (int i = t; i >= 0; --i) {
      bool next = nextS[i];
      bool used = false;
      for (int j : g.users[i])
        if (j <= t && needR[j]) {
          used = true;
          break;
        }
      bool need = i == t || next || used;
      if (g.keep[i] == KeepPolicy::Always && i != t)
        need = false;
      needR[i] = need;
      needS[i] = i < t && (next || used) && !neverRetain(g, t, i);
    }
    for (int i = 0; i <= t; ++i) {
      if (needR[i])
        columns.r[t].push_back(i);
      if (needS[i])
        columns.s[t].push_back(i);
    }
    columns.binaries += columns.r[t].size() + columns.s[t].size();
    if (columns.binaries > maxColumns)
      return giveUp();
    std::swap(nextS, needS);
  }
  return columns;
}

/// Adds the R and S columns of `columns` to `f`, stage by stage.
static void addStageColumns(const ReducedGraph &g, const Spec &spec,
                            const StageColumns &columns, Formulation &f) {
  const int n = g.size();
  double costScale = 0;
  for (double c : g.cost)
    costScale += c;
  f.rCol.resize(n);
  f.sCol.resize(n);
  for (int t = 0; t < n; ++t) {
    f.rCol[t].assign(t + 1, -1);
    f.sCol[t].assign(t, -1);
    for (int i : columns.r[t]) {
      double c = spec.minPeak ? 1e-6 * g.cost[i] / std::max(costScale, 1e-30)
                              : g.cost[i] + spec.eta;
      bool frontier = i == t && !g.delayable[i];
      f.rCol[t][i] = f.addCol(frontier ? 1 : 0, 1, c, true);
      ++f.numR;
    }
    for (int i : columns.s[t])
      f.sCol[t][i] = f.addCol(0, 1, 0, true);
  }
}

/// Rows R[t,k] <= R[t,u] + S[t,u] for every dependency u of k,
/// S[t+1,i] <= R[t,i] + S[t,i], and R[n-1,o] + S[n-1,o] >= 1 for outputs.
static void addDependencyRows(const ReducedGraph &g, Formulation &f) {
  const int n = g.size();
  for (int t = 0; t < n; ++t) {
    for (int k = 0; k <= t; ++k) {
      if (f.r(t, k) < 0)
        continue;
      for (int u : g.deps[k]) {
        int row = f.addRow(-COIN_DBL_MAX, 0);
        f.coef(row, f.r(t, k), 1);
        f.coef(row, f.r(t, u), -1);
        f.coef(row, f.s(t, u), -1);
      }
    }
    if (t + 1 < n) {
      for (int i = 0; i <= t; ++i) {
        if (f.s(t + 1, i) < 0)
          continue;
        int row = f.addRow(-COIN_DBL_MAX, 0);
        f.coef(row, f.s(t + 1, i), 1);
        f.coef(row, f.r(t, i), -1);
        f.coef(row, f.s(t, i), -1);
      }
    }
  }
  for (int i = 0; i < n; ++i) {
    if (!g.isOutput[i])
      continue;
    int row = f.addRow(1, COIN_DBL_MAX);
    f.coef(row, f.r(n - 1, i), 1);
    f.coef(row, f.s(n - 1, i), 1);
  }
}

/// The columns F[t,i,k] for i in deps(k) and k itself (computed by R[t,k] =
/// column `rk`), with their rows: F <= R[t,k], F + S[t+1,i] <= 1, and F +
/// R[t,j]
/// <= 1 for users j of i computed after k. Appends the new frees' indices
/// to `added` and their columns to `freesOf[i]`.
static void addFrees(const ReducedGraph &g, const Spec &spec, int t, int k,
                     int rk, Formulation &f,
                     std::vector<std::vector<int>> &freesOf,
                     std::vector<int> &added) {
  const int n = g.size();
  std::vector<int> cands = g.deps[k];
  cands.push_back(k);
  for (int i : cands) {
    if (t == n - 1 && g.isOutput[i])
      continue;
    if (g.bytes[i] == 0)
      continue; // Freeing it changes nothing.
    int col = f.addCol(0, 1, 0, spec.binaryFrees);
    f.frees.push_back({t, i, k, col});
    int fc = static_cast<int>(f.frees.size()) - 1;
    added.push_back(fc);
    f.uCols[t].back().frees.push_back(fc);
    freesOf[i].push_back(col);
    if (i != t || k != t) {
      int row = f.addRow(-COIN_DBL_MAX, 0);
      f.coef(row, col, 1);
      f.coef(row, rk, -1);
    }
    if (f.s(t + 1, i) >= 0) {
      int row = f.addRow(-COIN_DBL_MAX, 1);
      f.coef(row, col, 1);
      f.coef(row, f.s(t + 1, i), 1);
    }
    std::vector<int> hazards;
    for (int j : g.users[i])
      if (j <= t && g.after(j, k) && f.r(t, j) >= 0)
        hazards.push_back(f.r(t, j));
    if (hazards.size() <= 8) {
      for (int h : hazards) {
        int row = f.addRow(-COIN_DBL_MAX, 1);
        f.coef(row, col, 1);
        f.coef(row, h, 1);
      }
    } else {
      double m = static_cast<double>(hazards.size());
      int row = f.addRow(-COIN_DBL_MAX, m);
      f.coef(row, col, m);
      for (int h : hazards)
        f.coef(row, h, 1);
    }
  }
}

/// Stage t's memory: U[t,k] for the nodes it computes, in
/// ReducedGraph::order, each from the previous U less what was freed after
/// it (the first from the retained bytes), capped by the budget (or the
/// peak column); then sum_k F[t,i,k] <= 1.
static void addStageMemory(const ReducedGraph &g, const Spec &spec, int t,
                           Formulation &f) {
  auto units = [&](int64_t bytes) {
    return static_cast<double>(bytes) / f.unit;
  };
  const double memCap = spec.minPeak ? COIN_DBL_MAX : spec.capUnits;
  std::vector<std::vector<int>> freesOf(t + 1);
  int prevU = -1;
  std::vector<int> prevFrees;
  for (int k : g.order) {
    if (k > t)
      continue;
    int rk = f.r(t, k);
    if (rk < 0)
      continue;
    int u = f.addCol(0, memCap, 0, false);
    f.uCols[t].push_back({k, u, {}});
    int row = f.addRow(0, 0);
    f.coef(row, u, 1);
    f.coef(row, rk, -units(g.bytes[k]));
    if (prevU < 0) {
      for (int i = 0; i < t; ++i)
        f.coef(row, f.s(t, i), -units(g.bytes[i]));
    } else {
      f.coef(row, prevU, -1);
      for (int fc : prevFrees) {
        const FreeCol &fr = f.frees[fc];
        f.coef(row, fr.col, units(g.bytes[fr.i]));
      }
    }
    if (spec.minPeak || g.extraBytes[k] > 0) {
      int cap = f.addRow(-COIN_DBL_MAX, spec.minPeak ? 0 : memCap);
      f.coef(cap, u, 1);
      f.coef(cap, rk, units(g.extraBytes[k]));
      f.coef(cap, f.peakCol, -1);
      if (!spec.minPeak)
        f.capRows.push_back(cap);
    }
    prevFrees.clear();
    addFrees(g, spec, t, k, rk, f, freesOf, prevFrees);
    prevU = u;
  }
  for (int i = 0; i <= t; ++i) {
    if (freesOf[i].size() < 2)
      continue;
    int row = f.addRow(-COIN_DBL_MAX, 1);
    for (int col : freesOf[i])
      f.coef(row, col, 1);
  }
}

/// Checkmate's formulation of `g` (the file comment), or one with
/// `tooLarge` set and nothing built when it would have more than
/// `spec.maxColumns` R/S binaries.
static Formulation buildFormulation(const ReducedGraph &g, const Spec &spec) {
  Formulation f;
  const int n = g.size();
  f.n = n;
  f.unit = memoryUnit(g);
  StageColumns columns = findStageColumns(g, spec.maxColumns);
  f.binaries = columns.binaries;
  if (columns.tooLarge) {
    f.tooLarge = true;
    return f;
  }
  addStageColumns(g, spec, columns, f);
  if (spec.minPeak)
    f.peakCol = f.addCol(0, COIN_DBL_MAX, 1, false);
  addDependencyRows(g, f);
  f.uCols.resize(n);
  for (int t = 0; t < n; ++t)
    addStageMemory(g, spec, t, f);
  if (spec.minPeak) {
    int row = f.addRow(-COIN_DBL_MAX, spec.costCap);
    for (int t = 0; t < n; ++t)
      for (int k = 0; k <= t; ++k)
        f.coef(row, f.r(t, k), g.cost[k]);
  }
  return f;
}

/// Reads a stage plan from a solution vector.
static StagePlan planFromSolution(const ReducedGraph &g, const Formulation &f,
                                  const double *x) {
  const int n = g.size();
  StagePlan plan(n);
  for (int t = 0; t < n; ++t) {
    for (int k = 0; k <= t; ++k)
      plan.r[t][k] = f.r(t, k) >= 0 && x[f.r(t, k)] > 0.5;
    for (int i = 0; i < t; ++i)
      plan.s[t][i] = f.s(t, i) >= 0 && x[f.s(t, i)] > 0.5;
  }
  for (int i = 0; i < n; ++i)
    plan.s[n][i] = g.isOutput[i];
  return plan;
}

/// The full column vector of a consistent plan (F at its upper bound), or
/// false if the plan uses a column that does not exist or breaks the cap.
static bool solutionFromPlan(const ReducedGraph &g, const Formulation &f,
                             const Spec &spec, const StagePlan &plan,
                             std::vector<double> &x) {
  const int n = g.size();
  if (f.tooLarge || plan.size() != n || f.n != n)
    return false;
  x.assign(f.numCols(), 0);
  for (int t = 0; t < n; ++t) {
    for (int k = 0; k <= t; ++k)
      if (plan.r[t][k]) {
        if (f.r(t, k) < 0)
          return false;
        x[f.r(t, k)] = 1;
      }
    for (int i = 0; i < t; ++i)
      if (plan.s[t][i]) {
        if (f.s(t, i) < 0)
          return false;
        x[f.s(t, i)] = 1;
      }
  }
  for (const FreeCol &fr : f.frees) {
    if (!plan.r[fr.t][fr.k] || plan.s[fr.t + 1][fr.i])
      continue;
    bool hazard = false;
    for (int j : g.users[fr.i])
      if (j <= fr.t && g.after(j, fr.k) && plan.r[fr.t][j])
        hazard = true;
    if (!hazard)
      x[fr.col] = 1;
  }
  // Replay the memory rows.
  double peak = 0;
  for (int t = 0; t < n; ++t) {
    double mem = 0;
    for (int i = 0; i < t; ++i)
      if (plan.s[t][i])
        mem += g.bytes[i] / f.unit;
    const Formulation::MemCol *prev = nullptr;
    for (const Formulation::MemCol &mc : f.uCols[t]) {
      if (prev)
        for (int fc : prev->frees)
          mem -= x[f.frees[fc].col] * g.bytes[f.frees[fc].i] / f.unit;
      mem += plan.r[t][mc.k] * g.bytes[mc.k] / f.unit;
      x[mc.u] = mem;
      double withExtra = mem + plan.r[t][mc.k] * g.extraBytes[mc.k] / f.unit;
      peak = std::max(peak, withExtra);
      if (mem < -1e-9 || (!spec.minPeak && withExtra > spec.capUnits + 1e-9))
        return false;
      prev = &mc;
    }
  }
  if (spec.minPeak)
    x[f.peakCol] = peak;
  return true;
}

/// Plan cost: the sum of its computations.
static double planCost(const ReducedGraph &g, const StagePlan &plan) {
  double cost = 0;
  for (int t = 0; t < plan.size(); ++t)
    for (int k = 0; k <= t; ++k)
      if (plan.r[t][k])
        cost += g.cost[k];
  return cost;
}

/// Makes `plan` respect the KeepPolicy pins before its computations are
/// rebuilt from S.
static void applyPins(const ReducedGraph &g, StagePlan &plan) {
  const int n = g.size();
  for (int i = 0; i < n; ++i) {
    if (g.keep[i] == KeepPolicy::Always) {
      int last = lastUse(g, i);
      for (int t = i + 1; t <= std::min(last, n); ++t)
        plan.s[t][i] = 1;
    } else if (g.keep[i] == KeepPolicy::Never) {
      for (int t = std::max(i + 1, g.firstBackward); t < n; ++t)
        if (neverRetain(g, t, i))
          plan.s[t][i] = 0;
    }
  }
}

/// Rebuilds R from S, prunes useless retentions, and repeats to a fixpoint.
static void normalizePlan(const ReducedGraph &g, StagePlan &plan) {
  applyPins(g, plan);
  rebuildComputations(g, plan);
  for (int iter = 0; iter < 4 && pruneRetentions(g, plan); ++iter)
    rebuildComputations(g, plan);
}

/// The budget available to the reduced graph's values, in units; negative
/// when even the resident bytes do not fit.
static double capUnits(const ReducedGraph &g, int64_t budget, double unit) {
  if (budget == std::numeric_limits<int64_t>::max())
    return 1e30;
  return std::floor(static_cast<double>(budget - g.residentBytes) / unit);
}

namespace {
/// CLP on a formulation whose budget can be moved between solves.
class LpRelaxation {
public:
  LpRelaxation(const Formulation &f) : f(f) {
    CoinPackedMatrix m = f.matrix();
    lp.loadProblem(m, f.colLo.data(), f.colUp.data(), f.obj.data(),
                   f.rowLo.data(), f.rowUp.data());
    lp.setLogLevel(0);
    lp.messageHandler()->setLogLevel(0);
    lp.setOptimizationDirection(1);
  }
  void setCap(double cap) {
    for (const auto &stage : f.uCols)
      for (const Formulation::MemCol &mc : stage)
        lp.setColumnUpper(mc.u, cap);
    for (int row : f.capRows)
      lp.setRowUpper(row, cap);
  }
  /// Solves; returns 0 optimal, 1 infeasible, 2 other (time, numerics).
  int solve(double seconds) {
    lp.setMaximumWallSeconds(std::max(seconds, 0.05));
    // Dual simplex (from the slack basis the first time, then warm):
    // measured 2x faster than CLP's default initialSolve (presolve + dual)
    // on these degenerate LPs.
    lp.dual();
    if (lp.isProvenOptimal())
      return 0;
    if (lp.isProvenPrimalInfeasible())
      return 1;
    return 2;
  }
  double objective() const { return lp.objectiveValue(); }
  const double *solution() const { return lp.primalColumnSolution(); }

private:
  const Formulation &f;
  ClpSimplex lp;
};
} // namespace

/// Why the formulation of `g` is not built.
static std::string tooLargeMessage(const char *what, const ReducedGraph &g,
                                   const CheckmateOptions &opts) {
  return std::string("the ") + what + " would have more than " +
         std::to_string(opts.maxBinaries) +
         " R/S binaries (CheckmateOptions::maxBinaries; about n^2/2 for " +
         std::to_string(g.size()) + " nodes to schedule)";
}

/// When checkpoint-all fits the budget it is optimal for the min-compute
/// objective (every needed node is computed at least once): the result, or
/// a non-feasible result when it does not apply.
static SolveResult checkpointAllShortcut(const Graph &graph,
                                         const SolveOptions &options,
                                         const char *solver,
                                         const Stopwatch &watch) {
  SolveResult none;
  if (options.objective != Objective::MinComputeUnderBudget)
    return none;
  Schedule all = checkpointAllSchedule(graph);
  Simulation sim = simulate(graph, all);
  if (!sim.valid() || sim.peakBytes > options.budget)
    return none;
  SolveResult result = finishSolve(
      graph, options, solver, std::move(all), SolveStatus::Optimal, watch,
      "checkpoint-all fits the budget: optimal, no solver run");
  result.lowerBound = checkpointAllCost(graph);
  return result;
}

static bool useChains(const ReducedGraph &exact, const CheckmateOptions &opts) {
  if (opts.coarsenChains >= 0)
    return opts.coarsenChains > 0;
  return exact.size() > opts.coarsenAbove;
}

//===----------------------------------------------------------------------===//
// LP rounding
//===----------------------------------------------------------------------===//

namespace {
struct RoundingOutcome {
  SolveStatus status = SolveStatus::Timeout;
  bool found = false;
  StagePlan plan;
  double cost = 0;
  double lowerBound = -1;
  /// Wall time of the first LP solve (or of the attempt, if it failed).
  double lpSeconds = 0;
  bool lpSolved = false;
  /// Whether the first LP was solved or proved infeasible (false when the
  /// time ran out before or during it).
  bool lpFinished = false;
  /// Infeasible by proof (budget below resident bytes, LP infeasible).
  bool proven = false;
  std::string message;
};
} // namespace

/// The rounding search on `g` within `seconds`.
static RoundingOutcome runRounding(const Graph &graph, const ReducedGraph &g,
                                   const SolveOptions &options,
                                   const CheckmateOptions &opts,
                                   double seconds) {
  Stopwatch watch;
  ProgressReporter progress(options, kRoundingName, watch);
  RoundingOutcome out;
  const int n = g.size();
  Spec spec;
  double unit = memoryUnit(g);
  spec.capUnits = capUnits(g, options.budget, unit);
  if (spec.capUnits < 0) {
    out.status = SolveStatus::Infeasible;
    out.proven = true;
    out.message = "the budget is below the always-resident bytes";
    return out;
  }
  // Candidates are judged by the simulator on the original graph.
  auto consider = [&](StagePlan plan) {
    normalizePlan(g, plan);
    if (!isConsistent(g, plan))
      return;
    double cost = planCost(g, plan);
    if (out.found && cost >= out.cost - 1e-12 * std::max(1.0, out.cost))
      return;
    // Even a plan whose model peak is over the budget may fit once
    // expanded: the simulator decides.
    Simulation sim = simulate(graph, expandPlan(g, plan));
    if (!sim.valid() || sim.peakBytes > options.budget)
      return;
    out.found = true;
    out.plan = std::move(plan);
    out.cost = sim.cost;
  };
  // The size cap first: the plans below take n^2 bytes.
  spec.maxColumns = opts.maxBinaries;
  Formulation f = buildFormulation(g, spec);
  if (f.tooLarge) {
    out.message = tooLargeMessage("LP", g, opts);
    return out;
  }
  consider(checkpointAllPlan(g));
  LpRelaxation lp(f);
  std::mt19937_64 rng(0x5eed);
  std::vector<double> allowances = opts.allowances;
  std::sort(allowances.begin(), allowances.end());
  bool bounded = false;
  for (double eps : allowances) {
    // Keep 40 % of the time for the local search once one LP is solved.
    double left =
        (eps == allowances.front() ? 1.0 : 0.6) * seconds - watch.seconds();
    if (left <= 0)
      break;
    lp.setCap(std::floor(spec.capUnits * (1 - eps)));
    Stopwatch lpWatch;
    int status = lp.solve(left);
    if (eps == allowances.front()) {
      out.lpSeconds = lpWatch.seconds();
      out.lpSolved = status == 0;
      out.lpFinished = status != 2;
    }
    if (status == 1) {
      if (eps == allowances.front() && eps == 0) {
        out.status = SolveStatus::Infeasible;
        out.proven = true;
        out.message = "the LP relaxation is infeasible: no schedule of the "
                      "Checkmate class fits the budget";
        return out;
      }
      break;
    }
    if (status != 0)
      break;
    bounded = true;
    if (eps == 0 && g.exact)
      out.lowerBound = lp.objective();
    progress.report(out.found ? out.cost : -1, -1, out.lowerBound,
                    "LP solved at " +
                        std::to_string(static_cast<int>(eps * 100 + 0.5)) +
                        " % below the budget",
                    /*phase=*/eps == allowances.front());
    const double *x = lp.solution();
    auto roundAt = [&](auto decide) {
      StagePlan plan(n);
      for (int t = 0; t < n; ++t)
        for (int i = 0; i < t; ++i)
          plan.s[t][i] = f.s(t, i) >= 0 && decide(x[f.s(t, i)]);
      // An output is resident from some stage to the end: close gaps after
      // its first retention. Without this, a weight gradient whose
      // retention rounds down is computed in the last stage, together with
      // every other such gradient and all their operands.
      // A second variant keeps every delayable output from its own stage.
      StagePlan early = plan;
      for (int i = 0; i < n; ++i) {
        if (!g.isOutput[i])
          continue;
        bool on = false;
        for (int t = i + 1; t < n; ++t) {
          on = on || plan.s[t][i];
          if (on && f.s(t, i) >= 0)
            plan.s[t][i] = 1;
          if (g.delayable[i] && f.s(t, i) >= 0)
            early.s[t][i] = 1;
        }
      }
      consider(std::move(plan));
      consider(std::move(early));
    };
    for (double tau : opts.thresholds)
      roundAt([&](double v) { return v >= tau - 1e-9; });
    std::uniform_real_distribution<double> coin(0, 1);
    for (int k = 0; k < opts.randomizedRoundings; ++k)
      roundAt([&](double v) { return coin(rng) < v; });
  }
  if (out.found) {
    out.status = SolveStatus::Feasible;
    progress.report(out.cost, -1, out.lowerBound,
                    "roundings done; improving the best", /*phase=*/true);
    // Local search on the best rounding, with what is left of the time.
    StagePlan better = out.plan;
    if (improvePlan(g, better, options.budget, seconds - watch.seconds())) {
      Simulation sim = simulate(graph, expandPlan(g, better));
      if (sim.valid() && sim.peakBytes <= options.budget &&
          sim.cost < out.cost) {
        out.plan = std::move(better);
        out.cost = sim.cost;
      }
    }
  } else if (out.status != SolveStatus::Infeasible && bounded) {
    // Like the other heuristics: found no schedule (not a proof).
    out.status = SolveStatus::Infeasible;
    out.message = "no rounding fit the budget (not a proof: the LP "
                  "relaxation is feasible)";
  } else if (out.status != SolveStatus::Infeasible) {
    out.message = "the LP relaxation was not solved within the time limit";
  }
  return out;
}

SolveResult remat::solveCheckmateRounding(const Graph &graph,
                                          const SolveOptions &options,
                                          const CheckmateOptions &opts) {
  Stopwatch watch;
  std::string error = graph.check();
  if (!error.empty())
    return failSolve(kRoundingName, SolveStatus::Unsupported,
                     "malformed graph: " + error, watch);
  if (options.objective != Objective::MinComputeUnderBudget)
    return failSolve(kRoundingName, SolveStatus::Unsupported,
                     "LP rounding minimizes compute under a budget; use "
                     "checkmate-milp for the min-peak objective",
                     watch);
  SolveResult shortcut =
      checkpointAllShortcut(graph, options, kRoundingName, watch);
  if (shortcut.feasible())
    return shortcut;
  ReducedGraph g = reduceGraph(graph, /*mergeChains=*/false);
  RoundingOutcome out =
      runRounding(graph, g, options, opts, options.timeLimitSeconds);
  if (!out.found) {
    SolveResult result = failSolve(kRoundingName,
                                   out.status == SolveStatus::Infeasible
                                       ? SolveStatus::Infeasible
                                       : SolveStatus::Timeout,
                                   out.message, watch);
    result.lowerBound = out.lowerBound;
    return result;
  }
  SolveResult result =
      finishSolve(graph, options, kRoundingName, expandPlan(g, out.plan),
                  SolveStatus::Feasible, watch);
  result.lowerBound = out.lowerBound;
  if (result.feasible() && out.lowerBound >= 0 &&
      result.cost <= out.lowerBound * (1 + 1e-9) + 1e-9)
    result.status = SolveStatus::Optimal;
  return result;
}

SolveResult remat::checkmateLpBound(const Graph &graph,
                                    const SolveOptions &options) {
  Stopwatch watch;
  std::string error = graph.check();
  if (!error.empty())
    return failSolve(kBoundName, SolveStatus::Unsupported,
                     "malformed graph: " + error, watch);
  if (options.objective != Objective::MinComputeUnderBudget)
    return failSolve(kBoundName, SolveStatus::Unsupported,
                     "the LP bound is for the min-compute objective", watch);
  ReducedGraph g = reduceGraph(graph, /*mergeChains=*/false);
  Spec spec;
  spec.capUnits = capUnits(g, options.budget, memoryUnit(g));
  if (spec.capUnits < 0)
    return failSolve(kBoundName, SolveStatus::Infeasible,
                     "the budget is below the always-resident bytes", watch);
  CheckmateOptions defaults;
  spec.maxColumns = defaults.maxBinaries;
  Formulation f = buildFormulation(g, spec);
  if (f.tooLarge)
    return failSolve(kBoundName, SolveStatus::Unsupported,
                     tooLargeMessage("LP", g, defaults), watch);
  LpRelaxation lp(f);
  int status = lp.solve(options.timeLimitSeconds);
  if (status == 1)
    return failSolve(kBoundName, SolveStatus::Infeasible,
                     "the LP relaxation is infeasible", watch);
  if (status != 0)
    return failSolve(kBoundName, SolveStatus::Timeout,
                     "CLP stopped before optimality", watch);
  SolveResult result;
  result.solver = kBoundName;
  result.status = SolveStatus::Optimal;
  result.lowerBound = lp.objective();
  result.seconds = watch.seconds();
  return result;
}

//===----------------------------------------------------------------------===//
// MILP
//===----------------------------------------------------------------------===//

namespace {
/// Reports CBC's incumbent and bound through a `ProgressReporter` (which
/// throttles them) at CBC's node and solution events. CBC clones the
/// handler into its working model and threads: the clones share one state.
class MilpProgress : public CbcEventHandler {
public:
  struct Shared {
    Shared(ProgressReporter &reporter, bool minPeak, double unit,
           int64_t residentBytes)
        : reporter(reporter), minPeak(minPeak), unit(unit),
          residentBytes(residentBytes) {}
    std::mutex mutex;
    ProgressReporter &reporter;
    bool minPeak;
    double unit;
    int64_t residentBytes;
  };

  explicit MilpProgress(std::shared_ptr<Shared> shared)
      : shared(std::move(shared)) {}
  CbcEventHandler *clone() const override { return new MilpProgress(*this); }

  CbcAction event(CbcEvent which) override {
    if (!model_ || (which != node && which != solution &&
                    which != heuristicSolution && which != treeStatus))
      return noAction;
    std::lock_guard<std::mutex> lock(shared->mutex);
    if (!shared->reporter.due())
      return noAction;
    bool have = model_->bestSolution() != nullptr;
    double objective = have ? model_->getObjValue() : -1;
    double bound = model_->getBestPossibleObjValue();
    std::string message =
        "CBC: " + std::to_string(model_->getNodeCount()) + " nodes";
    if (shared->minPeak) {
      // The objective is the peak in memory units, resident bytes excluded.
      auto bytes = [&](double units) {
        return static_cast<int64_t>(std::ceil(units * shared->unit - 1e-6)) +
               shared->residentBytes;
      };
      shared->reporter.report(-1, have ? bytes(objective) : -1,
                              bound > -1e29 ? bytes(bound) : -1, message);
    } else {
      shared->reporter.report(objective, -1, bound > -1e29 ? bound : -1,
                              message);
    }
    return noAction;
  }

private:
  std::shared_ptr<Shared> shared;
};
} // namespace

/// Share of the time limit the heuristic warm starts may take together
/// (each at most a tenth).
static constexpr double kHeuristicShare = 0.3;

/// The answer among `candidates` (verified schedules) that is best for the
/// objective, labelled with `why`; a `none` failure when none is valid.
static SolveResult bestCandidate(const Graph &graph,
                                 const SolveOptions &options,
                                 const std::vector<Schedule> &candidates,
                                 const Stopwatch &watch, const std::string &why,
                                 SolveStatus none) {
  double limit = costLimit(graph, options);
  SolveResult result = failSolve(kMilpName, none, why, watch);
  for (const Schedule &candidate : candidates) {
    Simulation sim = simulate(graph, candidate);
    if (!sim.valid() || sim.peakBytes > options.budget ||
        sim.cost > limit * (1 + 1e-9) ||
        (result.feasible() && !isBetter(options, limit, sim.peakBytes, sim.cost,
                                        result.peakBytes, result.cost)))
      continue;
    result = finishSolve(graph, options, kMilpName, candidate,
                         SolveStatus::Feasible, watch, why);
  }
  return result;
}

/// The MILP's answer on a graph over the size cap, within the time left:
/// the portfolio's plan, or a caller's warm start if better. Nothing of
/// size n^2 is built.
static SolveResult solveOverCap(const Graph &graph, const ReducedGraph &g,
                                const SolveOptions &options,
                                const CheckmateOptions &opts,
                                const Stopwatch &watch) {
  std::string why = tooLargeMessage("MILP", g, opts);
  std::vector<Schedule> candidates = opts.warmStarts;
  if (opts.heuristicWarmStarts) {
    SolveOptions rest = nestedOptions(options);
    rest.timeLimitSeconds =
        std::max(0.05, options.timeLimitSeconds - watch.seconds());
    SolveResult best = solvePortfolio(graph, rest);
    if (best.feasible())
      candidates.push_back(std::move(best.schedule));
    why += "; the best heuristic plan (auto) returned, not proven optimal";
  }
  return bestCandidate(graph, options, candidates, watch, why,
                       SolveStatus::Unsupported);
}

namespace {
/// The MILP's warm starts: stage plans offered to CBC, and schedules kept
/// as answers even when their plans do not fit Checkmate's class.
struct WarmStarts {
  std::vector<StagePlan> plans;
  std::vector<Schedule> schedules;
  /// The rounding's LP bound (exact reduction only), or -1.
  double lpBound = -1;
  /// Why CBC cannot run within the limit (from the first LP), or empty.
  std::string skipCbc;
  /// Wall time of the rounding's first LP (0 without one): about what CBC
  /// spends between two looks at its clock (a pass of root cuts), so CBC's
  /// own limit leaves that much before the caller's.
  double lpSeconds = 0;
  /// Set with `proof` when the rounding proved that nothing fits.
  bool infeasible = false;
  std::string proof;
};

/// The best warm start that fits the formulation, as CBC's solution vector.
struct MipStart {
  std::vector<double> x;
  double objective = COIN_DBL_MAX;
  /// Index into WarmStarts::plans, or -1 when none fits.
  int index = -1;
};
} // namespace

/// Warm starts: checkpoint-all, the caller's schedules, the registered
/// heuristics (within kHeuristicShare of the limit), the LP rounding
/// (within CheckmateOptions::roundingTimeShare).
static WarmStarts collectWarmStarts(const Graph &graph, const ReducedGraph &g,
                                    const SolveOptions &options,
                                    const CheckmateOptions &opts,
                                    const Stopwatch &watch) {
  WarmStarts warm;
  warm.plans.push_back(checkpointAllPlan(g));
  warm.schedules = opts.warmStarts;
  const double limit = options.timeLimitSeconds;
  if (opts.heuristicWarmStarts) {
    SolveOptions quick = nestedOptions(options);
    for (const SolverInfo &info : allSolvers()) {
      if (info.exact || info.composite || info.name.rfind("checkmate", 0) == 0)
        continue;
      double left = kHeuristicShare * limit - watch.seconds();
      if (left <= 0)
        break;
      quick.timeLimitSeconds = std::min(0.1 * limit, left);
      SolveResult r = info.solve(graph, quick);
      if (r.feasible())
        warm.schedules.push_back(std::move(r.schedule));
    }
  }
  for (const Schedule &schedule : warm.schedules) {
    StagePlan plan;
    if (planFromSchedule(graph, g, schedule, plan))
      warm.plans.push_back(std::move(plan));
  }
  if (options.objective == Objective::MinPeakUnderOverhead ||
      !opts.roundingWarmStart)
    return warm;
  double share = std::min(opts.roundingTimeShare * limit,
                          std::max(0.05, limit - watch.seconds()));
  RoundingOutcome rounded =
      runRounding(graph, g, nestedOptions(options), opts, share);
  if (rounded.proven) {
    warm.infeasible = true;
    warm.proof = rounded.message;
    return warm;
  }
  if (g.exact)
    warm.lpBound = rounded.lowerBound;
  warm.lpSeconds = rounded.lpSeconds;
  if (rounded.found)
    warm.plans.push_back(std::move(rounded.plan));
  // CBC solves this LP several times (MIP start, root, nodes) and checks
  // its clock only between phases: skip it when the first LP was not solved
  // within the rounding's share (resnet8 at batch 64, 360 nodes: CBC
  // started with 3 s left took 150 s), or when it alone took more than a
  // third of what is left (half, if it was infeasible).
  double remaining = limit - watch.seconds();
  if (!rounded.lpFinished)
    warm.skipCbc = "the LP relaxation was not solved within its share of the "
                   "time limit";
  else if ((rounded.lpSolved ? 3 : 2) * rounded.lpSeconds > remaining)
    warm.skipCbc = "the LP relaxation alone took " +
                   std::to_string(rounded.lpSeconds) + " s, with " +
                   std::to_string(std::max(remaining, 0.0)) + " s left";
  return warm;
}

/// The cheapest plan of `warm` that fits the formulation and, simulated,
/// the constraints.
static MipStart chooseMipStart(const Graph &graph, const ReducedGraph &g,
                               const Formulation &f, const Spec &spec,
                               const SolveOptions &options,
                               const WarmStarts &warm) {
  MipStart best;
  for (size_t s = 0; s < warm.plans.size(); ++s) {
    std::vector<double> x;
    if (!solutionFromPlan(g, f, spec, warm.plans[s], x))
      continue;
    Simulation sim = simulate(graph, expandPlan(g, warm.plans[s]));
    if (!sim.valid() || (!spec.minPeak && sim.peakBytes > options.budget) ||
        (spec.minPeak && sim.cost > spec.costCap * (1 + 1e-9)))
      continue;
    double obj = 0;
    for (int c = 0; c < f.numCols(); ++c)
      obj += f.obj[c] * x[c];
    if (obj < best.objective) {
      best.objective = obj;
      best.x = std::move(x);
      best.index = static_cast<int>(s);
    }
  }
  return best;
}

namespace {
/// What CBC returned.
struct CbcOutcome {
  /// The best solution's plan, when CBC has one.
  std::optional<StagePlan> plan;
  bool provenOptimal = false;
  bool provenInfeasible = false;
  bool timedOut = false;
  /// CBC's best bound on the formulation's objective, or -inf.
  double bound = -COIN_DBL_MAX;
  /// Why CBC gave no answer at all (its process died), or empty.
  std::string failure;
};

/// What one CBC run leaves, as the child process sends it back.
struct CbcRaw {
  /// The best solution; empty when CBC has none.
  std::vector<double> best;
  double objective = 0;
  double bound = -COIN_DBL_MAX;
  bool provenOptimal = false;
  bool provenInfeasible = false;
  bool secondsLimitReached = false;
};
} // namespace

/// Runs CBC on `f` from `start` with the time left of the limit, less
/// `reserve` seconds (CBC looks at its clock only between root cut passes,
/// and its cut generators ran 3-7 s between two on densenet:80). Time
/// limits are wall-clock (CBC's default counts CPU seconds). CBC 2.10's
/// preprocessing crashed (CglPreProcess::postProcess) when the time limit
/// hit on 100-node graphs: it is off. Assertions of Debian's CLP 1.17
/// aborted the process on the property campaign's 12-node graphs
/// (docs/Testing.md): `lowerValue <= upperValue` in ClpNonLinearCost, from
/// CBC's diving heuristics (seed 101, graph 2057) and from its other primal
/// heuristics once perturbation was off (seed 402, graph 2059), and
/// `reducedCost(bestSequence) > 0.0` in CLP's steepest-edge pricing during
/// the root's cut rounds with perturbation on (seed 305, graph 7174; also
/// avoided with scaling off or partial pricing; the cause inside CLP was not
/// found). CBC's primal heuristics and CLP's perturbation are off, which
/// solves all three; our warm starts (the heuristic plans, the LP rounding)
/// give CBC its incumbents, and no MILP measured got slower
/// (docs/Testing.md). Another seed-402 graph still aborted with both off,
/// so CBC runs in a child process besides (`runCbc`).
/// `opts.cbcArguments` go last and win.
static CbcRaw solveWithCbc(const ReducedGraph &g, const Formulation &f,
                           const MipStart &start, const SolveOptions &options,
                           const CheckmateOptions &opts, double reserve,
                           ProgressReporter &progress, const Stopwatch &watch) {
  const bool minPeak = options.objective == Objective::MinPeakUnderOverhead;
  OsiClpSolverInterface solver;
  {
    CoinPackedMatrix m = f.matrix();
    solver.loadProblem(m, f.colLo.data(), f.colUp.data(), f.obj.data(),
                       f.rowLo.data(), f.rowUp.data());
  }
  solver.setInteger(f.integers.data(), static_cast<int>(f.integers.size()));
  solver.messageHandler()->setLogLevel(0);
  solver.getModelPtr()->setLogLevel(0);
  if (start.index >= 0) {
    solver.setIntParam(OsiNameDiscipline, 2);
    for (int c = 0; c < f.numCols(); ++c)
      solver.setColName(c, "x" + std::to_string(c));
  }
  CbcModel model(solver);
  double left =
      std::max(0.5, options.timeLimitSeconds - watch.seconds() - reserve);
  if (options.progress) {
    MilpProgress handler(std::make_shared<MilpProgress::Shared>(
        progress, minPeak, f.unit, g.residentBytes));
    model.passInEventHandler(&handler);
  }
  CbcSolverUsefulData data;
  data.noPrinting_ = true;
  CbcMain0(model, data);
  model.setLogLevel(0);
  model.messageHandler()->setLogLevel(0);
  if (start.index >= 0) {
    std::vector<std::pair<std::string, double>> mipStart;
    mipStart.reserve(start.x.size());
    for (int c = 0; c < f.numCols(); ++c)
      if (start.x[c] != 0)
        mipStart.push_back({"x" + std::to_string(c), start.x[c]});
    model.setMIPStart(mipStart);
  }
  std::string secs = std::to_string(left);
  int threads = std::max(1, options.threads);
  std::string threadArg = std::to_string(threads > 1 ? 100 + threads : 1);
  std::vector<const char *> argv = {kMilpName,
                                    "-preprocess",
                                    "off",
                                    "-log",
                                    "0",
                                    "-slog",
                                    "0",
                                    "-timeMode",
                                    "elapsed",
                                    "-sec",
                                    secs.c_str(),
                                    "-threads",
                                    threadArg.c_str(),
                                    "-ratioGap",
                                    "1e-7",
                                    "-randomCbcSeed",
                                    "1",
                                    "-perturbation",
                                    "off",
                                    "-heuristicsOnOff",
                                    "off",
                                    "-DivingCoefficient",
                                    "off",
                                    "-DivingFractional",
                                    "off",
                                    "-DivingGuided",
                                    "off",
                                    "-DivingLineSearch",
                                    "off",
                                    "-DivingPseudoCost",
                                    "off",
                                    "-DivingSome",
                                    "off",
                                    "-DivingVectorLength",
                                    "off"};
  for (const std::string &arg : opts.cbcArguments)
    argv.push_back(arg.c_str());
  argv.push_back("-solve");
  argv.push_back("-quit");
  // CBC looks at its clock only between LP solves; the LPs themselves (the
  // root's, a node's) stop at the same wall-clock deadline (CLP's limit
  // counts from when it is set).
  if (auto *clp = dynamic_cast<OsiClpSolverInterface *>(model.solver()))
    clp->getModelPtr()->setMaximumWallSeconds(left);
  CbcMain1(
      static_cast<int>(argv.size()), argv.data(), model,
      [](CbcModel *, int) { return 0; }, data);

  CbcRaw raw;
  if (const double *best = model.bestSolution())
    raw.best.assign(best, best + f.numCols());
  raw.objective = model.getObjValue();
  raw.bound = model.getBestPossibleObjValue();
  raw.provenOptimal = model.isProvenOptimal();
  raw.provenInfeasible = model.isProvenInfeasible();
  raw.secondsLimitReached = model.isSecondsLimitReached();
  return raw;
}

/// Writes all of `size` bytes at `data` to `fd`; false on an error.
static bool writeAll(int fd, const void *data, size_t size) {
  const char *p = static_cast<const char *>(data);
  while (size > 0) {
    ssize_t n = ::write(fd, p, size);
    if (n <= 0)
      return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

/// Everything `fd` delivers until its end (`ended`), or until `seconds`
/// pass.
static std::string readAll(int fd, double seconds, bool &ended) {
  std::string text;
  Stopwatch watch;
  char buffer[1 << 16];
  ended = false;
  while (!ended && watch.seconds() < seconds) {
    pollfd pfd = {fd, POLLIN, 0};
    int ms = static_cast<int>(1000 * (seconds - watch.seconds())) + 1;
    if (::poll(&pfd, 1, ms) <= 0)
      continue; // the time is up (the loop ends) or a signal interrupted
    ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n > 0)
      text.append(buffer, static_cast<size_t>(n));
    else
      ended = true;
  }
  return text;
}

/// Sends `answer` down `fd`: the child's side of `runIsolated`.
static bool sendAnswer(int fd, const CbcRaw &answer) {
  uint64_t count = answer.best.size();
  char flags[3] = {answer.provenOptimal, answer.provenInfeasible,
                   answer.secondsLimitReached};
  return writeAll(fd, &count, sizeof(count)) &&
         writeAll(fd, answer.best.data(), count * sizeof(double)) &&
         writeAll(fd, &answer.objective, sizeof(double)) &&
         writeAll(fd, &answer.bound, sizeof(double)) &&
         writeAll(fd, flags, sizeof(flags));
}

/// Reads back what `sendAnswer` sent; false when `text` is not one whole
/// answer.
static bool decodeAnswer(const std::string &text, CbcRaw &raw) {
  uint64_t count = 0;
  const size_t fixed = sizeof(count) + 2 * sizeof(double) + 3;
  if (text.size() < fixed)
    return false;
  std::memcpy(&count, text.data(), sizeof(count));
  if (count > text.size() / sizeof(double) ||
      text.size() != fixed + count * sizeof(double))
    return false;
  const char *p = text.data() + sizeof(count);
  raw.best.resize(count);
  std::memcpy(raw.best.data(), p, count * sizeof(double));
  p += count * sizeof(double);
  std::memcpy(&raw.objective, p, sizeof(double));
  std::memcpy(&raw.bound, p + sizeof(double), sizeof(double));
  p += 2 * sizeof(double);
  raw.provenOptimal = p[0];
  raw.provenInfeasible = p[1];
  raw.secondsLimitReached = p[2];
  return true;
}

/// Runs `solve` in a child process, so that an abort inside CBC or CLP
/// (Debian's builds keep their assertions, and some fire on small models:
/// docs/Testing.md) ends the child and not the caller; the child is killed
/// when it has not answered after `seconds`. Returns false, with `failure`
/// saying what happened, when no whole answer came back. Where a pipe or
/// fork is not available the solve runs in this process.
static bool runIsolated(const std::function<CbcRaw()> &solve, double seconds,
                        CbcRaw &raw, std::string &failure) {
  int fds[2];
  pid_t pid = -1;
  if (::pipe(fds) == 0) {
    std::fflush(nullptr);
    pid = ::fork();
    if (pid < 0) {
      ::close(fds[0]);
      ::close(fds[1]);
    }
  }
  if (pid < 0) {
    raw = solve();
    return true;
  }
  if (pid == 0) {
    ::close(fds[0]);
    ::_exit(sendAnswer(fds[1], solve()) ? 0 : 1);
  }
  ::close(fds[1]);
  bool ended = false;
  std::string text = readAll(fds[0], seconds, ended);
  ::close(fds[0]);
  if (!ended)
    ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!ended) {
    failure = "CBC did not answer within the time limit and was stopped";
    return false;
  }
  if (WIFSIGNALED(status)) {
    failure = "CBC aborted (signal " + std::to_string(WTERMSIG(status)) +
              " inside CBC or CLP)";
    return false;
  }
  if (!decodeAnswer(text, raw)) {
    failure = "CBC's process ended without a whole answer";
    return false;
  }
  return true;
}

/// Runs CBC (`solveWithCbc`) in a child process and reads its outcome.
static CbcOutcome runCbc(const ReducedGraph &g, const Formulation &f,
                         const MipStart &start, const SolveOptions &options,
                         const CheckmateOptions &opts, double reserve,
                         ProgressReporter &progress, const Stopwatch &watch) {
  const bool minPeak = options.objective == Objective::MinPeakUnderOverhead;
  CbcOutcome out;
  CbcRaw raw;
  // CBC stops itself at the limit; the child gets a margin past it.
  double wait = std::max(1.0, options.timeLimitSeconds - watch.seconds()) + 2;
  if (!runIsolated(
          [&] {
            return solveWithCbc(g, f, start, options, opts, reserve, progress,
                                watch);
          },
          wait, raw, out.failure))
    return out;
  const bool hasBest = !raw.best.empty();
  out.bound = raw.bound;
  progress.report(
      hasBest && !minPeak ? raw.objective : -1, -1, minPeak ? -1 : out.bound,
      std::string("CBC finished") + (raw.provenOptimal ? ": optimal" : ""),
      /*phase=*/true);
  out.timedOut =
      raw.secondsLimitReached || watch.seconds() >= options.timeLimitSeconds;
  // An LP stopped at the deadline proves nothing about its node.
  out.provenOptimal = raw.provenOptimal && hasBest && !out.timedOut;
  // An LP that CLP stopped at the time limit is no proof.
  out.provenInfeasible = raw.provenInfeasible && !hasBest && !out.timedOut;
  if (hasBest)
    out.plan = planFromSolution(g, f, raw.best.data());
  return out;
}

/// The bound on the true objective from CBC's (the tie-break bonus removed),
/// or the LP's; -1 when the reduction was not exact.
static double milpLowerBound(const ReducedGraph &g, const Formulation &f,
                             const Spec &spec, const CbcOutcome &cbc,
                             double lpBound) {
  if (!g.exact)
    return -1;
  // CBC reports +-1e50 or more when it has no bound (infeasible, stopped).
  if (std::isfinite(cbc.bound) && cbc.bound > -1e29 && cbc.bound < 1e29) {
    if (spec.minPeak)
      // The objective is the peak in whole units plus a tie-break below one
      // unit (1e-6 of the total cost per computation, at most n of them),
      // so the peak is at least floor(bound) units.
      return std::floor(cbc.bound + 1e-6) * f.unit + g.residentBytes;
    return std::max(cbc.bound - spec.eta * f.numR, lpBound);
  }
  return spec.minPeak ? -1 : lpBound;
}

/// The MILP's result from CBC's outcome: CBC's plan if consistent, else the
/// MIP start, else a heuristic's schedule; then any heuristic schedule that
/// beats it (a schedule may reorder computations and beat even the class's
/// optimum, whose bound then no longer holds).
static SolveResult finishMilp(const Graph &graph, const ReducedGraph &g,
                              const SolveOptions &options,
                              const WarmStarts &warm, const MipStart &start,
                              const CbcOutcome &cbc, double lowerBound,
                              const Stopwatch &watch) {
  std::ostringstream msg;
  if (!g.exact)
    msg << "solved on a coarsened graph (" << g.size() << " of " << graph.size()
        << " nodes); optimal only for that graph";
  std::optional<Schedule> schedule;
  SolveStatus claimed = SolveStatus::Feasible;
  if (cbc.plan && isConsistent(g, *cbc.plan)) {
    schedule = expandPlan(g, *cbc.plan);
    if (cbc.provenOptimal && g.exact)
      claimed = SolveStatus::Optimal;
  } else if (cbc.plan) {
    msg << (msg.str().empty() ? "" : "; ")
        << "CBC's solution was inconsistent; returning the warm start";
  }
  if (!schedule && start.index >= 0)
    schedule = expandPlan(g, warm.plans[start.index]);
  if (!schedule && !warm.schedules.empty())
    schedule = warm.schedules.front();
  if (!schedule) {
    SolveStatus status =
        cbc.provenInfeasible ? SolveStatus::Infeasible : SolveStatus::Timeout;
    std::string why = cbc.provenInfeasible
                          ? "CBC proved that no schedule of the Checkmate "
                            "class fits"
                      : cbc.failure.empty() ? "the time limit ran out before "
                                              "CBC found a schedule"
                                            : cbc.failure;
    if (!msg.str().empty())
      why += "; " + msg.str();
    SolveResult result = failSolve(kMilpName, status, why, watch);
    result.lowerBound = lowerBound;
    return result;
  }
  if (!cbc.failure.empty())
    msg << (msg.str().empty() ? "" : "; ") << cbc.failure
        << "; returning the best warm start";
  if (claimed != SolveStatus::Optimal && cbc.timedOut)
    msg << (msg.str().empty() ? "" : "; ")
        << "time limit reached: feasible, not proven optimal";
  SolveResult result =
      finishSolve(graph, options, kMilpName, std::move(*schedule), claimed,
                  watch, msg.str());
  double limit = costLimit(graph, options);
  for (const Schedule &fallback : warm.schedules) {
    Simulation sim = simulate(graph, fallback);
    if (!sim.valid() || sim.peakBytes > options.budget ||
        sim.cost > limit * (1 + 1e-9))
      continue;
    if (result.feasible() && !isBetter(options, limit, sim.peakBytes, sim.cost,
                                       result.peakBytes, result.cost))
      continue;
    bool beatClass = result.status == SolveStatus::Optimal;
    result = finishSolve(
        graph, options, kMilpName, fallback, SolveStatus::Feasible, watch,
        beatClass ? "a heuristic schedule outside Checkmate's class beat "
                    "its optimum"
                  : "a heuristic warm start beat CBC's best schedule");
    if (beatClass)
      lowerBound = -1;
  }
  result.lowerBound = lowerBound;
  result.seconds = watch.seconds();
  return result;
}

/// The MILP's answer when CBC cannot run within the limit: the best warm
/// start (no formulation is built), labelled "timeout".
static SolveResult answerWithoutCbc(const Graph &graph, const ReducedGraph &g,
                                    const WarmStarts &warm,
                                    const SolveOptions &options,
                                    ProgressReporter &progress,
                                    const Stopwatch &watch) {
  progress.report(-1, -1, warm.lpBound,
                  std::to_string(warm.plans.size()) +
                      " warm starts; CBC skipped",
                  /*phase=*/true);
  std::vector<Schedule> candidates;
  for (const StagePlan &plan : warm.plans)
    candidates.push_back(expandPlan(g, plan));
  candidates.insert(candidates.end(), warm.schedules.begin(),
                    warm.schedules.end());
  SolveResult result =
      bestCandidate(graph, options, candidates, watch,
                    "time limit too short for CBC at this size (" +
                        warm.skipCbc + "); best warm start returned",
                    SolveStatus::Timeout);
  result.lowerBound = warm.lpBound;
  return result;
}

/// The formulation's parameters for `g` under `options`; `capUnits` < 0
/// when even the resident bytes exceed the budget.
static Spec milpSpec(const Graph &graph, const ReducedGraph &g,
                     const SolveOptions &options,
                     const CheckmateOptions &opts) {
  Spec spec;
  spec.minPeak = options.objective == Objective::MinPeakUnderOverhead;
  spec.binaryFrees = opts.binaryFrees;
  spec.maxColumns = opts.maxBinaries;
  if (!spec.minPeak)
    spec.capUnits = capUnits(g, options.budget, memoryUnit(g));
  spec.costCap = costLimit(graph, options);
  double total = std::accumulate(g.cost.begin(), g.cost.end(), 0.0);
  spec.eta = 1e-7 * std::max(total, 1e-9) /
             std::max(1.0, 0.5 * g.size() * (g.size() + 1.0));
  return spec;
}

SolveResult remat::solveCheckmateMilp(const Graph &graph,
                                      const SolveOptions &options,
                                      const CheckmateOptions &opts) {
  Stopwatch watch;
  ProgressReporter progress(options, kMilpName, watch);
  std::string error = graph.check();
  if (!error.empty())
    return failSolve(kMilpName, SolveStatus::Unsupported,
                     "malformed graph: " + error, watch);
  SolveResult shortcut =
      checkpointAllShortcut(graph, options, kMilpName, watch);
  if (shortcut.feasible())
    return shortcut;
  ReducedGraph exact = reduceGraph(graph, /*mergeChains=*/false);
  ReducedGraph g =
      useChains(exact, opts) ? reduceGraph(graph, true) : std::move(exact);
  Spec spec = milpSpec(graph, g, options, opts);
  if (spec.capUnits < 0)
    return failSolve(kMilpName, SolveStatus::Infeasible,
                     "the budget is below the always-resident bytes", watch);
  // The size cap before anything of size n^2 (plans, the LP) is built.
  if (findStageColumns(g, opts.maxBinaries).tooLarge)
    return solveOverCap(graph, g, options, opts, watch);

  WarmStarts warm = collectWarmStarts(graph, g, options, opts, watch);
  if (warm.infeasible)
    return failSolve(kMilpName, SolveStatus::Infeasible, warm.proof, watch);
  if (!warm.skipCbc.empty())
    return answerWithoutCbc(graph, g, warm, options, progress, watch);
  Formulation f = buildFormulation(g, spec);
  MipStart start = chooseMipStart(graph, g, f, spec, options, warm);
  progress.report(start.index >= 0 && !spec.minPeak ? start.objective : -1, -1,
                  warm.lpBound,
                  std::to_string(warm.plans.size()) +
                      " warm starts; starting CBC",
                  /*phase=*/true);
  CbcOutcome cbc =
      runCbc(g, f, start, options, opts, warm.lpSeconds, progress, watch);
  double lowerBound = milpLowerBound(g, f, spec, cbc, warm.lpBound);
  return finishMilp(graph, g, options, warm, start, cbc, lowerBound, watch);
}

#endif // REMAT_ENABLE_COINOR

//===- CheckmateFormulation.cpp - Checkmate's MILP as arrays --------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Builds formulation (9) of Checkmate (CheckmateFormulation.h) and maps stage
// plans to and from its solution vectors. Plain C++: no COIN-OR.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Checkmate/CheckmateFormulation.h"

#include "remat/Solver/Core/ScheduleBuilder.h"
#include "remat/Solver/Core/Simulator.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>

using namespace remat;
using namespace remat::checkmate;

/// The unit memory is measured in: the gcd of every size, so that the memory
/// rows have small integer coefficients.
double checkmate::memoryUnit(const ReducedGraph &g) {
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

/// Which R/S can be 1 (see the file comment), stage by stage from the end,
/// with O(n) working memory. Stops as soon as there are more than
/// `maxColumns` binaries: a graph over the cap costs about `maxColumns`
/// steps and bytes, not n^2.
StageColumns checkmate::findStageColumns(const ReducedGraph &g,
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
        int row = f.addRow(-kInfinity, 0);
        f.coef(row, f.r(t, k), 1);
        f.coef(row, f.r(t, u), -1);
        f.coef(row, f.s(t, u), -1);
      }
    }
    if (t + 1 < n) {
      for (int i = 0; i <= t; ++i) {
        if (f.s(t + 1, i) < 0)
          continue;
        int row = f.addRow(-kInfinity, 0);
        f.coef(row, f.s(t + 1, i), 1);
        f.coef(row, f.r(t, i), -1);
        f.coef(row, f.s(t, i), -1);
      }
    }
  }
  for (int i = 0; i < n; ++i) {
    if (!g.isOutput[i])
      continue;
    int row = f.addRow(1, kInfinity);
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
      int row = f.addRow(-kInfinity, 0);
      f.coef(row, col, 1);
      f.coef(row, rk, -1);
    }
    if (f.s(t + 1, i) >= 0) {
      int row = f.addRow(-kInfinity, 1);
      f.coef(row, col, 1);
      f.coef(row, f.s(t + 1, i), 1);
    }
    std::vector<int> hazards;
    for (int j : g.users[i])
      if (j <= t && g.after(j, k) && f.r(t, j) >= 0)
        hazards.push_back(f.r(t, j));
    if (hazards.size() <= 8) {
      for (int h : hazards) {
        int row = f.addRow(-kInfinity, 1);
        f.coef(row, col, 1);
        f.coef(row, h, 1);
      }
    } else {
      double m = static_cast<double>(hazards.size());
      int row = f.addRow(-kInfinity, m);
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
  const double memCap = spec.minPeak ? kInfinity : spec.capUnits;
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
      int cap = f.addRow(-kInfinity, spec.minPeak ? 0 : memCap);
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
    int row = f.addRow(-kInfinity, 1);
    for (int col : freesOf[i])
      f.coef(row, col, 1);
  }
}

/// Checkmate's formulation of `g` (the file comment), or one with
/// `tooLarge` set and nothing built when it would have more than
/// `spec.maxColumns` R/S binaries.
Formulation checkmate::buildFormulation(const ReducedGraph &g,
                                        const Spec &spec) {
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
    f.peakCol = f.addCol(0, kInfinity, 1, false);
  addDependencyRows(g, f);
  f.uCols.resize(n);
  for (int t = 0; t < n; ++t)
    addStageMemory(g, spec, t, f);
  if (spec.minPeak) {
    int row = f.addRow(-kInfinity, spec.costCap);
    for (int t = 0; t < n; ++t)
      for (int k = 0; k <= t; ++k)
        f.coef(row, f.r(t, k), g.cost[k]);
  }
  return f;
}

/// Reads a stage plan from a solution vector.
StagePlan checkmate::planFromSolution(const ReducedGraph &g,
                                      const Formulation &f, const double *x) {
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
bool checkmate::solutionFromPlan(const ReducedGraph &g, const Formulation &f,
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
void checkmate::normalizePlan(const ReducedGraph &g, StagePlan &plan) {
  applyPins(g, plan);
  rebuildComputations(g, plan);
  for (int iter = 0; iter < 4 && pruneRetentions(g, plan); ++iter)
    rebuildComputations(g, plan);
}

/// The budget available to the reduced graph's values, in units; negative
/// when even the resident bytes do not fit.
double checkmate::capUnits(const ReducedGraph &g, int64_t budget, double unit) {
  if (budget == std::numeric_limits<int64_t>::max())
    return 1e30;
  return std::floor(static_cast<double>(budget - g.residentBytes) / unit);
}

/// Why the formulation of `g` is not built.
std::string checkmate::tooLargeMessage(const char *what, const ReducedGraph &g,
                                       const CheckmateOptions &opts) {
  return std::string("the ") + what + " would have more than " +
         std::to_string(opts.maxBinaries) +
         " R/S binaries (CheckmateOptions::maxBinaries; about n^2/2 for " +
         std::to_string(g.size()) + " nodes to schedule)";
}

/// When checkpoint-all fits the budget it is optimal for the min-compute
/// objective (every needed node is computed at least once): the result, or
/// a non-feasible result when it does not apply.
SolveResult checkmate::checkpointAllShortcut(const Graph &graph,
                                             const SolveOptions &options,
                                             const char *solver,
                                             WorkMeter &meter) {
  SolveResult none;
  if (options.objective != Objective::MinComputeUnderBudget)
    return none;
  Schedule all = checkpointAllSchedule(graph);
  Simulation sim = simulate(graph, all);
  if (!sim.valid() || sim.peakBytes > options.budget)
    return none;
  SolveResult result = finishSolve(
      graph, options, solver, std::move(all), SolveStatus::Optimal, meter,
      "checkpoint-all fits the budget: optimal, no solver run");
  result.lowerBound = checkpointAllCost(graph);
  return result;
}

bool checkmate::useChains(const ReducedGraph &exact,
                          const CheckmateOptions &opts) {
  if (opts.coarsenChains >= 0)
    return opts.coarsenChains > 0;
  return exact.size() > opts.coarsenAbove;
}

std::string checkmate::checkSolution(const Formulation &f,
                                     const std::vector<double> &x,
                                     double tolerance) {
  std::ostringstream os;
  if (x.size() != f.colLo.size()) {
    os << x.size() << " values for " << f.colLo.size() << " columns";
    return os.str();
  }
  auto outside = [&](double v, double lo, double up) {
    double slack = tolerance * std::max(1.0, std::fabs(v));
    return v < lo - slack || v > up + slack;
  };
  for (int c = 0; c < f.numCols(); ++c)
    if (outside(x[c], f.colLo[c], f.colUp[c])) {
      os << "column " << c << " = " << x[c] << " is outside [" << f.colLo[c]
         << ", " << f.colUp[c] << "]";
      return os.str();
    }
  for (int c : f.integers)
    if (std::fabs(x[c] - std::round(x[c])) > tolerance) {
      os << "integer column " << c << " = " << x[c];
      return os.str();
    }
  std::vector<double> activity(f.rowLo.size(), 0.0);
  for (size_t e = 0; e < f.elVal.size(); ++e)
    activity[f.elRow[e]] += f.elVal[e] * x[f.elCol[e]];
  for (size_t row = 0; row < activity.size(); ++row)
    if (outside(activity[row], f.rowLo[row], f.rowUp[row])) {
      os << "row " << row << " = " << activity[row] << " is outside ["
         << f.rowLo[row] << ", " << f.rowUp[row] << "]";
      return os.str();
    }
  return "";
}

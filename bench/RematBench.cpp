//===- RematBench.cpp - solver benchmark over synthetic graphs ------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// remat-bench: runs registered solvers on the synthetic training-graph
// families (Generators.h) at several sizes and budgets, and prints one
// markdown table: cost, cost over the best proven lower bound, peak, status
// and solve time per solver. Not a test: results depend on the machine.
//
// Example (the run committed in docs/Benchmarks-solvers.md):
//   remat-bench --families=chain,resnet --sizes=100,200 \
//     --budgets=100,50,30 --time-limit=10 --threads=2
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Checkmate/Checkmate.h"
#include "remat/Solver/Testing/Generators.h"
#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Core/Solver.h"
#include "remat/Solver/Core/SolverSupport.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

using namespace remat;

namespace {

struct BenchOptions {
  std::vector<std::string> families = {"chain", "resnet", "unet", "densenet",
                                       "transformer"};
  std::vector<int> sizes = {100, 200};
  /// Percentages of the checkpoint-all peak; "lb" = the simple peak bound.
  std::vector<std::string> budgets = {"100", "70", "50", "35", "lb"};
  std::vector<std::string> solvers = {
      "checkpoint-all", "chen-greedy",           "revolve",       "feng-huang",
      "local-search",   "checkmate-lp-rounding", "checkmate-milp"};
  double timeLimit = 10;
  int threads = 2;
  bool heterogeneous = false;
};

std::vector<std::string> splitList(const std::string &text) {
  std::vector<std::string> items;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty())
      items.push_back(item);
  return items;
}

void usage() {
  std::fprintf(stderr,
               "usage: remat-bench [--families=a,b] [--sizes=n,m] "
               "[--budgets=100,50,lb] [--solvers=x,y] [--time-limit=S] "
               "[--threads=N] [--heterogeneous]\n"
               "  families: chain resnet unet densenet transformer random\n"
               "  budgets: percentages of the checkpoint-all peak; 'lb' is the "
               "simple lower bound on any schedule's peak\n");
}

bool parse(int argc, char **argv, BenchOptions &opts) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char *flag) -> const char * {
      size_t len = std::strlen(flag);
      if (arg.compare(0, len, flag) == 0 && arg.size() > len && arg[len] == '=')
        return argv[i] + len + 1;
      return nullptr;
    };
    if (const char *v = value("--families")) {
      opts.families = splitList(v);
    } else if (const char *v = value("--sizes")) {
      opts.sizes.clear();
      for (const std::string &s : splitList(v)) {
        int n = std::atoi(s.c_str());
        if (n <= 0) {
          std::fprintf(stderr, "remat-bench: bad size '%s'\n", s.c_str());
          return false;
        }
        opts.sizes.push_back(n);
      }
    } else if (const char *v = value("--budgets")) {
      opts.budgets = splitList(v);
    } else if (const char *v = value("--solvers")) {
      opts.solvers = splitList(v);
    } else if (const char *v = value("--time-limit")) {
      opts.timeLimit = std::atof(v);
    } else if (const char *v = value("--threads")) {
      opts.threads = std::max(1, std::atoi(v));
    } else if (arg == "--heterogeneous") {
      opts.heterogeneous = true;
    } else if (arg == "--help" || arg == "-h") {
      usage();
      std::exit(0);
    } else {
      std::fprintf(stderr, "remat-bench: unknown option '%s'\n", arg.c_str());
      return false;
    }
  }
  for (const std::string &name : opts.solvers)
    if (!findSolver(name)) {
      std::fprintf(stderr, "remat-bench: unknown solver '%s'\n", name.c_str());
      return false;
    }
  for (const std::string &b : opts.budgets)
    if (b != "lb" && std::atof(b.c_str()) <= 0) {
      std::fprintf(stderr, "remat-bench: bad budget '%s'\n", b.c_str());
      return false;
    }
  return !opts.families.empty() && !opts.sizes.empty() &&
         !opts.solvers.empty() && !opts.budgets.empty();
}

} // namespace

int main(int argc, char **argv) {
  BenchOptions opts;
  if (!parse(argc, argv, opts)) {
    usage();
    return 1;
  }
  std::printf("| family | nodes | budget | solver | status | cost | "
              "cost / LB | peak | time (s) |\n");
  std::printf("|---|---:|---:|---|---|---:|---:|---:|---:|\n");
  for (const std::string &family : opts.families) {
    for (int size : opts.sizes) {
      GeneratorOptions gen;
      gen.heterogeneous = opts.heterogeneous;
      Graph graph = makeFamily(family, size, gen);
      if (graph.name.empty()) {
        std::fprintf(stderr, "remat-bench: unknown family '%s'\n",
                     family.c_str());
        return 1;
      }
      SolveOptions probe;
      SolveResult all = findSolver("checkpoint-all")->solve(graph, probe);
      int64_t full = all.peakBytes;
      int64_t floorPeak = peakLowerBound(graph);
      for (const std::string &b : opts.budgets) {
        SolveOptions solve;
        solve.timeLimitSeconds = opts.timeLimit;
        solve.threads = opts.threads;
        std::string label;
        if (b == "lb") {
          solve.budget = floorPeak;
          label = "lb (" +
                  std::to_string(static_cast<int>(100.0 * floorPeak / full)) +
                  "%)";
        } else {
          double pct = std::atof(b.c_str());
          solve.budget = std::max<int64_t>(
              floorPeak, static_cast<int64_t>(full * pct / 100.0));
          label = b + "%";
        }
        std::vector<SolveResult> results;
        double bound = checkpointAllCost(graph);
        for (const std::string &name : opts.solvers) {
          Stopwatch watch;
          SolveResult r = findSolver(name)->solve(graph, solve);
          r.seconds = watch.seconds();
          if (r.lowerBound > bound)
            bound = r.lowerBound;
          results.push_back(std::move(r));
        }
        for (size_t s = 0; s < results.size(); ++s) {
          const SolveResult &r = results[s];
          char cost[32] = "-", ratio[32] = "-", peak[32] = "-";
          if (r.feasible()) {
            std::snprintf(cost, sizeof(cost), "%.6g", r.cost);
            std::snprintf(ratio, sizeof(ratio), "%.3f", r.cost / bound);
            std::snprintf(peak, sizeof(peak), "%lld",
                          static_cast<long long>(r.peakBytes));
          }
          std::printf("| %s | %d | %s | %s | %s | %s | %s | %s | %.2f |\n",
                      family.c_str(), graph.size(), label.c_str(),
                      opts.solvers[s].c_str(), toString(r.status), cost, ratio,
                      peak, r.seconds);
        }
        std::fflush(stdout);
      }
    }
  }
  return 0;
}

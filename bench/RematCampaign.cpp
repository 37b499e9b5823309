//===- RematCampaign.cpp - property campaign over random problems ---------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// remat-campaign: runs the property campaign of Solver/Testing/Campaign.h (random
// DAGs, random budgets, every registered solver, every answer checked by the
// simulator and against brute force) for as many graphs as asked, prints a
// table per solver and every violation, and exits 1 if there was one.
//
// Example (the run reported in docs/Testing.md):
//   remat-campaign --graphs=100000 --seed=1 --max-forward=6
// A range of a campaign reproduces on its own (`--first`); `--print` writes
// each problem instead of solving it: its graph JSON on stdout, and on
// stderr the `remat-solve` flags of its objective, e.g.
//   remat-campaign --seed=305 --first=7123 --graphs=1 --print > g.json
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Testing/Campaign.h"
#include "remat/Solver/IO/GraphJSON.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>

using namespace remat;

namespace {

void usage() {
  std::fprintf(stderr, "usage: remat-campaign [--graphs=N] [--seed=S] "
                       "[--first=I] [--max-forward=N] [--solvers=a,b] "
                       "[--time-limit=S] [--no-effect-order] [--quiet] "
                       "[--print]\n");
}

/// The value of `--flag=value` in `arg`, or nullptr.
const char *valueOf(const char *arg, const char *flag) {
  size_t length = std::strlen(flag);
  if (std::strncmp(arg, flag, length) == 0 && arg[length] == '=')
    return arg + length + 1;
  return nullptr;
}

/// `text` as a number above `low` (or equal to it when `orEqual`), or exits
/// with a message naming `flag`.
double number(const char *text, const char *flag, bool orEqual = false) {
  char *end = nullptr;
  double value = std::strtod(text, &end);
  bool inRange = orEqual ? value >= 0 : value > 0;
  if (end == text || *end != '\0' || !inRange || value > 1e9) {
    std::fprintf(stderr, "remat-campaign: %s needs a %s number, not '%s'\n",
                 flag, orEqual ? "non-negative" : "positive", text);
    std::exit(1);
  }
  return value;
}

struct Flags {
  bool quiet = false;
  bool print = false;
};

bool parse(int argc, char **argv, CampaignOptions &options, Flags &flags) {
  for (int i = 1; i < argc; ++i) {
    const char *arg = argv[i];
    if (const char *v = valueOf(arg, "--graphs")) {
      options.graphs = static_cast<int>(number(v, "--graphs"));
    } else if (const char *v = valueOf(arg, "--first")) {
      options.first = static_cast<int>(number(v, "--first", true));
    } else if (const char *v = valueOf(arg, "--seed")) {
      options.seed = static_cast<uint64_t>(number(v, "--seed"));
    } else if (const char *v = valueOf(arg, "--max-forward")) {
      options.maxForwardNodes = static_cast<int>(number(v, "--max-forward"));
    } else if (const char *v = valueOf(arg, "--time-limit")) {
      options.timeLimitSeconds = number(v, "--time-limit");
    } else if (const char *v = valueOf(arg, "--solvers")) {
      std::stringstream in(v);
      for (std::string name; std::getline(in, name, ',');) {
        if (!findSolver(name)) {
          std::fprintf(stderr,
                       "remat-campaign: unknown solver '%s' (known: %s)\n",
                       name.c_str(), solverNames().c_str());
          return false;
        }
        options.solvers.push_back(name);
      }
    } else if (std::strcmp(arg, "--no-effect-order") == 0) {
      options.effectOrder = false;
    } else if (std::strcmp(arg, "--quiet") == 0) {
      flags.quiet = true;
    } else if (std::strcmp(arg, "--print") == 0) {
      flags.print = true;
    } else {
      std::fprintf(stderr, "remat-campaign: unknown option '%s'\n", arg);
      return false;
    }
  }
  return true;
}

void printReport(const CampaignReport &report, double seconds) {
  std::printf("%d graphs, %d solves (%d compared with brute force) in %.1f s: "
              "%d violation(s)\n\n",
              report.graphs, report.solves, report.exactGraphs, seconds,
              report.failureCount);
  std::printf("| solver | solves | optimal | feasible | infeasible | timeout | "
              "unsupported | mean (ms) | max (ms) |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const auto &[name, t] : report.tallies)
    std::printf(
        "| %s | %d | %d | %d | %d | %d | %d | %.2f | %.1f |\n", name.c_str(),
        t.solves, t.optimal, t.feasible, t.infeasible, t.timeout, t.unsupported,
        t.solves ? 1000.0 * t.seconds / t.solves : 0.0, 1000.0 * t.maxSeconds);
  for (const std::string &failure : report.failures)
    std::printf("violation: %s\n", failure.c_str());
}

/// Writes the problems instead of solving them: graph JSON on stdout, the
/// `remat-solve` flags of each objective on stderr.
void printProblems(const CampaignOptions &options) {
  for (int index = options.first; index < options.first + options.graphs;
       ++index) {
    CampaignProblem problem = makeCampaignProblem(options.seed, index, options);
    const SolveOptions &solve = problem.options;
    std::printf("%s\n", printGraphJSON(problem.graph).c_str());
    std::fprintf(stderr, "seed %llu graph %d: --time-limit=%g ",
                 static_cast<unsigned long long>(options.seed), index,
                 solve.timeLimitSeconds);
    if (solve.objective == Objective::MinPeakUnderOverhead)
      std::fprintf(stderr, "--mode=min-peak --overhead=%g\n",
                   solve.maxOverhead);
    else
      std::fprintf(stderr, "--budget=%lld\n",
                   static_cast<long long>(solve.budget));
  }
}

} // namespace

int main(int argc, char **argv) {
  CampaignOptions options;
  options.maxFailures = 200;
  Flags flags;
  if (!parse(argc, argv, options, flags)) {
    usage();
    return 1;
  }
  if (flags.print) {
    printProblems(options);
    return 0;
  }
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  };
  CampaignReport report =
      runCampaign(options, [&](const CampaignReport &sofar) {
        if (!flags.quiet && sofar.graphs % 1000 == 0)
          std::fprintf(stderr, "%d graphs, %d violation(s), %.0f s\n",
                       sofar.graphs, sofar.failureCount, elapsed());
      });
  printReport(report, elapsed());
  return report.failureCount == 0 ? 0 : 1;
}

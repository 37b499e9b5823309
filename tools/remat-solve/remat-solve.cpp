//===- remat-solve.cpp - solve a checkpointing problem from JSON ----------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Reads a graph in the JSON format of docs/SolverFormat.md (from a file, or
// generates one with --generate), runs one solver in one mode, and writes the
// verified schedule and its statistics as JSON (for --mode=pareto, the
// budget -> peak, compute curve), plus a one-screen summary and progress
// lines on stderr (none with --quiet).
//
//   remat-solve graph.json --solver=local-search --budget=60%
//   remat-solve --generate=resnet:1000 --mode=min-peak --summary=false
//   remat-solve graph.json --mode=pareto --points=5 --quiet
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Budget.h"
#include "remat/Solver/Generators.h"
#include "remat/Solver/GraphJSON.h"
#include "remat/Solver/ModeOption.h"
#include "remat/Solver/Modes.h"
#include "remat/Solver/ScheduleBuilder.h"
#include "remat/Solver/Simulator.h"
#include "remat/Solver/SolverSupport.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <limits>

using namespace remat;
namespace cl = llvm::cl;

static cl::OptionCategory category("remat-solve options");

static cl::opt<std::string> inputFile(cl::Positional,
                                      cl::desc("<graph.json> (- for stdin)"),
                                      cl::init("-"), cl::cat(category));
static cl::opt<std::string> outputFile("o", cl::desc("Output file (JSON)"),
                                       cl::value_desc("file"), cl::init("-"),
                                       cl::cat(category));
static cl::opt<std::string>
    solverName("solver", cl::desc("Solver to run (see --list-solvers)"),
               cl::init("auto"), cl::cat(category));
static cl::opt<std::string> policyName(
    "policy",
    cl::desc("A baseline policy instead of --solver: none (checkpoint-all), "
             "full-ac or selective"),
    cl::cat(category));
static cl::opt<Mode> modeOpt("mode", cl::desc("What to ask of the solver"),
                             allModeValues(), cl::init(Mode::MinCompute),
                             cl::cat(category));
static cl::opt<std::string>
    budgetText("budget",
               cl::desc("Memory budget: bytes, or a percentage of the "
                        "checkpoint-all peak such as 60%"),
               cl::init(""), cl::cat(category));
static cl::opt<double>
    overhead("overhead",
             cl::desc("min-peak: allowed extra compute as a fraction of "
                      "checkpoint-all (default: one forward pass)"),
             cl::init(-1), cl::cat(category));
static cl::opt<double>
    effort("effort",
           cl::desc("How much the solvers search: their work budget as a "
                    "multiple of the default (1); the plan depends on it, "
                    "not on the machine's speed or load"),
           cl::init(1), cl::cat(category));
static cl::opt<double>
    timeLimit("time-limit",
              cl::desc("Wall-clock safety cap in seconds: a search still "
                       "running then stops, and the output says so (that "
                       "plan may differ between runs)"),
              cl::init(600), cl::cat(category));
static cl::opt<int> threads("solver-threads",
                            cl::desc("Threads for solvers that use them"),
                            cl::init(2), cl::cat(category));
static cl::opt<int64_t>
    maxBatch("max-batch",
             cl::desc("max-batch: largest batch tried, in samples"),
             cl::init(int64_t(1) << 20), cl::cat(category));
static cl::opt<int>
    points("points",
           cl::desc("pareto: number of budgets from the checkpoint-all peak "
                    "to the smallest feasible budget"),
           cl::init(10), cl::cat(category));
static cl::opt<bool> quiet("quiet",
                           cl::desc("Print nothing on stderr but errors (no "
                                    "progress, no summary)"),
                           cl::cat(category));
static cl::opt<bool> listSolvers("list-solvers",
                                 cl::desc("List the solvers and exit"),
                                 cl::cat(category));
static cl::opt<bool> summary("summary",
                             cl::desc("Print a text summary on stderr"),
                             cl::init(true), cl::cat(category));
static cl::opt<std::string>
    generate("generate",
             cl::desc("Generate the graph instead of reading it: "
                      "<family>:<nodes>[:hetero] with family one of chain, "
                      "resnet, unet, densenet, transformer, random"),
             cl::init(""), cl::cat(category));
static cl::opt<bool> emitGraph("emit-graph",
                               cl::desc("Write the (read or generated) "
                                        "graph as JSON and exit"),
                               cl::cat(category));

static int fail(const llvm::Twine &message) {
  llvm::errs() << "remat-solve: error: " << message << "\n";
  return 1;
}

/// Where the graph comes from, for messages.
static std::string graphSource() {
  if (!generate.empty())
    return "--generate=" + generate;
  return inputFile == "-" ? std::string("<stdin>") : inputFile;
}

static bool generateGraph(llvm::StringRef spec, Graph &graph) {
  llvm::SmallVector<llvm::StringRef, 3> parts;
  spec.split(parts, ':');
  if (parts.size() < 2 || parts.size() > 3)
    return false;
  int nodes;
  if (parts[1].getAsInteger(10, nodes) || nodes < 2 || nodes > 1000000)
    return false;
  GeneratorOptions options;
  if (parts.size() == 3) {
    if (parts[2] != "hetero")
      return false;
    options.heterogeneous = true;
  }
  graph = makeFamily(parts[0].str(), nodes, options);
  return !graph.nodes.empty();
}

/// Progress reports on stderr, one a line: phases always, periodic ones at
/// most once a second (over all solvers, nested ones included).
static void printProgress(const SolveProgress &progress) {
  static Stopwatch clock;
  static double last = -1;
  double now = clock.seconds();
  if (!progress.phase && last >= 0 && now - last < 1.0)
    return;
  last = now;
  llvm::raw_ostream &os = llvm::errs();
  os << "remat-solve: [" << llvm::format("%.1f", progress.seconds) << " s] "
     << progress.solver << ": " << progress.message;
  const char *sep = " (";
  if (progress.incumbentPeak >= 0) {
    os << sep << "incumbent peak " << progress.incumbentPeak;
    sep = ", ";
  }
  if (progress.incumbentCost >= 0) {
    os << sep << "incumbent cost "
       << llvm::format("%g", progress.incumbentCost);
    sep = ", ";
  }
  if (progress.lowerBound >= 0) {
    os << sep << "bound " << llvm::format("%g", progress.lowerBound);
    sep = ", ";
  }
  os << (sep[0] == ',' ? ")\n" : "\n");
}

static void printGraphLine(const Graph &graph) {
  int fwd = 0, bwd = 0;
  for (const Node &node : graph.nodes) {
    fwd += node.kind == NodeKind::Forward;
    bwd += node.kind == NodeKind::Backward;
  }
  llvm::errs() << "graph '" << graph.name << "': " << graph.size() << " nodes ("
               << fwd << " forward, " << bwd << " backward), resident "
               << graph.residentBytes() << " bytes\n";
}

static void printParetoSummary(const Graph &graph, const ParetoCurve &curve,
                               const std::string &solver) {
  printGraphLine(graph);
  llvm::raw_ostream &os = llvm::errs();
  os << "solver " << solver << ", mode pareto: " << curve.points.size()
     << " points from the checkpoint-all peak " << curve.checkpointAllPeak
     << " to the smallest budget " << curve.smallestBudget << " (lower bound "
     << curve.budgetLowerBound << "), " << curve.probes << " solves in "
     << llvm::format("%.3f", curve.seconds) << " s, " << curve.work
     << " work units\n";
  if (curve.stoppedByTimeLimit)
    os << "note: " << kStoppedByTimeLimit << "\n";
  os << llvm::format("%14s %14s %7s %14s %9s %-9s %s\n", "budget", "peak",
                     "%ckpt", "cost", "overhead", "status", "found by");
  for (const ParetoPoint &point : curve.points) {
    const SolveResult &r = point.result;
    double ratio = curve.checkpointAllPeak > 0
                       ? 100.0 * r.peakBytes / curve.checkpointAllPeak
                       : 100.0;
    double extra = curve.checkpointAllCost > 0
                       ? 100.0 * (r.cost / curve.checkpointAllCost - 1)
                       : 0.0;
    os << llvm::format("%14lld %14lld %6.1f%% %14g %+8.1f%% %-9s %s",
                       static_cast<long long>(point.budget),
                       static_cast<long long>(r.peakBytes), ratio, r.cost,
                       extra, toString(r.status), r.solver.c_str());
    if (point.foundAtBudget != point.budget)
      os << " at budget " << point.foundAtBudget;
    os << "\n";
  }
}

static void printSummary(const Graph &graph, const SolveResult &result,
                         const ResultReport &report) {
  printGraphLine(graph);
  llvm::raw_ostream &os = llvm::errs();
  os << "solver " << result.solver << ", mode " << report.mode;
  if (report.budget >= 0)
    os << ", budget " << report.budget << " bytes";
  os << "\n";
  os << "status " << toString(result.status);
  if (result.feasible()) {
    double peakRatio = report.checkpointAllPeak > 0
                           ? 100.0 * result.peakBytes / report.checkpointAllPeak
                           : 100.0;
    double overheadPct =
        report.checkpointAllCost > 0
            ? 100.0 * (result.cost / report.checkpointAllCost - 1)
            : 0.0;
    os << ": peak " << result.peakBytes << " bytes ("
       << llvm::format("%.1f", peakRatio) << "% of checkpoint-all "
       << report.checkpointAllPeak << "), cost "
       << llvm::format("%g", result.cost) << " ("
       << llvm::format("%+.1f", overheadPct) << "% vs "
       << llvm::format("%g", report.checkpointAllCost) << ")";
  }
  os << "\n";
  if (report.smallestBudget >= 0)
    os << "smallest budget " << report.smallestBudget << " bytes (lower bound "
       << report.budgetLowerBound << ")\n";
  if (report.batch > 0)
    os << "largest batch " << report.batch << " samples (traced at "
       << report.tracedBatch << "); peak and costs above at " << report.batch
       << "\n";
  else if (report.batch == 0)
    os << "no batch fits: not even one sample (peak and costs above at 1)\n";
  if (result.lowerBound >= 0)
    os << "lower bound " << llvm::format("%g", result.lowerBound) << "\n";
  os << "solved in " << llvm::format("%.3f", result.seconds) << " s, "
     << result.work << " work units";
  if (!result.message.empty())
    os << "; " << result.message;
  os << "\n";
  if (result.stoppedByTimeLimit)
    os << "note: " << kStoppedByTimeLimit << "\n";
}

/// Runs max-batch on `graph` and returns the graph at the answer (at one
/// sample when none fits); the report's batch and checkpoint-all figures
/// are at that batch, like the answer's peak and cost.
static Graph runMaxBatch(const Graph &graph, const SolverInfo &solver,
                         const SolveOptions &options, SolveResult &result,
                         ResultReport &report) {
  BatchSearch search = findMaxBatch(graph, solver, options, maxBatch);
  result = search.result;
  report.batch = search.batch;
  report.tracedBatch = graph.batch;
  std::optional<Graph> scaled =
      scaleBatch(graph, std::max<int64_t>(search.batch, 1));
  if (!scaled)
    return graph; // one sample overflows: only an infeasible answer
  report.checkpointAllCost = checkpointAllCost(*scaled);
  report.checkpointAllPeak =
      simulate(*scaled, checkpointAllSchedule(*scaled)).peakBytes;
  return *scaled;
}

/// Reads or generates the graph into `graph`; an error message otherwise.
static std::string loadGraph(Graph &graph) {
  if (!generate.empty()) {
    if (!generateGraph(generate, graph))
      return "bad --generate value '" + generate +
             "' (expected <family>:<nodes>[:hetero])";
    return "";
  }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFileOrSTDIN(inputFile);
  if (!buffer)
    return "cannot read '" + inputFile + "': " + buffer.getError().message();
  std::string error;
  if (!parseGraphJSON((*buffer)->getBuffer().str(), graph, error))
    return graphSource() + ": " + error;
  return "";
}

/// The solve options from the command line, with the budget resolved
/// against the checkpoint-all peak of `report` (and recorded there); an
/// error message when an option is bad.
static std::string makeSolveOptions(const Graph &graph, ResultReport &report,
                                    SolveOptions &options) {
  options.timeLimitSeconds = timeLimit;
  options.effort = effort;
  options.threads = threads;
  options.maxOverhead = overhead;
  if (!budgetText.empty()) {
    std::string error;
    std::optional<int64_t> budget =
        parseBudget(budgetText.getValue(), report.checkpointAllPeak, error);
    if (!budget)
      return "bad --budget value '" + budgetText + "': " + error;
    options.budget = report.budget = *budget;
  } else if (modeOpt == Mode::MaxBatch) {
    return "--mode=max-batch needs --budget";
  }
  if (std::string error = checkSolveOptions(options); !error.empty())
    return "bad option: " + error;
  if (overhead.getNumOccurrences() && overhead < 0)
    return "bad option: --overhead must be a non-negative fraction";
  if (maxBatch < 1)
    return "bad option: --max-batch must be at least 1";
  if (modeOpt == Mode::MaxBatch) {
    std::string problem = batchScalingProblem(graph);
    if (!problem.empty())
      return graphSource() + ": " + problem;
  }
  if (modeOpt == Mode::Pareto && points < 1)
    return "--points must be at least 1";
  if (!quiet)
    options.progress = printProgress;
  return "";
}

/// --mode=pareto: the curve as JSON on `out`, its summary on stderr.
static int runPareto(const Graph &graph, const SolverInfo &solver,
                     const SolveOptions &options, llvm::ToolOutputFile &out) {
  ParetoCurve curve = paretoCurve(graph, solver, options, points);
  if (curve.points.empty() && curve.failure.status == SolveStatus::Unsupported)
    return fail("solver '" + solver.name +
                "' does not support this graph: " + curve.failure.message);
  out.os() << printParetoJSON(curve, solver.name);
  out.keep();
  if (summary && !quiet)
    printParetoSummary(graph, curve, solver.name);
  return 0;
}

/// Runs the solver in every mode but pareto; `graph` becomes the graph at
/// the answer's batch for max-batch.
static SolveResult runMode(Graph &graph, const SolverInfo &solver,
                           const SolveOptions &options, ResultReport &report) {
  SolveResult result;
  switch (modeOpt) {
  case Mode::MinCompute:
  case Mode::MinPeak:
    result = solveInMode(graph, solver, modeOpt, options);
    break;
  case Mode::MinBudget: {
    BudgetSearch search = findSmallestBudget(graph, solver, options);
    result = search.best;
    report.smallestBudget = search.smallestBudget;
    report.budgetLowerBound = search.lowerBound;
    result.lowerBound = static_cast<double>(search.lowerBound);
    break;
  }
  case Mode::MaxBatch:
    graph = runMaxBatch(graph, solver, options, result, report);
    break;
  case Mode::Pareto:
    break; // runPareto
  }
  // Trivial bounds when the solver proves none: every needed node is
  // computed at least once; every node needs its operands live.
  if (modeOpt == Mode::MinCompute)
    result.lowerBound = std::max(result.lowerBound, report.checkpointAllCost);
  if (modeOpt == Mode::MinPeak)
    result.lowerBound =
        std::max(result.lowerBound, static_cast<double>(peakLowerBound(graph)));
  return result;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "remat-solve: plan activation rematerialization for a training graph\n");

  if (listSolvers) {
    for (const SolverInfo &info : allSolvers())
      llvm::outs() << llvm::left_justify(info.name, 20) << " "
                   << info.description << "\n";
    return 0;
  }

  if (!policyName.empty())
    solverName = policyName == "none" ? std::string("checkpoint-all")
                                      : std::string(policyName);
  const SolverInfo *solver = findSolver(solverName);
  if (!solver)
    return fail("unknown solver '" + solverName +
                "'; the registered solvers are: " + solverNames());

  Graph graph;
  if (std::string error = loadGraph(graph); !error.empty())
    return fail(error);

  std::error_code ec;
  llvm::ToolOutputFile out(outputFile, ec, llvm::sys::fs::OF_Text);
  if (ec)
    return fail("cannot open '" + outputFile + "': " + ec.message());
  if (emitGraph) {
    out.os() << printGraphJSON(graph);
    out.keep();
    return 0;
  }

  ResultReport report;
  report.mode = toString(modeOpt);
  report.checkpointAllCost = checkpointAllCost(graph);
  report.checkpointAllPeak =
      simulate(graph, checkpointAllSchedule(graph)).peakBytes;
  report.graph = fingerprintGraph(graph);
  SolveOptions options;
  if (std::string error = makeSolveOptions(graph, report, options);
      !error.empty())
    return fail(error);

  if (modeOpt == Mode::Pareto)
    return runPareto(graph, *solver, options, out);
  SolveResult result = runMode(graph, *solver, options, report);
  if (result.status == SolveStatus::Unsupported)
    return fail("solver '" + solver->name +
                "' does not support this graph: " + result.message);
  out.os() << printResultJSON(result, report);
  out.keep();
  if (summary && !quiet)
    printSummary(graph, result, report);
  return 0;
}

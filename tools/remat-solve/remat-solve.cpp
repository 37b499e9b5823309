//===- remat-solve.cpp - solve a checkpointing problem from JSON ----------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Reads a graph in the JSON format of docs/SolverFormat.md (from a file, or
// generates one with --generate), plans it as the pipeline does (the one
// planner, Planner.h: same budgets, arena and fall-backs, so that applying
// the schedule with `schedule=` records the pipeline's plan), and writes the
// verified schedule and its statistics as JSON (for --mode=pareto, one
// solver's budget -> peak, compute curve), plus a one-screen summary and
// progress lines on stderr (none with --quiet).
//
//   remat-solve graph.json --solver=local-search --budget=60%
//   remat-solve --generate=resnet:1000 --mode=min-peak --summary=false
//   remat-solve graph.json --mode=pareto --points=5 --quiet
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Algorithms/Blocks.h"
#include "remat/Solver/Core/Budget.h"
#include "remat/Solver/Core/ScheduleBuilder.h"
#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Core/SolverSupport.h"
#include "remat/Solver/IO/GraphJSON.h"
#include "remat/Solver/Search/ModeOption.h"
#include "remat/Solver/Search/Modes.h"
#include "remat/Solver/Search/Planner.h"
#include "remat/Solver/Testing/Generators.h"

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
               cl::desc("Memory budget: bytes (with an optional B/KiB/MiB/"
                        "GiB/TiB suffix), a percentage of the checkpoint-all "
                        "peak such as 60%, or min (the smallest the solver "
                        "meets), as the pipeline's budget="),
               cl::init(""), cl::cat(category));
static cl::opt<bool>
    arena("arena",
          cl::desc("The budget covers one static arena of the plan's buffers "
                   "(resident bytes plus the arena), as the pipeline's "
                   "arena=true (docs/Arena.md)"),
          cl::init(false), cl::cat(category));
static cl::opt<int64_t>
    arenaAlignment("arena-alignment",
                   cl::desc("Alignment of every offset in that arena"),
                   cl::init(16), cl::cat(category));
static cl::opt<std::string>
    hostLinkName("host-link",
                 cl::desc("Offload to host memory over this link as well as "
                          "recompute (docs/Offload.md): none (the default), "
                          "pcie4, pcie5, c2c or ideal"),
                 cl::init("none"), cl::cat(category));
static cl::opt<std::string>
    hostBudgetText("host-budget",
                   cl::desc("With --host-link: the most pinned host memory "
                            "the plan may hold (bytes, with an optional "
                            "B/KiB/MiB/GiB/TiB suffix); default unlimited"),
                   cl::init(""), cl::cat(category));
static cl::opt<bool> gathersOnHostLink(
    "gathers-on-host-link",
    cl::desc("With --host-link: the sharded step's parameter gathers cross "
             "the host link too, so gathers and copies wait for each other"),
    cl::init(false), cl::cat(category));
static cl::opt<OffloadChoice>
    offloadChoice("offload", cl::desc("With --host-link: what a plan may do"),
                  offloadChoiceValues(), cl::init(OffloadChoice::Joint),
                  cl::cat(category));
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
  if (report.offload && result.feasible()) {
    const OffloadReport &offload = *report.offload;
    os << "host link " << offload.link << ": predicted time "
       << llvm::format("%g", offload.time) << " (stalls "
       << llvm::format("%g", offload.stall) << "), host peak "
       << offload.hostPeakBytes << " bytes, " << offload.copies
       << " copies of " << offload.bytesMoved << " bytes\n";
  }
  if (result.lowerBound >= 0) {
    os << "lower bound " << llvm::format("%g", result.lowerBound);
    if (report.mode == "min-compute" && report.checkpointAllCost > 0)
      os << " ("
         << llvm::format("%+.2f",
                         100.0 *
                             (result.lowerBound / report.checkpointAllCost - 1))
         << "% over checkpoint-all: no schedule within the budget costs "
            "less)";
    if (report.mode == "min-peak")
      os << " (no schedule within the compute limit peaks lower)";
    os << "\n";
  }
  os << "solved in " << llvm::format("%.3f", result.seconds) << " s, "
     << result.work << " work units";
  if (!result.message.empty())
    os << "; " << result.message;
  os << "\n";
  if (result.stoppedByTimeLimit)
    os << "note: " << kStoppedByTimeLimit << "\n";
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

/// The solve options from the command line (the budget is the planner's
/// to resolve); an error message when an option is bad.
static std::string makeSolveOptions(const Graph &graph,
                                    SolveOptions &options) {
  options.timeLimitSeconds = timeLimit;
  options.effort = effort;
  options.threads = threads;
  options.maxOverhead = overhead;
  if (std::string error = checkSolveOptions(options); !error.empty())
    return "bad option: " + error;
  if (overhead.getNumOccurrences() && overhead < 0)
    return "bad option: --overhead must be a non-negative fraction";
  if (maxBatch < 1)
    return "bad option: --max-batch must be at least 1";
  if (arenaAlignment < 1 || (arenaAlignment & (arenaAlignment - 1)))
    return "bad option: --arena-alignment must be a power of two";
  if (modeOpt == Mode::MaxBatch) {
    if (budgetText.empty())
      return "--mode=max-batch needs --budget";
    std::string problem = batchScalingProblem(graph);
    if (!problem.empty())
      return graphSource() + ": " + problem;
  }
  if (modeOpt == Mode::Pareto) {
    if (points < 1)
      return "--points must be at least 1";
    if (!budgetText.empty() || arena)
      return "--mode=pareto spans every budget without the arena: drop "
             "--budget and --arena";
  }
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

/// The offloading of the command line, priced for `graph`, into `offload`
/// (left unset for --host-link=none); an error message when an option is
/// bad.
static std::string makeOffloadRequest(const Graph &graph,
                                      std::optional<OffloadRequest> &offload) {
  if (hostLinkName == "none") {
    if (hostBudgetText.getNumOccurrences() ||
        offloadChoice.getNumOccurrences() ||
        gathersOnHostLink.getNumOccurrences())
      return "bad option: --host-budget, --offload and --gathers-on-host-link "
             "need a --host-link";
    return "";
  }
  std::optional<HostLink> link = findHostLink(hostLinkName, graph);
  if (!link)
    return "unknown host link '" + hostLinkName +
           "' (expected one of: " + hostLinkNames() + ")";
  if (!hostBudgetText.empty()) {
    std::string error;
    std::optional<int64_t> bytes = parseHostBudget(hostBudgetText, error);
    if (!bytes)
      return "invalid --host-budget '" + hostBudgetText + "': " + error;
    link->hostBudget = *bytes;
  }
  link->carriesGathers = gathersOnHostLink;
  offload = OffloadRequest{*link, offloadChoice};
  return "";
}

/// The report of the plan on its link, when it was planned with one.
static std::optional<OffloadReport> makeOffloadReport(
    const PlanOutcome &outcome) {
  if (!outcome.onLink)
    return std::nullopt;
  const Simulation &sim = *outcome.onLink;
  OffloadReport report{hostLinkName,     sim.time,          sim.stall,
                       sim.hostPeakBytes, sim.copies,        sim.bytesMoved,
                       outcome.hostNeeded};
  return report;
}

/// The planner's request from the command line.
static PlanRequest makePlanRequest(const SolveOptions &options) {
  PlanRequest request;
  request.solver = solverName;
  request.mode = modeOpt;
  request.budget = budgetText;
  request.solve = options;
  request.arena = arena;
  request.arenaAlignment = arenaAlignment;
  request.maxBatch = maxBatch;
  return request;
}

/// Whether a planner's failure is an answer (no plan at this budget,
/// written as an `infeasible` result) rather than an error in the request.
static bool isInfeasibleAnswer(PlanFailure failure) {
  switch (failure) {
  case PlanFailure::NoSchedule:
  case PlanFailure::NoSmallestBudget:
  case PlanFailure::PeakOverBudget:
  case PlanFailure::BelowOneSample:
  case PlanFailure::ArenaOverBudget:
  case PlanFailure::HostOverBudget:
    return true;
  default:
    return false;
  }
}

/// The report of a planned `outcome`; `graph` becomes the graph at the
/// answer's batch for max-batch.
static ResultReport makeReport(Graph &graph, const PlanOutcome &outcome) {
  ResultReport report;
  report.mode = toString(modeOpt);
  report.graph = fingerprintGraph(graph);
  // The budget asked for (budget=min's as found), so that `schedule=`
  // fits the arena to it as the pipeline does; none when none was given.
  report.budget = budgetText.empty() ? -1 : outcome.budget;
  // The smallest budget, when the planner searched it (min-budget, min, or
  // no plan at the budget asked).
  report.smallestBudget = outcome.smallestBudget;
  if (modeOpt == Mode::MinBudget) {
    report.budgetLowerBound =
        static_cast<int64_t>(std::max(0.0, outcome.result.lowerBound));
  }
  if (modeOpt == Mode::MaxBatch) {
    report.batch = outcome.batch;
    report.tracedBatch = graph.batch;
    if (std::optional<Graph> scaled =
            scaleBatch(graph, std::max<int64_t>(outcome.batch, 1)))
      graph = std::move(*scaled);
  }
  report.offload = makeOffloadReport(outcome);
  report.checkpointAllCost = checkpointAllCost(graph);
  report.checkpointAllPeak =
      simulate(graph, checkpointAllSchedule(graph)).peakBytes;
  return report;
}

/// The result to write for `outcome`: the plan, or for a failure that is
/// an answer, the solver's result marked infeasible with the planner's
/// reason when it had none (a schedule whose arena or peak misses).
static SolveResult getWrittenResult(const PlanOutcome &outcome) {
  SolveResult result = outcome.result;
  if (outcome.succeeded())
    return result;
  if (result.feasible() || result.message.empty())
    result.message = outcome.reason;
  if (result.feasible())
    result.status = SolveStatus::Infeasible;
  return result;
}

/// Plans `graph` in every mode but pareto and writes the result on `out`.
static int runPlan(Graph &graph, const SolveOptions &options,
                   llvm::ToolOutputFile &out) {
  PlanRequest request = makePlanRequest(options);
  if (std::string error = makeOffloadRequest(graph, request.offload);
      !error.empty())
    return fail(error);
  PlanOutcome outcome = plan(graph, request);
  if (!outcome.succeeded() && !isInfeasibleAnswer(outcome.failure)) {
    if (outcome.failure == PlanFailure::Unsupported)
      return fail("solver '" + outcome.solver +
                  "' does not support this graph: " + outcome.reason);
    return fail(outcome.reason);
  }
  ResultReport report = makeReport(graph, outcome);
  SolveResult result = getWrittenResult(outcome);
  out.os() << printResultJSON(result, report);
  out.keep();
  if (quiet)
    return 0;
  for (const std::string &remark : outcome.remarks)
    llvm::errs() << "remat-solve: note: " << remark << "\n";
  if (!outcome.succeeded())
    llvm::errs() << "remat-solve: no plan: " << outcome.reason << "\n";
  if (summary)
    printSummary(graph, result, report);
  return 0;
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

  if (!policyName.empty()) {
    solverName = policySolver(policyName);
    if (solverName.empty())
      return fail(describeUnknownPolicy(policyName));
  }
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

  SolveOptions options;
  if (std::string error = makeSolveOptions(graph, options); !error.empty())
    return fail(error);
  if (modeOpt == Mode::Pareto)
    return runPareto(graph, *solver, options, out);
  return runPlan(graph, options, out);
}

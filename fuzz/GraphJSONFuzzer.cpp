//===- GraphJSONFuzzer.cpp - libFuzzer target for the graph JSON reader ---===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Feeds arbitrary bytes to the graph reader of remat-solve (parseGraphJSON)
// and the saved-result reader (parseResultJSON). A graph the reader accepts
// must be well formed and survive what remat-solve does with it first:
// printing and reading back to the same fingerprint, the checkpoint-all
// schedule replayed by the simulator, the lower bounds. Any crash, sanitizer
// report or broken property (an abort) is a bug. Built with
// -DREMAT_ENABLE_FUZZERS=ON (scripts/fuzz.sh).
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "remat/Solver/IO/GraphJSON.h"
#include "remat/Solver/Core/ScheduleBuilder.h"
#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Core/SolverSupport.h"

#include <string>

using namespace remat;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  SavedResult saved;
  std::string error;
  (void)parseResultJSON(text, saved, error);

  Graph graph;
  if (!parseGraphJSON(text, graph, error)) {
    require(!error.empty(), "a rejected graph has an error message");
    return 0;
  }
  require(graph.check().empty(), "an accepted graph is well formed");

  Graph again;
  require(parseGraphJSON(printGraphJSON(graph), again, error),
          "a printed graph reads back");
  require(describeMismatch(fingerprintGraph(graph), fingerprintGraph(again))
              .empty(),
          "a printed graph reads back to the same fingerprint");

  if (graph.size() > 5000)
    return 0;
  Simulation all = simulate(graph, checkpointAllSchedule(graph));
  require(all.valid(), "the checkpoint-all schedule is valid");
  require(all.peakBytes >= graph.residentBytes(),
          "the checkpoint-all peak holds the resident bytes");
  require(peakLowerBound(graph) <= all.peakBytes,
          "the peak lower bound is below the checkpoint-all peak");
  return 0;
}

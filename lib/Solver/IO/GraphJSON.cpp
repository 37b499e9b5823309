//===- GraphJSON.cpp - JSON graphs and schedules --------------------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/GraphJSON.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>
#include <iterator>

using namespace remat;
namespace json = llvm::json;

namespace {
/// Reads JSON values, remembering the first error with its JSON path.
class JSONReader {
public:
  std::string error;

  bool fail(const std::string &path, const std::string &message) {
    if (error.empty())
      error = path + ": " + message;
    return false;
  }

  bool readInt(const json::Value &value, const std::string &path,
               int64_t &out) {
    if (std::optional<int64_t> i = value.getAsInteger()) {
      out = *i;
      return true;
    }
    if (std::optional<double> d = value.getAsNumber())
      if (std::isfinite(*d) && std::floor(*d) == *d && std::abs(*d) < 9.0e18) {
        out = static_cast<int64_t>(*d);
        return true;
      }
    return fail(path, "expected an integer");
  }

  /// The member `key` of `object`, or nullptr after an error when missing.
  const json::Value *require(const json::Object &object, const char *key,
                             const std::string &path) {
    if (const json::Value *value = object.get(key))
      return value;
    fail(path, std::string("missing \"") + key + "\"");
    return nullptr;
  }

  bool readString(const json::Value &value, const std::string &path,
                  std::string &out) {
    if (std::optional<llvm::StringRef> s = value.getAsString()) {
      out = s->str();
      return true;
    }
    return fail(path, "expected a string");
  }

  bool readCost(const json::Value &value, const std::string &path,
                double &out) {
    std::optional<double> d = value.getAsNumber();
    if (!d || !std::isfinite(*d))
      return fail(path, "expected a number");
    if (*d < 0)
      return fail(path, "negative cost");
    out = *d;
    return true;
  }
};

/// Reads one graph.
class GraphReader : public JSONReader {
public:
  bool readGraph(const json::Value &root, Graph &graph) {
    const json::Object *object = root.getAsObject();
    if (!object)
      return fail("$", "expected an object with \"nodes\" and \"outputs\"");
    if (const json::Value *name = object->get("name")) {
      if (std::optional<llvm::StringRef> s = name->getAsString())
        graph.name = s->str();
      else if (!name->getAsNull())
        return fail("name", "expected a string");
    }
    if (const json::Value *fixed = object->get("fixed_bytes")) {
      if (!readInt(*fixed, "fixed_bytes", graph.fixedBytes))
        return false;
      if (graph.fixedBytes < 0)
        return fail("fixed_bytes", "must not be negative");
    }
    if (const json::Value *batch = object->get("batch")) {
      if (!readInt(*batch, "batch", graph.batch))
        return false;
      if (graph.batch < 1)
        return fail("batch", "must be at least 1 (samples in the traced "
                             "batch), not " +
                                 std::to_string(graph.batch));
    }
    const json::Value *nodesValue = object->get("nodes");
    if (!nodesValue)
      return fail("$", "missing \"nodes\"");
    const json::Array *nodes = nodesValue->getAsArray();
    if (!nodes)
      return fail("nodes", "expected an array");
    for (size_t i = 0; i < nodes->size(); ++i)
      if (!readNode((*nodes)[i], "nodes[" + std::to_string(i) + "]", i,
                    nodes->size(), graph))
        return false;
    const json::Value *outputsValue = object->get("outputs");
    if (!outputsValue)
      return fail("$", "missing \"outputs\"");
    const json::Array *outputs = outputsValue->getAsArray();
    if (!outputs)
      return fail("outputs", "expected an array");
    for (size_t i = 0; i < outputs->size(); ++i) {
      std::string path = "outputs[" + std::to_string(i) + "]";
      int64_t out;
      if (!readInt((*outputs)[i], path, out))
        return false;
      if (out < 0 || out >= static_cast<int64_t>(graph.nodes.size()))
        return fail(path, "node " + std::to_string(out) + " does not exist");
      graph.outputs.push_back(static_cast<int>(out));
    }
    std::string problem = graph.check();
    if (!problem.empty())
      return fail("graph", problem);
    return true;
  }

  bool readNode(const json::Value &value, const std::string &path, size_t id,
                size_t count, Graph &graph) {
    const json::Object *object = value.getAsObject();
    if (!object)
      return fail(path, "expected an object");
    Node node;
    if (const json::Value *v = object->get("id")) {
      int64_t given;
      if (!readInt(*v, path + ".id", given))
        return false;
      if (given != static_cast<int64_t>(id))
        return fail(path + ".id", "is " + std::to_string(given) +
                                      "; ids must equal positions (" +
                                      std::to_string(id) + ")");
    }
    if (const json::Value *v = object->get("name")) {
      if (std::optional<llvm::StringRef> s = v->getAsString())
        node.name = s->str();
      else if (!v->getAsNull())
        return fail(path + ".name", "expected a string");
    }
    if (const json::Value *v = object->get("bytes")) {
      if (!readInt(*v, path + ".bytes", node.bytes))
        return false;
      if (node.bytes < 0)
        return fail(path + ".bytes",
                    "negative size " + std::to_string(node.bytes));
    } else {
      return fail(path, "missing \"bytes\"");
    }
    if (const json::Value *v = object->get("cost"))
      if (!readCost(*v, path + ".cost", node.cost))
        return false;
    if (const json::Value *v = object->get("bytes_per_sample")) {
      if (!readInt(*v, path + ".bytes_per_sample", node.bytesPerSample))
        return false;
      if (node.bytesPerSample < 0)
        return fail(path + ".bytes_per_sample", "must not be negative");
    }
    if (const json::Value *v = object->get("cost_per_sample"))
      if (!readCost(*v, path + ".cost_per_sample", node.costPerSample))
        return false;
    if (const json::Value *v = object->get("kind")) {
      std::optional<llvm::StringRef> s = v->getAsString();
      if (!s)
        return fail(path + ".kind", "expected a string");
      if (*s == "input")
        node.kind = NodeKind::Input;
      else if (*s == "param")
        node.kind = NodeKind::Param;
      else if (*s == "forward")
        node.kind = NodeKind::Forward;
      else if (*s == "backward")
        node.kind = NodeKind::Backward;
      else
        return fail(path + ".kind",
                    "unknown kind '" + s->str() +
                        "' (expected input, param, forward or backward)");
    }
    if (const json::Value *v = object->get("deps")) {
      const json::Array *deps = v->getAsArray();
      if (!deps)
        return fail(path + ".deps", "expected an array");
      for (size_t k = 0; k < deps->size(); ++k) {
        std::string depPath = path + ".deps[" + std::to_string(k) + "]";
        int64_t dep;
        if (!readInt((*deps)[k], depPath, dep))
          return false;
        if (dep < 0 || dep >= static_cast<int64_t>(count))
          return fail(depPath, "dangling dependency on node " +
                                   std::to_string(dep) + " (the graph has " +
                                   std::to_string(count) + " nodes)");
        if (dep >= static_cast<int64_t>(id))
          return fail(depPath,
                      "dependency on node " + std::to_string(dep) +
                          ", which is not earlier: the graph has a cycle or "
                          "is not in topological order");
        node.deps.push_back(static_cast<int>(dep));
      }
    }
    if (const json::Value *v = object->get("alias_of")) {
      if (!v->getAsNull()) {
        int64_t base;
        if (!readInt(*v, path + ".alias_of", base))
          return false;
        if (base < 0 || base >= static_cast<int64_t>(id))
          return fail(path + ".alias_of",
                      "must name an earlier node, not " + std::to_string(base));
        node.aliasOf = static_cast<int>(base);
      }
    }
    if (const json::Value *v = object->get("keep")) {
      std::optional<llvm::StringRef> s = v->getAsString();
      if (!s)
        return fail(path + ".keep", "expected a string");
      if (*s == "always")
        node.keep = KeepPolicy::Always;
      else if (*s == "never")
        node.keep = KeepPolicy::Never;
      else if (*s != "default")
        return fail(path + ".keep", "unknown keep policy '" + s->str() +
                                        "' (expected always, never or "
                                        "default)");
    }
    graph.nodes.push_back(std::move(node));
    return true;
  }
};

/// Reads a result JSON with its graph fingerprint.
class ResultReader : public JSONReader {
public:
  bool readResult(const json::Value &root, SavedResult &saved) {
    const json::Object *object = root.getAsObject();
    if (!object)
      return fail("$", "expected an object with \"status\", \"steps\", "
                       "\"stats\" and \"graph\"");
    const json::Value *graph = require(*object, "graph", "$");
    if (!graph || !readFingerprint(*graph, saved.graph))
      return false;
    const json::Value *status = require(*object, "status", "$");
    if (!status || !readStatus(*status, saved.result.status))
      return false;
    const json::Value *stats = require(*object, "stats", "$");
    if (!stats || !readStats(*stats, saved))
      return false;
    const json::Value *steps = require(*object, "steps", "$");
    return steps && readSteps(*steps, saved.graph.nodes, saved.result.schedule);
  }

private:
  bool readFingerprint(const json::Value &value, GraphFingerprint &graph) {
    const json::Object *object = value.getAsObject();
    if (!object)
      return fail("graph", "expected an object");
    if (const json::Value *name = object->get("name"))
      if (!readString(*name, "graph.name", graph.name))
        return false;
    const json::Value *nodes = require(*object, "nodes", "graph");
    if (!nodes || !readInt(*nodes, "graph.nodes", graph.nodes))
      return false;
    if (graph.nodes < 0)
      return fail("graph.nodes", "must not be negative");
    return readHash(*object, "structure", graph.structure) &&
           readHash(*object, "bytes", graph.bytes) &&
           readHash(*object, "cost", graph.cost);
  }

  bool readHash(const json::Object &object, const char *key, uint64_t &out) {
    std::string path = std::string("graph.") + key, text;
    const json::Value *value = require(object, key, "graph");
    if (!value || !readString(*value, path, text))
      return false;
    if (text.size() != 16 || llvm::StringRef(text).getAsInteger(16, out))
      return fail(path, "expected 16 hexadecimal digits");
    return true;
  }

  bool readStatus(const json::Value &value, SolveStatus &status) {
    std::string text;
    if (!readString(value, "status", text))
      return false;
    if (text == "optimal")
      status = SolveStatus::Optimal;
    else if (text == "feasible")
      status = SolveStatus::Feasible;
    else if (text == "infeasible")
      status = SolveStatus::Infeasible;
    else if (text == "timeout")
      status = SolveStatus::Timeout;
    else
      return fail("status", "unknown status '" + text +
                                "' (expected optimal, feasible, infeasible "
                                "or timeout)");
    return true;
  }

  /// An integer or null (-1) member of `stats`.
  bool readOptionalInt(const json::Object &stats, const char *key,
                       int64_t &out) {
    const json::Value *value = stats.get(key);
    if (!value || value->getAsNull())
      return true;
    return readInt(*value, std::string("stats.") + key, out);
  }

  /// A number or null (-1) member of `stats`.
  bool readOptionalNumber(const json::Object &stats, const char *key,
                          double &out) {
    const json::Value *value = stats.get(key);
    if (!value || value->getAsNull())
      return true;
    std::optional<double> d = value->getAsNumber();
    if (!d || !std::isfinite(*d))
      return fail(std::string("stats.") + key, "expected a number");
    out = *d;
    return true;
  }

  bool readStats(const json::Value &value, SavedResult &saved) {
    const json::Object *stats = value.getAsObject();
    if (!stats)
      return fail("stats", "expected an object");
    SolveResult &result = saved.result;
    const json::Value *solver = require(*stats, "solver", "stats");
    const json::Value *mode = require(*stats, "mode", "stats");
    if (!solver || !readString(*solver, "stats.solver", result.solver) ||
        !mode || !readString(*mode, "stats.mode", saved.mode))
      return false;
    if (const json::Value *message = stats->get("message"))
      if (!readString(*message, "stats.message", result.message))
        return false;
    return readOptionalInt(*stats, "budget", saved.budget) &&
           readOptionalInt(*stats, "peak_bytes", result.peakBytes) &&
           readOptionalNumber(*stats, "cost", result.cost) &&
           readOptionalNumber(*stats, "lower_bound", result.lowerBound);
  }

  bool readSteps(const json::Value &value, int64_t numNodes,
                 Schedule &schedule) {
    const json::Array *steps = value.getAsArray();
    if (!steps)
      return fail("steps", "expected an array");
    for (size_t i = 0; i < steps->size(); ++i) {
      std::string path = "steps[" + std::to_string(i) + "]";
      const json::Object *step = (*steps)[i].getAsObject();
      if (!step)
        return fail(path, "expected an object");
      std::string op;
      int64_t node;
      const json::Value *opValue = require(*step, "op", path);
      const json::Value *nodeValue = require(*step, "node", path);
      if (!opValue || !readString(*opValue, path + ".op", op) || !nodeValue ||
          !readInt(*nodeValue, path + ".node", node))
        return false;
      if (op != "compute" && op != "free")
        return fail(path + ".op",
                    "unknown op '" + op + "' (expected compute or free)");
      if (node < 0 || node >= numNodes)
        return fail(path + ".node", "node " + std::to_string(node) +
                                        " does not exist (the graph has " +
                                        std::to_string(numNodes) + " nodes)");
      int id = static_cast<int>(node);
      schedule.steps.push_back(op == "compute" ? Step::compute(id)
                                               : Step::free(id));
    }
    return true;
  }
};

const char *kindName(NodeKind kind) {
  switch (kind) {
  case NodeKind::Input:
    return "input";
  case NodeKind::Param:
    return "param";
  case NodeKind::Forward:
    return "forward";
  case NodeKind::Backward:
    return "backward";
  }
  return "forward";
}

std::string print(json::Value value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("{0:2}", value) << "\n";
  return text;
}
} // namespace

/// Parses `text` as JSON; on a syntax error sets `error` to its position.
static std::optional<json::Value> parseJSON(const std::string &text,
                                            std::string &error) {
  llvm::Expected<json::Value> root = json::parse(text);
  if (root)
    return std::move(*root);
  std::string message;
  llvm::handleAllErrors(root.takeError(), [&](const json::ParseError &e) {
    llvm::raw_string_ostream os(message);
    e.log(os);
  });
  // ParseError prints "[line:column, byte=N]: message".
  error = "invalid JSON " + message;
  return std::nullopt;
}

bool remat::parseGraphJSON(const std::string &text, Graph &graph,
                           std::string &error) {
  graph = Graph();
  std::optional<json::Value> root = parseJSON(text, error);
  if (!root)
    return false;
  GraphReader reader;
  if (!reader.readGraph(*root, graph)) {
    error = reader.error;
    return false;
  }
  return true;
}

bool remat::parseResultJSON(const std::string &text, SavedResult &saved,
                            std::string &error) {
  saved = SavedResult();
  std::optional<json::Value> root = parseJSON(text, error);
  if (!root)
    return false;
  ResultReader reader;
  if (!reader.readResult(*root, saved)) {
    error = reader.error;
    return false;
  }
  return true;
}

namespace {
/// FNV-1a over 64-bit words: stable across platforms and releases.
class Hasher {
public:
  void add(int64_t value) {
    for (int byte = 0; byte < 8; ++byte) {
      hash ^= static_cast<uint64_t>(value) >> (8 * byte) & 0xff;
      hash *= 0x100000001b3ULL;
    }
  }
  void add(double value) {
    int64_t bits;
    static_assert(sizeof bits == sizeof value);
    std::memcpy(&bits, &value, sizeof bits);
    add(value == 0 ? int64_t(0) : bits); // -0 and 0 hash alike
  }
  uint64_t hash = 0xcbf29ce484222325ULL;
};
} // namespace

GraphFingerprint remat::fingerprintGraph(const Graph &graph) {
  GraphFingerprint print;
  print.name = graph.name;
  print.nodes = graph.size();
  Hasher structure, bytes, cost;
  bytes.add(graph.fixedBytes);
  for (const Node &node : graph.nodes) {
    structure.add(static_cast<int64_t>(node.kind));
    structure.add(static_cast<int64_t>(node.keep));
    structure.add(static_cast<int64_t>(node.aliasOf));
    structure.add(static_cast<int64_t>(node.deps.size()));
    for (int dep : node.deps)
      structure.add(static_cast<int64_t>(dep));
    bytes.add(node.bytes);
    cost.add(node.cost);
  }
  structure.add(static_cast<int64_t>(graph.outputs.size()));
  for (int out : graph.outputs)
    structure.add(static_cast<int64_t>(out));
  print.structure = structure.hash;
  print.bytes = bytes.hash;
  print.cost = cost.hash;
  return print;
}

std::string remat::describeMismatch(const GraphFingerprint &saved,
                                    const GraphFingerprint &actual) {
  if (saved.nodes != actual.nodes)
    return "the node count (" + std::to_string(saved.nodes) + " vs " +
           std::to_string(actual.nodes) + ")";
  if (saved.structure != actual.structure)
    return "the structure (node kinds, dependencies, views, pins or outputs)";
  if (saved.bytes != actual.bytes)
    return "the node sizes (bytes)";
  if (saved.cost != actual.cost)
    return "the compute costs";
  return "";
}

static std::string toHex(uint64_t hash) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format_hex_no_prefix(hash, 16);
  return text;
}

std::string remat::printGraphJSON(const Graph &graph) {
  json::Array nodes;
  for (int id = 0; id < graph.size(); ++id) {
    const Node &node = graph.nodes[id];
    json::Array deps;
    for (int dep : node.deps)
      deps.push_back(dep);
    json::Object object{{"id", id},
                        {"name", node.name},
                        {"bytes", node.bytes},
                        {"cost", node.cost},
                        {"deps", std::move(deps)},
                        {"kind", kindName(node.kind)},
                        {"alias_of", node.isView() ? json::Value(node.aliasOf)
                                                   : json::Value(nullptr)}};
    if (node.keep != KeepPolicy::Default)
      object["keep"] = node.keep == KeepPolicy::Always ? "always" : "never";
    if (graph.hasBatchScaling()) {
      object["bytes_per_sample"] = node.bytesPerSample;
      object["cost_per_sample"] = node.costPerSample;
    }
    nodes.push_back(std::move(object));
  }
  json::Array outputs;
  for (int out : graph.outputs)
    outputs.push_back(out);
  json::Object root{{"name", graph.name},
                    {"fixed_bytes", graph.fixedBytes},
                    {"nodes", std::move(nodes)},
                    {"outputs", std::move(outputs)}};
  if (graph.hasBatchScaling())
    root["batch"] = graph.batch;
  return print(std::move(root));
}

/// The "status" value of the result formats.
static const char *jsonStatus(SolveStatus status) {
  switch (status) {
  case SolveStatus::Optimal:
    return "optimal";
  case SolveStatus::Feasible:
    return "feasible";
  case SolveStatus::Timeout:
    return "timeout";
  case SolveStatus::Infeasible:
  case SolveStatus::Unsupported:
    return "infeasible";
  }
  return "infeasible";
}

/// `message`, followed by kStoppedByTimeLimit when `stopped`.
static std::string withTimeLimitNote(const std::string &message, bool stopped) {
  if (!stopped)
    return message;
  return message.empty() ? kStoppedByTimeLimit
                         : message + "; " + kStoppedByTimeLimit;
}

std::string remat::printResultJSON(const SolveResult &result,
                                   const ResultReport &report) {
  const char *status = jsonStatus(result.status);
  // Written by hand to keep the documented key order and one step per line.
  std::string text;
  llvm::raw_string_ostream os(text);
  auto scalar = [](json::Value value) {
    std::string s;
    llvm::raw_string_ostream vs(s);
    vs << value;
    return s;
  };
  os << "{\n  \"status\": \"" << status << "\",\n  \"steps\": [";
  bool first = true;
  if (result.feasible())
    for (const Step &step : result.schedule.steps) {
      os << (first ? "\n" : ",\n") << "    {\"op\": \""
         << (step.kind == Step::Kind::Compute ? "compute" : "free")
         << "\", \"node\": " << step.node << "}";
      first = false;
    }
  os << (first ? "],\n" : "\n  ],\n");
  bool feasible = result.feasible();
  std::vector<std::pair<const char *, json::Value>> stats;
  auto orNull = [](bool known, json::Value value) {
    return known ? std::move(value) : json::Value(nullptr);
  };
  stats.push_back({"peak_bytes", orNull(feasible, result.peakBytes)});
  stats.push_back({"cost", orNull(feasible, result.cost)});
  stats.push_back({"checkpoint_all_cost", report.checkpointAllCost});
  stats.push_back({"checkpoint_all_peak_bytes", report.checkpointAllPeak});
  stats.push_back(
      {"overhead", orNull(feasible && report.checkpointAllCost > 0,
                          result.cost / report.checkpointAllCost - 1)});
  stats.push_back(
      {"lower_bound", orNull(result.lowerBound >= 0, result.lowerBound)});
  double value = report.mode == "min-peak" || report.mode == "min-budget"
                     ? static_cast<double>(result.peakBytes)
                     : result.cost;
  stats.push_back({"gap", orNull(feasible && result.lowerBound > 0,
                                 value / result.lowerBound - 1)});
  stats.push_back({"solve_seconds", result.seconds});
  stats.push_back({"work", result.work});
  stats.push_back({"stopped_by_time_limit", result.stoppedByTimeLimit});
  stats.push_back({"solver", result.solver});
  stats.push_back({"mode", report.mode});
  stats.push_back({"budget", orNull(report.budget >= 0, report.budget)});
  if (report.smallestBudget >= 0 || report.mode == "min-budget")
    stats.push_back({"smallest_budget", orNull(report.smallestBudget >= 0,
                                               report.smallestBudget)});
  if (report.budgetLowerBound >= 0)
    stats.push_back({"budget_lower_bound", report.budgetLowerBound});
  if (report.batch >= 0) {
    stats.push_back({"batch", report.batch});
    stats.push_back({"traced_batch", report.tracedBatch});
  }
  stats.push_back({"message", withTimeLimitNote(result.message,
                                                result.stoppedByTimeLimit)});
  os << "  \"stats\": {";
  for (size_t i = 0; i < stats.size(); ++i)
    os << (i ? ",\n" : "\n") << "    \"" << stats[i].first
       << "\": " << scalar(std::move(stats[i].second));
  os << "\n  }";
  if (const std::optional<GraphFingerprint> &graph = report.graph)
    os << ",\n  \"graph\": {\"name\": " << json::Value(graph->name)
       << ", \"nodes\": " << graph->nodes << ", \"structure\": \""
       << toHex(graph->structure) << "\", \"bytes\": \"" << toHex(graph->bytes)
       << "\", \"cost\": \"" << toHex(graph->cost) << "\"}";
  os << "\n}\n";
  return text;
}

std::string remat::printParetoJSON(const ParetoCurve &curve,
                                   const std::string &solver) {
  // Written by hand like the result: documented key order, one point a line.
  std::string text;
  llvm::raw_string_ostream os(text);
  auto orNull = [](bool known, json::Value value) {
    return known ? std::move(value) : json::Value(nullptr);
  };
  bool found = !curve.points.empty();
  std::pair<const char *, json::Value> header[] = {
      {"status", found ? "feasible" : jsonStatus(curve.failure.status)},
      {"solver", solver},
      {"mode", "pareto"},
      {"checkpoint_all_peak_bytes", curve.checkpointAllPeak},
      {"checkpoint_all_cost", curve.checkpointAllCost},
      {"smallest_budget",
       orNull(curve.smallestBudget >= 0, curve.smallestBudget)},
      {"budget_lower_bound", curve.budgetLowerBound},
      {"probes", curve.probes},
      {"solve_seconds", curve.seconds},
      {"work", curve.work},
      {"stopped_by_time_limit", curve.stoppedByTimeLimit},
      {"message", withTimeLimitNote(found ? "" : curve.failure.message,
                                    curve.stoppedByTimeLimit)},
  };
  os << "{";
  for (auto &field : header)
    os << "\n  \"" << field.first << "\": " << field.second << ",";
  os << "\n  \"points\": [";
  for (size_t i = 0; i < curve.points.size(); ++i) {
    const ParetoPoint &point = curve.points[i];
    const SolveResult &r = point.result;
    bool feasible = r.feasible();
    json::Object object{
        {"budget", point.budget},
        {"peak_bytes", orNull(feasible, r.peakBytes)},
        {"cost", orNull(feasible, r.cost)},
        {"overhead", orNull(feasible && curve.checkpointAllCost > 0,
                            r.cost / curve.checkpointAllCost - 1)},
        {"status", jsonStatus(r.status)},
        {"lower_bound", orNull(r.lowerBound >= 0, r.lowerBound)},
        {"found_by", r.solver},
        {"found_at_budget", point.foundAtBudget},
        {"seconds", point.seconds}};
    // json::Object is unordered: print the keys in the documented order.
    os << (i ? ",\n    {" : "\n    {");
    const char *keys[] = {"budget",   "peak_bytes",      "cost",
                          "overhead", "status",          "lower_bound",
                          "found_by", "found_at_budget", "seconds"};
    for (size_t k = 0; k < std::size(keys); ++k)
      os << (k ? ", \"" : "\"") << keys[k] << "\": " << *object.get(keys[k]);
    os << "}";
  }
  os << (curve.points.empty() ? "]\n}\n" : "\n  ]\n}\n");
  return text;
}

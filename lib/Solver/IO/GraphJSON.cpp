//===- GraphJSON.cpp - JSON graphs and schedules --------------------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/IO/GraphJSON.h"

#include "remat/Support/JSON.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"
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

//===----------------------------------------------------------------------===//
// The members of each object as written (docs/SolverFormat.md). Type errors
// are reported by fromJSON through json::Path; the readers below check what
// the values mean. A null member counts as absent.
//===----------------------------------------------------------------------===//

struct NodeFields {
  std::optional<JSONInt> id, bytesPerSample, aliasOf;
  std::optional<std::string> name, kind, keep, gather, path, op;
  std::optional<JSONNumber> cost, costPerSample;
  std::optional<std::vector<JSONInt>> deps, after, partBytes;
  JSONInt bytes;
};

bool fromJSON(const json::Value &value, NodeFields &out, json::Path path) {
  json::ObjectMapper o(value, path);
  return o && o.mapOptional("id", out.id) && o.mapOptional("name", out.name) &&
         o.map("bytes", out.bytes) && o.mapOptional("cost", out.cost) &&
         o.mapOptional("bytes_per_sample", out.bytesPerSample) &&
         o.mapOptional("cost_per_sample", out.costPerSample) &&
         o.mapOptional("part_bytes", out.partBytes) &&
         o.mapOptional("kind", out.kind) && o.mapOptional("deps", out.deps) &&
         o.mapOptional("alias_of", out.aliasOf) &&
         o.mapOptional("after", out.after) && o.mapOptional("keep", out.keep) &&
         o.mapOptional("gather", out.gather) &&
         o.mapOptional("path", out.path) && o.mapOptional("op", out.op);
}

struct GraphFields {
  std::optional<std::string> name, device;
  std::optional<JSONInt> fixedBytes, batch;
  std::vector<JSONInt> outputs;
};

bool fromJSON(const json::Value &value, GraphFields &out, json::Path path) {
  json::ObjectMapper o(value, path);
  return o && o.mapOptional("name", out.name) &&
         o.mapOptional("device", out.device) &&
         o.mapOptional("fixed_bytes", out.fixedBytes) &&
         o.mapOptional("batch", out.batch) && o.map("outputs", out.outputs);
}

struct FingerprintFields {
  std::optional<std::string> name;
  JSONInt nodes;
  std::string structure, bytes, cost;
};

bool fromJSON(const json::Value &value, FingerprintFields &out,
              json::Path path) {
  json::ObjectMapper o(value, path);
  return o && o.mapOptional("name", out.name) && o.map("nodes", out.nodes) &&
         o.map("structure", out.structure) && o.map("bytes", out.bytes) &&
         o.map("cost", out.cost);
}

struct StatsFields {
  std::string solver, mode;
  std::optional<std::string> message;
  std::optional<JSONInt> budget, peakBytes;
  std::optional<JSONNumber> cost, lowerBound;
};

bool fromJSON(const json::Value &value, StatsFields &out, json::Path path) {
  json::ObjectMapper o(value, path);
  return o && o.map("solver", out.solver) && o.map("mode", out.mode) &&
         o.mapOptional("message", out.message) &&
         o.mapOptional("budget", out.budget) &&
         o.mapOptional("peak_bytes", out.peakBytes) &&
         o.mapOptional("cost", out.cost) &&
         o.mapOptional("lower_bound", out.lowerBound);
}

/// The step kind a result's "op" names.
std::optional<Step::Kind> parseStepKind(llvm::StringRef op) {
  for (Step::Kind kind :
       {Step::Kind::Compute, Step::Kind::Free, Step::Kind::Offload,
        Step::Kind::Prefetch, Step::Kind::Wait})
    if (op == toString(kind))
      return kind;
  return std::nullopt;
}

struct StepFields {
  std::string op;
  JSONInt node;
};

bool fromJSON(const json::Value &value, StepFields &out, json::Path path) {
  json::ObjectMapper o(value, path);
  return o && o.map("op", out.op) && o.map("node", out.node);
}

/// Reads one graph; the errors go to `errors`.
class GraphReader {
public:
  explicit GraphReader(JSONErrors &errors) : errors(errors) {}

  bool readGraph(const json::Value &root, Graph &graph) {
    json::Path path = errors.root();
    const json::Object *object = root.getAsObject();
    if (!object)
      return errors.fail(path, "expected an object with \"nodes\" and "
                               "\"outputs\"");
    GraphFields fields;
    if (!requireKeys(*object, {"nodes", "outputs"}, path, errors) ||
        !fromJSON(root, fields, path))
      return false;
    const json::Array *nodes = object->getArray("nodes");
    if (!nodes)
      return errors.fail(path.field("nodes"), "expected an array");
    graph.name = fields.name.value_or("");
    graph.device = fields.device.value_or("");
    if (fields.fixedBytes) {
      graph.fixedBytes = fields.fixedBytes->value;
      if (graph.fixedBytes < 0)
        return errors.fail(path.field("fixed_bytes"), "must not be negative");
    }
    if (fields.batch) {
      graph.batch = fields.batch->value;
      if (graph.batch < 1)
        return errors.fail(path.field("batch"),
                           "must be at least 1 (samples in the traced "
                           "batch), not " +
                               llvm::Twine(graph.batch));
    }
    for (auto [id, node] : llvm::enumerate(*nodes))
      if (!readNode(node, path.field("nodes").index(id), id, nodes->size(),
                    graph))
        return false;
    for (auto [i, out] : llvm::enumerate(fields.outputs)) {
      if (out.value < 0 || out.value >= graph.size())
        return errors.fail(path.field("outputs").index(i),
                           "node " + llvm::Twine(out.value) +
                               " does not exist");
      graph.outputs.push_back(static_cast<int>(out.value));
    }
    std::string problem = graph.check();
    if (!problem.empty())
      return errors.fail(path.field("graph"), problem);
    return true;
  }

private:
  bool readNode(const json::Value &value, json::Path path, size_t id,
                size_t count, Graph &graph) {
    const json::Object *object = value.getAsObject();
    if (!object)
      return errors.fail(path, "expected an object");
    NodeFields fields;
    if (!requireKeys(*object, {"bytes"}, path, errors) ||
        !fromJSON(value, fields, path))
      return false;
    if (fields.id && fields.id->value != static_cast<int64_t>(id))
      return errors.fail(path.field("id"), "is " +
                                               llvm::Twine(fields.id->value) +
                                               "; ids must equal positions (" +
                                               llvm::Twine(id) + ")");
    Node node;
    node.name = fields.name.value_or("");
    node.module = fields.path.value_or("");
    node.op = fields.op.value_or("");
    if (!readSizes(fields, path, node) || !readKind(fields, path, node) ||
        !readDeps(fields, path, id, count, node))
      return false;
    graph.nodes.push_back(std::move(node));
    return true;
  }

  /// bytes, cost and their per-sample parts.
  bool readSizes(const NodeFields &fields, json::Path path, Node &node) {
    node.bytes = fields.bytes.value;
    if (node.bytes < 0)
      return errors.fail(path.field("bytes"),
                         "negative size " + llvm::Twine(node.bytes));
    if (fields.bytesPerSample) {
      node.bytesPerSample = fields.bytesPerSample->value;
      if (node.bytesPerSample < 0)
        return errors.fail(path.field("bytes_per_sample"),
                           "must not be negative");
    }
    if (fields.partBytes && !readPartBytes(*fields.partBytes, path, node))
      return false;
    for (auto [key, field, out] :
         {std::make_tuple("cost", fields.cost, &node.cost),
          std::make_tuple("cost_per_sample", fields.costPerSample,
                          &node.costPerSample)}) {
      if (!field)
        continue;
      if (field->value < 0)
        return errors.fail(path.field(key), "negative cost");
      *out = field->value;
    }
    return true;
  }

  /// The bytes of each result of a node with several: each non-negative,
  /// summing to the node's bytes.
  bool readPartBytes(const std::vector<JSONInt> &parts, json::Path path,
                     Node &node) {
    int64_t sum = 0;
    for (size_t i = 0; i < parts.size(); ++i) {
      if (parts[i].value < 0 || parts[i].value > node.bytes - sum)
        return errors.fail(path.field("part_bytes").index(i),
                           "must not be negative, and the parts must sum to "
                           "the node's bytes (" +
                               llvm::Twine(node.bytes) + ")");
      sum += parts[i].value;
      node.partBytes.push_back(parts[i].value);
    }
    if (sum != node.bytes)
      return errors.fail(path.field("part_bytes"),
                         "sums to " + llvm::Twine(sum) + ", not the node's " +
                             llvm::Twine(node.bytes) + " bytes");
    return true;
  }

  /// kind, keep and gather.
  bool readKind(const NodeFields &fields, json::Path path, Node &node) {
    if (fields.kind) {
      std::optional<NodeKind> kind =
          llvm::StringSwitch<std::optional<NodeKind>>(*fields.kind)
              .Case("input", NodeKind::Input)
              .Case("param", NodeKind::Param)
              .Case("forward", NodeKind::Forward)
              .Case("backward", NodeKind::Backward)
              .Default(std::nullopt);
      if (!kind)
        return errors.fail(path.field("kind"),
                           "unknown kind '" + *fields.kind +
                               "' (expected input, param, forward or "
                               "backward)");
      node.kind = *kind;
    }
    if (fields.keep) {
      std::optional<KeepPolicy> keep =
          llvm::StringSwitch<std::optional<KeepPolicy>>(*fields.keep)
              .Case("always", KeepPolicy::Always)
              .Case("never", KeepPolicy::Never)
              .Case("default", KeepPolicy::Default)
              .Default(std::nullopt);
      if (!keep)
        return errors.fail(path.field("keep"),
                           "unknown keep policy '" + *fields.keep +
                               "' (expected always, never or default)");
      node.keep = *keep;
    }
    if (fields.gather) {
      std::optional<GatherRole> role =
          llvm::StringSwitch<std::optional<GatherRole>>(*fields.gather)
              .Case("gather", GatherRole::Gather)
              .Case("derived", GatherRole::Derived)
              .Default(std::nullopt);
      if (!role)
        return errors.fail(path.field("gather"),
                           "unknown gather role '" + *fields.gather +
                               "' (expected gather or derived)");
      node.gather = *role;
    }
    return true;
  }

  /// The nodes listed under `key` (`what` each is, for errors) into `out`:
  /// earlier nodes only.
  bool readEarlierNodes(const std::optional<std::vector<JSONInt>> &list,
                        json::Path path, llvm::StringRef key,
                        llvm::StringRef what, size_t id, size_t count,
                        std::vector<int> &out) {
    // A json::Path refers to its parent: keep every level in a variable.
    json::Path listPath = path.field(key);
    for (auto [k, ref] :
         llvm::enumerate(list.value_or(std::vector<JSONInt>()))) {
      json::Path refPath = listPath.index(k);
      if (ref.value < 0 || ref.value >= static_cast<int64_t>(count))
        return errors.fail(
            refPath, "dangling " + what + " on node " + llvm::Twine(ref.value) +
                         " (the graph has " + llvm::Twine(count) + " nodes)");
      if (ref.value >= static_cast<int64_t>(id))
        return errors.fail(refPath,
                           what + " on node " + llvm::Twine(ref.value) +
                               ", which is not earlier: the graph has a "
                               "cycle or is not in topological order");
      out.push_back(static_cast<int>(ref.value));
    }
    return true;
  }

  /// deps, after and alias_of: earlier nodes only.
  bool readDeps(const NodeFields &fields, json::Path path, size_t id,
                size_t count, Node &node) {
    if (!readEarlierNodes(fields.deps, path, "deps", "dependency", id, count,
                          node.deps) ||
        !readEarlierNodes(fields.after, path, "after", "ordering edge", id,
                          count, node.after))
      return false;
    if (fields.aliasOf) {
      int64_t base = fields.aliasOf->value;
      if (base < 0 || base >= static_cast<int64_t>(id))
        return errors.fail(path.field("alias_of"),
                           "must name an earlier node, not " +
                               llvm::Twine(base));
      node.aliasOf = static_cast<int>(base);
    }
    return true;
  }

  JSONErrors &errors;
};

/// Reads a result JSON with its graph fingerprint; the errors go to
/// `errors`.
class ResultReader {
public:
  explicit ResultReader(JSONErrors &errors) : errors(errors) {}

  bool readResult(const json::Value &root, SavedResult &saved) {
    json::Path path = errors.root();
    const json::Object *object = root.getAsObject();
    if (!object)
      return errors.fail(path, "expected an object with \"status\", "
                               "\"steps\", \"stats\" and \"graph\"");
    std::string status;
    json::ObjectMapper o(root, path);
    return requireKeys(*object, {"graph", "status", "stats", "steps"}, path,
                       errors) &&
           readFingerprint(*object->get("graph"), path.field("graph"),
                           saved.graph) &&
           o.map("status", status) &&
           readStatus(status, path.field("status"), saved.result.status) &&
           readStats(*object->get("stats"), path.field("stats"), saved) &&
           readSteps(*object->get("steps"), path.field("steps"),
                     saved.graph.nodes, saved.result.schedule);
  }

private:
  bool readFingerprint(const json::Value &value, json::Path path,
                       GraphFingerprint &graph) {
    FingerprintFields fields;
    const json::Object *object = value.getAsObject();
    if (!object)
      return errors.fail(path, "expected an object");
    if (!requireKeys(*object, {"nodes", "structure", "bytes", "cost"}, path,
                     errors) ||
        !fromJSON(value, fields, path))
      return false;
    graph.name = fields.name.value_or("");
    graph.nodes = fields.nodes.value;
    if (graph.nodes < 0)
      return errors.fail(path.field("nodes"), "must not be negative");
    for (auto [key, text, out] :
         {std::make_tuple("structure", fields.structure, &graph.structure),
          std::make_tuple("bytes", fields.bytes, &graph.bytes),
          std::make_tuple("cost", fields.cost, &graph.cost)})
      if (text.size() != 16 || llvm::StringRef(text).getAsInteger(16, *out))
        return errors.fail(path.field(key), "expected 16 hexadecimal digits");
    return true;
  }

  bool readStatus(llvm::StringRef text, json::Path path, SolveStatus &status) {
    std::optional<SolveStatus> parsed =
        llvm::StringSwitch<std::optional<SolveStatus>>(text)
            .Case("optimal", SolveStatus::Optimal)
            .Case("feasible", SolveStatus::Feasible)
            .Case("infeasible", SolveStatus::Infeasible)
            .Case("timeout", SolveStatus::Timeout)
            .Default(std::nullopt);
    if (!parsed)
      return errors.fail(path, "unknown status '" + text +
                                   "' (expected optimal, feasible, "
                                   "infeasible or timeout)");
    status = *parsed;
    return true;
  }

  bool readStats(const json::Value &value, json::Path path,
                 SavedResult &saved) {
    StatsFields fields;
    const json::Object *object = value.getAsObject();
    if (!object)
      return errors.fail(path, "expected an object");
    if (!requireKeys(*object, {"solver", "mode"}, path, errors) ||
        !fromJSON(value, fields, path))
      return false;
    SolveResult &result = saved.result;
    result.solver = fields.solver;
    saved.mode = fields.mode;
    result.message = fields.message.value_or("");
    if (fields.budget)
      saved.budget = fields.budget->value;
    if (fields.peakBytes)
      result.peakBytes = fields.peakBytes->value;
    if (fields.cost)
      result.cost = fields.cost->value;
    if (fields.lowerBound)
      result.lowerBound = fields.lowerBound->value;
    return true;
  }

  bool readSteps(const json::Value &stepsValue, json::Path path,
                 int64_t numNodes, Schedule &schedule) {
    const json::Array *steps = stepsValue.getAsArray();
    if (!steps)
      return errors.fail(path, "expected an array");
    for (auto [i, value] : llvm::enumerate(*steps)) {
      json::Path stepPath = path.index(i);
      const json::Object *object = value.getAsObject();
      if (!object)
        return errors.fail(stepPath, "expected an object");
      StepFields step;
      if (!requireKeys(*object, {"op", "node"}, stepPath, errors) ||
          !fromJSON(value, step, stepPath))
        return false;
      std::optional<Step::Kind> kind = parseStepKind(step.op);
      if (!kind)
        return errors.fail(stepPath.field("op"),
                           "unknown op '" + step.op +
                               "' (expected compute, free, offload or "
                               "prefetch)");
      if (step.node.value < 0 || step.node.value >= numNodes)
        return errors.fail(stepPath.field("node"),
                           "node " + llvm::Twine(step.node.value) +
                               " does not exist (the graph has " +
                               llvm::Twine(numNodes) + " nodes)");
      int id = static_cast<int>(step.node.value);
      schedule.steps.push_back({*kind, id});
    }
    return true;
  }

  JSONErrors &errors;
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

bool remat::parseGraphJSON(const std::string &text, Graph &graph,
                           std::string &error) {
  graph = Graph();
  llvm::Expected<json::Value> root = parseJSON(text);
  if (!root) {
    error = llvm::toString(root.takeError());
    return false;
  }
  JSONErrors errors;
  if (!GraphReader(errors).readGraph(*root, graph)) {
    error = errors.getMessage();
    return false;
  }
  return true;
}

bool remat::parseResultJSON(const std::string &text, SavedResult &saved,
                            std::string &error) {
  saved = SavedResult();
  llvm::Expected<json::Value> root = parseJSON(text);
  if (!root) {
    error = llvm::toString(root.takeError());
    return false;
  }
  JSONErrors errors;
  if (!ResultReader(errors).readResult(*root, saved)) {
    error = errors.getMessage();
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
    // Hashed only when present, so that graphs without ordering edges keep
    // the fingerprints they had before the edges existed.
    if (!node.after.empty()) {
      structure.add(-static_cast<int64_t>(node.after.size()) - 1);
      for (int before : node.after)
        structure.add(static_cast<int64_t>(before));
    }
    // Likewise gather roles.
    if (node.gather != GatherRole::None)
      structure.add(-1000 - static_cast<int64_t>(node.gather));
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
    return "the structure (node kinds, dependencies, ordering edges, views, "
           "pins or outputs)";
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
    if (!node.after.empty())
      object["after"] = json::Array(node.after);
    if (!node.partBytes.empty())
      object["part_bytes"] = json::Array(node.partBytes);
    if (node.keep != KeepPolicy::Default)
      object["keep"] = node.keep == KeepPolicy::Always ? "always" : "never";
    if (node.gather != GatherRole::None)
      object["gather"] =
          node.gather == GatherRole::Gather ? "gather" : "derived";
    if (!node.module.empty())
      object["path"] = node.module;
    if (!node.op.empty())
      object["op"] = node.op;
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
  if (!graph.device.empty())
    root["device"] = graph.device;
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
      os << (first ? "\n" : ",\n") << "    {\"op\": \"" << toString(step.kind)
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
  if (const std::optional<OffloadReport> &offload = report.offload) {
    stats.push_back({"host_link", offload->link});
    stats.push_back({"predicted_time", orNull(feasible, offload->time)});
    stats.push_back({"stall", orNull(feasible, offload->stall)});
    stats.push_back(
        {"host_peak_bytes", orNull(feasible, offload->hostPeakBytes)});
    stats.push_back({"copies", orNull(feasible, offload->copies)});
    stats.push_back({"bytes_moved", orNull(feasible, offload->bytesMoved)});
    if (offload->hostNeeded >= 0)
      stats.push_back({"host_needed", offload->hostNeeded});
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

//===- HostLink.cpp - the link between device and host memory -------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Core/HostLink.h"

#include "remat/Solver/Core/Budget.h"

using namespace remat;

namespace {
struct HostLinkPreset {
  const char *name;
  double bytesPerSecond;
  double latencySeconds;
};
} // namespace

/// The presets (file comment of HostLink.h).
static const HostLinkPreset kPresets[] = {
    {"pcie4", 31.5e9, 5e-6},
    {"pcie5", 63e9, 5e-6},
    {"c2c", 450e9, 2e-6},
    // Copies take no time: the most offloading can give (what a plan would
    // gain if every copy hid behind compute).
    {"ideal", 1e30, 0},
};

std::optional<HostLink> remat::findHostLink(const std::string &name,
                                            const Graph &graph) {
  for (const HostLinkPreset &preset : kPresets) {
    if (name != preset.name)
      continue;
    HostLink link;
    link.name = preset.name;
    link.bytesPerSecond = preset.bytesPerSecond;
    link.latencySeconds = preset.latencySeconds;
    link.costPerSecond = graph.device.empty() ? 1e13 : 1e12;
    return link;
  }
  return std::nullopt;
}

std::string remat::hostLinkNames() {
  std::string names = "none";
  for (const HostLinkPreset &preset : kPresets)
    names += std::string(", ") + preset.name;
  return names;
}

std::optional<int64_t> remat::parseHostBudget(const std::string &text,
                                              std::string &error) {
  if (text.find('%') != std::string::npos) {
    error = "expected bytes, not a percentage";
    return std::nullopt;
  }
  return parseBudget(text, 0, error);
}

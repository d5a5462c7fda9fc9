// Process grid shape and per-process names for vm-run and vm-check
// (tools/common/grid_support.h).
#include "tools/common/grid_support.h"

namespace kiln::tools {

StatusOr<GridShape> ResolveGrid(std::optional<int> replicas_flag, std::optional<int> partitions_flag,
                                const vm::LoadedModule& module) {
  // A flag given as 0 is refused like a negative one: it would otherwise
  // quietly mean "the module's value".
  if ((replicas_flag && *replicas_flag <= 0) || (partitions_flag && *partitions_flag <= 0))
    return InvalidArgument("--replicas and --partitions must be positive");
  GridShape g;
  g.replicas = replicas_flag ? static_cast<uint32_t>(*replicas_flag) : module.num_replicas;
  g.partitions = partitions_flag ? static_cast<uint32_t>(*partitions_flag) : module.num_partitions;
  if (g.replicas == 0 || g.partitions == 0 || uint64_t{g.replicas} * g.partitions > 4096)
    return InvalidArgument("a process grid of " + std::to_string(g.replicas) + "x" + std::to_string(g.partitions) +
                           " is out of range (at most 4096 processes)");
  return g;
}

std::string ExpandProcess(const std::string& text, uint32_t replica, uint32_t partition, uint32_t partitions) {
  std::string out = text;
  auto replace = [&](const std::string& key, const std::string& value) {
    for (size_t at = out.find(key); at != std::string::npos; at = out.find(key, at + value.size()))
      out.replace(at, key.size(), value);
  };
  replace("{replica}", std::to_string(replica));
  replace("{partition}", std::to_string(partition));
  replace("{process}", std::to_string(replica * partitions + partition));
  return out;
}

StatusOr<std::chrono::milliseconds> CollectiveTimeout(double seconds) {
  if (!(seconds > 0) || seconds > 1e6) return InvalidArgument("--collective-timeout must be a positive number of seconds");
  return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000.0 + 0.5));
}

}  // namespace kiln::tools

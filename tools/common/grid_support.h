// What vm-run and vm-check share about process grids: the grid's size (from
// --replicas/--partitions or the module's mhlo.num_replicas /
// mhlo.num_partitions) and per-process input and output names.
#pragma once
#include <chrono>
#include <optional>
#include <string>

#include "kernels/common/status.h"
#include "vm/module.h"

namespace kiln::tools {

struct GridShape {
  uint32_t replicas = 1, partitions = 1;
  uint32_t size() const { return replicas * partitions; }
};

// A flag not given (nullopt) takes the module's attribute; a given flag must
// be positive (0 is refused like a negative count).
StatusOr<GridShape> ResolveGrid(std::optional<int> replicas_flag, std::optional<int> partitions_flag,
                                const vm::LoadedModule& module);

// Replaces {replica}, {partition} and {process} (the flattened id
// r * partitions + p) in `text`, so one --input or --output names a file per
// grid process: --input=@x.{process}.npy.
std::string ExpandProcess(const std::string& text, uint32_t replica, uint32_t partition, uint32_t partitions);

// --collective-timeout=SECONDS as a duration; refuses values <= 0.
StatusOr<std::chrono::milliseconds> CollectiveTimeout(double seconds);

}  // namespace kiln::tools

#include "compiler/externalize.h"

#include <algorithm>
#include <cstdio>

#define XXH_INLINE_ALL  // as schema/module_checksum.h: no shared library
#include <xxhash.h>

#include "kernels/common/json_quote.h"
#include "schema/safetensors_dtype.h"

namespace kiln::compiler {

StatusOr<std::vector<uint8_t>> WriteSafetensors(const std::vector<SafetensorsEntryOut>& tensors,
                                                const std::vector<std::pair<std::string, std::string>>& metadata) {
  std::vector<size_t> order(tensors.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return StorageBytes(tensors[a].type) > StorageBytes(tensors[b].type);
  });
  std::vector<uint64_t> begin(tensors.size());
  uint64_t pos = 0;
  for (size_t i : order) {
    begin[i] = pos;
    pos += tensors[i].data->size();
  }
  std::string header = "{";
  for (size_t i = 0; i < tensors.size(); ++i) {
    const auto& t = tensors[i];
    const char* dtype = SafetensorsDtype(t.type);
    if (!dtype) return InvalidArgument("safetensors has no dtype for " + std::string(Name(t.type)) + " ('" + t.key + "')");
    header += (i ? "," : "") + JsonQuote(t.key) + ":{\"dtype\":\"" + dtype + "\",\"shape\":[";
    for (size_t d = 0; d < t.dims.size(); ++d) header += (d ? "," : "") + std::to_string(t.dims[d]);
    header += "],\"data_offsets\":[" + std::to_string(begin[i]) + "," + std::to_string(begin[i] + t.data->size()) + "]}";
  }
  if (!metadata.empty()) {
    header += std::string(tensors.empty() ? "" : ",") + "\"__metadata__\":{";
    for (size_t i = 0; i < metadata.size(); ++i)
      header += (i ? "," : "") + JsonQuote(metadata[i].first) + ":" + JsonQuote(metadata[i].second);
    header += "}";
  }
  header += "}";
  while ((8 + header.size()) % 64) header += ' ';  // padding the format allows
  std::vector<uint8_t> file(8 + header.size() + pos);
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) file[i] = static_cast<uint8_t>(n >> (8 * i));
  std::copy(header.begin(), header.end(), file.begin() + 8);
  for (size_t i = 0; i < tensors.size(); ++i)
    std::copy(tensors[i].data->begin(), tensors[i].data->end(), file.begin() + 8 + header.size() + begin[i]);
  return file;
}

StatusOr<std::vector<uint8_t>> ExternalizeConstants(ModuleBuilder* builder, uint64_t min_bytes,
                                                     const std::string& scope, size_t* moved) {
  std::vector<SafetensorsEntryOut> entries;
  std::vector<size_t> chosen;
  for (size_t i = 0; i < builder->constants.size(); ++i) {
    ConstantOut& c = builder->constants[i];
    if (c.parameter || c.data.empty() || c.data.size() < min_bytes || !SafetensorsDtype(c.type)) continue;
    entries.push_back(SafetensorsEntryOut{"constant." + std::to_string(i), c.type, c.dims, &c.data});
    chosen.push_back(i);
  }
  KILN_ASSIGN_OR_RETURN(auto file, WriteSafetensors(entries, {{"producer", "kiln-compile"}}));
  for (size_t k = 0; k < chosen.size(); ++k) {
    ConstantOut& c = builder->constants[chosen[k]];
    c.parameter = ParameterOut{scope, entries[k].key, true, XXH64(c.data.data(), c.data.size(), 0)};
    c.data.clear();
    c.data.shrink_to_fit();
  }
  if (moved) *moved = chosen.size();
  return file;
}

}  // namespace kiln::compiler

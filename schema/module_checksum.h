// The module file's checksums (format 0.3, schema/README.md): which bytes
// each covers, computed one way for the writer (compiler/module_builder.cc)
// and the loader (vm/module_loader.cc). Header-only, over the FlatBuffers
// accessors, so both sides share it without a new library.
//
// - Constant.checksum: xxHash64 (seed 0) of the constant's stored `data`.
// - Module.checksum: xxHash64 (seed 0) of the file's bytes in order, leaving
//   out that field's own 8 bytes and every constant's `data` bytes. It covers
//   every other table, the bytecode, the executables, the shaders and the
//   constants' checksums, without reading the constants' data, so checking it
//   costs the same for a small and a large module.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#define XXH_INLINE_ALL  // header-only: the runtime gains no shared library
#include <xxhash.h>

#include "schema/module_generated.h"

namespace kiln::fb {

// Where a scalar field of `table` is stored, or null when the file leaves it
// out (it then reads as the schema's default).
inline const uint8_t* StoredField(const void* table, flatbuffers::voffset_t field) {
  return static_cast<const flatbuffers::Table*>(table)->GetAddressOf(field);
}

inline uint64_t ConstantDataChecksum(const Constant& c) {
  const auto* data = c.data();
  return data ? XXH64(data->data(), data->size(), 0) : XXH64(nullptr, 0, 0);
}

// Module.checksum of `file`, whose FlatBuffers structure has been verified
// (every vector lies inside the file).
inline uint64_t ModuleChecksum(const uint8_t* file, size_t size, const Module& m) {
  std::vector<std::pair<size_t, size_t>> gaps;  // [begin, end) byte ranges left out
  if (const uint8_t* field = StoredField(&m, Module::VT_CHECKSUM))
    gaps.emplace_back(field - file, field - file + sizeof(uint64_t));
  if (m.constants())
    for (const Constant* c : *m.constants())
      if (c->data() && c->data()->size())
        gaps.emplace_back(c->data()->data() - file, c->data()->data() - file + c->data()->size());
  std::sort(gaps.begin(), gaps.end());
  XXH64_state_t state;
  XXH64_reset(&state, 0);
  size_t pos = 0;
  for (const auto& [begin, end] : gaps) {  // overlapping ranges leave out their union
    if (begin > pos) XXH64_update(&state, file + pos, begin - pos);
    pos = std::max(pos, std::min(end, size));
  }
  if (pos < size) XXH64_update(&state, file + pos, size - pos);
  return XXH64_digest(&state);
}

// Writes the checksums into a finished module (constants' first, which the
// module's covers). The fields must be stored (the writer forces defaults);
// false if one is not.
inline bool SealModule(std::vector<uint8_t>* file) {
  uint8_t* base = file->data();
  const Module* m = GetModule(base);
  if (m->constants())
    for (const Constant* c : *m->constants()) {
      const uint8_t* field = StoredField(c, Constant::VT_CHECKSUM);
      if (!field) return false;
      flatbuffers::WriteScalar(base + (field - base), ConstantDataChecksum(*c));
    }
  const uint8_t* field = StoredField(m, Module::VT_CHECKSUM);
  if (!field) return false;
  flatbuffers::WriteScalar(base + (field - base), ModuleChecksum(base, file->size(), *m));
  return true;
}

}  // namespace kiln::fb

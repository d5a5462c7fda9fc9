// The module file's checksums (format 0.3, schema/README.md): which bytes
// each covers, computed one way for the writer (compiler/module_builder.cc)
// and the loader (vm/module_loader.cc). Header-only, over the FlatBuffers
// accessors, so both sides share it without a new library.
//
// - Constant.checksum: xxHash64 (seed 0) of the constant's stored bytes
//   (its range of the data segment from 0.5 on, its `data` vector before).
// - Module.checksum: xxHash64 (seed 0) of the metadata's bytes in order
//   (from 0.5 on everything before the data segment; before, the whole file
//   leaving out every constant's `data` bytes), leaving out that field's own
//   8 bytes. It covers every table, the bytecode, the executables, the
//   shaders and the constants' checksums, without reading the constants'
//   data, so checking it costs the same for a small and a large module.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#define XXH_INLINE_ALL  // header-only: the runtime gains no shared library
#include <xxhash.h>

#include "schema/module_generated.h"
#include "schema/module_layout.h"

namespace kiln::fb {

// Where a scalar field of `table` is stored, or null when the file leaves it
// out (it then reads as the schema's default).
inline const uint8_t* StoredField(const void* table, flatbuffers::voffset_t field) {
  return static_cast<const flatbuffers::Table*>(table)->GetAddressOf(field);
}

// Module.checksum of the metadata `file[0, size)`, whose FlatBuffers
// structure has been verified (every vector lies inside it). From 0.5 on
// `size` is the data segment's offset, and no constant has a `data` vector.
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
// module's covers). The fields must be stored (the writer forces defaults)
// and a 0.5 file's data segment must lie inside it; false if not.
inline bool SealModule(std::vector<uint8_t>* file) {
  uint8_t* base = file->data();
  const Module* m = GetModule(base);
  size_t metadata = file->size();
  if (m->version_minor() >= kFirstSegmentMinor) {
    if (m->data_segment_offset() > file->size()) return false;
    metadata = static_cast<size_t>(m->data_segment_offset());
  }
  if (m->constants())
    for (const Constant* c : *m->constants()) {
      const uint8_t* field = StoredField(c, Constant::VT_CHECKSUM);
      if (!field) return false;
      const std::span<const uint8_t> bytes = StoredBytes(base, file->size(), *m, *c);
      flatbuffers::WriteScalar(base + (field - base), XXH64(bytes.data(), bytes.size(), 0));
    }
  const uint8_t* field = StoredField(m, Module::VT_CHECKSUM);
  if (!field) return false;
  flatbuffers::WriteScalar(base + (field - base), ModuleChecksum(base, metadata, *m));
  return true;
}

}  // namespace kiln::fb

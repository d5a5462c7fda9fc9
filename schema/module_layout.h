// Where a module file's parts lie (format 0.5, schema/README.md "Layout"):
// the FlatBuffer (all the metadata) first, then the data segment holding the
// constants' stored bytes. Up to 0.4 each constant's bytes were a `data`
// vector inside the FlatBuffer, next to its 4-byte length, so verifying the
// file touched a page of every constant. Shared by the writer
// (compiler/module_builder.cc), the loader (vm/module_loader.cc,
// vm/module_bytes.cc) and the checksums (schema/module_checksum.h).
#pragma once
#include <cstdint>
#include <optional>
#include <span>

#include "schema/module_generated.h"

namespace kiln::fb {

// The data segment starts at a multiple of kSegmentAlignment bytes once it
// holds at least that many (the writer pads the metadata up to it): 64 KiB
// is the largest base page size among the targets (arm64 kernels with 64 KiB
// pages), so the segment starts on a page of its own everywhere, and it is
// the kernel's default fault-around window, so a reader that maps the file
// and touches its metadata does not map a constant's page with it. 2 MiB
// (a huge page) would pad every module file by up to 2 MiB. A smaller
// segment starts at a multiple of kConstantAlignment only: its constants are
// too small for their pages to matter, and the module stays small.
constexpr uint64_t kSegmentAlignment = uint64_t{1} << 16;
// Every constant starts at a multiple of this within the segment, so a
// mapped constant is used in place by the SIMD kernels.
constexpr uint64_t kConstantAlignment = 64;

// The first minor version (of major 0) with a data segment.
constexpr uint16_t kFirstSegmentMinor = 5;

struct DataSegment {
  uint64_t offset = 0;  // from the file's start
  uint64_t size = 0;
};

// The data segment that the root table of `head` (the file's first bytes,
// or all of it) declares, reading and bounds-checking only the root table's
// two fields: for a loader that must know where the metadata ends before it
// verifies it. None when the file declares none (format 0.4 and older; a
// 0.5 file without one is refused once verified) or
// `head` does not hold the root table. The values are unchecked.
inline std::optional<DataSegment> FindDataSegment(const uint8_t* head, size_t head_size) {
  if (head_size < sizeof(flatbuffers::uoffset_t) || head_size >= FLATBUFFERS_MAX_BUFFER_SIZE)
    return std::nullopt;
  flatbuffers::Verifier verifier(head, head_size);
  const auto root = flatbuffers::ReadScalar<flatbuffers::uoffset_t>(head);
  if (root >= head_size) return std::nullopt;
  const auto* table = reinterpret_cast<const flatbuffers::Table*>(head + root);
  if (!table->VerifyTableStart(verifier) ||
      !table->VerifyField<uint64_t>(verifier, Module::VT_DATA_SEGMENT_OFFSET, 8) ||
      !table->VerifyField<uint64_t>(verifier, Module::VT_DATA_SEGMENT_SIZE, 8) ||
      !table->VerifyField<uint16_t>(verifier, Module::VT_VERSION_MINOR, 2))
    return std::nullopt;
  if (table->GetField<uint16_t>(Module::VT_VERSION_MINOR, 0) < kFirstSegmentMinor ||
      !table->GetAddressOf(Module::VT_DATA_SEGMENT_OFFSET))
    return std::nullopt;
  return DataSegment{table->GetField<uint64_t>(Module::VT_DATA_SEGMENT_OFFSET, 0),
                     table->GetField<uint64_t>(Module::VT_DATA_SEGMENT_SIZE, 0)};
}

// A constant's stored bytes within `file`: its range in the data segment
// (0.5) or its `data` vector (older). For a file whose ranges the loader (or
// the writer) has checked; an out-of-range one gives an empty span.
inline std::span<const uint8_t> StoredBytes(const uint8_t* file, size_t file_size, const Module& m,
                                            const Constant& c) {
  if (m.version_minor() < kFirstSegmentMinor) {
    if (!c.data()) return {};
    return {c.data()->data(), c.data()->size()};
  }
  const uint64_t begin = m.data_segment_offset() + c.data_offset();
  if (begin < c.data_offset() || begin > file_size || c.data_size() > file_size - begin) return {};
  return {file + begin, static_cast<size_t>(c.data_size())};
}

}  // namespace kiln::fb

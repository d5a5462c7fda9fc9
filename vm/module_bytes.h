// Where a loaded module's bytes live. The loader verifies them in place and
// the constants point into them, so they stay put and unchanged for the
// module's life: a read-only mapping of the file (the default for a file: only
// the pages a run touches are read, and they are the page cache's, not this
// process's copy), a copy the module owns (read from a file, or handed over
// as a vector), or memory the caller lends and gets back through a release
// callback when the module is gone.
//
// A mapped file of format 0.5 (schema/module_layout.h) also keeps a copy of
// its metadata (everything before the data segment), read with pread: the
// loader verifies that copy, so opening touches no page of the mapping. A
// page-cache folio holds up to 2 MiB of a file, and a fault on one byte of
// it maps all of it into the process (RSS); touching the metadata through
// the mapping would map the constants that share its folios.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "kernels/common/status.h"

namespace kiln::vm {

class ModuleBytes {
 public:
  enum class Source : uint8_t { kMapped, kOwned, kBorrowed };

  // The file mapped read-only. A file that cannot be mapped (a pipe, a
  // character device, an empty file) is read instead. Errors name the path as
  // ReadFile's do (kernels/common/file_io.h).
  static StatusOr<std::unique_ptr<ModuleBytes>> Map(const std::string& path);
  // The file read into memory the module owns.
  static StatusOr<std::unique_ptr<ModuleBytes>> Read(const std::string& path);
  static std::unique_ptr<ModuleBytes> Own(std::vector<uint8_t> bytes);
  // The caller's bytes, used in place; `release` (may be empty) runs once,
  // when these ModuleBytes are destroyed.
  static std::unique_ptr<ModuleBytes> Borrow(std::span<const uint8_t> bytes, std::function<void()> release);

  ModuleBytes(const ModuleBytes&) = delete;
  ModuleBytes& operator=(const ModuleBytes&) = delete;
  ~ModuleBytes();

  // The whole file; constants point into it.
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  std::span<const uint8_t> span() const { return {data_, size_}; }
  // What the loader reads the FlatBuffer from: for a mapped 0.5 file, the
  // copy of its metadata; otherwise the whole file, in place.
  std::span<const uint8_t> metadata() const {
    return metadata_.empty() ? span() : std::span<const uint8_t>(metadata_);
  }
  Source source() const { return source_; }
  const char* SourceName() const;

 private:
  ModuleBytes() = default;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  Source source_ = Source::kOwned;
  std::vector<uint8_t> owned_;
  std::vector<uint8_t> metadata_;  // a mapped 0.5 file's metadata, read
  void* mapping_ = nullptr;  // munmap'd by the destructor
  std::function<void()> release_;
};

}  // namespace kiln::vm

// Loading test modules the way the tools load files: written to a temporary
// file and mapped read-only (LoadModuleFromFile's default), so that a write
// to a constant faults instead of going unnoticed. The file is removed at
// once; the mapping keeps its pages.
#pragma once
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <span>

#include <cstdlib>
#include <string>
#include <vector>

#include "kernels/common/file_io.h"
#include "vm/module.h"

namespace kiln::test {

// Writes `bytes` to a fresh file under TMPDIR (or /tmp); returns its path.
inline std::string WriteTempModule(const std::vector<uint8_t>& bytes) {
  const char* dir = std::getenv("TMPDIR");
  std::string path = std::string(dir && *dir ? dir : "/tmp") + "/kiln-test-XXXXXX";
  int fd = mkstemp(path.data());
  EXPECT_GE(fd, 0) << path;
  if (fd >= 0) close(fd);
  EXPECT_TRUE(WriteFile(path, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size())).ok());
  return path;
}

inline StatusOr<std::shared_ptr<const vm::LoadedModule>> LoadMapped(const std::vector<uint8_t>& bytes,
                                                                    vm::LoadOptions options = vm::LoadOptions{}) {
  const std::string path = WriteTempModule(bytes);
  options.map_file = true;
  auto m = vm::LoadModuleFromFile(path, options);
  unlink(path.c_str());
  if (m.ok()) {
    EXPECT_EQ((*m)->bytes->source(), vm::ModuleBytes::Source::kMapped);
  }
  return m;
}

// A copy of `bytes` in its own read-only pages, as a mapped file's are: a
// module loaded from span() in place (LoadModuleBorrowed) faults on a write
// to a constant. Flip makes the pages writable for one change.
class ReadOnlyBytes {
 public:
  explicit ReadOnlyBytes(const std::vector<uint8_t>& bytes) : size_(bytes.size()) {
    void* p = mmap(nullptr, size_ ? size_ : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT_NE(p, MAP_FAILED);
    data_ = static_cast<uint8_t*>(p);
    if (size_) std::memcpy(data_, bytes.data(), size_);
    Protect(PROT_READ);
  }
  ReadOnlyBytes(const ReadOnlyBytes&) = delete;
  ReadOnlyBytes& operator=(const ReadOnlyBytes&) = delete;
  ~ReadOnlyBytes() { munmap(data_, size_ ? size_ : 1); }
  std::span<const uint8_t> span() const { return {data_, size_}; }
  void Flip(size_t i, uint8_t bits) {
    Protect(PROT_READ | PROT_WRITE);
    data_[i] ^= bits;
    Protect(PROT_READ);
  }

 private:
  void Protect(int prot) { EXPECT_EQ(mprotect(data_, size_ ? size_ : 1, prot), 0); }
  uint8_t* data_;
  size_t size_;
};

}  // namespace kiln::test

// ModuleBytes (vm/module_bytes.h): mapping, reading, owning or borrowing a
// module's bytes.
#include "vm/module_bytes.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "kernels/common/file_io.h"
#include "schema/module_layout.h"

namespace kiln::vm {
namespace {

// Reads exactly `n` bytes at `offset`; false on an error or a short file.
bool ReadAt(int fd, uint8_t* out, size_t n, uint64_t offset) {
  while (n > 0) {
    const ssize_t got = ::pread(fd, out, n, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    out += got;
    n -= static_cast<size_t>(got);
    offset += static_cast<uint64_t>(got);
  }
  return true;
}

// The metadata of a 0.5 file (everything before its data segment), read
// through `fd`; empty when the file has no segment that fits in it, and the
// loader then reads the metadata through the mapping (and refuses what is
// wrong with it). The writer puts the root table at the file's start, so
// the first 64 KiB hold it (FlatBuffers builds back to front).
std::vector<uint8_t> ReadMetadata(int fd, size_t file_size) {
  std::vector<uint8_t> head(std::min<size_t>(file_size, size_t{1} << 16));
  if (!ReadAt(fd, head.data(), head.size(), 0)) return {};
  const std::optional<fb::DataSegment> segment = fb::FindDataSegment(head.data(), head.size());
  if (!segment || segment->offset == 0 || segment->offset > file_size) return {};
  const size_t have = head.size();
  head.resize(static_cast<size_t>(segment->offset));
  if (head.size() > have && !ReadAt(fd, head.data() + have, head.size() - have, have)) return {};
  return head;
}

}  // namespace

StatusOr<std::unique_ptr<ModuleBytes>> ModuleBytes::Read(const std::string& path) {
  KILN_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return Own(std::vector<uint8_t>(text.begin(), text.end()));
}

StatusOr<std::unique_ptr<ModuleBytes>> ModuleBytes::Map(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  // Every failure to open, and every file that is not a regular non-empty
  // one, goes the reading way, which has the messages for them.
  if (fd < 0) return Read(path);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) {
    ::close(fd);
    return Read(path);
  }
  const size_t size = static_cast<size_t>(st.st_size);
  // MAP_PRIVATE: a later write to the file by another process is not meant
  // to reach a running module (though on Linux unmodified private pages
  // still show it; docs/deploying.md: replace a module file, never rewrite
  // it in place).
  void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  const int e = errno;
  std::vector<uint8_t> metadata = p == MAP_FAILED ? std::vector<uint8_t>() : ReadMetadata(fd, size);
  ::close(fd);  // the mapping keeps the file
  if (p == MAP_FAILED) {
    if (e == ENOMEM) return ResourceExhausted("cannot map '" + path + "': " + std::strerror(e));
    return Read(path);  // a file system without mmap
  }
  std::unique_ptr<ModuleBytes> b(new ModuleBytes());
  b->data_ = static_cast<const uint8_t*>(p);
  b->size_ = size;
  b->source_ = Source::kMapped;
  b->mapping_ = p;
  b->metadata_ = std::move(metadata);
  return b;
}

std::unique_ptr<ModuleBytes> ModuleBytes::Own(std::vector<uint8_t> bytes) {
  std::unique_ptr<ModuleBytes> b(new ModuleBytes());
  b->owned_ = std::move(bytes);
  b->data_ = b->owned_.data();
  b->size_ = b->owned_.size();
  b->source_ = Source::kOwned;
  return b;
}

std::unique_ptr<ModuleBytes> ModuleBytes::Borrow(std::span<const uint8_t> bytes, std::function<void()> release) {
  std::unique_ptr<ModuleBytes> b(new ModuleBytes());
  b->data_ = bytes.data();
  b->size_ = bytes.size();
  b->source_ = Source::kBorrowed;
  b->release_ = std::move(release);
  return b;
}

ModuleBytes::~ModuleBytes() {
  if (mapping_) ::munmap(mapping_, size_);
  if (release_) release_();
}

const char* ModuleBytes::SourceName() const {
  switch (source_) {
    case Source::kMapped: return "mapped";
    case Source::kOwned: return "read";
    case Source::kBorrowed: return "borrowed";
  }
  return "?";
}

}  // namespace kiln::vm

// ModuleBytes (vm/module_bytes.h): mapping, reading, owning or borrowing a
// module's bytes.
#include "vm/module_bytes.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "kernels/common/file_io.h"

namespace kiln::vm {

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

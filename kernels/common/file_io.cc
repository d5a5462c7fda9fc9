// Whole-file reads and writes over POSIX calls (kernels/common/file_io.h):
// errno gives each failure its reason, and nothing throws.
#include "kernels/common/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace kiln {

StatusOr<std::string> ReadFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    if (e == EISDIR) return InvalidArgument("'" + path + "' is a directory");
    std::string why = "cannot open '" + path + "': " + std::strerror(e);
    return e == ENOENT || e == ENOTDIR ? NotFound(why) : InvalidArgument(why);
  }
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    return InvalidArgument("'" + path + "' is a directory");
  }
  std::string bytes;
  if (st.st_size > 0) bytes.reserve(static_cast<size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      ::close(fd);
      if (e == EISDIR) return InvalidArgument("'" + path + "' is a directory");
      return InvalidArgument("cannot read '" + path + "': " + std::strerror(e));
    }
    bytes.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return bytes;
}

Status WriteFile(const std::string& path, std::string_view bytes) {
  auto failed = [&](int e) { return InvalidArgument("failed writing '" + path + "': " + std::strerror(e)); };
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) return failed(errno);
  const char* p = bytes.data();
  size_t left = bytes.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      ::close(fd);
      return failed(e);
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  // close reports a deferred write error (NFS, some full-disk cases).
  if (::close(fd) != 0) return failed(errno);
  return Status::Ok();
}

}  // namespace kiln

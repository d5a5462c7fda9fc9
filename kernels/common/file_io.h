// Reading and writing whole files with every failure as a Status: the
// module loader, the compiler's driver and the tools all read and write
// through here, so a directory, an unreadable path or a full disk is a clear
// message everywhere rather than a C++ stream exception or a silent loss
// (std::istreambuf_iterator over a directory throws from the stream buffer,
// and an unflushed std::ofstream drops its write error). It lives in
// kernels/common beside Status for the reason status.h gives.
#pragma once
#include <string>
#include <string_view>

#include "kernels/common/status.h"

namespace kiln {

// The file's bytes. Errors: "'<path>' is a directory", "cannot open '<path>':
// <strerror>" (a NotFound status where no such file exists), "cannot read
// '<path>': <strerror>".
StatusOr<std::string> ReadFile(const std::string& path);

// Creates or truncates `path` and writes `bytes`, then closes it. Any failure
// (opening, writing, flushing, closing: /dev/full, a full disk) is
// "failed writing '<path>'" with the system's reason.
Status WriteFile(const std::string& path, std::string_view bytes);

}  // namespace kiln

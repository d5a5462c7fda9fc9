#include "tools/common/byte_size.h"

#include <cctype>

namespace kiln::tools {

StatusOr<uint64_t> ParseByteSize(const std::string& option, const std::string& text) {
  auto bad = [&] {
    return InvalidArgument(option + ": '" + text +
                           "' is not a size (a whole number of bytes, optionally with K, M or G: 512M)");
  };
  size_t i = 0;
  uint64_t n = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    if (n > (uint64_t{1} << 50)) return bad();
    n = n * 10 + static_cast<uint64_t>(text[i++] - '0');
  }
  if (i == 0) return bad();
  std::string suffix;
  for (; i < text.size(); ++i) suffix += static_cast<char>(std::toupper(static_cast<unsigned char>(text[i])));
  int shift = 0;
  if (suffix == "K" || suffix == "KB" || suffix == "KIB") shift = 10;
  else if (suffix == "M" || suffix == "MB" || suffix == "MIB") shift = 20;
  else if (suffix == "G" || suffix == "GB" || suffix == "GIB") shift = 30;
  else if (!suffix.empty() && suffix != "B") return bad();
  if (n == 0) return InvalidArgument(option + ": the size must be at least one byte");
  if (n > (uint64_t{1} << (50 - shift))) return InvalidArgument(option + ": '" + text + "' is too large");
  return n << shift;
}

}  // namespace kiln::tools

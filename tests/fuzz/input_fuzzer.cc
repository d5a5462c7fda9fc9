// libFuzzer target: vm-run's --input parsing (tools::ParseInput).
//  - text not starting with '@' is parsed as an --input value;
//  - text starting with '@' is taken as the bytes of an .npy file: they are
//    written to a scratch file and parsed as "@scratch.npy".
// vm-run accepts inputs of up to 2^32 elements by design; the harness skips
// values whose declared shape is over kMaxElements, so that a short text
// like "65536x65536xf32=1" is not reported as running out of memory.
// See docs/fuzzing.md.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "tools/common/tool_support.h"

namespace {

constexpr uint64_t kMaxElements = uint64_t{1} << 16;

// The declared element count of "AxBx...xTYPE=..." as ParseInput reads the
// head (decimal dimensions, hexadecimal after "0x"), saturating.
uint64_t DeclaredElements(std::string_view text) {
  std::string_view head = text.substr(0, text.find('='));
  uint64_t n = 1;
  size_t start = 0;
  for (;;) {
    size_t x = head.find('x', start);
    if (x == std::string_view::npos) break;
    std::string dim(head.substr(start, x - start));
    if (dim.empty()) break;
    // Decimal, or hexadecimal after "0x", as ParseInput reads dimensions.
    const bool hex = dim.size() > 2 && dim[0] == '0' && (dim[1] == 'x' || dim[1] == 'X');
    char* end = nullptr;
    unsigned long long d = std::strtoull(dim.c_str(), &end, hex ? 16 : 10);
    if (*end) break;
    if (d != 0 && n > UINT64_MAX / d) return UINT64_MAX;
    n *= d;
    start = x + 1;
  }
  return n;
}

// Never destroyed, so the exit handler that removes the file can use it.
const std::string& ScratchPath() {
  static const std::string* path = [] {
    const char* dir = std::getenv("TMPDIR");
    auto* p = new std::string(std::string(dir && *dir ? dir : "/tmp") + "/kiln_input_fuzzer_" +
                              std::to_string(getpid()) + ".npy");
    std::atexit([] { std::remove(ScratchPath().c_str()); });
    return p;
  }();
  return *path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  if (!text.empty() && text[0] == '@') {
    // The npy header may declare up to 2^32 elements; ReadNpy copies only
    // what the file holds, so no cap is needed here.
    FILE* f = std::fopen(ScratchPath().c_str(), "wb");
    if (!f) return 0;
    std::fwrite(text.data() + 1, 1, text.size() - 1, f);
    std::fclose(f);
    (void)kiln::tools::ParseInput("@" + ScratchPath());
    return 0;
  }
  if (DeclaredElements(text) > kMaxElements) return 0;
  (void)kiln::tools::ParseInput(text);
  return 0;
}

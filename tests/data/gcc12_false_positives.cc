// Correct code for which GCC 12 at -O2/-O3 warns inside libstdc++ (-Wrestrict
// on a string concatenation, -Wstringop-overflow on a vector insert at the
// end). ctest's build.no_gcc12_false_positives compiles this file with the
// project's warning flags and -Werror: it fails if those flags stop silencing
// the false positives (CMakeLists.txt, KILN_WARNING_FLAGS). Nothing links it.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

std::string DimsToString(std::span<const int64_t> dims) {
  std::string s;
  for (int64_t d : dims) s += (s.empty() ? "" : "x") + std::to_string(d);
  return "[" + s + "]";
}

template <typename T>
void Put(std::vector<uint8_t>* out, T v) {
  const auto* b = reinterpret_cast<const uint8_t*>(&v);
  out->insert(out->end(), b, b + sizeof(T));
}

std::vector<uint8_t> Encode(uint32_t n) {
  std::vector<uint8_t> out;
  Put<uint32_t>(&out, 0x584e4c4b);
  Put<uint32_t>(&out, n);
  return out;
}

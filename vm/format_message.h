// The message of the fail.format instruction (vm/opcodes.def): JAX's shape
// assertions carry an error message whose placeholders {0}, {1}, ... name
// the assertion's integer operands, formatted by XLA with llvm::formatv.
// The subset both formatv and Python's str.format agree on: "{{" is a
// literal '{'; "{N}" (also "{N,layout}" and "{N:format}", whose layout and
// format are ignored) is value N in decimal; anything else, a placeholder
// naming a value that is not there included, is copied as it is.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace kiln::vm {

inline std::string FormatMessage(std::string_view format, std::span<const int64_t> values) {
  std::string out;
  size_t i = 0;
  while (i < format.size()) {
    const char c = format[i];
    if (c != '{') {
      out += c;
      ++i;
      continue;
    }
    if (i + 1 < format.size() && format[i + 1] == '{') {
      out += '{';
      i += 2;
      continue;
    }
    // {digits[,...][:...]}
    size_t j = i + 1;
    uint64_t n = 0;
    bool digits = false, too_big = false;
    while (j < format.size() && format[j] >= '0' && format[j] <= '9') {
      n = n * 10 + static_cast<uint64_t>(format[j] - '0');
      too_big |= n > values.size();
      digits = true;
      ++j;
    }
    size_t close = format.find('}', j);
    const bool spec_ok = j < format.size() && (format[j] == '}' || format[j] == ',' || format[j] == ':');
    if (!digits || too_big || n >= values.size() || !spec_ok || close == std::string_view::npos) {
      out += c;
      ++i;
      continue;
    }
    out += std::to_string(values[n]);
    i = close + 1;
  }
  return out;
}

}  // namespace kiln::vm

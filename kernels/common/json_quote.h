// A JSON string literal of any text (safetensors headers that the compiler
// writes, the profiler's Chrome traces): quotes and backslashes escaped,
// control characters as \u00XX, other bytes as they are.
#pragma once
#include <cstdio>
#include <string>
#include <string_view>

namespace kiln {

inline std::string JsonQuote(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

}  // namespace kiln

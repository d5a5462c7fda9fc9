// Reading and freeing a C API status in tests (vm/kiln.h): its message ("" for
// success) or its code, the status freed either way.
#pragma once
#include <string>

#include "vm/kiln.h"

namespace kiln::test {

inline std::string Message(kiln_status_t s) {
  std::string m = s ? kiln_status_message(s) : "";
  kiln_status_free(s);
  return m;
}

inline kiln_status_code_t Code(kiln_status_t s) {
  const kiln_status_code_t c = kiln_status_code(s);
  kiln_status_free(s);
  return c;
}

}  // namespace kiln::test

// Every tool's main runs its body through GuardedMain, so an exception that
// escapes (out of memory, a library that throws) ends the tool with
// "error: ..." and exit status 1 instead of std::terminate and SIGABRT.
// Header-only: kiln-compile includes it without linking the tools' library.
#pragma once
#include <exception>
#include <iostream>
#include <new>

namespace kiln::tools {

template <typename Body>
int GuardedMain(const char* tool, Body&& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    std::cerr << "error: " << tool << ": out of memory\n";
  } catch (const std::exception& e) {
    std::cerr << "error: " << tool << ": " << e.what() << "\n";
  } catch (...) {
    std::cerr << "error: " << tool << ": an unknown exception\n";
  }
  return 1;
}

}  // namespace kiln::tools

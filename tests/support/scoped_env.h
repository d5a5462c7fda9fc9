// Sets or clears one environment variable for the lifetime of a scope and
// restores its previous value (or absence) afterwards, so a test that
// exercises an environment switch (KILN_THREADS, KILN_VULKAN_MEMORY, ...)
// leaves nothing behind for the tests that follow it in the same process.
#pragma once

#include <cstdlib>
#include <string>

namespace kiln::test {

class ScopedEnv {
 public:
  // `value` nullptr clears the variable for the scope.
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    if (value) setenv(name, value, 1);
    else unsetenv(name);
  }
  ~ScopedEnv() {
    if (had_) setenv(name_.c_str(), old_.c_str(), 1);
    else unsetenv(name_.c_str());
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::string old_;
  bool had_ = false;
};

}  // namespace kiln::test

// A thread pool shared by the fast-kernel tests: more workers than this
// machine's cores, so tiles really interleave and every split is exercised.
#pragma once
#include "hal/cpu/thread_pool.h"

namespace kiln::cpu {

inline TaskRunner* TestPool() {
  static hal::ThreadPool pool(4);
  return &pool;
}

}  // namespace kiln::cpu

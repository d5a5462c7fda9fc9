#include "hal/cpu/break_kernel.h"

#include <cmath>
#include <cstdlib>
#include <string>

#include "kernels/scalar/scalar.h"

namespace kiln::hal {

bool KernelBrokenForTest(std::string_view kernel) {
  static const std::string broken = [] {
    const char* p = std::getenv("KILN_TEST_BREAK_KERNEL");
    return std::string(p ? p : "");
  }();
  return !broken.empty() && kernel == broken;
}

void BreakOutputsForTest(std::span<const TensorRef> outputs) {
  for (const TensorRef& t : outputs) {
    if (!t.data) continue;
    const int64_t n = t.NumElements();
    for (int64_t i = 0; i < n; ++i) {
      Scalar s = ref::LoadScalar(t.type, t.At(i));
      if (IsFloat(t.type) || IsComplex(t.type)) {
        s.re = ref::RoundToFloatType(IsComplex(t.type) ? ComplexPartType(t.type) : t.type,
                                     s.re + 1e-2 * std::fabs(s.re) + 0.25);
        if (IsComplex(t.type)) s.im = ref::RoundToFloatType(ComplexPartType(t.type), s.im + 0.25);
      } else if (IsBool(t.type)) {
        s.i = s.i ? 0 : 1;
      } else {
        // Stays in range: a maximum goes down by one instead.
        const Scalar up{s.i + 1, 0, 0};
        uint8_t probe[16] = {};
        ref::StoreScalar(t.type, up, probe);
        s.i = ref::LoadScalar(t.type, probe).i == up.i ? up.i : s.i - 1;
      }
      ref::StoreScalar(t.type, s, t.At(i));
    }
  }
}

}  // namespace kiln::hal

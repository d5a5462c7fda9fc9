#include "hal/hal.h"

namespace kiln::hal {

std::string ShaderFeatureNames(uint32_t features) {
  std::string s;
  auto add = [&](uint32_t bit, const char* name) {
    if (features & bit) s += (s.empty() ? "" : ", ") + std::string(name);
  };
  add(kShaderInt64, "shaderInt64");
  add(kShaderFloat64, "shaderFloat64");
  return s;
}

}  // namespace kiln::hal

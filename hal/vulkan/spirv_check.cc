// The structural SPIR-V check (hal/vulkan/spirv_check.h).
#include "hal/vulkan/spirv_check.h"

#include <string>
#include <vector>

#define SPV_ENABLE_UTILITY_CODE  // spv::HasResultAndType
#include <spirv/unified1/spirv.hpp>

namespace kiln::hal::vk {
namespace {

constexpr uint32_t kMaxIdBound = 1u << 22;  // far above any shader the compiler writes

// The literal string starting at words[first] of an instruction of `count`
// words, if it is terminated inside the instruction.
bool LiteralIs(std::span<const uint32_t> inst, size_t first, std::string_view want) {
  std::string s;
  for (size_t w = first; w < inst.size(); ++w)
    for (int b = 0; b < 4; ++b) {
      char c = static_cast<char>((inst[w] >> (8 * b)) & 0xff);
      if (c == '\0') return s == want;
      s += c;
    }
  return false;
}

}  // namespace

Status CheckSpirvStructure(std::span<const uint32_t> words) {
  if (words.size() < 5 || words[0] != spv::MagicNumber) return InvalidArgument("not SPIR-V (no magic number)");
  const uint32_t version = words[1];
  if ((version & 0xff0000ffu) != 0 || ((version >> 16) & 0xff) != 1 || ((version >> 8) & 0xff) > 6)
    return InvalidArgument("unknown SPIR-V version word " + std::to_string(version));
  const uint32_t bound = words[3];
  if (bound == 0 || bound > kMaxIdBound) return InvalidArgument("SPIR-V id bound " + std::to_string(bound));
  if (words[4] != 0) return InvalidArgument("nonzero SPIR-V schema word");
  std::vector<bool> defined(bound, false);
  bool has_main = false;
  for (size_t at = 5; at < words.size();) {
    const uint32_t count = words[at] >> 16;
    const auto op = static_cast<spv::Op>(words[at] & 0xffff);
    if (count == 0 || count > words.size() - at)
      return InvalidArgument("SPIR-V instruction at word " + std::to_string(at) + " runs past the end");
    std::span<const uint32_t> inst = words.subspan(at, count);
    bool has_result = false, has_type = false;
    spv::HasResultAndType(op, &has_result, &has_type);
    const size_t need = 1 + (has_type ? 1 : 0) + (has_result ? 1 : 0);
    if (count < need) return InvalidArgument("SPIR-V instruction at word " + std::to_string(at) + " is too short");
    if (has_type && (inst[1] == 0 || inst[1] >= bound))
      return InvalidArgument("SPIR-V type id " + std::to_string(inst[1]) + " is outside the id bound");
    if (has_result) {
      uint32_t id = inst[has_type ? 2 : 1];
      if (id == 0 || id >= bound) return InvalidArgument("SPIR-V id " + std::to_string(id) + " is outside the id bound");
      if (defined[id]) return InvalidArgument("SPIR-V id " + std::to_string(id) + " is defined twice");
      defined[id] = true;
    }
    if (op == spv::OpEntryPoint && count >= 4 && inst[1] == spv::ExecutionModelGLCompute) {
      if (inst[2] == 0 || inst[2] >= bound) return InvalidArgument("SPIR-V entry point id is outside the id bound");
      has_main = has_main || LiteralIs(inst, 3, "main");
    }
    at += count;
  }
  if (!has_main) return InvalidArgument("no GLCompute entry point named 'main'");
  return Status::Ok();
}

}  // namespace kiln::hal::vk

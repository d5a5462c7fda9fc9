#include "tools/common/dispatch_repro.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "tools/common/npy.h"

namespace kiln::tools {
namespace {

Status WriteText(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) return InvalidArgument("could not write '" + path + "'");
  return Status::Ok();
}

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

StatusOr<std::string> WriteReproDir(const std::string& dir, const DispatchMismatch& m, const ReproFiles& files,
                                    const CompareTolerance& tolerance, CompareAgainst against) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return InvalidArgument("could not make the repro directory '" + dir + "': " + ec.message());
  const std::string base = dir.back() == '/' ? dir : dir + "/";
  const size_t args = files.mlir ? files.num_args : m.inputs.size();
  std::string inputs;
  for (size_t i = 0; i < args; ++i) {
    const std::string name = "input" + std::to_string(i) + ".npy";
    KILN_RETURN_IF_ERROR(WriteNpy(base + name, m.inputs[i]));
    inputs += " --input=@" + base + name;
  }
  std::string expected;
  double atol = 0, rtol = 0;
  for (size_t k = 0; k < m.want.size(); ++k) {
    KILN_RETURN_IF_ERROR(WriteNpy(base + "expected" + std::to_string(k) + ".npy", m.want[k]));
    KILN_RETURN_IF_ERROR(WriteNpy(base + "got" + std::to_string(k) + ".npy", m.got[k]));
    expected += " --expected-output=@" + base + "expected" + std::to_string(k) + ".npy";
    atol = std::max(atol, tolerance.Atol(m.want[k].type));
    rtol = std::max(rtol, tolerance.Rtol(m.want[k].type));
  }
  const bool cpu = against == CompareAgainst::kCpu;
  std::string readme = std::string("The first dispatch of a vm-run --compare-with=") + (cpu ? "cpu" : "reference") +
                       " run whose result differed from the\n" + (cpu ? "cpu" : "reference") +
                       " kernels': " + m.params->kernel + " in @" + m.function + " at " +
                       (m.source_file.empty() ? "<unknown file>" : m.source_file) + ":" + std::to_string(m.line) +
                       ":" + std::to_string(m.col) + ".\n"
                       "input<i>.npy: its inputs; expected<k>.npy: the " + (cpu ? "cpu" : "reference") +
                       " kernel's outputs; got<k>.npy: the device's.\n";
  std::string commands;
  if (files.mlir) {
    KILN_RETURN_IF_ERROR(WriteText(base + "repro.mlir", *files.mlir));
    commands = "kiln-compile " + base + "repro.mlir -o " + base + "repro.kiln" + (cpu ? "" : " --target=cpu") +
               " && vm-run " + base + "repro.kiln" + (cpu ? " --device=vulkan" : "") + inputs + expected + " --atol=" + Num(atol) + " --rtol=" + Num(rtol);
    readme += "repro.mlir: the op (for a fused dispatch, its fused region) alone. To reproduce:\n  " + commands + "\n";
  } else {
    commands = "(no repro.mlir: " + files.why + ")";
    readme += "No repro.mlir was written: " + files.why + ".\n";
  }
  KILN_RETURN_IF_ERROR(WriteText(base + "README.txt", readme));
  return commands;
}

}  // namespace kiln::tools

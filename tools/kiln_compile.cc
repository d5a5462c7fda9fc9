// kiln-compile IN.mlir -o OUT.kiln [--target=cpu|vulkan|all] [--no-fold] [--emit=ir|module]
#include <CLI/CLI.hpp>

#include <iostream>

#include "compiler/compile.h"
#include "kernels/common/file_io.h"
#include "tools/common/guarded_main.h"

namespace {

int Main(int argc, char** argv) {
  CLI::App app{"kiln-compile: compiles a StableHLO program (MLIR text) into a Kiln module"};
  std::string input, output, target = "all", emit = "module";
  // The compiler evaluates nothing at compile time except stablehlo.constant,
  // which is what --no-fold asks for: the flag is accepted and changes nothing.
  bool no_fold = false;
  app.add_option("input", input, "StableHLO program (.mlir)")->required();
  app.add_option("-o,--output", output, "output file (.kiln, or the IR with --emit=ir)");
  app.add_option("--target", target, "cpu, vulkan or all")->check(CLI::IsMember({"cpu", "vulkan", "all"}));
  app.add_flag("--no-fold", no_fold, "evaluate nothing at compile time except stablehlo.constant (always the case: nothing is folded)");
  app.add_option("--emit", emit, "module or ir")->check(CLI::IsMember({"module", "ir"}));
  CLI11_PARSE(app, argc, argv);

  auto fail = [](const kiln::Status& s) {
    std::cerr << "error: " << s.message() << "\n";
    return 1;
  };
  auto read = kiln::ReadFile(input);
  if (!read.ok()) return fail(read.status());
  const std::string& source = *read;
  kiln::compiler::CompileOptions options;
  options.target = target;
  if (emit == "ir") {
    auto text = kiln::compiler::CompileToIrText(source, input);
    if (!text.ok()) {
      std::cerr << text.status().message() << "\n";
      return 1;
    }
    if (output.empty()) {
      std::cout << *text;
      return 0;
    }
    auto written = kiln::WriteFile(output, *text);
    return written.ok() ? 0 : fail(written);
  }
  if (output.empty()) {
    std::cerr << "error: -o OUT.kiln is required\n";
    return 1;
  }
  std::vector<std::string> warnings;
  auto bytes = kiln::compiler::Compile(source, input, options, &warnings);
  for (const auto& w : warnings) std::cerr << input << ": " << w << "\n";
  if (!bytes.ok()) {
    std::cerr << bytes.status().message() << "\n";
    return 1;
  }
  auto written = kiln::WriteFile(output, std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()));
  return written.ok() ? 0 : fail(written);
}

}  // namespace

int main(int argc, char** argv) {
  return kiln::tools::GuardedMain("kiln-compile", [&] { return Main(argc, argv); });
}

// kiln-compile IN.mlir -o OUT.kiln [--target=cpu|vulkan|all] [--no-fold] [--emit=ir|module]
#include <CLI/CLI.hpp>

#include <fstream>
#include <iostream>
#include <iterator>

#include "compiler/compile.h"

int main(int argc, char** argv) {
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

  std::ifstream in(input, std::ios::binary);
  if (!in) {
    std::cerr << input << ": error: cannot open file\n";
    return 1;
  }
  std::string source((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
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
    } else {
      std::ofstream(output) << *text;
    }
    return 0;
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
  std::ofstream out(output, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes->data()), static_cast<std::streamsize>(bytes->size()));
  if (!out) {
    std::cerr << output << ": error: cannot write file\n";
    return 1;
  }
  return 0;
}

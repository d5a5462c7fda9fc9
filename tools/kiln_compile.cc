// kiln-compile IN.mlir -o OUT.kiln [--target=cpu|vulkan|all] [--no-fold] [--no-arena] [--emit=ir|module]
// IN "-" reads the program from stdin; "-o -" writes to stdout.
#include <sys/stat.h>
#include <unistd.h>

#include <iostream>
#include <iterator>

#include "compiler/compile.h"
#include "kernels/common/file_io.h"
#include "tools/cli/cli.h"
#include "tools/common/guarded_main.h"

namespace {

int Fail(const std::string& message) {
  std::cerr << "error: " << message << "\n";
  return 1;
}

// Whether two paths name the same file (device and inode, as gcc checks):
// writing the output would destroy the input.
bool SameFile(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  return stat(a.c_str(), &sa) == 0 && stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

kiln::StatusOr<std::string> ReadSource(const std::string& path) {
  if (path != "-") return kiln::ReadFile(path);
  std::string text{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
  if (std::cin.bad()) return kiln::InvalidArgument("failed reading stdin");
  return text;
}

kiln::Status WriteOutput(const std::string& path, std::string_view bytes) {
  if (path != "-") return kiln::WriteFile(path, bytes);
  std::cout.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  std::cout.flush();
  if (!std::cout) return kiln::InvalidArgument("failed writing to stdout");
  return kiln::Status::Ok();
}

int Main(int argc, char** argv) {
  kiln::tools::CommandLine cli("kiln-compile", "compiles a StableHLO program (MLIR text) into a Kiln module");
  std::string input, output, target = "all", emit = "module";
  // The compiler evaluates nothing at compile time except stablehlo.constant,
  // which is what --no-fold asks for: the flag is accepted and changes nothing.
  bool no_fold = false, no_arena = false;
  cli.Positional("input", &input, "StableHLO program (.mlir; - reads stdin)", true);
  cli.Text("-o,--output", &output,
           "output file: the module (required with --emit=module) or the IR (default: stdout); - writes stdout");
  cli.Choice("--target", &target, {"cpu", "vulkan", "all"}, "the devices to compile for");
  cli.Flag("--no-fold", &no_fold,
           "evaluate nothing at compile time except stablehlo.constant (always the case: nothing is folded)");
  cli.Flag("--no-arena", &no_arena,
           "allocate every transient from the device's pool instead of planning a per-function arena "
           "(docs/memory.md)");
  cli.Choice("--emit", &emit, {"module", "ir"}, "what to write");
  if (auto exit = cli.Parse(argc, argv)) return *exit;

  if (input != "-" && output != "-" && !output.empty() && SameFile(input, output))
    return Fail("the output '" + output + "' is the input file; choose another -o");
  if (emit == "module" && output == "-" && isatty(STDOUT_FILENO))
    return Fail("refusing to write a binary module to a terminal; redirect stdout or use -o FILE");
  const std::string source_name = input == "-" ? "<stdin>" : input;
  auto read = ReadSource(input);
  if (!read.ok()) return Fail(read.status().message());
  const std::string& source = *read;
  if (emit == "module" && output.empty()) return Fail("-o OUT.kiln is required (-o - writes the module to stdout)");
  kiln::compiler::CompileOptions options;
  options.target = target;
  options.plan_memory = !no_arena;
  if (emit == "ir") {
    auto text = kiln::compiler::CompileToIrText(source, source_name);
    if (!text.ok()) {
      std::cerr << text.status().message() << "\n";
      return 1;
    }
    auto written = WriteOutput(output.empty() ? "-" : output, *text);
    return written.ok() ? 0 : Fail(written.message());
  }
  std::vector<std::string> warnings;
  auto bytes = kiln::compiler::Compile(source, source_name, options, &warnings);
  // Each warning is a whole message: "file:L:C: warning: ..." with the source line.
  for (const auto& w : warnings) std::cerr << w << "\n";
  if (!bytes.ok()) {
    std::cerr << bytes.status().message() << "\n";
    return 1;
  }
  auto written = WriteOutput(output, std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()));
  return written.ok() ? 0 : Fail(written.message());
}

}  // namespace

int main(int argc, char** argv) {
  return kiln::tools::GuardedMain("kiln-compile", [&] { return Main(argc, argv); });
}

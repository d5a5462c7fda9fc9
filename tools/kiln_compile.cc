// kiln-compile IN.mlir -o OUT.kiln [--target=cpu|vulkan|all] [--no-fold] [--no-arena] [--emit=ir|module] [--format=0.4]
//   [--externalize=SIZE --params-out=FILE.safetensors [--params-scope=NAME]]
// IN "-" reads the program from stdin; "-o -" writes to stdout.
#include <sys/stat.h>
#include <unistd.h>

#include <iostream>
#include <iterator>
#include <optional>

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

// "4096", "64K", "1M", "2G" (powers of 1024); nullopt if not a size.
std::optional<uint64_t> ParseSize(const std::string& text) {
  uint64_t v = 0;
  size_t i = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    if (v > (UINT64_MAX - 9) / 10) return std::nullopt;
    v = v * 10 + static_cast<uint64_t>(text[i] - '0');
  }
  if (i == 0) return std::nullopt;
  std::string unit = text.substr(i);
  int shift = unit.empty() ? 0 : unit == "K" ? 10 : unit == "M" ? 20 : unit == "G" ? 30 : -1;
  if (shift < 0 || v > (UINT64_MAX >> shift)) return std::nullopt;
  return v << shift;
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
  std::string format = "current";
  cli.Choice("--format", &format, {"current", "0.4"},
             "the module format to write: 0.4 stores constants inside the metadata, as before the data segment "
             "(schema/README.md); for checking that old files still load");
  std::string externalize, params_out, params_scope;
  cli.Text("--externalize", &externalize,
           "move constants of at least SIZE bytes (suffix K, M or G: KiB, MiB, GiB) into the parameter file "
           "--params-out; the module records each one's key, type, shape and checksum (docs/parameters.md)");
  cli.Text("--params-out", &params_out, "the safetensors file the externalized constants go to");
  std::string params_from_args;
  cli.Text("--params-from-args", &params_from_args,
           "NAME[,NAME...] or all: arguments of public functions (named by jax.arg_info; NAME also selects a "
           "pytree prefix: params selects params['w']) become parameters, bound at run time by --parameters");
  cli.Text("--params-scope", &params_scope,
           "the scope of the externalized constants (bind with --parameters=SCOPE=FILE; default: none)");
  std::string platforms;
  cli.Text("--platforms", &platforms,
           "P[,P...]: the platforms of a JAX multi-platform export, in its order (jax.export's "
           "Exported.platforms, e.g. cpu,cuda): its platform-index argument becomes cpu's index (docs/jax.md)");
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
  if (!platforms.empty()) {
    size_t start = 0;
    while (start <= platforms.size()) {
      size_t comma = platforms.find(',', start);
      if (comma == std::string::npos) comma = platforms.size();
      std::string name = platforms.substr(start, comma - start);
      if (name.empty()) return Fail("--platforms has an empty name: '" + platforms + "'");
      options.platforms.push_back(name);
      start = comma + 1;
    }
  }
  options.format_04 = format == "0.4";
  if (!params_from_args.empty()) {
    size_t start = 0;
    while (start <= params_from_args.size()) {
      size_t comma = params_from_args.find(',', start);
      if (comma == std::string::npos) comma = params_from_args.size();
      std::string name = params_from_args.substr(start, comma - start);
      if (name.empty()) return Fail("--params-from-args has an empty name: '" + params_from_args + "'");
      options.params_from_args.push_back(name);
      start = comma + 1;
    }
    options.params_scope = params_scope;
  }
  if (!externalize.empty() || !params_out.empty() || (!params_scope.empty() && params_from_args.empty())) {
    if (externalize.empty() || params_out.empty())
      return Fail("--externalize=SIZE and --params-out=FILE go together");
    if (emit != "module") return Fail("--externalize applies to --emit=module");
    auto size = ParseSize(externalize);
    if (!size) return Fail("--externalize takes a byte count such as 4096, 64K or 1M, not '" + externalize + "'");
    if (params_out == output || (params_out != "-" && SameFile(input, params_out)))
      return Fail("--params-out '" + params_out + "' would overwrite the module or the input; choose another");
    options.externalize_min_bytes = *size;
    options.params_scope = params_scope;
  }
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
  std::vector<uint8_t> params;
  auto bytes = kiln::compiler::Compile(source, source_name, options, &warnings, 1, &params);
  // Each warning is a whole message: "file:L:C: warning: ..." with the source line.
  for (const auto& w : warnings) std::cerr << w << "\n";
  if (!bytes.ok()) {
    std::cerr << bytes.status().message() << "\n";
    return 1;
  }
  if (options.externalize_min_bytes) {
    auto p = WriteOutput(params_out, std::string_view(reinterpret_cast<const char*>(params.data()), params.size()));
    if (!p.ok()) return Fail(p.message());
  }
  auto written = WriteOutput(output, std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()));
  return written.ok() ? 0 : Fail(written.message());
}

}  // namespace

int main(int argc, char** argv) {
  return kiln::tools::GuardedMain("kiln-compile", [&] { return Main(argc, argv); });
}

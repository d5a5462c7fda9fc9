// The conformance runner: splits each .mlir file of a folder into its
// chunks, compiles every chunk with --no-fold, runs its test functions (the
// public functions without arguments) on a device, and prints per-file
// counts and a summary. All chunks run in this one process.
//
//   kiln-conformance DIR_OR_FILE... [--device=cpu|vulkan[:N]] [--mode=inline|deferred] [--verbose] [--strict]
//                    [--reasons] [--op-status=FILE] [--emit=DIR]
//
// --op-status writes each op's outcomes per element-type family
// (tests/conformance/op_status.h) for scripts/gen_ops_doc.py.
// --strict also fails when a test function is unsupported. --emit=DIR also
// writes the chunks that run grids as modules (see EmitGridChunk).
//
// On the Vulkan device each chunk is compiled with --target=all; a test
// function the vulkan target cannot run yet is counted unsupported (with its
// reason; --reasons prints a summary). A passing function must have run its
// dispatches on the Vulkan device (device stats), and any message of the
// validation layer (KILN_VULKAN_VALIDATION=1) fails the run.
//
// Outcomes of a test function: passed; failed (a check failed or execution
// erred: a wrong answer); unsupported (its chunk failed to compile with an
// "unimplemented" error naming what is missing). interpreter.run_parallel
// grids run in-process, one thread per grid process, on either device.
// Exit status is non-zero if anything failed or crashed-to-error other than
// unsupported.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <regex>

#include "compiler/compile.h"
#include "compiler/parse/parser.h"
#include "tests/conformance/op_status.h"
#include "hal/cpu/cpu_device.h"
#ifdef KILN_HAVE_VULKAN
#include "hal/vulkan/vulkan_device.h"
#endif
#include <map>
#include "vm/context.h"

namespace fs = std::filesystem;

namespace {

struct Counts {
  int passed = 0, failed = 0, unsupported = 0;
  void Add(const Counts& o) {
    passed += o.passed;
    failed += o.failed;
    unsupported += o.unsupported;
  }
};

// Test functions of a chunk, by a light scan of the text: public func.func
// with "()" arguments. Used to count tests in a chunk that does not compile.
std::vector<std::string> TestFunctionsInText(const std::string& text) {
  static const std::regex re(R"(func\.func\s+(public\s+)?@([A-Za-z0-9_$.\-]+)\s*\(\s*\))");
  std::vector<std::string> names;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it)
    names.push_back((*it)[2]);
  return names;
}

std::map<std::string, int> g_unsupported_reasons;
kiln::conformance::OpStatus g_op_status;  // --op-status
using Outcome = kiln::conformance::OpStatus::Outcome;
bool g_vulkan = false;

// Does the function dispatch anything itself?
bool Dispatches(const kiln::vm::LoadedFunction& fn) {
  for (const auto& ins : fn.code)
    if (ins.op == kiln::vm::Opcode::kDispatch) return true;
  return false;
}

// --emit=DIR: each chunk with an interpreter.run_parallel grid is also
// written as DIR/<file>.<line>.kiln, with a line "<path> <ranks> <tests>" in
// DIR/manifest.txt, so that the grids can run under mpirun (tests/mpi/).
std::string g_emit_dir;

void EmitGridChunk(const fs::path& path, int first_line, const std::vector<uint8_t>& bytes,
                   const kiln::vm::LoadedModule& module, size_t tests) {
  int ranks = 0;
  for (const auto& s : module.strings) {
    unsigned r = 0, p = 0;
    if (s.rfind("grid=", 0) == 0 && std::sscanf(s.c_str(), "grid=%ux%u", &r, &p) == 2)
      ranks = std::max<int>(ranks, static_cast<int>(r * p));
  }
  if (ranks == 0) return;
  fs::path out = fs::path(g_emit_dir) / (path.stem().string() + "." + std::to_string(first_line) + ".kiln");
  std::ofstream(out, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                             static_cast<std::streamsize>(bytes.size()));
  std::ofstream(fs::path(g_emit_dir) / "manifest.txt", std::ios::app)
      << out.string() << " " << ranks << " " << tests << "\n";
}

Counts RunFile(const fs::path& path, kiln::hal::Device* device, bool verbose) {
  std::ifstream in(path);
  std::string source((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Counts counts;
  for (const auto& chunk : kiln::ir::SplitChunks(source)) {
    auto tests = TestFunctionsInText(chunk.text);
    kiln::compiler::CompileOptions options;
    options.target = g_vulkan ? "all" : "cpu";
    auto bytes = kiln::compiler::Compile(chunk.text, path.string(), options, nullptr, chunk.first_line);
    if (!bytes.ok()) {
      bool unsupported = bytes.status().code() == kiln::StatusCode::kUnimplemented;
      (unsupported ? counts.unsupported : counts.failed) += std::max<int>(1, static_cast<int>(tests.size()));
      std::string first_line = bytes.status().message().substr(0, bytes.status().message().find('\n'));
      for (size_t t = 0; t < std::max<size_t>(1, tests.size()); ++t)
        g_op_status.Record(chunk.text, unsupported ? Outcome::kUnsupported : Outcome::kFailed, first_line);
      if (verbose || !unsupported)
        std::cout << "  " << (unsupported ? "UNSUPPORTED " : "COMPILE-FAIL ") << first_line << "\n";
      continue;
    }
    std::vector<uint8_t> copy = g_emit_dir.empty() ? std::vector<uint8_t>{} : bytes.value();
    auto module = kiln::vm::LoadModule(std::move(bytes.value()));
    if (module.ok() && !g_emit_dir.empty()) EmitGridChunk(path, chunk.first_line, copy, **module, tests.size());
    if (!module.ok()) {
      counts.failed += std::max<int>(1, static_cast<int>(tests.size()));
      std::cout << "  LOAD-FAIL " << path.string() << ":" << chunk.first_line << ": " << module.status().message() << "\n";
      continue;
    }
    auto context = kiln::vm::Context::Create(*module, device);
    if (!context.ok()) {
      bool unsupported = context.status().code() == kiln::StatusCode::kUnimplemented;
      (unsupported ? counts.unsupported : counts.failed) += static_cast<int>(tests.size());
      std::cout << "  " << (unsupported ? "UNSUPPORTED " : "FAIL ") << path.string() << ":" << chunk.first_line << ": "
                << context.status().message() << "\n";
      for (size_t t = 0; t < tests.size(); ++t)
        g_op_status.Record(chunk.text, unsupported ? Outcome::kUnsupported : Outcome::kFailed, context.status().message());
      continue;
    }
    for (const auto& fn : (*module)->functions) {
      if (!fn.is_public || !fn.args.empty()) continue;
      (*context)->ClearCheckFailures();
      kiln::vm::InvokeOptions opts;
      opts.print = [](const std::string&) {};
      uint64_t before = device->stats().dispatches;
      auto r = (*context)->Invoke(fn.name, {}, opts);
      if (r.ok() && (*context)->check_failures().empty() && Dispatches(fn) && device->stats().dispatches == before) {
        ++counts.failed;
        g_op_status.Record(chunk.text, Outcome::kFailed, "");
        std::cout << "  FAIL " << path.filename().string() << " " << fn.name << ": passed, but its dispatches did not run on "
                  << device->name() << "\n";
      } else if (r.ok() && (*context)->check_failures().empty()) {
        ++counts.passed;
        g_op_status.Record(chunk.text, Outcome::kPassed, "");
        if (verbose) std::cout << "  PASS " << fn.name << "\n";
      } else if (!r.ok() && r.status().code() == kiln::StatusCode::kUnimplemented) {
        ++counts.unsupported;
        std::string why = r.status().message();
        size_t colon = why.find(": ");  // drop "function 'x' cannot run on ...: "
        g_unsupported_reasons[colon == std::string::npos ? why : why.substr(colon + 2)]++;
        g_op_status.Record(chunk.text, Outcome::kUnsupported, colon == std::string::npos ? why : why.substr(colon + 2));
        if (verbose) std::cout << "  UNSUPPORTED " << fn.name << ": " << r.status().message() << "\n";
      } else {
        ++counts.failed;
        g_op_status.Record(chunk.text, Outcome::kFailed, "");
        std::cout << "  FAIL " << path.filename().string() << " " << fn.name << ": "
                  << (r.ok() ? (*context)->check_failures().front() : r.status().message()) << "\n";
      }
    }
  }
  return counts;
}

}  // namespace

constexpr char kUsage[] =
    "usage: kiln-conformance DIR_OR_FILE... [--device=cpu|vulkan[:N]] [--mode=inline|deferred] [--verbose]\n"
    "                        [--strict] [--reasons] [--op-status=FILE] [--emit=DIR]\n"
    "Compiles each .mlir file (every .mlir under a directory) chunk by chunk and runs its test functions\n"
    "(public, no arguments) on the device; prints per-file and total counts. Exit status 1 if any failed.\n"
    "  --device=D          cpu (default), vulkan or vulkan:N\n"
    "  --mode=M            the cpu device's mode: inline (default) or deferred\n"
    "  --verbose           print each test function's outcome\n"
    "  --strict            also fail when a test function is unsupported\n"
    "  --reasons           summarize why functions were unsupported\n"
    "  --op-status=FILE    write each op's outcomes per element-type family\n"
    "  --emit=DIR          also write the chunks that run grids as modules to DIR\n";

int main(int argc, char** argv) {
  std::vector<fs::path> files;
  bool verbose = false, strict = false;
  std::string mode = "inline", device_spec = "cpu";
  bool reasons = false;
  std::string op_status_path;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--verbose") { verbose = true; continue; }
    if (a == "--strict") { strict = true; continue; }
    if (a.rfind("--mode=", 0) == 0) { mode = a.substr(7); continue; }
    if (a.rfind("--device=", 0) == 0) { device_spec = a.substr(9); continue; }
    if (a == "--reasons") { reasons = true; continue; }
    if (a.rfind("--op-status=", 0) == 0) { op_status_path = a.substr(12); continue; }
    if (a.rfind("--emit=", 0) == 0) {
      g_emit_dir = a.substr(7);
      fs::create_directories(g_emit_dir);
      fs::remove(fs::path(g_emit_dir) / "manifest.txt");
      continue;
    }
    if (a == "--help" || a == "-h") {
      std::cout << kUsage;
      return 0;
    }
    if (a.size() > 1 && a[0] == '-') {  // not a path: a misspelled or unknown option
      std::cerr << "kiln-conformance: unknown option '" << a << "'\n" << kUsage;
      return 2;
    }
    fs::path p(a);
    if (!fs::exists(p)) {
      std::cerr << "kiln-conformance: '" << a << "' does not exist\n";
      return 2;
    }
    if (fs::is_directory(p)) {
      for (const auto& e : fs::recursive_directory_iterator(p))
        if (e.path().extension() == ".mlir") files.push_back(e.path());
    } else {
      files.push_back(p);
    }
  }
  if (files.empty()) {
    std::cerr << kUsage;
    return 2;
  }
  std::sort(files.begin(), files.end());
  std::unique_ptr<kiln::hal::Device> device;
  if (device_spec == "cpu") {
    device = kiln::hal::CreateCpuDevice(mode == "deferred" ? kiln::hal::CpuMode::kDeferred : kiln::hal::CpuMode::kInline);
  } else if (device_spec == "vulkan" || device_spec.rfind("vulkan:", 0) == 0) {
#ifdef KILN_HAVE_VULKAN
    auto d = kiln::hal::CreateVulkanDevice(device_spec.size() > 7 ? std::stoi(device_spec.substr(7)) : -1);
    if (!d.ok()) {
      std::cerr << "kiln-conformance: " << d.status().message() << "\n";
      return 2;
    }
    device = std::move(d.value());
    g_vulkan = true;
    mode = device->name();
#else
    std::cerr << "kiln-conformance: this build has no Vulkan device\n";
    return 2;
#endif
  } else {
    std::cerr << "kiln-conformance: unknown device '" << device_spec << "'\n";
    return 2;
  }
  Counts total;
  for (const auto& f : files) {
    Counts c = RunFile(f, device.get(), verbose);
    std::cout << f.filename().string() << ": " << c.passed << " passed, " << c.failed << " failed, " << c.unsupported
              << " unsupported\n";
    total.Add(c);
  }
  if (!op_status_path.empty()) {
    std::ofstream out(op_status_path);
    g_op_status.Write(out);
  }
  if (reasons)
    for (const auto& [why, n] : g_unsupported_reasons) std::cout << "  unsupported x" << n << ": " << why << "\n";
  int validation_messages = 0;
#ifdef KILN_HAVE_VULKAN
  validation_messages = static_cast<int>(kiln::hal::VulkanValidationMessages());
  if (validation_messages)
    std::cout << "conformance: " << validation_messages << " Vulkan validation messages (see stderr)\n";
#endif
  std::cout << "conformance (" << files.size() << " files, " << (g_vulkan ? "" : "cpu ") << mode << "): unsupported: " << total.unsupported << "\n";
  std::cout << "conformance: " << total.passed << " passed, " << total.failed << " failed\n";
  return total.failed == 0 && validation_messages == 0 && (!strict || total.unsupported == 0) ? 0 : 1;
}

// The conformance runner: splits each .mlir file of a folder into its
// chunks, compiles every chunk with --no-fold, runs its test functions (the
// public functions without arguments) on a device, and prints per-file
// counts and a summary. All chunks run in this one process.
//
//   kiln-conformance DIR_OR_FILE... [--mode=inline|deferred] [--verbose] [--strict]
//
// --strict also fails when a test function is unsupported. --emit=DIR also
// writes the chunks that run grids as modules (see EmitGridChunk).
//
// Outcomes of a test function: passed; failed (a check failed or execution
// erred: a wrong answer); unsupported (its chunk failed to compile with an
// "unimplemented" error naming what is missing). interpreter.run_parallel
// grids run in-process, one thread per grid process. Exit status is non-zero
// if anything failed or crashed-to-error other than unsupported.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <regex>

#include "compiler/compile.h"
#include "compiler/parser.h"
#include "hal/cpu/cpu_device.h"
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
    options.fold = false;
    options.target = "cpu";
    auto bytes = kiln::compiler::Compile(chunk.text, path.string(), options, nullptr, chunk.first_line);
    if (!bytes.ok()) {
      bool unsupported = bytes.status().code() == kiln::StatusCode::kUnimplemented;
      (unsupported ? counts.unsupported : counts.failed) += std::max<int>(1, static_cast<int>(tests.size()));
      std::string first_line = bytes.status().message().substr(0, bytes.status().message().find('\n'));
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
      continue;
    }
    for (const auto& fn : (*module)->functions) {
      if (!fn.is_public || !fn.args.empty()) continue;
      (*context)->ClearCheckFailures();
      kiln::vm::InvokeOptions opts;
      opts.print = [](const std::string&) {};
      auto r = (*context)->Invoke(fn.name, {}, opts);
      if (r.ok() && (*context)->check_failures().empty()) {
        ++counts.passed;
        if (verbose) std::cout << "  PASS " << fn.name << "\n";
      } else if (!r.ok() && r.status().code() == kiln::StatusCode::kUnimplemented) {
        ++counts.unsupported;
        if (verbose) std::cout << "  UNSUPPORTED " << fn.name << ": " << r.status().message() << "\n";
      } else {
        ++counts.failed;
        std::cout << "  FAIL " << path.filename().string() << " " << fn.name << ": "
                  << (r.ok() ? (*context)->check_failures().front() : r.status().message()) << "\n";
      }
    }
  }
  return counts;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<fs::path> files;
  bool verbose = false, strict = false;
  std::string mode = "inline";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--verbose") { verbose = true; continue; }
    if (a == "--strict") { strict = true; continue; }
    if (a.rfind("--mode=", 0) == 0) { mode = a.substr(7); continue; }
    if (a.rfind("--emit=", 0) == 0) {
      g_emit_dir = a.substr(7);
      fs::create_directories(g_emit_dir);
      fs::remove(fs::path(g_emit_dir) / "manifest.txt");
      continue;
    }
    fs::path p(a);
    if (fs::is_directory(p)) {
      for (const auto& e : fs::recursive_directory_iterator(p))
        if (e.path().extension() == ".mlir") files.push_back(e.path());
    } else {
      files.push_back(p);
    }
  }
  std::sort(files.begin(), files.end());
  auto device = kiln::hal::CreateCpuDevice(mode == "deferred" ? kiln::hal::CpuMode::kDeferred
                                                              : kiln::hal::CpuMode::kInline);
  Counts total;
  for (const auto& f : files) {
    Counts c = RunFile(f, device.get(), verbose);
    std::cout << f.filename().string() << ": " << c.passed << " passed, " << c.failed << " failed, " << c.unsupported
              << " unsupported\n";
    total.Add(c);
  }
  std::cout << "conformance (" << files.size() << " files, cpu " << mode << "): unsupported: " << total.unsupported << "\n";
  std::cout << "conformance: " << total.passed << " passed, " << total.failed << " failed\n";
  return total.failed == 0 && (!strict || total.unsupported == 0) ? 0 : 1;
}

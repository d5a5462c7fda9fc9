#include "tools/common/compare_option.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace kiln::tools {
namespace {

// The module's source file: --compare-source, else the path the module
// records, as it is or beside the module file.
std::string FindSource(const std::string& given, const vm::LoadedModule& module, const std::string& module_path,
                       std::string* why) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!given.empty()) {
    if (fs::is_regular_file(given, ec)) return given;
    *why = "the --compare-source file '" + given + "' was not found";
    return "";
  }
  if (module.source_file.empty()) {
    *why = "the module does not record its source file (give it with --compare-source)";
    return "";
  }
  if (fs::is_regular_file(module.source_file, ec)) return module.source_file;
  const fs::path beside = fs::path(module_path).parent_path() / fs::path(module.source_file).filename();
  if (fs::is_regular_file(beside, ec)) return beside.string();
  *why = "the module's source file '" + module.source_file + "' was not found (give it with --compare-source)";
  return "";
}

}  // namespace

void CompareFlags::Add(CommandLine& cli) {
  cli.Text("--compare-with", &with,
           "reference (cpu device): run every dispatch on the reference kernels too and report the first whose result "
           "differs (--atol/--rtol, else per type), with a repro; cpu (vulkan device): the same with the cpu kernels");
  cli.Text("--compare-repro-dir", &repro_dir,
           "where --compare-with writes the repro of the first differing dispatch (default: kiln-repro beside the "
           "first --output, else ./kiln-repro)");
  cli.Text("--compare-source", &source,
           "the .mlir file the module was compiled from, for the repro (default: the path the module records)");
}

Status CompareFlags::Check(const std::string& device_name, uint32_t processes) const {
  if (with.empty()) return Status::Ok();
  if (with != "reference" && with != "cpu")
    return InvalidArgument("--compare-with takes 'reference' or 'cpu', not '" + with + "'");
  const bool cpu = device_name.rfind("cpu", 0) == 0, vulkan = device_name.rfind("vulkan", 0) == 0;
  if (with == "reference" && !cpu)
    return Unimplemented("--compare-with=reference runs on the cpu device only (this run's device: " + device_name +
                         "); --compare-with=cpu compares a vulkan run with the cpu device's kernels");
  if (with == "cpu" && !vulkan)
    return InvalidArgument("--compare-with=cpu compares a vulkan run with the cpu device's kernels (this run's device: " +
                           device_name + "); on the cpu device, --compare-with=reference");
  if (processes > 1)
    return InvalidArgument("--compare-with compares a run of one process, not a grid of " + std::to_string(processes));
  return Status::Ok();
}

StatusOr<std::shared_ptr<DispatchComparer>> CompareFlags::Start(std::shared_ptr<const vm::LoadedModule> module,
                                                                hal::Device* device, CompareTolerance tolerance,
                                                                std::shared_ptr<hal::DispatchObserver> next) const {
  auto comparer = std::make_shared<DispatchComparer>(std::move(module), device, tolerance, std::move(next),
                                                     with == "cpu" ? CompareAgainst::kCpu : CompareAgainst::kReference);
  if (!device->SetDispatchObserver(comparer))
    return Unimplemented("the " + device->name() + " device does not report its dispatches: --compare-with needs it");
  return comparer;
}

bool CompareFlags::Finish(const DispatchComparer& comparer, const vm::LoadedModule& module,
                          const std::string& module_path, const std::vector<std::string>& outputs,
                          const ReproMlirBuilder& builder) const {
  if (!comparer.error().ok()) {
    std::cerr << "error: --compare-with: " << comparer.error().message() << "\n";
    return false;
  }
  std::cerr << comparer.Report();
  if (!comparer.mismatch()) return true;
  const DispatchMismatch& m = *comparer.mismatch();
  ReproFiles files;
  const std::string path = FindSource(source, module, module_path, &files.why);
  if (!path.empty()) {
    if (!builder) {
      files.why = "this vm-run was built without the compiler, which makes the program";
    } else {
      std::ifstream in(path, std::ios::binary);
      std::stringstream text;
      text << in.rdbuf();
      if (Status s = builder(text.str(), path, m, &files); !s.ok()) files.why = s.message();
    }
  }
  std::string dir = repro_dir;
  if (dir.empty()) {
    std::string first = outputs.empty() ? "" : outputs[0];
    if (!first.empty() && first[0] == '@') first = first.substr(1);
    const std::filesystem::path parent = std::filesystem::path(first).parent_path();
    dir = (parent.empty() ? std::filesystem::path("kiln-repro") : parent / "kiln-repro").string();
  }
  auto commands = WriteReproDir(dir, m, files, comparer.tolerance(), comparer.against());
  if (!commands.ok()) {
    std::cerr << "error: --compare-with: " << commands.status().message() << "\n";
    return false;
  }
  std::cerr << "  repro in " << dir << ": " << *commands << "\n";
  return false;
}

}  // namespace kiln::tools

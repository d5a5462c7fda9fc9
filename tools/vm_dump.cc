// vm-dump OUT.kiln [--sizes]: shows what a module holds.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>

#include "kernels/common/scalar_program.h"
#include "tools/common/guarded_main.h"
#include "vm/module.h"

namespace {

std::string OperandText(const kiln::vm::Operand& o) {
  auto list = [&](char prefix) {
    std::string s = "[";
    for (size_t i = 0; i < o.list.size(); ++i) s += (i ? ", " : "") + std::string(1, prefix) + std::to_string(o.list[i]);
    return s + "]";
  };
  switch (o.kind) {
    case 'i': return "i" + std::to_string(o.value);
    case 'r': return "r" + std::to_string(o.value);
    case 'c': return "const#" + std::to_string(o.value);
    case 'e': return "exe#" + std::to_string(o.value);
    case 'f': return "func#" + std::to_string(o.value);
    case 's': return "str#" + std::to_string(o.value);
    case 't': return std::string(kiln::Name(static_cast<kiln::ElementType>(o.value)));
    case 'p': return "@" + std::to_string(o.value);
    case 'k': return std::to_string(static_cast<int64_t>(o.value));
    case 'I': return list('i');
    case 'R': return list('r');
    default: return std::to_string(o.value);
  }
}

int Main(int argc, char** argv) {
  CLI::App app{"vm-dump: shows the contents of a Kiln module"};
  std::string path;
  bool sizes = false;
  app.add_option("module", path, "module file (.kiln)")->required();
  app.add_flag("--sizes", sizes, "report what each part of the file weighs");
  CLI11_PARSE(app, argc, argv);
  auto loaded = kiln::vm::LoadModuleFromFile(path);
  if (!loaded.ok()) {
    std::cerr << "error: " << loaded.status().message() << "\n";
    return 1;
  }
  const auto& m = **loaded;
  std::printf("module '%s' (format %u.%u, from %s), %zu bytes\n", m.name.c_str(), m.version_major, m.version_minor,
              m.source_file.c_str(), m.file.size());
  size_t const_stored = 0, const_raw = 0;
  for (size_t i = 0; i < m.constants.size(); ++i) {
    const auto& c = m.constants[i];
    const_stored += c.stored_size;
    const_raw += c.size;
    std::string dims;
    for (auto d : c.dims) dims += std::to_string(d) + "x";
    if (!sizes) std::printf("const#%zu: %s%s, %zu bytes stored, %zu raw%s\n", i, dims.c_str(),
                            std::string(kiln::Name(c.type)).c_str(), c.stored_size, c.size, c.compressed ? " (zstd)" : "");
  }
  for (size_t i = 0; i < m.executables.size() && !sizes; ++i) {
    const auto& e = m.executables[i];
    std::printf("exe#%zu: cpu kernel %s", i, e.kernel.c_str());
    for (const auto& a : e.attrs) std::printf(" %s%s", a.name.c_str(), a.has_program ? "=<program>" : "");
    std::printf("\n");
  }
  size_t code_bytes = 0;
  for (const auto& f : m.functions) {
    for (const auto& ins : f.code) code_bytes += ins.next_pc - ins.pc;
    if (sizes) continue;
    std::string sig = "(";
    for (size_t i = 0; i < f.args.size(); ++i) sig += (i ? ", " : "") + f.args[i].ToString();
    sig += ") -> (";
    for (size_t i = 0; i < f.results.size(); ++i) sig += (i ? ", " : "") + f.results[i].ToString();
    sig += ")";
    std::printf("\nfunction %s%s %s  [%u i64 registers, %u ref registers]\n", f.is_public ? "" : "private ",
                f.name.c_str(), sig.c_str(), f.num_i64_registers, f.num_ref_registers);
    for (const auto& u : f.unavailable)
      std::printf("  unavailable on %s: %s (%s): %s\n", u.device.c_str(), u.op.c_str(), u.type.c_str(), u.reason.c_str());
    for (size_t i = 0; i < f.code.size(); ++i) {
      const auto& ins = f.code[i];
      std::string line = std::to_string(i) + ": " + std::string(kiln::vm::GetOpcodeInfo(static_cast<uint8_t>(ins.op)).mnemonic);
      for (size_t k = 0; k < ins.operands.size(); ++k) {
        std::string text = OperandText(ins.operands[k]);
        kiln::ScalarOp op;  // scalar.op names its op
        if (ins.op == kiln::vm::Opcode::kScalarOp && k == 1 && kiln::ScalarOpFromCode(static_cast<uint32_t>(ins.operands[k].value), &op))
          text = std::string(kiln::ScalarOpName(op));
        line += (k ? ", " : " ") + text;
      }
      std::string loc = f.LocationOf(i);
      std::printf("  %-70s %s\n", line.c_str(), loc.empty() ? "" : ("// " + m.source_file + ":" + loc).c_str());
    }
  }
  std::printf("\nsizes: file %zu bytes; constants %zu stored (%zu raw) in %zu; bytecode %zu in %zu functions; "
              "%zu executables\n",
              m.file.size(), const_stored, const_raw, m.constants.size(), code_bytes, m.functions.size(),
              m.executables.size());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return kiln::tools::GuardedMain("vm-dump", [&] { return Main(argc, argv); });
}

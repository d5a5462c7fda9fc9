// vm-dump OUT.kiln [--sizes | --json] [--dump-spirv=DIR]: shows what a module holds:
// constants, executables (the kernel with its attribute values, and each
// Vulkan variant: signature, SPIR-V size, entry point, workgroup size, grid,
// features), and functions with their disassembled bytecode. --dump-spirv
// writes each variant's SPIR-V to DIR/exe<N>.<K>.spv (for spirv-dis).
// --json prints signatures and sizes as one JSON document for scripts.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "kernels/common/file_io.h"
#include "kernels/common/json_quote.h"
#include "kernels/common/scalar_program.h"
#include "tools/cli/cli.h"
#include "tools/common/guarded_main.h"
#include "tools/common/parameters_option.h"
#include "vm/parameters.h"
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
    case 'g': return "global#" + std::to_string(o.value);
    case 't': return std::string(kiln::Name(static_cast<kiln::ElementType>(o.value)));
    case 'p': return "@" + std::to_string(o.value);
    case 'k': return std::to_string(static_cast<int64_t>(o.value));
    case 'I': return list('i');
    case 'R': return list('r');
    default: return std::to_string(o.value);
  }
}

// "name=3", "name=[1, 2]", "name=0.5", "name=\"text\"", "name=<program: stablehlo.add>".
std::string AttrText(const kiln::KernelAttr& a) {
  if (a.has_program) {
    std::string ops;
    for (const auto& in : a.program.instrs) ops += (ops.empty() ? "" : ", ") + std::string(kiln::ScalarOpName(in.op));
    return a.name + "=<program: " + (ops.empty() ? "returns a parameter" : ops) + ">";
  }
  if (!a.str.empty()) return a.name + "=\"" + a.str + "\"";
  std::vector<std::string> values;
  for (int64_t v : a.ints) values.push_back(std::to_string(v));
  for (double v : a.floats) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    values.push_back(buf);
  }
  if (values.size() == 1) return a.name + "=" + values[0];
  std::string list;
  for (const auto& v : values) list += (list.empty() ? "" : ", ") + v;
  return a.name + "=[" + list + "]";
}

// The name of the shader's first OpEntryPoint, or "?" if it has none.
std::string SpirvEntryPoint(const std::vector<uint32_t>& words) {
  constexpr uint32_t kOpEntryPoint = 15;  // execution model, function id, name
  for (size_t i = 5; i < words.size();) {  // after the 5-word header
    const uint32_t count = words[i] >> 16, op = words[i] & 0xffff;
    if (count == 0 || count > words.size() - i) break;
    if (op == kOpEntryPoint && count > 3) {
      const char* name = reinterpret_cast<const char*>(&words[i + 3]);
      return std::string(name, strnlen(name, (count - 3) * sizeof(uint32_t)));
    }
    i += count;
  }
  return "?";
}

// "(rank-2 f32, rank-0 f32) -> (rank-1 f32)", as the Vulkan device names a signature.
std::string VariantSignature(const kiln::hal::ShaderVariant& v) {
  auto side = [](const std::vector<kiln::ElementType>& types, const std::vector<uint8_t>& ranks) {
    std::string s = "(";
    for (size_t i = 0; i < types.size() && i < ranks.size(); ++i)
      s += (i ? ", " : "") + ("rank-" + std::to_string(ranks[i])) + " " + std::string(kiln::Name(types[i]));
    return s + ")";
  };
  return side(v.input_types, v.input_ranks) + " -> " + side(v.output_types, v.output_ranks);
}

std::string VariantText(const kiln::hal::ShaderVariant& v) {
  std::string grid = v.grid_kind == kiln::hal::ShaderGrid::kTiles      ? "tiles"
                     : v.grid_kind == kiln::hal::ShaderGrid::kPerGroup ? "one group per element"
                     : v.grid_kind == kiln::hal::ShaderGrid::kPerRow   ? "one group per row"
                                                                       : "one invocation per element";
  const uint32_t per = kiln::hal::ElementsPerInvocation(v);
  if (per > 1) grid = "one invocation per " + std::to_string(per) + " elements";
  if (!v.grid_args.empty()) {
    grid += " [";
    for (size_t i = 0; i < v.grid_args.size(); ++i) grid += (i ? ", " : "") + std::to_string(v.grid_args[i]);
    grid += "]";
  }
  std::string features = kiln::hal::ShaderFeatureNames(v.features);
  return VariantSignature(v) + ": " + std::to_string(v.spirv.size() * sizeof(uint32_t)) + " bytes of SPIR-V, entry " +
         SpirvEntryPoint(v.spirv) + ", workgroup " + std::to_string(v.workgroup_size) + ", grid " + grid +
         ", features " + (features.empty() ? "none" : features);
}

// --dump-spirv=DIR: every variant's SPIR-V as DIR/exe<N>.<K>.spv.
kiln::Status DumpSpirv(const kiln::vm::LoadedModule& m, const std::string& dir) {
  size_t count = 0;
  for (const auto& variants : m.vulkan_shaders) count += variants.size();
  if (count == 0)
    return kiln::InvalidArgument("the module has no Vulkan shaders to dump (compile it with --target=all or vulkan)");
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return kiln::InvalidArgument("cannot create the directory '" + dir + "': " + ec.message());
  for (size_t e = 0; e < m.vulkan_shaders.size(); ++e)
    for (size_t k = 0; k < m.vulkan_shaders[e].size(); ++k) {
      const auto& words = m.vulkan_shaders[e][k].spirv;
      std::string path = dir + "/exe" + std::to_string(e) + "." + std::to_string(k) + ".spv";
      KILN_RETURN_IF_ERROR(kiln::WriteFile(
          path, std::string_view(reinterpret_cast<const char*>(words.data()), words.size() * sizeof(uint32_t))));
    }
  std::fprintf(stderr, "wrote %s to %s (exe<N>.<K>.spv: executable N, variant K)\n",
               kiln::tools::Count(count, "SPIR-V file").c_str(), dir.c_str());
  return kiln::Status::Ok();
}

// A function's figures with the functions it calls (docs/memory.md): its
// own N and M plus, for every call instruction, the callee's with-callees
// N and M. A sum, not the largest callee's: a callee's arena and pool
// tensors are gone when it returns, but its results (in its pool figure)
// may live on while the caller makes its next call. Each call site counts
// once, as M counts each alloc once even in a loop. Unbounded for a
// function that may recurse.
struct WithCallees {
  bool bounded = true;
  uint64_t peak = 0, unplanned = 0;
};

WithCallees FiguresWithCallees(const kiln::vm::LoadedModule& m, size_t fn, std::vector<int>& state,
                               std::vector<WithCallees>& memo) {
  if (state[fn] == 2) return memo[fn];
  if (state[fn] == 1) return WithCallees{false, 0, 0};  // a call cycle
  state[fn] = 1;
  const kiln::vm::LoadedFunction& f = m.functions[fn];
  WithCallees w{true, 0, 0};
  for (const auto& ins : f.code) {
    if (ins.op != kiln::vm::Opcode::kCall) continue;
    const WithCallees callee = FiguresWithCallees(m, ins.operands[0].value, state, memo);
    if (!callee.bounded) w.bounded = false;
    w.peak += callee.peak;
    w.unplanned += callee.unplanned;
  }
  w.peak += f.arena_bytes + f.pool_transient_bytes;
  w.unplanned += f.transient_bytes;
  state[fn] = 2;
  memo[fn] = w;
  return w;
}

bool CallsAFunction(const kiln::vm::LoadedFunction& f) {
  for (const auto& ins : f.code)
    if (ins.op == kiln::vm::Opcode::kCall) return true;
  return false;
}

// "peak transient: N bytes (unplanned: M)" (docs/memory.md defines both):
// N = the arena plus the static transients left to the pool, M = every
// static transient's bytes summed; tensors sized at run time are in neither.
// A function that calls others adds the same two figures with its callees'
// counted in.
void PrintPeakTransient(const kiln::vm::LoadedModule& m, const kiln::vm::LoadedFunction& f,
                        const WithCallees& with_callees) {
  if (m.version_major == 0 && m.version_minor < 4) {
    std::printf("  peak transient: not recorded (format %u.%u)\n", m.version_major, m.version_minor);
    return;
  }
  std::printf("  peak transient: %llu bytes (unplanned: %llu)",
              static_cast<unsigned long long>(f.arena_bytes + f.pool_transient_bytes),
              static_cast<unsigned long long>(f.transient_bytes));
  std::printf("; arena %llu, pool %llu", static_cast<unsigned long long>(f.arena_bytes),
              static_cast<unsigned long long>(f.pool_transient_bytes));
  if (f.dynamic_allocs) std::printf("; plus %u tensors sized at run time", f.dynamic_allocs);
  std::printf("\n");
  if (!CallsAFunction(f)) return;
  if (!with_callees.bounded) {
    std::printf("  with callees: unbounded (it or a function it calls may recurse)\n");
    return;
  }
  std::printf("  with callees: %llu bytes (unplanned: %llu)\n", static_cast<unsigned long long>(with_callees.peak),
              static_cast<unsigned long long>(with_callees.unplanned));
}

// --json (README's vm-dump guide lists the fields): the module's signatures
// and the same figures the text prints, for scripts. No bytecode: its
// operands are for reading, not for machines. Every value has a "name" (""
// when the source gave it none; compiler/lower/value_names.h).
std::string JsonValueSig(const kiln::vm::ValueSig& v) {
  using Kind = kiln::vm::ValueSig::Kind;
  const std::string name = "\"name\": " + kiln::JsonQuote(v.name);
  if (v.kind != Kind::kTensor)
    return std::string("{\"kind\": ") + (v.kind == Kind::kToken ? "\"token\", " : "\"tuple\", ") + name + "}";
  std::string dims;
  for (int64_t d : v.dims) dims += (dims.empty() ? "" : ", ") + std::to_string(d < 0 ? -1 : d);
  return "{\"kind\": \"tensor\", \"element_type\": " + kiln::JsonQuote(kiln::Name(v.type)) + ", \"dims\": [" + dims +
         "], " + name + "}";
}

// A value in the text's signature line: its type, then its name quoted when
// it has one: `tensor<4xf32> "x"`.
std::string TextValueSig(const kiln::vm::ValueSig& v) {
  return v.name.empty() ? v.ToString() : v.ToString() + " " + kiln::JsonQuote(v.name);
}

std::string JsonSigList(const std::vector<kiln::vm::ValueSig>& sigs) {
  std::string s = "[";
  for (size_t i = 0; i < sigs.size(); ++i) s += (i ? ", " : "") + JsonValueSig(sigs[i]);
  return s + "]";
}

void PrintJson(const kiln::vm::LoadedModule& m) {
  size_t const_stored = 0, const_raw = 0, const_count = 0, param_bytes = 0, param_count = 0, param_bound = 0;
  for (const auto& c : m.constants) {
    if (c.parameter) {
      param_bytes += c.size;
      ++param_count;
      param_bound += c.bound;
    } else {
      const_stored += c.stored_size;
      const_raw += c.size;
      ++const_count;
    }
  }
  std::string targets;
  for (const auto& t : m.targets) targets += (targets.empty() ? "" : ", ") + kiln::JsonQuote(t);
  std::printf("{\n  \"module\": %s,\n  \"format\": {\"major\": %u, \"minor\": %u},\n  \"source_file\": %s,\n"
              "  \"targets\": [%s],\n",
              kiln::JsonQuote(m.name).c_str(), m.version_major, m.version_minor, kiln::JsonQuote(m.source_file).c_str(),
              targets.c_str());
  // Peak figures are null in files older than 0.4, which did not record them.
  const bool planned = m.version_major > 0 || m.version_minor >= 4;
  std::vector<int> call_state(m.functions.size(), 0);
  std::vector<WithCallees> memo(m.functions.size());
  size_t code_bytes = 0;
  std::printf("  \"functions\": [");
  for (size_t fn = 0; fn < m.functions.size(); ++fn) {
    const auto& f = m.functions[fn];
    size_t bytes = 0;
    for (const auto& ins : f.code) bytes += ins.next_pc - ins.pc;
    code_bytes += bytes;
    std::printf("%s\n    {\"name\": %s, \"public\": %s, \"args\": %s, \"results\": %s,\n", fn ? "," : "",
                kiln::JsonQuote(f.name).c_str(), f.is_public ? "true" : "false", JsonSigList(f.args).c_str(),
                JsonSigList(f.results).c_str());
    std::printf("     \"i64_registers\": %u, \"ref_registers\": %u, \"bytecode_bytes\": %zu, ", f.num_i64_registers,
                f.num_ref_registers, bytes);
    if (!planned) {
      std::printf("\"memory\": null}");
      continue;
    }
    const WithCallees w = FiguresWithCallees(m, fn, call_state, memo);
    std::string callees = "null";  // only for a function that calls others
    if (CallsAFunction(f))
      callees = w.bounded ? "{\"peak_transient_bytes\": " + std::to_string(w.peak) +
                                ", \"unplanned_bytes\": " + std::to_string(w.unplanned) + "}"
                          : "\"unbounded\"";
    std::printf("\"memory\": {\"peak_transient_bytes\": %llu, \"unplanned_bytes\": %llu, \"arena_bytes\": %llu, "
                "\"pool_bytes\": %llu, \"dynamic_allocs\": %u, \"with_callees\": %s}}",
                static_cast<unsigned long long>(f.arena_bytes + f.pool_transient_bytes),
                static_cast<unsigned long long>(f.transient_bytes), static_cast<unsigned long long>(f.arena_bytes),
                static_cast<unsigned long long>(f.pool_transient_bytes), f.dynamic_allocs, callees.c_str());
  }
  size_t spirv_bytes = 0, variant_count = 0;
  std::printf("\n  ],\n  \"executables\": [");
  for (size_t i = 0; i < m.executables.size(); ++i) {
    size_t exe_spirv = 0;
    for (const auto& v : m.vulkan_shaders[i]) exe_spirv += v.spirv.size() * sizeof(uint32_t);
    spirv_bytes += exe_spirv;
    variant_count += m.vulkan_shaders[i].size();
    std::printf("%s\n    {\"kernel\": %s, \"vulkan_variants\": %zu, \"spirv_bytes\": %zu}", i ? "," : "",
                kiln::JsonQuote(m.executables[i].kernel).c_str(), m.vulkan_shaders[i].size(), exe_spirv);
  }
  std::printf("\n  ],\n  \"constants\": {\"count\": %zu, \"stored_bytes\": %zu, \"raw_bytes\": %zu},\n"
              "  \"parameters\": {\"count\": %zu, \"bytes\": %zu, \"bound\": %zu},\n",
              const_count, const_stored, const_raw, param_count, param_bytes, param_bound);
  std::printf("  \"sizes\": {\"file_bytes\": %zu, \"constant_stored_bytes\": %zu, \"constant_raw_bytes\": %zu, "
              "\"bytecode_bytes\": %zu, \"spirv_bytes\": %zu, \"vulkan_variants\": %zu}\n}\n",
              m.bytes->size(), const_stored, const_raw, code_bytes, spirv_bytes, variant_count);
}

int Main(int argc, char** argv) {
  kiln::tools::CommandLine cli("vm-dump", "shows the contents of a Kiln module");
  std::string path, spirv_dir;
  bool sizes = false, json = false;
  cli.Positional("module", &path, "module file (.kiln)", true);
  cli.Flag("--sizes", &sizes, "report only what each part of the file weighs");
  cli.Flag("--json", &json, "print signatures and sizes as one JSON document");
  cli.Text("--dump-spirv", &spirv_dir, "write each Vulkan variant's SPIR-V to DIR/exe<N>.<K>.spv");
  std::vector<std::string> parameter_files;
  kiln::tools::AddParametersOption(cli, &parameter_files);
  if (auto exit = cli.Parse(argc, argv)) return *exit;
  if (json && sizes) {
    std::cerr << "error: --json and --sizes cannot be combined (--json includes the sizes)\n";
    return 1;
  }
  auto load_options = kiln::tools::LoadOptionsWithParameters(parameter_files);
  if (!load_options.ok()) {
    std::cerr << "error: " << load_options.status().message() << "\n";
    return 1;
  }
  auto loaded = kiln::vm::LoadModuleFromFile(path, *load_options);
  if (!loaded.ok()) {
    std::cerr << "error: " << loaded.status().message() << "\n";
    return 1;
  }
  const auto& m = **loaded;
  if (json) {
    PrintJson(m);
    if (!spirv_dir.empty()) {
      if (kiln::Status s = DumpSpirv(m, spirv_dir); !s.ok()) {
        std::cerr << "error: " << s.message() << "\n";
        return 1;
      }
    }
    return 0;
  }
  std::printf("module '%s' (format %u.%u, from %s), %zu bytes\n", m.name.c_str(), m.version_major, m.version_minor,
              m.source_file.c_str(), m.bytes->size());
  // What it was compiled for, and whether it carries checksums (format 0.3;
  // the loader has checked them unless KILN_VERIFY_CHECKSUMS=0).
  std::string targets;
  for (const auto& t : m.targets) targets += (targets.empty() ? "" : ", ") + t;
  const bool checksummed = m.version_major > 0 || m.version_minor >= 3;
  std::printf("targets: %s; checksums: %s\n", targets.empty() ? "not recorded" : targets.c_str(),
              checksummed ? "xxHash64 of the metadata and of each constant" : "none (format 0.2)");
  // Module globals (added within format 0.5): each context's value starts as a constant.
  if (!sizes)
    for (size_t i = 0; i < m.globals.size(); ++i)
      std::printf("global#%zu: @%s, %s, initial value const#%u\n", i, m.globals[i].name.c_str(),
                  m.globals[i].is_mutable ? "mutable" : "immutable", m.globals[i].initial);
  size_t const_stored = 0, const_raw = 0, const_count = 0, param_bytes = 0, param_count = 0, param_bound = 0;
  for (size_t i = 0; i < m.constants.size(); ++i) {
    const auto& c = m.constants[i];
    std::string dims;
    for (auto d : c.dims) dims += std::to_string(d) + "x";
    if (c.parameter) {  // format 0.4: external, its bytes in a parameter file
      const auto& p = *c.parameter;
      param_bytes += c.size;
      ++param_count;
      param_bound += c.bound;
      char hash[32] = "none";
      if (p.has_checksum) std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(p.checksum));
      if (!sizes)
        std::printf("const#%zu: %s%s, parameter %s, %zu bytes, xxHash64 %s, %s\n", i, dims.c_str(),
                    std::string(kiln::Name(c.type)).c_str(), kiln::vm::ParameterName(p.scope, p.key).c_str(), c.size,
                    hash, c.bound ? ("bound to " + c.parameter_file->path()).c_str() : "unbound");
      continue;
    }
    ++const_count;
    const_stored += c.stored_size;
    const_raw += c.size;
    if (!sizes) std::printf("const#%zu: %s%s, %zu bytes stored, %zu raw%s\n", i, dims.c_str(),
                            std::string(kiln::Name(c.type)).c_str(), c.stored_size, c.size, c.compressed ? " (zstd)" : "");
  }
  // What the constants weigh in the file and once in memory, and how the
  // file was opened (mapped unless KILN_MAP_MODULES=0): mapped, uncompressed
  // constants cost no memory of the process's own until used.
  std::printf("constant bytes: %zu stored, %zu raw, in %s; file %s\n", const_stored, const_raw,
              kiln::tools::Count(const_count, "constant").c_str(), m.bytes->SourceName());
  size_t spirv_bytes = 0, variant_count = 0;
  for (const auto& variants : m.vulkan_shaders)
    for (const auto& v : variants) {
      spirv_bytes += v.spirv.size() * sizeof(uint32_t);
      ++variant_count;
    }
  for (size_t i = 0; i < m.executables.size() && !sizes; ++i) {
    const auto& e = m.executables[i];
    std::printf("exe#%zu: kernel %s", i, e.kernel.c_str());
    for (const auto& a : e.attrs) std::printf(" %s", AttrText(a).c_str());
    std::printf("\n");
    const auto& variants = m.vulkan_shaders[i];
    if (variants.empty() && variant_count > 0) std::printf("  vulkan: no variant\n");
    for (size_t k = 0; k < variants.size(); ++k)
      std::printf("  vulkan #%zu: %s\n", k, VariantText(variants[k]).c_str());
  }
  size_t code_bytes = 0;
  std::vector<int> call_state(m.functions.size(), 0);
  std::vector<WithCallees> with_callees(m.functions.size());
  for (size_t fn = 0; fn < m.functions.size(); ++fn) {
    const auto& f = m.functions[fn];
    for (const auto& ins : f.code) code_bytes += ins.next_pc - ins.pc;
    if (sizes) continue;
    std::string sig = "(";
    for (size_t i = 0; i < f.args.size(); ++i) sig += (i ? ", " : "") + TextValueSig(f.args[i]);
    sig += ") -> (";
    for (size_t i = 0; i < f.results.size(); ++i) sig += (i ? ", " : "") + TextValueSig(f.results[i]);
    sig += ")";
    std::printf("\nfunction %s%s %s  [%u i64 registers, %u ref registers]\n", f.is_public ? "" : "private ",
                f.name.c_str(), sig.c_str(), f.num_i64_registers, f.num_ref_registers);
    PrintPeakTransient(m, f, FiguresWithCallees(m, fn, call_state, with_callees));
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
  using kiln::tools::Count;
  std::printf("sizes: file %zu bytes; constants %zu stored (%zu raw) in %zu; bytecode %zu in %s; %s; "
              "vulkan shaders %zu bytes of SPIR-V in %s\n",
              m.bytes->size(), const_stored, const_raw, const_count, code_bytes,
              Count(m.functions.size(), "function").c_str(), Count(m.executables.size(), "executable").c_str(),
              spirv_bytes, Count(variant_count, "variant").c_str());
  if (param_count)
    std::printf("parameters: %zu bytes in %s outside the module, %zu bound\n", param_bytes,
                Count(param_count, "parameter").c_str(), param_bound);
  if (!spirv_dir.empty()) {
    if (kiln::Status s = DumpSpirv(m, spirv_dir); !s.ok()) {
      std::cerr << "error: " << s.message() << "\n";
      return 1;
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return kiln::tools::GuardedMain("vm-dump", [&] { return Main(argc, argv); });
}

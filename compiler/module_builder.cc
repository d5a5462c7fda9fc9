#include "compiler/module_builder.h"

#include <zstd.h>

#include <cstdlib>
#include <cstring>

#include "schema/format_version.h"
#include "schema/module_checksum.h"
#include "schema/module_generated.h"
#include "schema/module_layout.h"

namespace kiln::compiler {
namespace {

uint64_t AlignUp(uint64_t n, uint64_t alignment) { return (n + alignment - 1) / alignment * alignment; }

// A byte string that identifies an executable's content, for sharing.
std::string KeyOf(const KernelParams& p) {
  std::string k = p.kernel + '\0';
  auto put = [&](const void* d, size_t n) { k.append(static_cast<const char*>(d), n); };
  for (const auto& a : p.attrs) {
    k += a.name + '\0';
    size_t n = a.ints.size();
    put(&n, sizeof n);
    put(a.ints.data(), n * 8);
    n = a.floats.size();
    put(&n, sizeof n);
    put(a.floats.data(), n * 8);
    k += a.str + '\0';
    if (a.has_program) {
      const auto& pr = a.program;
      for (auto t : pr.param_types) k += static_cast<char>(t);
      k += '|';
      for (const auto& in : pr.instrs) {
        put(&in.op, sizeof in.op);
        put(&in.type, sizeof in.type);
        put(&in.num_operands, 1);
        put(in.operands, sizeof in.operands);
        put(&in.attr0, 8);
        put(&in.attr1, 8);
        put(&in.constant, sizeof in.constant);
      }
      for (auto r : pr.results) put(&r, 2);
    }
    k += '\n';
  }
  return k;
}

}  // namespace

uint32_t ModuleBuilder::AddConstant(ConstantOut c) {
  constants.push_back(std::move(c));
  return static_cast<uint32_t>(constants.size() - 1);
}

uint32_t ModuleBuilder::AddExecutable(KernelParams p) {
  std::string key = KeyOf(p);
  auto it = executable_index_.find(key);
  if (it != executable_index_.end()) return it->second;
  executables.push_back(std::move(p));
  vulkan_shaders.emplace_back();
  uint32_t i = static_cast<uint32_t>(executables.size() - 1);
  executable_index_[key] = i;
  return i;
}

uint32_t ModuleBuilder::AddString(const std::string& s) {
  auto it = string_index_.find(s);
  if (it != string_index_.end()) return it->second;
  strings.push_back(s);
  uint32_t i = static_cast<uint32_t>(strings.size() - 1);
  string_index_[s] = i;
  return i;
}

std::vector<uint8_t> ModuleBuilder::Serialize(size_t compress_min_bytes, Layout layout) const {
  const bool inline_data = layout == Layout::kInline04;
  flatbuffers::FlatBufferBuilder fbb(1 << 16);
  fbb.ForceDefaults(true);  // the version is always stored, even 0.x
  auto sig = [&](const SigOut& s) {
    // No name, no string: a module without names stays byte-identical.
    return fb::CreateTensorSig(fbb, static_cast<uint8_t>(s.type), fbb.CreateVector(s.dims), s.kind,
                               s.name.empty() ? 0 : fbb.CreateString(s.name));
  };
  std::vector<flatbuffers::Offset<fb::Function>> fns;
  for (const auto& f : functions) {
    std::vector<flatbuffers::Offset<fb::TensorSig>> args, results;
    for (const auto& s : f.args) args.push_back(sig(s));
    for (const auto& s : f.results) results.push_back(sig(s));
    std::vector<flatbuffers::Offset<fb::SourceLocation>> locs;
    for (const auto& l : f.locations) locs.push_back(fb::CreateSourceLocation(fbb, l.pc, l.line, l.col));
    std::vector<flatbuffers::Offset<fb::Unavailable>> unav;
    for (const auto& u : f.unavailable)
      unav.push_back(fb::CreateUnavailable(fbb, fbb.CreateString(u.device), fbb.CreateString(u.op),
                                           fbb.CreateString(u.type), fbb.CreateString(u.reason)));
    // Absent unless some argument is donated, so other modules' bytes stay as they were.
    flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::ArgDonation>>> donations;
    if (!f.donations.empty()) {
      std::vector<flatbuffers::Offset<fb::ArgDonation>> d;
      for (const auto& x : f.donations) d.push_back(fb::CreateArgDonation(fbb, x.arg, x.output));
      donations = fbb.CreateVector(d);
    }
    fns.push_back(fb::CreateFunction(fbb, fbb.CreateString(f.name), f.is_public, fbb.CreateVector(args),
                                     fbb.CreateVector(results), f.num_i64_registers, f.num_ref_registers,
                                     fbb.CreateVector(f.bytecode), fbb.CreateVector(locs), fbb.CreateVector(unav),
                                     f.memory.arena_bytes, f.memory.transient_bytes, f.memory.pool_bytes,
                                     f.memory.dynamic_allocs, donations));
  }
  std::vector<flatbuffers::Offset<fb::Constant>> consts;
  std::vector<uint8_t> segment;  // the data segment's bytes (not kInline04)
  for (const auto& c : constants) {
    if (c.parameter) {  // no data: its bytes live in a parameter file
      uint64_t bytes = StorageBytes(c.type);
      for (int64_t d : c.dims) bytes *= static_cast<uint64_t>(d);
      const ParameterOut& p = *c.parameter;
      auto param = fb::CreateParameter(fbb, fbb.CreateString(p.scope), fbb.CreateString(p.key), p.checksum,
                                       p.has_checksum);
      consts.push_back(fb::CreateConstant(fbb, static_cast<uint8_t>(c.type), fbb.CreateVector(c.dims),
                                          fb::Compression::None, bytes, 0, /*checksum=*/0, param));
      continue;
    }
    const std::vector<uint8_t>* payload = &c.data;
    std::vector<uint8_t> packed;
    fb::Compression comp = fb::Compression::None;
    if (c.data.size() >= compress_min_bytes) {
      packed.resize(ZSTD_compressBound(c.data.size()));
      size_t n = ZSTD_compress(packed.data(), packed.size(), c.data.data(), c.data.size(), 9);
      if (!ZSTD_isError(n) && n * 10 <= c.data.size() * 9) {  // saves at least 10%
        packed.resize(n);
        payload = &packed;
        comp = fb::Compression::Zstd;
      }
    }
    if (inline_data) {
      // Align constant data to 64 bytes so a mapped file can be used in place.
      fbb.ForceVectorAlignment(payload->size(), 1, fb::kConstantAlignment);
      auto data = fbb.CreateVector(*payload);
      consts.push_back(fb::CreateConstant(fbb, static_cast<uint8_t>(c.type), fbb.CreateVector(c.dims), comp,
                                          c.data.size(), data, /*checksum=*/0));
      continue;
    }
    const uint64_t offset = AlignUp(segment.size(), fb::kConstantAlignment);
    segment.resize(offset);
    segment.insert(segment.end(), payload->begin(), payload->end());
    consts.push_back(fb::CreateConstant(fbb, static_cast<uint8_t>(c.type), fbb.CreateVector(c.dims), comp,
                                        c.data.size(), 0, /*checksum=*/0, 0, offset,
                                        payload->size()));
  }
  std::vector<flatbuffers::Offset<fb::Executable>> exes;
  for (size_t ei = 0; ei < executables.size(); ++ei) {
    const KernelParams& e = executables[ei];
    std::vector<flatbuffers::Offset<fb::VulkanExecutable>> variants;
    if (ei < vulkan_shaders.size())
      for (const auto& v : vulkan_shaders[ei]) {
        auto codes = [&](const std::vector<ElementType>& t) {
          std::vector<uint8_t> c;
          for (auto x : t) c.push_back(static_cast<uint8_t>(x));
          return fbb.CreateVector(c);
        };
        std::vector<uint32_t> wg = {v.workgroup_size, 1, 1};
        variants.push_back(fb::CreateVulkanExecutable(
            fbb, fbb.CreateVector(v.spirv), fbb.CreateString("main"), 0,
            static_cast<uint32_t>(1 + v.input_types.size() + v.output_types.size()), fbb.CreateVector(wg),
            codes(v.input_types), codes(v.output_types), fbb.CreateVector(v.input_ranks),
            fbb.CreateVector(v.output_ranks), v.features, static_cast<uint32_t>(v.grid_kind),
            fbb.CreateVector(v.grid_args), v.texel_inputs));
      }
    std::vector<flatbuffers::Offset<fb::KernelAttr>> attrs;
    for (const auto& a : e.attrs) {
      flatbuffers::Offset<fb::ScalarProgram> prog = 0;
      if (a.has_program) {
        std::vector<uint8_t> params;
        for (auto t : a.program.param_types) params.push_back(static_cast<uint8_t>(t));
        std::vector<flatbuffers::Offset<fb::ScalarInstr>> instrs;
        for (const auto& in : a.program.instrs) {
          std::vector<uint16_t> ops(in.operands, in.operands + in.num_operands);
          instrs.push_back(fb::CreateScalarInstr(fbb, static_cast<uint16_t>(in.op), static_cast<uint8_t>(in.type),
                                                 fbb.CreateVector(ops), in.attr0, in.attr1, in.constant.i,
                                                 in.constant.re, in.constant.im));
        }
        prog = fb::CreateScalarProgram(fbb, fbb.CreateVector(params), fbb.CreateVector(instrs),
                                       fbb.CreateVector(a.program.results));
      }
      attrs.push_back(fb::CreateKernelAttr(fbb, fbb.CreateString(a.name), fbb.CreateVector(a.ints),
                                           fbb.CreateVector(a.floats), fbb.CreateString(a.str), prog));
    }
    auto cpu = fb::CreateCpuExecutable(fbb, fbb.CreateString(e.kernel), fbb.CreateVector(attrs));
    exes.push_back(fb::CreateExecutable(fbb, cpu, 0, variants.empty() ? 0 : fbb.CreateVector(variants)));
  }
  std::vector<flatbuffers::Offset<flatbuffers::String>> strs;
  for (const auto& s : strings) strs.push_back(fbb.CreateString(s));
  std::vector<flatbuffers::Offset<flatbuffers::String>> target_names;
  for (const auto& t : targets) target_names.push_back(fbb.CreateString(t));
  std::vector<flatbuffers::Offset<fb::Global>> global_tables;
  for (const auto& g : globals)
    global_tables.push_back(fb::CreateGlobal(fbb, fbb.CreateString(g.name), g.initial, g.is_mutable));
  // The checksums are stored as 0 here (ForceDefaults keeps the fields) and
  // filled in once the file's bytes are final.
  // The segment's offset is known only once the FlatBuffer is finished: it
  // is stored as 0 here (ForceDefaults keeps the field) and written after.
  auto root = fb::CreateModule(fbb, vm::kFormatMajor, inline_data ? 4 : vm::kFormatMinor, fbb.CreateString(name),
                               fbb.CreateString(source_file), fbb.CreateVector(fns), fbb.CreateVector(consts),
                               fbb.CreateVector(exes), fbb.CreateVector(strs), num_replicas, num_partitions,
                               fbb.CreateVector(target_names), 0, 0, inline_data ? 0 : segment.size(),
                               globals.empty() ? 0 : fbb.CreateVector(global_tables));
  fb::FinishModuleBuffer(fbb, root);
  std::vector<uint8_t> file(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
  if (!inline_data) {
    const uint64_t offset = AlignUp(file.size(), segment.size() >= fb::kSegmentAlignment ? fb::kSegmentAlignment
                                                                                       : fb::kConstantAlignment);
    const fb::Module* m = fb::GetModule(file.data());
    const uint8_t* field = fb::StoredField(m, fb::Module::VT_DATA_SEGMENT_OFFSET);
    if (!field) std::abort();  // unreachable: ForceDefaults stores it
    flatbuffers::WriteScalar(file.data() + (field - file.data()), offset);
    file.resize(offset);  // zero padding up to the segment
    file.insert(file.end(), segment.begin(), segment.end());
  }
  if (!fb::SealModule(&file)) std::abort();  // unreachable: every checksum field is stored
  return file;
}

}  // namespace kiln::compiler

// Loading a .kiln file: identifier first, then the FlatBuffers verifier, the
// version (so a newer file gets a message naming both versions), the
// checksums (schema/module_checksum.h), then a semantic check of every table
// before anything runs.
#include <zstd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <span>

#include "kernels/scalar/scalar.h"
#include "kiln_selected_kernels.h"
#include "schema/module_checksum.h"
#include "schema/module_generated.h"
#include "schema/module_layout.h"
#include "vm/module.h"
#include "vm/parameters.h"

namespace kiln::vm {
namespace {

constexpr size_t kMaxConstantBytes = size_t{1} << 34;  // 16 GiB: larger is hostile
constexpr int64_t kMaxDim = int64_t{1} << 40;

Status Bad(const std::string& what) { return DataLoss("invalid module: " + what); }

// Copies a vector of 8-byte scalars. The FlatBuffers verifier only checks
// 4-byte alignment, so a hostile file can misalign these; memcpy reads them
// safely where a typed load would be undefined behaviour.
template <typename T>
std::vector<T> CopyVector(const flatbuffers::Vector<T>* v) {
  std::vector<T> out;
  if (!v) return out;
  out.resize(v->size());
  if (!out.empty()) std::memcpy(out.data(), v->Data(), out.size() * sizeof(T));
  return out;
}

StatusOr<ElementType> TypeFromCode(uint32_t code, const std::string& where) {
  auto t = ElementTypeFromCode(code);
  if (!t) return Bad(where + " has unknown element type code " + std::to_string(code));
  return *t;
}

Status CheckDims(const flatbuffers::Vector<int64_t>* dims, bool allow_dynamic, const std::string& where,
                 std::vector<int64_t>* out) {
  out->clear();
  if (!dims) return Status::Ok();
  if (dims->size() > 64) return Bad(where + " has rank " + std::to_string(dims->size()));
  for (int64_t d : CopyVector(dims)) {
    if (d < (allow_dynamic ? -1 : 0) || d > kMaxDim) return Bad(where + " has dimension " + std::to_string(d));
    out->push_back(d);
  }
  return Status::Ok();
}

// From format 0.3 on a module carries checksums; a checksum that is stored
// is checked whatever the version says, so a flipped version field cannot
// turn the check off.
constexpr uint16_t kFirstChecksummedMinor = 3;

// An external constant: no data of its own, bound to a parameter file's
// tensor if options name one for its scope (vm/parameters.cc).
Status LoadParameterConstant(const fb::Constant& c, const fb::Parameter& p, const std::string& where, uint64_t bytes,
                             const LoadOptions& options, LoadedConstant* out) {
  if (out->stored_size != 0 || c.compression() != fb::Compression::None)
    return Bad(where + " is a parameter but carries data of its own");
  out->parameter = ParameterRef{p.scope() ? p.scope()->str() : "", p.key()->str(), p.checksum(), p.has_checksum()};
  out->size = bytes;
  // Until it is bound, it has no bytes to check (BindParameter sets them).
  out->stored = nullptr;
  out->verify = false;
  return BindParameter(options.parameters.get(), options.verify_checksums, out);
}

// Where a constant's stored bytes are: its range of the data segment
// (format 0.5; `segment` is the segment, already checked to lie in the file)
// or its `data` vector (older), checked against the segment's bounds here.
Status FindStoredBytes(const fb::Constant* c, const std::string& where, std::optional<std::span<const uint8_t>> segment,
                       LoadedConstant* out) {
  if (!segment) {
    const auto* data = c->data();
    out->stored_size = data ? data->size() : 0;
    out->stored = data ? data->data() : nullptr;
    return Status::Ok();
  }
  if (c->data()) return Bad(where + " carries a data vector (from format 0.5 on its bytes lie in the data segment)");
  const uint64_t offset = c->data_offset(), size = c->data_size();
  if (offset > segment->size() || size > segment->size() - offset)
    return Bad(where + "'s " + std::to_string(size) + " bytes at offset " + std::to_string(offset) +
               " run past the data segment of " + std::to_string(segment->size()) + " bytes");
  if (offset % fb::kConstantAlignment != 0)
    return Bad(where + "'s bytes at offset " + std::to_string(offset) + " of the data segment are not " +
               std::to_string(fb::kConstantAlignment) + "-byte aligned");
  out->stored_size = static_cast<size_t>(size);
  out->stored = size ? segment->data() + offset : nullptr;
  return Status::Ok();
}

Status LoadConstant(const fb::Constant* c, size_t index, bool checksum_required,
                    std::optional<std::span<const uint8_t>> segment, const LoadOptions& options,
                    LoadedConstant* out) {
  std::string where = "constant " + std::to_string(index);
  out->index = index;
  if (options.verify_checksums) {
    // The checksum's presence is metadata (the module's checksum covers
    // it); the data are checked against it on first use (Data).
    const uint8_t* stored = fb::StoredField(c, fb::Constant::VT_CHECKSUM);
    if (!stored && checksum_required) return Bad(where + " has no checksum");
    out->verify = stored != nullptr;
    out->checksum = c->checksum();
  }
  KILN_ASSIGN_OR_RETURN(out->type, TypeFromCode(c->element_type(), where));
  KILN_RETURN_IF_ERROR(CheckDims(c->dims(), false, where, &out->dims));
  uint64_t n = 1;
  for (int64_t d : out->dims) {
    if (d != 0 && n > kMaxConstantBytes / static_cast<uint64_t>(d)) return Bad(where + " is too large");
    n *= static_cast<uint64_t>(d);
  }
  uint64_t bytes = n * StorageBytes(out->type);
  if (bytes > kMaxConstantBytes) return Bad(where + " is too large");
  if (c->raw_size() != bytes) return Bad(where + " declares " + std::to_string(c->raw_size()) +
                                         " bytes but its shape needs " + std::to_string(bytes));
  KILN_RETURN_IF_ERROR(FindStoredBytes(c, where, segment, out));
  out->size = bytes;
  if (const fb::Parameter* p = c->parameter())  // format 0.4: bytes from a parameter file
    return LoadParameterConstant(*c, *p, where, bytes, options, out);
  if (c->compression() == fb::Compression::None) {
    if (out->stored_size != bytes) return Bad(where + " holds " + std::to_string(out->stored_size) +
                                              " bytes, expected " + std::to_string(bytes));
  } else if (c->compression() == fb::Compression::Zstd) {
    if (out->stored_size == 0) return Bad(where + " is compressed but empty");
    // Its frame is checked (its header's size against the shape's) and
    // decompressed on first use (Data): reading even the header here would
    // touch the constant's pages, which opening a mapped file never does.
    out->compressed = true;
  } else {
    return Bad(where + " has unknown compression");
  }
  return Status::Ok();
}

Status LoadProgram(const fb::ScalarProgram* p, const std::string& where, ScalarProgram* out) {
  if (p->param_types())
    for (uint8_t t : *p->param_types()) {
      KILN_ASSIGN_OR_RETURN(ElementType et, TypeFromCode(t, where));
      out->param_types.push_back(et);
    }
  if (p->instrs())
    for (const auto* in : *p->instrs()) {
      ScalarInstr si;
      if (!ScalarOpFromCode(in->op(), &si.op)) return Bad(where + " uses unknown scalar op " + std::to_string(in->op()));
      KILN_ASSIGN_OR_RETURN(si.type, TypeFromCode(in->type(), where));
      size_t n = in->operands() ? in->operands()->size() : 0;
      if (n > 3) return Bad(where + " has an instruction with too many operands");
      si.num_operands = static_cast<uint8_t>(n);
      for (size_t k = 0; k < n; ++k) si.operands[k] = in->operands()->Get(k);
      si.attr0 = in->attr0();
      si.attr1 = in->attr1();
      si.constant = Scalar{in->const_i(), in->const_re(), in->const_im()};
      out->instrs.push_back(si);
    }
  if (p->results())
    for (uint16_t r : *p->results()) out->results.push_back(r);
  Status s = ref::VerifyScalarProgram(*out);
  if (!s.ok()) return Bad(where + ": " + s.message());
  return Status::Ok();
}

// The Vulkan target's shaders of one executable. Only their shape is checked
// here; the device checks features, and SPIR-V is validated by the driver.
// (Unused in a selective build without the Vulkan device.)
[[maybe_unused]] Status LoadShaders(const fb::Executable* e, size_t index, std::vector<hal::ShaderVariant>* out) {
  if (!e->vulkan_variants()) return Status::Ok();
  std::string where = "executable " + std::to_string(index) + " Vulkan shader";
  auto types = [&](const flatbuffers::Vector<uint8_t>* v, std::vector<ElementType>* t) -> Status {
    if (v)
      for (uint8_t c : *v) {
        auto et = ElementTypeFromCode(c);
        if (!et) return Bad(where + " has an unknown element type " + std::to_string(c));
        t->push_back(*et);
      }
    return Status::Ok();
  };
  for (const auto* s : *e->vulkan_variants()) {
    hal::ShaderVariant v;
    KILN_RETURN_IF_ERROR(types(s->input_types(), &v.input_types));
    KILN_RETURN_IF_ERROR(types(s->output_types(), &v.output_types));
    v.input_ranks = CopyVector(s->input_ranks());
    v.output_ranks = CopyVector(s->output_ranks());
    v.spirv = CopyVector(s->spirv());
    v.workgroup_size = s->workgroup_size() && s->workgroup_size()->size() ? s->workgroup_size()->Get(0) : 0;
    v.features = s->features();
    v.grid_args = CopyVector(s->grid_args());
    v.texel_inputs = s->texel_inputs();
    if (v.input_types.size() < 32 && (v.texel_inputs >> v.input_types.size()) != 0)
      return Bad(where + " binds a texel buffer to an input it does not have");
    if (v.texel_inputs != 0 && !(v.features & hal::kTexelInputs))
      return Bad(where + " binds texel buffers without declaring the feature");
    if (v.input_ranks.size() != v.input_types.size() || v.output_ranks.size() != v.output_types.size())
      return Bad(where + " has mismatched types and ranks");
    for (auto r : v.input_ranks) if (r > 64) return Bad(where + " has a rank above 64");
    for (auto r : v.output_ranks) if (r > 64) return Bad(where + " has a rank above 64");
    if (v.spirv.size() < 5 || v.spirv[0] != 0x07230203u) return Bad(where + " is not SPIR-V");
    if (v.workgroup_size == 0 || v.workgroup_size > 1024) return Bad(where + " has a bad workgroup size");
    if (s->grid_kind() > 3) return Bad(where + " has an unknown grid kind");
    v.grid_kind = static_cast<hal::ShaderGrid>(s->grid_kind());
    if (v.grid_kind == hal::ShaderGrid::kTiles && v.grid_args.size() != 4) return Bad(where + " has a bad tile grid");
    if (v.grid_kind == hal::ShaderGrid::kPerElement && !hal::ValidElementGrid(v.grid_args))
      return Bad(where + " has a bad element grid");
    if (v.grid_kind == hal::ShaderGrid::kPerRow && !v.grid_args.empty() &&
        (v.grid_args.size() != 1 || v.grid_args[0] == 0 || v.grid_args[0] > v.workgroup_size))
      return Bad(where + " has a bad row grid");
    out->push_back(std::move(v));
  }
  return Status::Ok();
}

Status LoadExecutable(const fb::Executable* e, size_t index, KernelParams* out) {
  std::string where = "executable " + std::to_string(index);
  if (!e->cpu()) return Bad(where + " has no CPU form");
  out->kernel = e->cpu()->kernel()->str();
  if (e->cpu()->attrs())
    for (const auto* a : *e->cpu()->attrs()) {
      KernelAttr ka;
      ka.name = a->name()->str();
      ka.ints = CopyVector(a->ints());
      ka.floats = CopyVector(a->floats());
      if (a->str()) ka.str = a->str()->str();
      if (a->program()) {
        ka.has_program = true;
        KILN_RETURN_IF_ERROR(LoadProgram(a->program(), where + " attribute " + ka.name, &ka.program));
      }
      out->attrs.push_back(std::move(ka));
    }
  return Status::Ok();
}

// A value's name is shown by tools and handed to apps as a C string: the
// verifier has checked it lies in the file and is terminated; here, that it
// is bounded, valid UTF-8 (no overlong forms or surrogates) and free of
// control characters (a NUL would cut it short in C, an escape would drive
// a terminal).
Status CheckValueName(const flatbuffers::String* name, const std::string& where) {
  if (name->size() > kMaxValueNameBytes)
    return Bad(where + " has a name of " + std::to_string(name->size()) + " bytes (at most " +
               std::to_string(kMaxValueNameBytes) + ")");
  const auto* p = reinterpret_cast<const unsigned char*>(name->data());
  const size_t n = name->size();
  for (size_t i = 0; i < n;) {
    const unsigned c = p[i];
    size_t len = 0;
    uint32_t cp = 0, min = 0;
    if (c < 0x80) {
      if (c < 0x20 || c == 0x7f) return Bad(where + " has a name with a control character");
      ++i;
      continue;
    } else if ((c & 0xe0) == 0xc0) { len = 2; cp = c & 0x1f; min = 0x80; }
    else if ((c & 0xf0) == 0xe0) { len = 3; cp = c & 0x0f; min = 0x800; }
    else if ((c & 0xf8) == 0xf0) { len = 4; cp = c & 0x07; min = 0x10000; }
    else return Bad(where + " has a name that is not valid UTF-8");
    if (n - i < len) return Bad(where + " has a name that is not valid UTF-8");
    for (size_t k = 1; k < len; ++k) {
      if ((p[i + k] & 0xc0) != 0x80) return Bad(where + " has a name that is not valid UTF-8");
      cp = (cp << 6) | (p[i + k] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp < 0xa0))
      return Bad(where + " has a name that is not valid UTF-8");
    i += len;
  }
  return Status::Ok();
}

Status LoadSig(const fb::TensorSig* s, const std::string& where, ValueSig* out) {
  if (s->kind() > 2) return Bad(where + " has an unknown value kind");
  if (s->name()) {
    KILN_RETURN_IF_ERROR(CheckValueName(s->name(), where));
    out->name = s->name()->str();
  }
  out->kind = static_cast<ValueSig::Kind>(s->kind());
  if (out->kind == ValueSig::Kind::kTensor) {
    KILN_ASSIGN_OR_RETURN(out->type, TypeFromCode(s->element_type(), where));
    KILN_RETURN_IF_ERROR(CheckDims(s->dims(), true, where, &out->dims));
  }
  return Status::Ok();
}

}  // namespace

LoadOptions DefaultLoadOptions() {
  LoadOptions options;
  const char* v = std::getenv("KILN_VERIFY_CHECKSUMS");
  if (v && std::string_view(v) == "0") options.verify_checksums = false;
  const char* map = std::getenv("KILN_MAP_MODULES");
  if (map && std::string_view(map) == "0") options.map_file = false;
  return options;
}

StatusOr<std::shared_ptr<const LoadedModule>> LoadModule(std::vector<uint8_t> bytes, const LoadOptions& options) {
  return LoadModuleBytes(ModuleBytes::Own(std::move(bytes)), options);
}

StatusOr<std::shared_ptr<const LoadedModule>> LoadModuleBytes(std::unique_ptr<ModuleBytes> bytes,
                                                         const LoadOptions& options) {
  if (!bytes || bytes->size() == 0) return DataLoss("invalid module: the file is empty");
  const std::span<const uint8_t> head = bytes->metadata();
  if (head.size() < 8 || !fb::ModuleBufferHasIdentifier(head.data()))
    return DataLoss("invalid module: not a Kiln module file (missing the 'KILN' identifier)");
  auto mod = std::make_shared<LoadedModule>();
  mod->bytes = std::move(bytes);
  const size_t file_size = mod->bytes->size();
  // From 0.5 on the metadata ends where the data segment starts, and
  // everything FlatBuffers reaches must lie before it: a table or vector in
  // the segment would escape the module checksum.
  const std::optional<fb::DataSegment> segment = fb::FindDataSegment(head.data(), head.size());
  size_t metadata_size = head.size();
  if (segment) {
    if (segment->offset % fb::kConstantAlignment != 0)
      return Bad("the data segment's offset " + std::to_string(segment->offset) + " is not " +
                 std::to_string(fb::kConstantAlignment) + "-byte aligned");
    if (segment->offset > head.size() || segment->size > file_size - segment->offset)
      return Bad("the data segment (" + std::to_string(segment->size) + " bytes at offset " +
                 std::to_string(segment->offset) + ") runs past the end of the file (" + std::to_string(file_size) +
                 " bytes; truncated?)");
    metadata_size = static_cast<size_t>(segment->offset);
  }
  const uint8_t* base = head.data();
  flatbuffers::Verifier::Options opts;
  opts.max_depth = 64;
  opts.max_tables = 10'000'000;
  // The verifier checks vectors' bounds, not their contents, so it reads
  // the metadata and none of the constants' data.
  flatbuffers::Verifier verifier(base, metadata_size, opts);
  // The version fields are read only after the root table is verified, so
  // a truncated file cannot make this read out of bounds.
  if (!fb::VerifyModuleBuffer(verifier))
    return DataLoss("invalid module: the file is truncated or corrupted (FlatBuffers verification failed)");
  const fb::Module* m = fb::GetModule(base);
  mod->version_major = m->version_major();
  mod->version_minor = m->version_minor();
  if (mod->version_major != kFormatMajor || mod->version_minor > kFormatMinor)
    return FailedPrecondition("unsupported module format version " + std::to_string(mod->version_major) +
                              "." + std::to_string(mod->version_minor) + "; this runtime reads version " +
                              std::to_string(kFormatMajor) + "." + std::to_string(kFormatMinor) +
                              " (and older minor versions)");
  if (mod->version_minor >= fb::kFirstSegmentMinor && !segment)
    return Bad("the file has no data segment (format 0.5 and later carry one)");
  const bool checksum_required = mod->version_minor >= kFirstChecksummedMinor;
  if (options.verify_checksums) {
    if (!fb::StoredField(m, fb::Module::VT_CHECKSUM)) {
      if (checksum_required) return Bad("the file has no checksum (format 0.3 and later carry one)");
      mod->unchecked = true;
    } else if (m->checksum() != fb::ModuleChecksum(base, metadata_size, *m)) {
      return DataLoss("invalid module: the file is corrupted (its checksum does not match)");
    }
  }
  if (m->targets())
    for (const auto* t : *m->targets()) mod->targets.push_back(t ? t->str() : "");
  if (m->name()) mod->name = m->name()->str();
  if (m->source_file()) mod->source_file = m->source_file()->str();
  mod->num_replicas = m->num_replicas();
  mod->num_partitions = m->num_partitions();
  if (mod->num_replicas == 0 || mod->num_partitions == 0 ||
      uint64_t{mod->num_replicas} * mod->num_partitions > 4096)
    return Bad("process grid " + std::to_string(mod->num_replicas) + "x" + std::to_string(mod->num_partitions));
  if (m->strings())
    for (const auto* s : *m->strings()) mod->strings.push_back(s ? s->str() : "");
  if (m->constants()) {
    mod->constants.resize(m->constants()->size());
    std::optional<std::span<const uint8_t>> data;
    if (segment)
      data = std::span<const uint8_t>(mod->bytes->data() + segment->offset, static_cast<size_t>(segment->size));
    for (size_t i = 0; i < mod->constants.size(); ++i)
      KILN_RETURN_IF_ERROR(
          LoadConstant(m->constants()->Get(i), i, checksum_required, data, options, &mod->constants[i]));
  }
  if (m->globals() && m->globals()->size()) {
#if KILN_WITH_GLOBALS
    // Functions name globals by index (the verifier checks each operand).
    if (m->globals()->size() > 65536) return Bad(std::to_string(m->globals()->size()) + " globals");
    for (const fb::Global* g : *m->globals()) {
      LoadedGlobal& lg = mod->globals.emplace_back();
      lg.name = g->name() ? g->name()->str() : "";
      lg.initial = g->initial();
      lg.is_mutable = g->is_mutable();
      if (lg.initial >= mod->constants.size())
        return Bad("global " + std::to_string(mod->globals.size() - 1) + " '" + lg.name +
                   "': its initial value is no constant of the module");
    }
#else
    return Unimplemented("the module has globals, which this runtime is built without (a selective build, "
                         "scripts/selective_build.sh: rebuild it for this module)");
#endif
  }
  if (m->executables()) {
    mod->executables.resize(m->executables()->size());
    mod->vulkan_shaders.resize(m->executables()->size());
    for (size_t i = 0; i < mod->executables.size(); ++i) {
      KILN_RETURN_IF_ERROR(LoadExecutable(m->executables()->Get(i), i, &mod->executables[i]));
#if KILN_SELECTIVE_BUILD && !defined(KILN_HAVE_VULKAN)
      // A selective runtime without the Vulkan device never reads the
      // shaders: they stay unread in the file, neither copied nor checked.
#else
      KILN_RETURN_IF_ERROR(LoadShaders(m->executables()->Get(i), i, &mod->vulkan_shaders[i]));
#endif
    }
  }
  if (m->functions()) {
    mod->functions.resize(m->functions()->size());
    for (size_t i = 0; i < mod->functions.size(); ++i) {
      const fb::Function* f = m->functions()->Get(i);
      LoadedFunction& lf = mod->functions[i];
      lf.name = f->name()->str();
      lf.is_public = f->is_public();
      std::string where = "function '" + lf.name + "'";
      if (f->args())
        for (size_t k = 0; k < f->args()->size(); ++k)
          KILN_RETURN_IF_ERROR(LoadSig(f->args()->Get(k), where + " argument " + std::to_string(k), &lf.args.emplace_back()));
      if (f->results())
        for (size_t k = 0; k < f->results()->size(); ++k)
          KILN_RETURN_IF_ERROR(
              LoadSig(f->results()->Get(k), where + " result " + std::to_string(k), &lf.results.emplace_back()));
      if (f->donations())
        for (const auto* d : *f->donations()) {
          // In range, on a tensor, each argument and each named result at most once.
          const std::string arg = where + ": donation of argument " + std::to_string(d->arg());
          if (d->arg() >= lf.args.size()) return Bad(arg + ", which it does not have");
          if (lf.args[d->arg()].kind != ValueSig::Kind::kTensor) return Bad(arg + ", which is not a tensor");
          if (d->output() < -1 || d->output() >= static_cast<int64_t>(lf.results.size()))
            return Bad(arg + " to result " + std::to_string(d->output()) + ", which it does not have");
          for (const ArgDonation& e : lf.donations)
            if (e.arg == d->arg() || (d->output() >= 0 && e.output == d->output()))
              return Bad(arg + " repeats an argument or a result already donated to");
          lf.donations.push_back(ArgDonation{d->arg(), d->output()});
        }
      std::sort(lf.donations.begin(), lf.donations.end(),
                [](const ArgDonation& a, const ArgDonation& b) { return a.arg < b.arg; });
      lf.num_i64_registers = f->num_i64_registers();
      lf.num_ref_registers = f->num_ref_registers();
      if (lf.num_i64_registers > 1u << 20 || lf.num_ref_registers > 1u << 20)
        return Bad(where + " declares too many registers");
      lf.arena_bytes = f->arena_bytes();
      lf.transient_bytes = f->transient_bytes();
      lf.pool_transient_bytes = f->pool_transient_bytes();
      lf.dynamic_allocs = f->dynamic_allocs();
      // The tensor size limit (2^40 elements of at most 16 bytes) bounds an arena too.
      if (lf.arena_bytes > uint64_t{1} << 44) return Bad(where + " declares an arena of " +
                                                         std::to_string(lf.arena_bytes) + " bytes");
      if (f->locations())
        for (const auto* l : *f->locations()) lf.locations.push_back(SourceLoc{l->pc(), l->line(), l->col()});
      if (f->unavailable())
        for (const auto* u : *f->unavailable())
          lf.unavailable.push_back(UnavailableOn{u->device() ? u->device()->str() : "", u->op() ? u->op()->str() : "",
                                                 u->type() ? u->type()->str() : "", u->reason() ? u->reason()->str() : ""});
    }
    // Verify bytecode after all functions' signatures are known (calls check them).
    for (size_t i = 0; i < mod->functions.size(); ++i) {
      const fb::Function* f = m->functions()->Get(i);
      std::span<const uint8_t> code;
      if (f->bytecode()) code = std::span<const uint8_t>(f->bytecode()->data(), f->bytecode()->size());
      KILN_RETURN_IF_ERROR(DecodeAndVerifyFunction(*mod, mod->functions[i], code));
    }
  }
  return std::shared_ptr<const LoadedModule>(std::move(mod));
}

StatusOr<std::shared_ptr<const LoadedModule>> LoadModuleFromFile(const std::string& path,
                                                                 const LoadOptions& options) {
  auto bytes = options.map_file ? ModuleBytes::Map(path) : ModuleBytes::Read(path);
  if (!bytes.ok()) return bytes.status();
  auto m = LoadModuleBytes(std::move(bytes.value()), options);
  if (!m.ok()) return Status(m.status().code(), path + ": " + m.status().message());
  return m;
}

StatusOr<std::shared_ptr<const LoadedModule>> LoadModuleBorrowed(std::span<const uint8_t> bytes,
                                                                 std::function<void()> release,
                                                                 const LoadOptions& options) {
  // A failed load destroys the ModuleBytes, which runs `release`.
  return LoadModuleBytes(ModuleBytes::Borrow(bytes, std::move(release)), options);
}

// The first use of a constant: once, under the mutex, the checksum and the
// decompression; their outcome is kept for every later use.
struct LoadedConstant::FirstUse {
  std::mutex mu;
  bool done = false;
  Status status;
  std::vector<uint8_t> decompressed;  // the elements of a compressed constant
};

LoadedConstant::LoadedConstant() : first_use_(std::make_unique<FirstUse>()) {}
LoadedConstant::LoadedConstant(LoadedConstant&&) noexcept = default;
LoadedConstant::~LoadedConstant() = default;

StatusOr<const uint8_t*> LoadedConstant::Data() const {
  FirstUse& f = *first_use_;
  std::lock_guard<std::mutex> lock(f.mu);
  if (!f.done) {
    f.done = true;
    const std::string where = "constant " + std::to_string(index);
    if (parameter && !bound) {
      f.status = FailedPrecondition("parameter " + ParameterName(parameter->scope, parameter->key) + " is not bound");
    } else if (verify && XXH64(stored, stored_size, 0) != checksum) {
      f.status = parameter ? ParameterChecksumMismatch(*this)
                           : Bad(where + "'s data does not match its checksum (the file is corrupted)");
    } else if (compressed) {
      const unsigned long long frame = ZSTD_getFrameContentSize(stored, stored_size);
      if (frame == ZSTD_CONTENTSIZE_ERROR || frame == ZSTD_CONTENTSIZE_UNKNOWN || frame != size) {
        f.status = Bad(where + " has a zstd frame whose size does not match its shape");
        return f.status;
      }
      f.decompressed.resize(size);
      size_t got = ZSTD_decompress(f.decompressed.data(), size, stored, stored_size);
      if (ZSTD_isError(got) || got != size) {
        f.status = Bad(where + " fails to decompress");
        f.decompressed = {};
      }
    }
  }
  if (!f.status.ok()) return f.status;
  return compressed ? f.decompressed.data() : stored;
}

int LoadedModule::FindFunction(std::string_view function_name) const {
  for (size_t i = 0; i < functions.size(); ++i)
    if (functions[i].name == function_name) return static_cast<int>(i);
  return -1;
}

std::string LoadedFunction::LocationOf(size_t index) const {
  if (index >= code.size()) return "";
  uint32_t pc = code[index].pc;
  const SourceLoc* best = nullptr;
  for (const auto& l : locations)
    if (l.pc <= pc) best = &l;
  if (!best || best->line == 0) return "";
  return std::to_string(best->line) + ":" + std::to_string(best->col);
}

std::string ValueSig::ToString() const {
  if (kind == Kind::kToken) return "!stablehlo.token";
  if (kind == Kind::kTuple) return "tuple";
  std::string s = "tensor<";
  for (int64_t d : dims) s += (d < 0 ? std::string("?") : std::to_string(d)) + "x";
  return s + std::string(Name(type)) + ">";
}

}  // namespace kiln::vm

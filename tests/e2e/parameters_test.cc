// External weights end to end (docs/parameters.md): a module compiled with
// --externalize runs bit-identically to the same module with inline
// constants once its parameter file is bound; the CPU device reads the
// mapped file in place; a missing, mistyped, misshapen or changed parameter
// is refused naming it; the module's checksum covers the parameter records.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "compiler/externalize.h"
#include "compiler/passes/params_from_args.h"
#include "hal/cpu/cpu_device.h"
#include "hal/devices.h"
#include "schema/module_generated.h"
#include "schema/module_layout.h"
#include "tests/support/host_tensor_util.h"
#include "vm/context.h"
#include "vm/kiln.h"
#include "vm/parameters.h"

namespace kiln {
namespace {

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

struct Compiled {
  std::vector<uint8_t> module, params;
};

// examples/mlp.mlir, inline or with constants of at least `min_bytes` external.
Compiled CompileMlp(std::optional<uint64_t> min_bytes, const std::string& scope = "", const std::string& target = "cpu") {
  std::string source = ReadText(KILN_TEST_MLP_MLIR);
  EXPECT_FALSE(source.empty()) << KILN_TEST_MLP_MLIR;
  compiler::CompileOptions options;
  options.target = target;
  options.externalize_min_bytes = min_bytes;
  options.params_scope = scope;
  Compiled c;
  auto b = compiler::Compile(source, "mlp.mlir", options, nullptr, 1, &c.params);
  EXPECT_TRUE(b.ok()) << b.status().message();
  if (b.ok()) c.module = std::move(*b);
  return c;
}

// A temporary file holding `bytes`, removed with the object.
struct TempFile {
  explicit TempFile(const std::vector<uint8_t>& bytes) {
    char name[] = "/tmp/kiln_params_XXXXXX";
    int fd = mkstemp(name);
    EXPECT_GE(fd, 0);
    EXPECT_EQ(write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
    close(fd);
    path = name;
  }
  ~TempFile() { unlink(path.c_str()); }
  std::string path;
};

std::shared_ptr<vm::ParameterSet> SetOf(const std::string& spec) {
  auto set = std::make_shared<vm::ParameterSet>();
  Status s = set->AddSpec(spec);
  EXPECT_TRUE(s.ok()) << s.message();
  return set;
}

StatusOr<std::shared_ptr<const vm::LoadedModule>> Load(const std::vector<uint8_t>& module,
                                                       std::shared_ptr<const vm::ParameterSet> set) {
  vm::LoadOptions o;
  o.parameters = std::move(set);
  return vm::LoadModule(module, o);
}

std::vector<vm::HostTensor> RunOn(const std::shared_ptr<const vm::LoadedModule>& m, hal::CpuMode mode,
                                  const std::string& function, const vm::HostTensor& input) {
  auto device = hal::CreateCpuDevice(mode);
  auto ctx = vm::Context::Create(m, device.get());
  EXPECT_TRUE(ctx.ok()) << ctx.status().message();
  if (!ctx.ok()) return {};
  auto out = (*ctx)->Invoke(function, {input});
  EXPECT_TRUE(out.ok()) << out.status().message();
  return out.ok() ? *out : std::vector<vm::HostTensor>{};
}

std::string Refusal(const StatusOr<std::shared_ptr<const vm::LoadedModule>>& m) {
  EXPECT_FALSE(m.ok()) << "loaded";
  return m.ok() ? "" : m.status().message();
}

TEST(Parameters, ExternalWeightsAreBitIdenticalToInlineOnes) {
  Compiled inline_c = CompileMlp(std::nullopt);
  Compiled ext = CompileMlp(1024);
  ASSERT_FALSE(ext.params.empty());
  // The weights left the module: it shrank by about their size.
  EXPECT_LT(ext.module.size() + 400000, inline_c.module.size());
  TempFile file(ext.params);
  auto with = Load(ext.module, SetOf(file.path));
  ASSERT_TRUE(with.ok()) << with.status().message();
  auto without = vm::LoadModule(inline_c.module);
  ASSERT_TRUE(without.ok()) << without.status().message();
  std::mt19937 rng(1234);
  for (auto [function, batch] : {std::pair<const char*, int64_t>{"main", 1}, {"main_b64", 64}}) {
    for (int trial = 0; trial < 3; ++trial) {
      vm::HostTensor x = test::RandomF32({batch, 784}, rng);
      for (auto mode : {hal::CpuMode::kInline, hal::CpuMode::kDeferred}) {
        auto a = RunOn(*without, mode, function, x);
        auto b = RunOn(*with, mode, function, x);
        ASSERT_EQ(a.size(), 1u);
        ASSERT_EQ(b.size(), 1u);
        EXPECT_EQ(a[0].dims, b[0].dims);
        EXPECT_EQ(a[0].data, b[0].data) << function << " differs with external weights";
      }
    }
  }
}

#ifdef KILN_HAVE_VULKAN
// The Vulkan device copies a bound parameter into its own memory (it cannot
// read the mapping): the results are still those of inline constants.
TEST(Parameters, VulkanRunsExternalWeightsAsInlineOnes) {
  Compiled inline_c = CompileMlp(std::nullopt, "", "all");
  Compiled ext = CompileMlp(1024, "", "all");
  TempFile file(ext.params);
  auto with = Load(ext.module, SetOf(file.path));
  auto without = vm::LoadModule(inline_c.module);
  ASSERT_TRUE(with.ok() && without.ok());
  auto vulkan = hal::CreateDeviceByName("vulkan");
  ASSERT_TRUE(vulkan.ok()) << vulkan.status().message();
  std::mt19937 rng(5);
  vm::HostTensor x = test::RandomF32({64, 784}, rng);
  auto a_ctx = vm::Context::Create(*without, vulkan->get());
  auto b_ctx = vm::Context::Create(*with, vulkan->get());
  ASSERT_TRUE(a_ctx.ok() && b_ctx.ok());
  auto a = (*a_ctx)->Invoke("main_b64", {x});
  auto b = (*b_ctx)->Invoke("main_b64", {x});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ((*a)[0].data, (*b)[0].data);
}
#endif

TEST(Parameters, CpuReadsTheMappedFileInPlace) {
  Compiled ext = CompileMlp(1024);
  TempFile file(ext.params);
  auto set = SetOf(file.path);
  auto m = Load(ext.module, set);
  ASSERT_TRUE(m.ok()) << m.status().message();
  size_t bound = 0;
  for (const auto& c : (*m)->constants) {
    if (!c.parameter) continue;
    ASSERT_TRUE(c.bound);
    ASSERT_TRUE(c.parameter_file->mapped());
    const auto* t = c.parameter_file->Find(c.parameter->key);
    ASSERT_NE(t, nullptr);
    // The constant is the mapped file's bytes, not a copy of them.
    EXPECT_EQ(c.stored, c.parameter_file->data() + t->offset);
    ++bound;
  }
  EXPECT_EQ(bound, 2u);  // the two weight matrices; the biases are under 1 KiB
}

TEST(Parameters, UnboundParametersAreRefusedByAContextNamingThem) {
  Compiled ext = CompileMlp(1024, "mlp");
  auto m = vm::LoadModule(ext.module);  // loads: vm-dump shows an unbound module
  ASSERT_TRUE(m.ok()) << m.status().message();
  auto device = hal::CreateCpuDevice(hal::CpuMode::kInline);
  auto ctx = vm::Context::Create(*m, device.get());
  ASSERT_FALSE(ctx.ok());
  EXPECT_NE(ctx.status().message().find("parameter 'mlp::constant.4' is not bound: pass its file with "
                                        "--parameters=mlp=FILE"),
            std::string::npos)
      << ctx.status().message();
  // Bound to another scope: still unbound.
  TempFile file(ext.params);
  auto other = Load(ext.module, SetOf("weights=" + file.path));
  ASSERT_TRUE(other.ok());
  EXPECT_FALSE(vm::Context::Create(*other, device.get()).ok());
  auto right = Load(ext.module, SetOf("mlp=" + file.path));
  ASSERT_TRUE(right.ok()) << right.status().message();
  EXPECT_TRUE(vm::Context::Create(*right, device.get()).ok());
}

// A parameter file holding the MLP's weights with one changed by `edit`.
std::vector<uint8_t> EditedParams(const Compiled& ext,
                                  const std::function<void(std::vector<compiler::SafetensorsEntryOut>&)>& edit,
                                  std::vector<std::vector<uint8_t>>* storage) {
  auto h = vm::ParseSafetensors(ext.params.data(), ext.params.size());
  EXPECT_TRUE(h.ok());
  storage->clear();
  storage->reserve(h->tensors.size() + 1);
  std::vector<compiler::SafetensorsEntryOut> entries;
  for (const auto& t : h->tensors) {
    storage->emplace_back(ext.params.begin() + t.offset, ext.params.begin() + t.offset + t.size);
    entries.push_back({t.key, t.type, t.dims, &storage->back()});
  }
  edit(entries);
  auto out = compiler::WriteSafetensors(entries, {});
  EXPECT_TRUE(out.ok());
  return out.ok() ? *out : std::vector<uint8_t>{};
}

TEST(Parameters, MismatchesAreRefusedNamingTheParameter) {
  Compiled ext = CompileMlp(1024);
  std::vector<std::vector<uint8_t>> storage;
  auto refused = [&](const std::function<void(std::vector<compiler::SafetensorsEntryOut>&)>& edit,
                     const std::string& text) {
    TempFile file(EditedParams(ext, edit, &storage));
    std::string m = Refusal(Load(ext.module, SetOf(file.path)));
    EXPECT_NE(m.find(text), std::string::npos) << m;
  };
  refused([](auto& e) { e.erase(e.begin()); }, "parameter 'constant.4' is not in '/tmp/kiln_params_");
  refused([](auto& e) { e[0].key = "renamed"; }, "parameter 'constant.4' is not in");
  refused([](auto& e) { e[0].type = ElementType::kSI32; },
          "parameter 'constant.4' is f32 in the module but I32 in '/tmp/kiln_params_");
  refused([](auto& e) { e[0].dims = {128, 784}; },
          "parameter 'constant.4' has shape [784, 128] in the module but [128, 784] in");
  // Changed weights bind (binding reads only the header), and are refused
  // at their first use, before any kernel reads them.
  auto refused_at_use = [&](const std::function<void(std::vector<compiler::SafetensorsEntryOut>&)>& edit,
                            const std::string& text) {
    TempFile file(EditedParams(ext, edit, &storage));
    auto m = Load(ext.module, SetOf(file.path));
    ASSERT_TRUE(m.ok()) << m.status().message();
    auto device = hal::CreateCpuDevice(hal::CpuMode::kInline);
    auto ctx = vm::Context::Create(*m, device.get());
    ASSERT_TRUE(ctx.ok()) << ctx.status().message();
    std::vector<float> image(784, 0.5f);
    auto out = (*ctx)->Invoke("main", {test::HostTensorOf(ElementType::kF32, {1, 784}, image)});
    ASSERT_FALSE(out.ok());
    EXPECT_NE(out.status().message().find(text), std::string::npos) << out.status().message();
  };
  refused_at_use([&](auto& e) { storage[0][1000] ^= 0x01; },  // one bit of one weight
                 "parameter 'constant.4' in '/tmp/kiln_params_");
  refused_at_use([&](auto& e) { storage[1][7] ^= 0x80; },
                 "parameter 'constant.6' in '/tmp/kiln_params_");
  refused_at_use([&](auto& e) { storage[1][7] ^= 0x80; }, "does not match the module's checksum of it");
  // Without checksum verification the changed file runs (a trusted file).
  TempFile changed(EditedParams(ext, [&](auto&) { storage[0][1000] ^= 0x01; }, &storage));
  vm::LoadOptions o;
  o.verify_checksums = false;
  o.parameters = SetOf(changed.path);
  auto trusted = vm::LoadModule(ext.module, o);
  ASSERT_TRUE(trusted.ok());
  std::vector<float> image(784, 0.5f);
  EXPECT_EQ(RunOn(*trusted, hal::CpuMode::kInline, "main", test::HostTensorOf(ElementType::kF32, {1, 784}, image)).size(),
            1u);
}

TEST(Parameters, TheModuleChecksumCoversTheParameterRecords) {
  Compiled ext = CompileMlp(1024);
  // Rename a parameter inside the module: "constant.4" -> "constant.6"
  // would bind the other matrix if the record were not covered.
  std::string key = "constant.4";
  auto it = std::search(ext.module.begin(), ext.module.end(), key.begin(), key.end());
  ASSERT_NE(it, ext.module.end());
  it[9] = '6';
  TempFile file(ext.params);
  std::string m = Refusal(Load(ext.module, SetOf(file.path)));
  EXPECT_NE(m.find("the file is corrupted (its checksum does not match)"), std::string::npos) << m;
}

TEST(Parameters, AParameterWithDataOfItsOwnIsRefused) {
  Compiled ext = CompileMlp(1024);
  // Rebuild the first parameter constant with data: a file that says both.
  const fb::Module* mod = fb::GetModule(ext.module.data());
  flatbuffers::FlatBufferBuilder fbb;
  fbb.ForceDefaults(true);
  std::vector<flatbuffers::Offset<fb::Constant>> consts;
  for (const auto* c : *mod->constants()) {
    std::vector<int64_t> dims(c->dims()->begin(), c->dims()->end());
    flatbuffers::Offset<fb::Parameter> p = 0;
    std::vector<uint8_t> data(c->raw_size(), 0);
    if (c->parameter())
      p = fb::CreateParameter(fbb, fbb.CreateString(""), fbb.CreateString(c->parameter()->key()->str()),
                              c->parameter()->checksum(), true);
    else
      data = std::vector<uint8_t>(fb::StoredBytes(ext.module.data(), ext.module.size(), *mod, *c).begin(),
                                  fb::StoredBytes(ext.module.data(), ext.module.size(), *mod, *c).end());
    consts.push_back(fb::CreateConstant(fbb, c->element_type(), fbb.CreateVector(dims), fb::Compression::None,
                                        c->raw_size(), fbb.CreateVector(data), 0, p));
  }
  // Format 0.4's layout (data inside the FlatBuffer): one file to say both.
  auto root = fb::CreateModule(fbb, mod->version_major(), 4, 0, 0, 0, fbb.CreateVector(consts));
  fb::FinishModuleBuffer(fbb, root);
  std::vector<uint8_t> bytes(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
  vm::LoadOptions o;
  o.verify_checksums = false;
  auto m = vm::LoadModule(bytes, o);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("constant 4 is a parameter but carries data of its own"), std::string::npos)
      << m.status().message();
}

// The C API binds the same way: unbound, the session is refused naming the
// parameter; bound, it opens; a lying file is refused at load naming it.
TEST(Parameters, CApiBindsParameterFiles) {
  Compiled ext = CompileMlp(1024);
  TempFile module(ext.module), params(ext.params);
  std::vector<uint8_t> lying = ext.params;
  lying[6] = 0x10;  // the header length now runs past the end
  TempFile bad(lying);
  auto message = [](kiln_status_t s) {
    std::string m = kiln_status_message(s);
    kiln_status_free(s);
    return m;
  };
  kiln_module_t* m = nullptr;
  ASSERT_EQ(kiln_module_load_file_with_parameters(module.path.c_str(), nullptr, 0, &m), nullptr);
  kiln_session_t* session = nullptr;
  kiln_status_t s = kiln_session_create(m, "cpu", &session);
  ASSERT_NE(s, nullptr);
  EXPECT_NE(message(s).find("parameter 'constant.4' is not bound"), std::string::npos);
  kiln_module_free(m);
  const char* specs[] = {params.path.c_str()};
  ASSERT_EQ(kiln_module_load_file_with_parameters(module.path.c_str(), specs, 1, &m), nullptr);
  ASSERT_EQ(kiln_session_create(m, "cpu", &session), nullptr);
  kiln_session_free(session);
  kiln_module_free(m);
  const char* bad_specs[] = {bad.path.c_str()};
  s = kiln_module_load_file_with_parameters(module.path.c_str(), bad_specs, 1, &m);
  ASSERT_NE(s, nullptr);
  EXPECT_NE(message(s).find(bad.path + ": invalid safetensors file: the header length"), std::string::npos);
  EXPECT_EQ(m, nullptr);
}

}  // namespace
}  // namespace kiln

namespace kiln {
namespace {

// A JAX export's shape: the weight pytree's leaves are arguments named by
// jax.arg_info, the input last.
constexpr const char* kJaxLike = R"(
module @jit_f {
  func.func public @main(%arg0: tensor<2x3xf32> {jax.arg_info = "params['dense']['kernel']", mhlo.sharding = "{replicated}"},
                         %arg1: tensor<3xf32> {jax.arg_info = "params['dense']['bias']"},
                         %arg2: tensor<4x2xf32> {jax.arg_info = "x"}) -> (tensor<4x3xf32> {jax.result_info = ""}) {
    %0 = stablehlo.dot_general %arg2, %arg0, contracting_dims = [1] x [0] : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<3xf32>) -> tensor<4x3xf32>
    %2 = stablehlo.add %0, %1 : tensor<4x3xf32>
    return %2 : tensor<4x3xf32>
  }
}
)";

StatusOr<std::vector<uint8_t>> CompileWithArgs(const std::string& source, std::vector<std::string> selectors) {
  compiler::CompileOptions options;
  options.target = "cpu";
  options.params_from_args = std::move(selectors);
  return compiler::Compile(source, "jax.mlir", options, nullptr);
}

TEST(ParamsFromArgs, NamedArgumentsBecomeParametersWithTheSameResults) {
  auto plain = CompileWithArgs(kJaxLike, {});
  auto params = CompileWithArgs(kJaxLike, {"params"});  // a pytree prefix
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  ASSERT_TRUE(params.ok()) << params.status().message();
  std::mt19937 rng(99);
  vm::HostTensor w = test::RandomF32({2, 3}, rng), b = test::RandomF32({3}, rng), x = test::RandomF32({4, 2}, rng);
  auto file = compiler::WriteSafetensors({{"params['dense']['kernel']", ElementType::kF32, {2, 3}, &w.data},
                                          {"params['dense']['bias']", ElementType::kF32, {3}, &b.data}},
                                         {});
  ASSERT_TRUE(file.ok());
  TempFile weights(*file);
  auto with = Load(*params, SetOf(weights.path));
  ASSERT_TRUE(with.ok()) << with.status().message();
  const vm::LoadedFunction& main = (*with)->functions[(*with)->FindFunction("main")];
  ASSERT_EQ(main.args.size(), 1u);  // only x is left to pass
  EXPECT_EQ(main.args[0].dims, (std::vector<int64_t>{4, 2}));
  auto without = vm::LoadModule(*plain);
  ASSERT_TRUE(without.ok());
  auto device = hal::CreateCpuDevice(hal::CpuMode::kInline);
  auto a_ctx = vm::Context::Create(*without, device.get());
  auto b_ctx = vm::Context::Create(*with, device.get());
  ASSERT_TRUE(a_ctx.ok() && b_ctx.ok());
  auto a = (*a_ctx)->Invoke("main", {w, b, x});
  auto r = (*b_ctx)->Invoke("main", {x});
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*a)[0].data, (*r)[0].data);
  // No checksum is recorded (the compiler never saw the weights), so other
  // weights of the same type and shape bind.
  for (const auto& c : (*with)->constants) EXPECT_FALSE(c.parameter->has_checksum);
  // A file of the wrong shape is refused naming the parameter.
  vm::HostTensor small = test::RandomF32({3}, rng);
  auto bad = compiler::WriteSafetensors({{"params['dense']['kernel']", ElementType::kF32, {3}, &small.data},
                                         {"params['dense']['bias']", ElementType::kF32, {3}, &b.data}},
                                        {});
  TempFile bad_file(*bad);
  std::string m = Refusal(Load(*params, SetOf(bad_file.path)));
  EXPECT_NE(m.find("parameter 'params['dense']['kernel']' has shape [2, 3] in the module but [3] in"),
            std::string::npos)
      << m;
}

TEST(ParamsFromArgs, SelectorsMatchNamesAndPrefixes) {
  EXPECT_TRUE(compiler::ArgumentSelected("params['w']", {"params"}));
  EXPECT_TRUE(compiler::ArgumentSelected("params.w", {"params"}));
  EXPECT_TRUE(compiler::ArgumentSelected("params", {"params"}));
  EXPECT_FALSE(compiler::ArgumentSelected("params2", {"params"}));
  EXPECT_FALSE(compiler::ArgumentSelected("x", {"params"}));
  EXPECT_TRUE(compiler::ArgumentSelected("x", {"all"}));
  EXPECT_FALSE(compiler::ArgumentSelected("", {"all"}));  // an unnamed argument is never selected
}

TEST(ParamsFromArgs, WhatCannotBeAParameterIsRefused) {
  auto none = CompileWithArgs(kJaxLike, {"weights"});
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("no argument of a public function is named 'weights' (named arguments: "
                                         "'params['dense']['kernel']', 'params['dense']['bias']', 'x')"),
            std::string::npos)
      << none.status().message();
  auto dynamic = CompileWithArgs(R"(
func.func public @main(%w: tensor<?xf32> {jax.arg_info = "w"}) -> tensor<?xf32> {
  return %w : tensor<?xf32>
}
)", {"w"});
  ASSERT_FALSE(dynamic.ok());
  EXPECT_NE(dynamic.status().message().find("argument 'w' of @main is tensor<?xf32>: only a tensor of static shape"),
            std::string::npos)
      << dynamic.status().message();
  auto called = CompileWithArgs(R"(
func.func public @f(%w: tensor<2xf32> {jax.arg_info = "w"}) -> tensor<2xf32> {
  return %w : tensor<2xf32>
}
func.func public @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = func.call @f(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
)", {"w"});
  ASSERT_FALSE(called.ok());
  EXPECT_NE(called.status().message().find("argument 'w' of @f cannot be a parameter: @f is called by another function"),
            std::string::npos)
      << called.status().message();
}

}  // namespace
}  // namespace kiln

// Memory planning (compiler/passes/memory_plan.cc, vm/arena.cc), end to end:
// which allocs become arena views (lifetimes, loops, escapes), the arena's
// size, and that planned modules give bit-for-bit the results of unplanned
// ones in both CPU driver modes, with KILN_ARENA_POISON=1 filling every
// view as its tensor's life begins (an aliasing bug then changes a result).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

#include "compiler/compile.h"
#include "compiler/module_builder.h"
#include "hal/cpu/cpu_device.h"
#include "schema/module_checksum.h"
#include "schema/module_generated.h"
#include "tests/support/host_tensor_util.h"
#include "vm/context.h"

namespace kiln {
namespace {

std::shared_ptr<const vm::LoadedModule> CompileAndLoad(const std::string& source, bool plan, bool fuse = true) {
  compiler::CompileOptions options;
  options.target = "cpu";
  options.plan_memory = plan;
  options.fuse = fuse;
  auto bytes = compiler::Compile(source, "plan.mlir", options, nullptr);
  EXPECT_TRUE(bytes.ok()) << bytes.status().message();
  if (!bytes.ok()) return nullptr;
  auto module = vm::LoadModule(bytes.value());
  EXPECT_TRUE(module.ok()) << module.status().message();
  return module.ok() ? *module : nullptr;
}

const vm::LoadedFunction& Fn(const vm::LoadedModule& m, const std::string& name) {
  for (const auto& f : m.functions)
    if (f.name == name) return f;
  ADD_FAILURE() << "no function " << name;
  return m.functions.at(0);
}

int Count(const vm::LoadedFunction& f, vm::Opcode op) {
  int n = 0;
  for (const auto& ins : f.code) n += ins.op == op;
  return n;
}

// Sets KILN_ARENA_POISON for one scope (contexts read it when created).
class ScopedPoison {
 public:
  explicit ScopedPoison(bool on) {
    if (on) setenv("KILN_ARENA_POISON", "1", 1);
    else unsetenv("KILN_ARENA_POISON");
  }
  ~ScopedPoison() { unsetenv("KILN_ARENA_POISON"); }
};

std::vector<vm::HostTensor> RunTwice(const std::shared_ptr<const vm::LoadedModule>& m, hal::CpuMode mode, bool poison,
                                const std::vector<vm::HostTensor>& inputs, const std::string& fn = "main") {
  ScopedPoison p(poison);
  auto device = hal::CreateCpuDevice(mode, 2);
  auto ctx = vm::Context::Create(m, device.get());
  EXPECT_TRUE(ctx.ok()) << ctx.status().message();
  if (!ctx.ok()) return {};
  auto out = (*ctx)->Invoke(fn, inputs);
  EXPECT_TRUE(out.ok()) << out.status().message();
  // A second call reuses nothing stale: it must give the same results.
  auto again = (*ctx)->Invoke(fn, inputs);
  EXPECT_TRUE(again.ok()) << again.status().message();
  if (!out.ok() || !again.ok()) return {};
  EXPECT_EQ(out->size(), again->size());
  for (size_t i = 0; i < out->size() && i < again->size(); ++i) EXPECT_EQ((*out)[i].data, (*again)[i].data);
  return std::move(out.value());
}

// Planned (with and without poison, both driver modes) == unplanned, bit for bit.
void ExpectSameResults(const std::string& source, const std::vector<vm::HostTensor>& inputs,
                       const std::string& fn = "main", bool fuse = true) {
  auto planned = CompileAndLoad(source, true, fuse), unplanned = CompileAndLoad(source, false, fuse);
  ASSERT_TRUE(planned && unplanned);
  auto want = RunTwice(unplanned, hal::CpuMode::kInline, false, inputs, fn);
  ASSERT_FALSE(want.empty());
  for (auto mode : {hal::CpuMode::kInline, hal::CpuMode::kDeferred})
    for (bool poison : {false, true}) {
      auto got = RunTwice(planned, mode, poison, inputs, fn);
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < got.size(); ++i)
        EXPECT_EQ(got[i].data, want[i].data) << "result " << i << " mode " << static_cast<int>(mode) << " poison " << poison;
    }
}

vm::HostTensor Random(std::vector<int64_t> dims, uint32_t seed) {
  std::mt19937 rng(seed);
  return test::RandomF32(std::move(dims), rng);
}

// Five transposes of a 32x32 f32 (4096 bytes each): t1..t4 are transients,
// t5 is the result (it escapes). Each ti dies at t(i+1), so two slots suffice.
constexpr char kChain[] = R"(
func.func @main(%x: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %t1 = stablehlo.transpose %x, dims = [1, 0] : (tensor<32x32xf32>) -> tensor<32x32xf32>
  %t2 = stablehlo.transpose %t1, dims = [1, 0] : (tensor<32x32xf32>) -> tensor<32x32xf32>
  %t3 = stablehlo.transpose %t2, dims = [1, 0] : (tensor<32x32xf32>) -> tensor<32x32xf32>
  %t4 = stablehlo.transpose %t3, dims = [1, 0] : (tensor<32x32xf32>) -> tensor<32x32xf32>
  %t5 = stablehlo.transpose %t4, dims = [1, 0] : (tensor<32x32xf32>) -> tensor<32x32xf32>
  return %t5 : tensor<32x32xf32>
}
)";

TEST(MemoryPlan, DeadTensorsShareBytes) {
  auto m = CompileAndLoad(kChain, true);
  ASSERT_TRUE(m);
  const auto& f = Fn(*m, "main");
  EXPECT_EQ(f.arena_bytes, 2u * 4096);
  EXPECT_EQ(f.transient_bytes, 5u * 4096);
  EXPECT_EQ(f.pool_transient_bytes, 4096u);  // the result
  EXPECT_EQ(Count(f, vm::Opcode::kArenaView), 4);
  EXPECT_EQ(Count(f, vm::Opcode::kAlloc), 1);
  ExpectSameResults(kChain, {Random({32, 32}, 1)});
}

TEST(MemoryPlan, OffWhenAskedAndFiguresStillRecorded) {
  auto m = CompileAndLoad(kChain, false);
  ASSERT_TRUE(m);
  const auto& f = Fn(*m, "main");
  EXPECT_EQ(f.arena_bytes, 0u);
  EXPECT_EQ(f.transient_bytes, 5u * 4096);
  EXPECT_EQ(f.pool_transient_bytes, 5u * 4096);
  EXPECT_EQ(Count(f, vm::Opcode::kArenaView), 0);
}

// A tensor that lives while two others are made must not share with them;
// odd sizes are rounded to the 64-byte alignment.
TEST(MemoryPlan, OverlappingLifetimesGetDisjointRanges) {
  constexpr char kSource[] = R"(
func.func @main(%x: tensor<7x5xf32>) -> tensor<7x5xf32> {
  %a = stablehlo.transpose %x, dims = [1, 0] : (tensor<7x5xf32>) -> tensor<5x7xf32>
  %b = stablehlo.transpose %a, dims = [1, 0] : (tensor<5x7xf32>) -> tensor<7x5xf32>
  %c = stablehlo.transpose %b, dims = [1, 0] : (tensor<7x5xf32>) -> tensor<5x7xf32>
  %d = stablehlo.transpose %c, dims = [1, 0] : (tensor<5x7xf32>) -> tensor<7x5xf32>
  %e = stablehlo.add %d, %b : tensor<7x5xf32>
  %f = stablehlo.transpose %a, dims = [1, 0] : (tensor<5x7xf32>) -> tensor<7x5xf32>
  %g = stablehlo.add %e, %f : tensor<7x5xf32>
  return %g : tensor<7x5xf32>
}
)";
  auto m = CompileAndLoad(kSource, true);
  ASSERT_TRUE(m);
  const auto& f = Fn(*m, "main");
  // a lives to f, b to e: with c or d (and then e, f) at most three of the
  // 140-byte (192 aligned) tensors are alive at once.
  EXPECT_EQ(f.arena_bytes, 4u * 192) << "a, b, and two of c/d/e/f";
  std::map<uint64_t, int> users;
  for (const auto& ins : f.code)
    if (ins.op == vm::Opcode::kArenaView) ++users[ins.operands[2].value];
  EXPECT_GE(users.size(), 3u);
  ExpectSameResults(kSource, {Random({7, 5}, 2)});
}

// A tensor carried from one iteration to the next stays in the pool (its
// alloc would run again while the old one is read); one made and dead
// within an iteration is planned.
TEST(MemoryPlan, LoopCarriedTensorsStayInThePool) {
  constexpr char kSource[] = R"(
func.func @main(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %n = stablehlo.constant dense<5> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %r:2 = stablehlo.while(%i = %zero, %acc = %x) : tensor<i64>, tensor<8x8xf32>
    cond {
      %c = stablehlo.compare LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      %t = stablehlo.transpose %acc, dims = [1, 0] : (tensor<8x8xf32>) -> tensor<8x8xf32>
      %u = stablehlo.transpose %t, dims = [1, 0] : (tensor<8x8xf32>) -> tensor<8x8xf32>
      %s = stablehlo.add %u, %t : tensor<8x8xf32>
      %i2 = stablehlo.add %i, %one : tensor<i64>
      stablehlo.return %i2, %s : tensor<i64>, tensor<8x8xf32>
    }
  return %r#1 : tensor<8x8xf32>
}
)";
  auto m = CompileAndLoad(kSource, true);
  ASSERT_TRUE(m);
  const auto& f = Fn(*m, "main");
  EXPECT_EQ(Count(f, vm::Opcode::kArenaView), 2) << "t and u";
  EXPECT_EQ(Count(f, vm::Opcode::kAlloc), 1) << "s, carried";
  EXPECT_EQ(f.arena_bytes, 2u * 256);
  ExpectSameResults(kSource, {Random({8, 8}, 3)});
}

// Results, tuple elements and collective payloads escape.
TEST(MemoryPlan, EscapingTensorsStayInThePool) {
  constexpr char kSource[] = R"(
func.func @main(%x: tensor<4x4xf32>) -> (tuple<tensor<4x4xf32>>, tensor<4x4xf32>) {
  %a = stablehlo.transpose %x, dims = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %b = stablehlo.transpose %a, dims = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %t = stablehlo.tuple %b : tuple<tensor<4x4xf32>>
  %c = stablehlo.transpose %a, dims = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %t, %c : tuple<tensor<4x4xf32>>, tensor<4x4xf32>
}
)";
  auto m = CompileAndLoad(kSource, true);
  ASSERT_TRUE(m);
  const auto& f = Fn(*m, "main");
  EXPECT_EQ(Count(f, vm::Opcode::kArenaView), 1) << "only a";
  EXPECT_EQ(f.pool_transient_bytes, 2u * 64);
  ExpectSameResults(kSource, {Random({4, 4}, 4)});
}

// A callee may return its argument: the caller's tensor then lives on in the
// call's result, and a recursive function's activations each take their own
// arena (a shared one would let the inner call overwrite the outer's
// tensors, which poison makes visible).
TEST(MemoryPlan, RecursionAndReturnedArgumentsAreSafe) {
  constexpr char kSource[] = R"(
func.func @main(%x: tensor<6x6xf32>) -> tensor<6x6xf32> {
  %n = stablehlo.constant dense<4> : tensor<i64>
  %a = stablehlo.transpose %x, dims = [1, 0] : (tensor<6x6xf32>) -> tensor<6x6xf32>
  %b = func.call @id(%a) : (tensor<6x6xf32>) -> tensor<6x6xf32>
  %c = stablehlo.transpose %x, dims = [1, 0] : (tensor<6x6xf32>) -> tensor<6x6xf32>
  %d = func.call @rec(%b, %n) : (tensor<6x6xf32>, tensor<i64>) -> tensor<6x6xf32>
  %e = stablehlo.add %d, %c : tensor<6x6xf32>
  %f = stablehlo.add %e, %b : tensor<6x6xf32>
  return %f : tensor<6x6xf32>
}
func.func private @id(%y: tensor<6x6xf32>) -> tensor<6x6xf32> {
  return %y : tensor<6x6xf32>
}
func.func private @rec(%y: tensor<6x6xf32>, %k: tensor<i64>) -> tensor<6x6xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %t = stablehlo.transpose %y, dims = [1, 0] : (tensor<6x6xf32>) -> tensor<6x6xf32>
  %p = stablehlo.compare GT, %k, %zero : (tensor<i64>, tensor<i64>) -> tensor<i1>
  %r = "stablehlo.if"(%p) ({
    %k1 = stablehlo.subtract %k, %one : tensor<i64>
    %inner = func.call @rec(%t, %k1) : (tensor<6x6xf32>, tensor<i64>) -> tensor<6x6xf32>
    %s = stablehlo.add %inner, %t : tensor<6x6xf32>
    stablehlo.return %s : tensor<6x6xf32>
  }, {
    %s = stablehlo.add %t, %y : tensor<6x6xf32>
    stablehlo.return %s : tensor<6x6xf32>
  }) : (tensor<i1>) -> tensor<6x6xf32>
  return %r : tensor<6x6xf32>
}
)";
  auto m = CompileAndLoad(kSource, true);
  ASSERT_TRUE(m);
  EXPECT_GT(Fn(*m, "rec").arena_bytes, 0u) << "t lives in rec's arena";
  EXPECT_GT(Fn(*m, "main").arena_bytes, 0u);
  ExpectSameResults(kSource, {Random({6, 6}, 5)});
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The models of tests/data/models: planned == unplanned with poison, in both modes.
TEST(MemoryPlan, ModelsMatchUnplanned) {
  const std::string dir = KILN_TEST_DATA_DIR "/models/";
  {
    std::vector<vm::HostTensor> in = {Random({16, 64}, 10), Random({64, 64}, 11), Random({64, 64}, 12),
                                      Random({64, 64}, 13), Random({64, 64}, 14), Random({64, 256}, 15),
                                      Random({256, 64}, 16)};
    ExpectSameResults(ReadText(dir + "transformer_block.mlir"), in);
  }
  {
    std::vector<vm::HostTensor> in = {Random({1, 32, 32, 3}, 20), Random({3, 3, 3, 16}, 21), Random({16}, 22),
                                      Random({3, 3, 16, 16}, 23), Random({16}, 24), Random({3, 3, 16, 32}, 25),
                                      Random({32, 10}, 26)};
    ExpectSameResults(ReadText(dir + "small_convnet.mlir"), in);
  }
}

// Hostile modules: an arena.view past the arena is refused at load (offset)
// or when it runs (dimensions), never read or written out of bounds.
TEST(MemoryPlan, ViewsOutsideTheArenaAreRefused) {
  auto build = [](uint64_t arena, int64_t offset, int64_t dim, vm::Opcode view = vm::Opcode::kArenaView) {
    compiler::ModuleBuilder mb;
    compiler::FunctionOut f;
    f.name = "main";
    f.num_i64_registers = 1;
    f.num_ref_registers = 1;
    f.memory.arena_bytes = arena;
    vm::BytecodeWriter w;
    w.Emit(vm::Opcode::kConstI64, 0u, dim);
    w.Emit(view, 0u, static_cast<uint32_t>(ElementType::kF32), offset, std::vector<uint32_t>{0});
    w.Emit(vm::Opcode::kReturn, std::vector<uint32_t>{});
    f.bytecode = w.bytes();
    mb.functions.push_back(std::move(f));
    return mb.Serialize();
  };
  auto run = [](const std::vector<uint8_t>& bytes) -> Status {
    auto module = vm::LoadModule(bytes);
    if (!module.ok()) return module.status();
    auto device = hal::CreateCpuDevice(hal::CpuMode::kInline, 1);
    auto ctx = vm::Context::Create(*module, device.get());
    if (!ctx.ok()) return ctx.status();
    auto r = (*ctx)->Invoke("main", {});
    return r.ok() ? Status::Ok() : r.status();
  };
  EXPECT_TRUE(run(build(64, 0, 16)).ok());
  Status s = run(build(64, 64, 1));
  EXPECT_NE(s.message().find("outside the function's arena of 64 bytes"), std::string::npos) << s.message();
  s = run(build(0, 0, 1));
  EXPECT_NE(s.message().find("outside the function's arena of 0 bytes"), std::string::npos) << s.message();
  s = run(build(128, 64, 17));
  EXPECT_NE(s.message().find("runs past the function's arena"), std::string::npos) << s.message();
  // Views are 64-byte aligned, as every buffer the kernels get (found by the loader fuzzer).
  s = run(build(128, 1, 1));
  EXPECT_NE(s.message().find("arena.view at offset 1, not a multiple of 64 bytes"), std::string::npos) << s.message();
  s = run(build(128, 32, 1, vm::Opcode::kArenaViewInPlace));
  EXPECT_NE(s.message().find("not a multiple of 64 bytes"), std::string::npos) << s.message();
  s = run(build(64, 0, -1));
  EXPECT_NE(s.message().find("invalid dimensions"), std::string::npos) << s.message();
  s = run(build(64, 0, int64_t{1} << 62));
  EXPECT_NE(s.message().find("invalid dimensions"), std::string::npos) << s.message();
  // arena.view.inplace is checked the same way.
  EXPECT_TRUE(run(build(64, 0, 16, vm::Opcode::kArenaViewInPlace)).ok());
  s = run(build(64, 64, 1, vm::Opcode::kArenaViewInPlace));
  EXPECT_NE(s.message().find("outside the function's arena of 64 bytes"), std::string::npos) << s.message();
  s = run(build(128, 64, 17, vm::Opcode::kArenaViewInPlace));
  EXPECT_NE(s.message().find("runs past the function's arena"), std::string::npos) << s.message();
}

// In-place reuse, unfused so each elementwise op is its own dispatch: exp
// takes t's bytes (t dies there) and negate takes exp's, so one 4 KiB slot
// holds t, a and b (two without in-place reuse: t and a are both live at exp).
TEST(MemoryPlan, ElementwiseOutputsTakeTheirDyingInputsBytes) {
  constexpr char kSource[] = R"(
func.func @main(%x: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %t = stablehlo.transpose %x, dims = [1, 0] : (tensor<32x32xf32>) -> tensor<32x32xf32>
  %a = stablehlo.exponential %t : tensor<32x32xf32>
  %b = stablehlo.negate %a : tensor<32x32xf32>
  %c = stablehlo.transpose %b, dims = [1, 0] : (tensor<32x32xf32>) -> tensor<32x32xf32>
  return %c : tensor<32x32xf32>
}
)";
  auto m = CompileAndLoad(kSource, true, /*fuse=*/false);
  ASSERT_TRUE(m);
  const auto& f = Fn(*m, "main");
  EXPECT_EQ(Count(f, vm::Opcode::kArenaViewInPlace), 2);
  EXPECT_EQ(f.arena_bytes, 4096u);
  ExpectSameResults(kSource, {Random({32, 32}, 30)}, "main", /*fuse=*/false);
}

// No in-place reuse where it would be wrong: t is read again after exp (so
// a may not take t's bytes); the broadcast input and the narrower output
// (convert to f16) have other sizes; odd sizes throughout. Poison and the
// bit-for-bit comparison with the unplanned module catch a wrong alias.
TEST(MemoryPlan, InPlaceOnlyOverInputsThatDie) {
  constexpr char kSource[] = R"(
func.func @main(%x: tensor<7x5xf32>, %v: tensor<5xf32>) -> tensor<5x7xf16> {
  %t = stablehlo.transpose %x, dims = [1, 0] : (tensor<7x5xf32>) -> tensor<5x7xf32>
  %a = stablehlo.exponential %t : tensor<5x7xf32>
  %b = stablehlo.negate %a : tensor<5x7xf32>
  %c = stablehlo.add %b, %t : tensor<5x7xf32>
  %w = stablehlo.transpose %v, dims = [0] : (tensor<5xf32>) -> tensor<5xf32>
  %wb = stablehlo.broadcast_in_dim %w, dims = [0] : (tensor<5xf32>) -> tensor<5x7xf32>
  %d = stablehlo.multiply %c, %wb : tensor<5x7xf32>
  %h = stablehlo.convert %d : (tensor<5x7xf32>) -> tensor<5x7xf16>
  %r = stablehlo.transpose %h, dims = [0, 1] : (tensor<5x7xf16>) -> tensor<5x7xf16>
  return %r : tensor<5x7xf16>
}
)";
  auto m = CompileAndLoad(kSource, true, /*fuse=*/false);
  ASSERT_TRUE(m);
  const auto& f = Fn(*m, "main");
  // Views in program order: t's, then a's (a plain view: t is still live
  // after exp), then b over a's bytes, c over b's or t's, d over c's.
  std::vector<std::pair<vm::Opcode, uint64_t>> views;
  for (const auto& ins : f.code)
    if (ins.op == vm::Opcode::kArenaView || ins.op == vm::Opcode::kArenaViewInPlace)
      views.push_back({ins.op, ins.operands[2].value});
  ASSERT_GE(views.size(), 4u);
  EXPECT_EQ(views[1].first, vm::Opcode::kArenaView) << "a may not take t's bytes";
  EXPECT_NE(views[1].second, views[0].second);
  EXPECT_EQ(views[2].first, vm::Opcode::kArenaViewInPlace) << "b takes a's bytes";
  EXPECT_EQ(views[2].second, views[1].second);
  EXPECT_EQ(Count(f, vm::Opcode::kArenaViewInPlace), 3) << "b, c, d; not the f16 h";
  ExpectSameResults(kSource, {Random({7, 5}, 31), Random({5}, 32)}, "main", /*fuse=*/false);
}

// One arena per (context, function), kept across calls: after the first
// call the arena stays alive (kept for the next), and further calls take it
// again instead of a fresh buffer, so the device's live and peak bytes do
// not grow; in deferred mode the kept arena is taken only once the
// submission that used it has run (results equal, poison on).
TEST(MemoryPlan, ArenaIsKeptAcrossCalls) {
  auto m = CompileAndLoad(kChain, true);
  ASSERT_TRUE(m);
  const uint64_t arena = Fn(*m, "main").arena_bytes;
  ASSERT_GT(arena, 0u);
  for (auto mode : {hal::CpuMode::kInline, hal::CpuMode::kDeferred}) {
    auto device = hal::CreateCpuDevice(mode, 2);
    auto ctx = vm::Context::Create(m, device.get());
    ASSERT_TRUE(ctx.ok()) << ctx.status().message();
    const std::vector<vm::HostTensor> in = {Random({32, 32}, 40)};
    auto first = (*ctx)->Invoke("main", in);
    ASSERT_TRUE(first.ok()) << first.status().message();
    const hal::DeviceStats after_first = device->stats();
    EXPECT_GE(after_first.live_bytes, arena) << "the arena is kept for the next call";
    for (int k = 0; k < 5; ++k) {
      auto again = (*ctx)->Invoke("main", in);
      ASSERT_TRUE(again.ok()) << again.status().message();
      EXPECT_EQ((*again)[0].data, (*first)[0].data);
    }
    EXPECT_EQ(device->stats().live_bytes, after_first.live_bytes) << "mode " << static_cast<int>(mode);
    EXPECT_EQ(device->stats().peak_live_bytes, after_first.peak_live_bytes) << "mode " << static_cast<int>(mode);
  }
}

// A file of format 0.3 has no arenas (the fields are absent, read as 0): it
// loads and runs from the pool as before.
TEST(MemoryPlan, Format03FilesWithoutArenasStillRun) {
  compiler::CompileOptions options;
  options.target = "cpu";
  options.plan_memory = false;
  auto bytes = compiler::Compile(kChain, "plan.mlir", options, nullptr);
  ASSERT_TRUE(bytes.ok());
  std::vector<uint8_t> old = *bytes;
  const fb::Module* m = fb::GetModule(old.data());
  old[fb::StoredField(m, fb::Module::VT_VERSION_MINOR) - old.data()] = 3;
  for (const auto* f : *m->functions())
    for (auto field : {fb::Function::VT_ARENA_BYTES, fb::Function::VT_TRANSIENT_BYTES,
                       fb::Function::VT_POOL_TRANSIENT_BYTES, fb::Function::VT_DYNAMIC_ALLOCS}) {
      const uint8_t* t = reinterpret_cast<const uint8_t*>(f);
      const uint8_t* vtable = t - flatbuffers::ReadScalar<flatbuffers::soffset_t>(t);
      ASSERT_LT(field, flatbuffers::ReadScalar<flatbuffers::voffset_t>(vtable));
      flatbuffers::WriteScalar<flatbuffers::voffset_t>(old.data() + (vtable + field - old.data()), 0);
    }
  // The edit changes the metadata's checksum: store the new one, as a 0.3 writer would have.
  ASSERT_TRUE(fb::SealModule(&old));
  auto module = vm::LoadModule(old);
  ASSERT_TRUE(module.ok()) << module.status().message();
  EXPECT_EQ((*module)->version_minor, 3);
  EXPECT_EQ((*module)->functions[0].arena_bytes, 0u);
  EXPECT_EQ((*module)->functions[0].transient_bytes, 0u);
  auto planned = CompileAndLoad(kChain, true);
  ASSERT_TRUE(planned);
  auto in = Random({32, 32}, 7);
  auto got = RunTwice(*module, hal::CpuMode::kInline, true, {in});
  auto want = RunTwice(planned, hal::CpuMode::kDeferred, true, {in});
  ASSERT_EQ(got.size(), 1u);
  ASSERT_EQ(want.size(), 1u);
  EXPECT_EQ(got[0].data, want[0].data);
}

}  // namespace
}  // namespace kiln

// Module globals (ml_program.global, IREE's util.global; docs/jax.md,
// "Module globals"): each context holds its own values, starting at the
// initial values; stores persist across calls and are seen by the loads
// after them, in the same call, in loops and in callees; a stored value is a
// copy (of an arena tensor, of a borrowed argument); a failed call leaves
// every global as it was; immutable globals are constants. On both CPU
// driver modes and, where built, on Vulkan. Also the arith ops on tensors
// that IREE's tests write beside them, and the compiler's errors.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "hal/cpu/cpu_device.h"
#include "hal/devices.h"
#include "vm/context.h"

namespace kiln {
namespace {

constexpr char kSource[] = R"(
module {
  ml_program.global private mutable @counter(dense<2.0> : tensor<f32>) : tensor<f32>
  util.global private mutable @acc : tensor<4xf32>
  util.global private @weights = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  util.global private @pattern {inlining_policy = #util.inline.never} = #util.byte_pattern<1> : tensor<2xi32>

  func.func @get_state() -> tensor<f32> {
    %0 = ml_program.global_load @counter : tensor<f32>
    return %0 : tensor<f32>
  }
  func.func @inc() -> tensor<f32> {
    %0 = ml_program.global_load @counter : tensor<f32>
    %c1 = arith.constant dense<1.0> : tensor<f32>
    %1 = arith.addf %0, %c1 : tensor<f32>
    ml_program.global_store @counter = %1 : tensor<f32>
    %2 = ml_program.global_load @counter : tensor<f32>
    return %2 : tensor<f32>
  }
  func.func @inc_twice_by_call() -> (tensor<f32>, tensor<f32>) {
    %before = ml_program.global_load @counter : tensor<f32>
    %a = func.call @inc() : () -> tensor<f32>
    %b = func.call @inc() : () -> tensor<f32>
    return %before, %b : tensor<f32>, tensor<f32>
  }
  func.func @inc_n(%n: tensor<i64>) -> tensor<f32> {
    %zero = stablehlo.constant dense<0> : tensor<i64>
    %r = stablehlo.while(%i = %zero) : tensor<i64>
      cond {
        %c = stablehlo.compare LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
        stablehlo.return %c : tensor<i1>
      } do {
        %v = util.global.load @counter : tensor<f32>
        %one = stablehlo.constant dense<1.0> : tensor<f32>
        %w = stablehlo.add %v, %one : tensor<f32>
        util.global.store %w, @counter : tensor<f32>
        %k = stablehlo.constant dense<1> : tensor<i64>
        %j = stablehlo.add %i, %k : tensor<i64>
        stablehlo.return %j : tensor<i64>
      }
    %out = util.global.load @counter : tensor<f32>
    return %out : tensor<f32>
  }
  func.func @accumulate(%x: tensor<4xf32>) -> tensor<4xf32> {
    %p = util.global.address @acc : !util.ptr<tensor<4xf32>>
    %a = util.global.load.indirect %p : !util.ptr<tensor<4xf32>> -> tensor<4xf32>
    %w = util.global.load @weights : tensor<4xf32>
    %xw = stablehlo.multiply %x, %w : tensor<4xf32>
    %s = stablehlo.add %a, %xw : tensor<4xf32>
    %t = stablehlo.tanh %s : tensor<4xf32>
    util.global.store.indirect %s, %p : tensor<4xf32> -> !util.ptr<tensor<4xf32>>
    return %t : tensor<4xf32>
  }
  func.func @get_acc() -> tensor<4xf32> {
    %a = util.global.load @acc : tensor<4xf32>
    return %a : tensor<4xf32>
  }
  func.func @set_acc(%x: tensor<4xf32>) -> tensor<4xf32> {
    %old = util.global.load @acc : tensor<4xf32>
    util.global.store %x, @acc : tensor<4xf32>
    return %old : tensor<4xf32>
  }
  func.func @set_acc_then_assert(%x: tensor<4xf32>, %ok: tensor<i1>) -> tensor<4xf32> {
    util.global.store %x, @acc : tensor<4xf32>
    stablehlo.custom_call @shape_assertion(%ok) {error_message = "refused", has_side_effect = true} : (tensor<i1>) -> ()
    return %x : tensor<4xf32>
  }
  func.func @inc_n_then_assert(%n: tensor<i64>, %ok: tensor<i1>) -> tensor<f32> {
    %r = func.call @inc_n(%n) : (tensor<i64>) -> tensor<f32>
    stablehlo.custom_call @shape_assertion(%ok) {error_message = "refused", has_side_effect = true} : (tensor<i1>) -> ()
    return %r : tensor<f32>
  }
  func.func @get_pattern() -> tensor<2xi32> {
    %p = ml_program.global_load_const @pattern : tensor<2xi32>
    return %p : tensor<2xi32>
  }
  func.func @arith(%a: tensor<3xi32>, %b: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
    %t = arith.trunci %a : tensor<3xi32> to tensor<3xi8>
    %f = arith.sitofp %t : tensor<3xi8> to tensor<3xf32>
    %m = arith.mulf %f, %b : tensor<3xf32>
    %n = arith.negf %m : tensor<3xf32>
    %x = arith.maximumf %n, %b : tensor<3xf32>
    return %f, %x : tensor<3xf32>, tensor<3xf32>
  }
}
)";

vm::HostTensor F32s(std::vector<int64_t> dims, std::vector<float> v) {
  vm::HostTensor t;
  t.type = ElementType::kF32;
  t.dims = std::move(dims);
  t.data.resize(v.size() * 4);
  std::memcpy(t.data.data(), v.data(), t.data.size());
  return t;
}

template <typename T>
vm::HostTensor Scalar(ElementType type, T v) {
  vm::HostTensor t;
  t.type = type;
  t.data.resize(sizeof(T));
  std::memcpy(t.data.data(), &v, sizeof(T));
  return t;
}

template <typename T>
std::vector<T> Values(const vm::HostTensor& t) {
  std::vector<T> v(t.data.size() / sizeof(T));
  std::memcpy(v.data(), t.data.data(), t.data.size());
  return v;
}

class ModuleGlobals : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    compiler::CompileOptions options;
    options.target = GetParam() == "vulkan" ? "all" : "cpu";
    auto bytes = compiler::Compile(kSource, "globals.mlir", options, nullptr);
    ASSERT_TRUE(bytes.ok()) << bytes.status().message();
    auto module = vm::LoadModule(bytes.value());
    ASSERT_TRUE(module.ok()) << module.status().message();
    module_ = std::move(module.value());
    if (GetParam() == "vulkan") {
      auto device = hal::CreateDeviceByName("vulkan");
      ASSERT_TRUE(device.ok()) << device.status().message();
      device_ = std::move(device.value());
    } else {
      device_ = hal::CreateCpuDevice(GetParam() == "cpu-deferred" ? hal::CpuMode::kDeferred : hal::CpuMode::kInline, 2);
    }
    ctx_ = NewContext();
  }
  std::unique_ptr<vm::Context> NewContext() {
    auto ctx = vm::Context::Create(module_, device_.get());
    EXPECT_TRUE(ctx.ok()) << ctx.status().message();
    return ctx.ok() ? std::move(ctx.value()) : nullptr;
  }
  std::vector<vm::HostTensor> Call(vm::Context* ctx, const std::string& f, const std::vector<vm::HostTensor>& in = {}) {
    auto r = ctx->Invoke(f, in);
    EXPECT_TRUE(r.ok()) << f << ": " << r.status().message();
    return r.ok() ? std::move(r.value()) : std::vector<vm::HostTensor>{};
  }
  float Counter(vm::Context* ctx, const std::string& f) {
    auto r = Call(ctx, f);
    return r.empty() ? -1.0f : Values<float>(r[0])[0];
  }
  std::shared_ptr<const vm::LoadedModule> module_;
  std::unique_ptr<hal::Device> device_;
  std::unique_ptr<vm::Context> ctx_;
};

TEST_P(ModuleGlobals, StoresPersistAcrossCallsPerContext) {
  EXPECT_EQ(Counter(ctx_.get(), "get_state"), 2.0f);
  EXPECT_EQ(Counter(ctx_.get(), "inc"), 3.0f);
  EXPECT_EQ(Counter(ctx_.get(), "inc"), 4.0f);
  EXPECT_EQ(Counter(ctx_.get(), "get_state"), 4.0f);
  // Another context of the same module starts at the initial value and
  // leaves the first one alone.
  auto other = NewContext();
  ASSERT_TRUE(other);
  EXPECT_EQ(Counter(other.get(), "get_state"), 2.0f);
  EXPECT_EQ(Counter(other.get(), "inc"), 3.0f);
  EXPECT_EQ(Counter(ctx_.get(), "get_state"), 4.0f);
}

TEST_P(ModuleGlobals, LoadsSeeStoresInCalleesAndLoops) {
  auto r = Call(ctx_.get(), "inc_twice_by_call");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(Values<float>(r[0])[0], 2.0f);  // loaded before the calls: a value, not a reference
  EXPECT_EQ(Values<float>(r[1])[0], 4.0f);
  r = Call(ctx_.get(), "inc_n", {Scalar<int64_t>(ElementType::kSI64, 5)});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(Values<float>(r[0])[0], 9.0f);
  EXPECT_EQ(Counter(ctx_.get(), "get_state"), 9.0f);
}

TEST_P(ModuleGlobals, StoredValuesAreCopies) {
  // Zeros at first; the stored sum lives in the call's arena, and the
  // next calls (reusing that arena) must not change the global.
  EXPECT_EQ(Values<float>(Call(ctx_.get(), "get_acc")[0]), std::vector<float>(4, 0.0f));
  auto x = F32s({4}, {1, 1, 1, 1});
  Call(ctx_.get(), "accumulate", {x});
  auto r = Call(ctx_.get(), "accumulate", {x});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(Values<float>(Call(ctx_.get(), "get_acc")[0]), (std::vector<float>{2, 4, 6, 8}));
  EXPECT_NEAR(Values<float>(r[0])[2], std::tanh(6.0f), 1e-6f);
  // A borrowed argument stored, then the caller's memory reused.
  std::vector<float> host = {5, 6, 7, 8};
  vm::BorrowedTensor b;
  b.type = ElementType::kF32;
  const int64_t dims[] = {4};
  b.dims = dims;
  b.rank = 1;
  b.data = host.data();
  b.byte_size = 16;
  std::vector<vm::HostTensor> results;
  ASSERT_TRUE(ctx_->Invoke("set_acc", std::vector<vm::BorrowedTensor>{b}, {}, &results).ok());
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(Values<float>(results[0]), (std::vector<float>{2, 4, 6, 8}));
  host = {-1, -1, -1, -1};
  EXPECT_EQ(Values<float>(Call(ctx_.get(), "get_acc")[0]), (std::vector<float>{5, 6, 7, 8}));
}

TEST_P(ModuleGlobals, FailedCallLeavesGlobalsUnchanged) {
  Call(ctx_.get(), "set_acc", {F32s({4}, {1, 2, 3, 4})});
  auto r = ctx_->Invoke("set_acc_then_assert", {F32s({4}, {9, 9, 9, 9}), Scalar<uint8_t>(ElementType::kI1, 0)});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("refused"), std::string::npos) << r.status().message();
  EXPECT_EQ(Values<float>(Call(ctx_.get(), "get_acc")[0]), (std::vector<float>{1, 2, 3, 4}));
  Call(ctx_.get(), "set_acc_then_assert", {F32s({4}, {9, 9, 9, 9}), Scalar<uint8_t>(ElementType::kI1, 1)});
  EXPECT_EQ(Values<float>(Call(ctx_.get(), "get_acc")[0]), std::vector<float>(4, 9.0f));
}

// Many stores in one failed call (a loop's, in a callee) roll back to the
// value the call began with.
TEST_P(ModuleGlobals, FailedLoopOfStoresRollsBackToTheCallsStart) {
  EXPECT_EQ(Counter(ctx_.get(), "inc"), 3.0f);
  auto r = ctx_->Invoke("inc_n_then_assert", {Scalar<int64_t>(ElementType::kSI64, 50), Scalar<uint8_t>(ElementType::kI1, 0)});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(Counter(ctx_.get(), "get_state"), 3.0f);
  r = ctx_->Invoke("inc_n_then_assert", {Scalar<int64_t>(ElementType::kSI64, 50), Scalar<uint8_t>(ElementType::kI1, 1)});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Values<float>((*r)[0])[0], 53.0f);
  EXPECT_EQ(Counter(ctx_.get(), "get_state"), 53.0f);
}

TEST_P(ModuleGlobals, ImmutableGlobalsAndBytePatterns) {
  // #util.byte_pattern<1>: every byte 0x01.
  EXPECT_EQ(Values<int32_t>(Call(ctx_.get(), "get_pattern")[0]), std::vector<int32_t>(2, 0x01010101));
}

TEST_P(ModuleGlobals, ArithOpsOnTensors) {
  vm::HostTensor a;
  a.type = ElementType::kSI32;
  a.dims = {3};
  const int32_t av[] = {-128, 300, 7};  // 300 wraps to 44 as i8
  a.data.resize(12);
  std::memcpy(a.data.data(), av, 12);
  auto r = Call(ctx_.get(), "arith", {a, F32s({3}, {1.0f, -2.0f, 0.5f})});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(Values<float>(r[0]), (std::vector<float>{-128, 44, 7}));
  EXPECT_EQ(Values<float>(r[1]), (std::vector<float>{128, 88, 0.5f}));
}

std::vector<std::string> Devices() {
  std::vector<std::string> d = {"cpu-inline", "cpu-deferred"};
#ifdef KILN_HAVE_VULKAN
  d.push_back("vulkan");
#endif
  return d;
}

INSTANTIATE_TEST_SUITE_P(Devices, ModuleGlobals, ::testing::ValuesIn(Devices()),
                         [](const auto& info) { return info.param == "cpu-inline"     ? std::string("CpuInline")
                                                       : info.param == "cpu-deferred" ? std::string("CpuDeferred")
                                                                                      : std::string("Vulkan"); });

std::string CompileError(const std::string& source) {
  compiler::CompileOptions options;
  options.target = "cpu";
  auto bytes = compiler::Compile(source, "g.mlir", options, nullptr);
  return bytes.ok() ? "" : bytes.status().message();
}

TEST(ModuleGlobalsCompile, ErrorsNameTheGlobalAndTheOp) {
  const std::string head = "ml_program.global private @k(dense<1.0> : tensor<f32>) : tensor<f32>\n";
  EXPECT_NE(CompileError(head + "func.func @f(%x: tensor<f32>) {\n  ml_program.global_store @k = %x : tensor<f32>\n"
                                "  return\n}\n")
                .find("g.mlir:3:3: error: ml_program.global_store: stores to global @k, which is not mutable"),
            std::string::npos)
      << CompileError(head + "func.func @f(%x: tensor<f32>) {\n  ml_program.global_store @k = %x : tensor<f32>\n"
                             "  return\n}\n");
  std::string e = CompileError(head + "func.func @f() -> tensor<2xf32> {\n  %v = ml_program.global_load @k : "
                                      "tensor<2xf32>\n  return %v : tensor<2xf32>\n}\n");
  EXPECT_NE(e.find("g.mlir:3:8: error:"), std::string::npos) << e;
  EXPECT_NE(e.find("must be global @k's type tensor<f32>"), std::string::npos) << e;
  e = CompileError("func.func @f() -> tensor<f32> {\n  %v = ml_program.global_load @nope : tensor<f32>\n"
                   "  return %v : tensor<f32>\n}\n");
  EXPECT_NE(e.find("g.mlir:2:8: error:"), std::string::npos) << e;
  EXPECT_NE(e.find("names undefined global @nope"), std::string::npos) << e;
  e = CompileError(head + head);
  EXPECT_NE(e.find("g.mlir:2:27: error: symbol '@k' is defined twice"), std::string::npos) << e;
  e = CompileError("ml_program.global private @d : tensor<?xf32>\n");
  EXPECT_NE(e.find("static shapes"), std::string::npos) << e;
  e = CompileError("ml_program.global private @d(dense<1> : tensor<2xi32>) : tensor<2xf32>\n");
  EXPECT_NE(e.find("the initial value has type tensor<2xi32>, the global tensor<2xf32>"), std::string::npos) << e;
  e = CompileError("util.global private @b = #util.byte_pattern<3> : tensor<4xi1>\n");
  EXPECT_NE(e.find("#util.byte_pattern needs an element type that fills its bytes"), std::string::npos) << e;
  // A pointer is read only by the indirect loads and stores.
  e = CompileError("util.global private mutable @m : tensor<f32>\nfunc.func @f() -> tensor<f32> {\n"
                   "  %p = util.global.address @m : !util.ptr<tensor<f32>>\n  return %p : tensor<f32>\n}\n");
  EXPECT_NE(e.find("g.mlir:4:3: error: the pointer util.global.address defines is read only by"), std::string::npos)
      << e;
  e = CompileError("func.func @f(%a: tensor<2xi32>) -> tensor<2xi32> {\n"
                   "  %b = arith.addi %a, %a : tensor<2xi64>\n  return %b : tensor<2xi32>\n}\n");
  EXPECT_NE(e.find("g.mlir:2:28: error: arith.addi: an operand has type tensor<2xi32>, not tensor<2xi64>"),
            std::string::npos)
      << e;
}

TEST(ModuleGlobalsCompile, PrintedIrReadsBackTheSame) {
  auto printed = compiler::CompileToIrText(kSource, "globals.mlir");
  ASSERT_TRUE(printed.ok()) << printed.status().message();
  EXPECT_NE(printed->find("ml_program.global private mutable @counter(dense<2.0> : tensor<f32>) : tensor<f32>"),
            std::string::npos)
      << *printed;
  auto again = compiler::CompileToIrText(*printed, "printed.mlir");
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(*again, *printed);
}

}  // namespace
}  // namespace kiln

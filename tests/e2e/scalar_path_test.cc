// The scalar path (compiler/passes/scalar_plan.h): rank-0 integer and boolean
// values computed in the VM's i64 registers must give bit for bit what the
// reference kernels give for the same op on a tensor, for every integer type
// and the values at the edges of each type's range; loops over them run no
// kernel; a loop-carried value the body computes with a kernel falls back to
// tensors and still gives the right answer.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "hal/cpu/cpu_device.h"
#include "kernels/scalar/scalar.h"
#include "vm/context.h"

namespace kiln {
namespace {

struct RunOutcome {
  std::vector<vm::HostTensor> outputs;
  uint64_t dispatches = 0;
};

class ScalarPath : public ::testing::Test {
 public:
  // Compiles `source`; null (and `error` set) if the compiler refuses it.
  std::unique_ptr<vm::Context> Load(const std::string& source, std::string* error) {
    compiler::CompileOptions options;
    options.target = "cpu";
    auto bytes = compiler::Compile(source, "scalar.mlir", options, nullptr);
    if (!bytes.ok()) {
      *error = bytes.status().message();
      return nullptr;
    }
    auto module = vm::LoadModule(bytes.value());
    EXPECT_TRUE(module.ok()) << module.status().message();
    if (!module.ok()) return nullptr;
    auto ctx = vm::Context::Create(*module, device_.get());
    EXPECT_TRUE(ctx.ok()) << ctx.status().message();
    return ctx.ok() ? std::move(ctx.value()) : nullptr;
  }
  RunOutcome Invoke(vm::Context* ctx, const std::vector<vm::HostTensor>& inputs) {
    RunOutcome r;
    const uint64_t before = device_->stats().dispatches;
    auto out = ctx->Invoke("main", inputs);
    EXPECT_TRUE(out.ok()) << out.status().message();
    if (out.ok()) r.outputs = std::move(out.value());
    r.dispatches = device_->stats().dispatches - before;
    return r;
  }
  std::unique_ptr<hal::Device> device_ = hal::CreateCpuDevice(hal::CpuMode::kInline, 1);
};

// Values at the edges of `type`'s range, and a few small ones.
std::vector<int64_t> EdgeValues(ElementType type) {
  if (IsBool(type)) return {0, 1};
  const int w = BitWidth(type);
  const bool is_signed = KindOf(type) == ElementKind::kSigned;
  const int64_t max = is_signed ? static_cast<int64_t>((uint64_t{1} << (w - 1)) - 1)
                                : static_cast<int64_t>(w == 64 ? ~uint64_t{0} : (uint64_t{1} << w) - 1);
  const int64_t min = is_signed ? -max - 1 : 0;
  std::vector<int64_t> raw = {0, 1, 2, 3, 5, w - 1, w, -1, -2, -7, min, min + 1, max, max - 1};
  std::vector<int64_t> out;
  for (int64_t v : raw) out.push_back(ref::WrapInteger(type, v));
  return out;
}

vm::HostTensor Tensor(ElementType type, const std::vector<int64_t>& values, bool rank0) {
  vm::HostTensor t;
  t.type = type;
  if (!rank0) t.dims = {static_cast<int64_t>(values.size())};
  t.data.resize(values.size() * StorageBytes(type));
  for (size_t k = 0; k < values.size(); ++k)
    ref::StoreScalar(type, Scalar{values[k], 0, 0}, t.data.data() + k * StorageBytes(type));
  return t;
}

int64_t Element(const vm::HostTensor& t, size_t k) {
  return ref::LoadScalar(t.type, t.data.data() + k * StorageBytes(t.type)).i;
}

std::string TensorType(const std::string& shape, ElementType type) {
  return "tensor<" + shape + std::string(Name(type)) + ">";
}

// `op` applied to operands of `types`, as a function of rank-0 tensors or of
// 1-D tensors of `n` elements.
std::string Program(const std::string& op, const std::string& attrs, const std::vector<ElementType>& types,
                    ElementType result, const std::string& shape) {
  std::string args, operands, operand_types;
  for (size_t k = 0; k < types.size(); ++k) {
    std::string t = TensorType(shape, types[k]);
    args += (k ? ", " : "") + std::string("%a") + std::to_string(k) + ": " + t;
    operands += (k ? ", " : "") + std::string("%a") + std::to_string(k);
    operand_types += (k ? ", " : "") + t;
  }
  std::string rt = TensorType(shape, result);
  return "func.func @main(" + args + ") -> " + rt + " {\n  %r = \"" + op + "\"(" + operands + ")" + attrs +
         " : (" + operand_types + ") -> " + rt + "\n  return %r : " + rt + "\n}\n";
}

// Checks the scalar path against the reference kernel on every combination
// of edge values. Returns false if the compiler refuses the op on tensors
// (not valid StableHLO for these types), so callers can count what ran.
bool CheckOp(ScalarPath* t, const std::string& op, const std::string& attrs, const std::vector<ElementType>& types,
             ElementType result) {
  std::vector<std::vector<int64_t>> columns(types.size());
  std::vector<size_t> at(types.size(), 0);
  for (;;) {  // the cartesian product of the operands' edge values
    for (size_t k = 0; k < types.size(); ++k) columns[k].push_back(EdgeValues(types[k])[at[k]]);
    size_t k = 0;
    while (k < types.size() && ++at[k] == EdgeValues(types[k]).size()) at[k++] = 0;
    if (k == types.size()) break;
  }
  const size_t n = columns[0].size();
  std::string error;
  auto vector_ctx = t->Load(Program(op, attrs, types, result, std::to_string(n) + "x"), &error);
  if (!vector_ctx) return false;
  std::string what = op + attrs + " on " + std::string(Name(types.back())) + " -> " + std::string(Name(result));
  auto scalar_ctx = t->Load(Program(op, attrs, types, result, ""), &error);
  EXPECT_NE(scalar_ctx, nullptr) << what << ": " << error;
  if (!scalar_ctx) return true;
  std::vector<vm::HostTensor> vector_inputs;
  for (size_t k = 0; k < types.size(); ++k) vector_inputs.push_back(Tensor(types[k], columns[k], false));
  RunOutcome expected = t->Invoke(vector_ctx.get(), vector_inputs);
  if (expected.outputs.size() != 1) return true;
  for (size_t i = 0; i < n; ++i) {
    std::vector<vm::HostTensor> inputs;
    std::string args;
    for (size_t k = 0; k < types.size(); ++k) {
      inputs.push_back(Tensor(types[k], {columns[k][i]}, true));
      args += " " + std::to_string(columns[k][i]);
    }
    RunOutcome got = t->Invoke(scalar_ctx.get(), inputs);
    EXPECT_EQ(got.dispatches, 0u) << what << ": not on the scalar path";
    if (got.outputs.size() != 1) return true;
    EXPECT_EQ(Element(got.outputs[0], 0), Element(expected.outputs[0], i)) << what << " of" << args;
  }
  return true;
}

const std::vector<ElementType> kIntegerTypes = {ElementType::kI1,   ElementType::kSI8,  ElementType::kSI16,
                                                ElementType::kSI32, ElementType::kSI64, ElementType::kUI8,
                                                ElementType::kUI16, ElementType::kUI32, ElementType::kUI64};

TEST_F(ScalarPath, ElementwiseOpsMatchTheReferenceOnEveryIntegerType) {
  const char* binary[] = {"add",   "subtract", "multiply", "divide",     "remainder",
                          "and",   "or",       "xor",      "maximum",    "minimum",
                          "power", "shift_left", "shift_right_arithmetic", "shift_right_logical"};
  const char* unary[] = {"not", "negate", "abs", "sign", "popcnt", "count_leading_zeros"};
  int ran = 0;
  for (ElementType type : kIntegerTypes) {
    for (const char* op : binary) ran += CheckOp(this, std::string("stablehlo.") + op, "", {type, type}, type);
    for (const char* op : unary) ran += CheckOp(this, std::string("stablehlo.") + op, "", {type}, type);
    ran += CheckOp(this, "stablehlo.clamp", "", {type, type, type}, type);
    ran += CheckOp(this, "stablehlo.select", "", {ElementType::kI1, type, type}, type);
    for (ElementType to : kIntegerTypes) ran += CheckOp(this, "stablehlo.convert", "", {type}, to);
  }
  EXPECT_GT(ran, 150);  // most ops are valid on most of these types
}

TEST_F(ScalarPath, ComparisonsMatchTheReferenceInEveryDirectionAndCompareType) {
  int ran = 0;
  for (ElementType type : kIntegerTypes)
    for (const char* dir : {"EQ", "NE", "LT", "LE", "GT", "GE"})
      for (const char* ct : {"SIGNED", "UNSIGNED", "NOTYPE"}) {
        std::string attrs = std::string(" {comparison_direction = #stablehlo<comparison_direction ") + dir +
                            ">, compare_type = #stablehlo<comparison_type " + ct + ">}";
        ran += CheckOp(this, "stablehlo.compare", attrs, {type, type}, ElementType::kI1);
      }
  EXPECT_GE(ran, 9 * 6);
}

// Collatz steps on i32 (so the arithmetic wraps at 32 bits) with a counter:
// the loop runs no kernel at all.
TEST_F(ScalarPath, ScalarLoopsRunNoKernels) {
  const std::string source = R"(
func.func @main(%n: tensor<i32>, %x0: tensor<i32>) -> (tensor<i32>, tensor<i32>) {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %two = stablehlo.constant dense<2> : tensor<i32>
  %three = stablehlo.constant dense<3> : tensor<i32>
  %r:2 = stablehlo.while(%i = %zero, %x = %x0) : tensor<i32>, tensor<i32>
    cond {
      %c = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      %rem = stablehlo.remainder %x, %two : tensor<i32>
      %even = stablehlo.compare EQ, %rem, %zero, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %half = stablehlo.divide %x, %two : tensor<i32>
      %x3 = stablehlo.multiply %x, %three : tensor<i32>
      %odd = stablehlo.add %x3, %one : tensor<i32>
      %next = stablehlo.select %even, %half, %odd : tensor<i1>, tensor<i32>
      %i1 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i1, %next : tensor<i32>, tensor<i32>
    }
  return %r#0, %r#1 : tensor<i32>, tensor<i32>
})";
  std::string error;
  auto ctx = Load(source, &error);
  ASSERT_NE(ctx, nullptr) << error;
  for (int32_t x0 : {27, 1 << 30, 0x7fffffff, -5}) {
    RunOutcome r = Invoke(ctx.get(), {Tensor(ElementType::kSI32, {100}, true), Tensor(ElementType::kSI32, {x0}, true)});
    ASSERT_EQ(r.outputs.size(), 2u);
    int32_t x = x0;
    for (int i = 0; i < 100; ++i)
      x = x % 2 == 0 ? x / 2 : static_cast<int32_t>(static_cast<uint32_t>(x) * 3u + 1u);
    EXPECT_EQ(Element(r.outputs[0], 0), 100);
    EXPECT_EQ(Element(r.outputs[1], 0), x) << "from " << x0;
    EXPECT_EQ(r.dispatches, 0u);
  }
}

// A loop carrying a tensor beside a scalar counter, and a rank-0 value the
// body computes with a kernel (a reduce): the counter stays a scalar, the
// reduced value goes back to tensors, and both come out right.
TEST_F(ScalarPath, LoopsMixScalarsAndTensors) {
  const std::string source = R"(
func.func @main(%v: tensor<4xi64>) -> (tensor<i64>, tensor<4xi64>, tensor<i64>) {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %five = stablehlo.constant dense<5> : tensor<i64>
  %r:3 = stablehlo.while(%i = %zero, %t = %v, %s = %zero) : tensor<i64>, tensor<4xi64>, tensor<i64>
    cond {
      %c = stablehlo.compare LT, %i, %five, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      %b = stablehlo.broadcast_in_dim %i, dims = [] : (tensor<i64>) -> tensor<4xi64>
      %t2 = stablehlo.add %t, %b : tensor<4xi64>
      %sum = stablehlo.reduce(%t2 init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<4xi64>, tensor<i64>) -> tensor<i64>
      %s2 = stablehlo.add %s, %sum : tensor<i64>
      %i1 = stablehlo.add %i, %one : tensor<i64>
      stablehlo.return %i1, %t2, %s2 : tensor<i64>, tensor<4xi64>, tensor<i64>
    }
  return %r#0, %r#1, %r#2 : tensor<i64>, tensor<4xi64>, tensor<i64>
})";
  std::string error;
  auto ctx = Load(source, &error);
  ASSERT_NE(ctx, nullptr) << error;
  RunOutcome r = Invoke(ctx.get(), {Tensor(ElementType::kSI64, {1, 2, 3, 4}, false)});
  ASSERT_EQ(r.outputs.size(), 3u);
  std::vector<int64_t> t = {1, 2, 3, 4};
  int64_t s = 0;
  for (int64_t i = 0; i < 5; ++i) {
    for (auto& e : t) e += i;
    for (auto e : t) s += e;
  }
  EXPECT_EQ(Element(r.outputs[0], 0), 5);
  for (size_t k = 0; k < 4; ++k) EXPECT_EQ(Element(r.outputs[1], k), t[k]);
  EXPECT_EQ(Element(r.outputs[2], 0), s);
}

}  // namespace
}  // namespace kiln

// The index-compare narrowing (compiler/passes/narrow_index_compares.h):
// which compares of si64 values become si32 compares, what is left as it
// was, and (running both forms) that the results are the same bits.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "compiler/parse/parser.h"
#include "compiler/passes/narrow_index_compares.h"

namespace kiln::compiler {
namespace {

std::unique_ptr<ir::Module> ParseAndNarrow(const std::string& source) {
  auto m = ir::ParseModule(source, "t.mlir");
  EXPECT_TRUE(m.ok()) << m.status().message();
  if (!m.ok()) return nullptr;
  NarrowIndexCompares(m->get());
  return std::move(m.value());
}

std::vector<const ir::Operation*> Compares(const ir::Module& m) {
  std::vector<const ir::Operation*> out;
  for (const auto& op : m.functions[0]->body.blocks[0]->ops)
    if (op->name == "stablehlo.compare") out.push_back(op.get());
  return out;
}

int Count(const ir::Module& m, const std::string& name, ElementType e) {
  int n = 0;
  for (const auto& op : m.functions[0]->body.blocks[0]->ops)
    if (op->name == name && op->results.size() == 1 && op->result()->type.element == e) ++n;
  return n;
}

TEST(NarrowIndexCompares, CausalMaskFromSi64IotasComparesSi32) {
  auto m = ParseAndNarrow(R"(
func.func @main(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %r = stablehlo.iota dim = 0 : tensor<8xi64>
  %c = stablehlo.iota dim = 0 : tensor<8xi64>
  %rb = stablehlo.broadcast_in_dim %r, dims = [0] : (tensor<8xi64>) -> tensor<8x8xi64>
  %cb = stablehlo.broadcast_in_dim %c, dims = [1] : (tensor<8xi64>) -> tensor<8x8xi64>
  %m = stablehlo.compare GE, %rb, %cb, SIGNED : (tensor<8x8xi64>, tensor<8x8xi64>) -> tensor<8x8xi1>
  %n = stablehlo.constant dense<-1.0e9> : tensor<8x8xf32>
  %0 = stablehlo.select %m, %x, %n : tensor<8x8xi1>, tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}
)");
  ASSERT_NE(m, nullptr);
  const auto compares = Compares(*m);
  ASSERT_EQ(compares.size(), 1u);
  EXPECT_EQ(compares[0]->operands[0]->type.element, ElementType::kSI32);
  EXPECT_EQ(compares[0]->operands[1]->type.element, ElementType::kSI32);
  EXPECT_EQ(compares[0]->operands[0]->type.dims, (std::vector<int64_t>{8, 8}));
  // The si64 iotas and broadcasts, unread now, are gone.
  EXPECT_EQ(Count(*m, "stablehlo.iota", ElementType::kSI64), 0);
  EXPECT_EQ(Count(*m, "stablehlo.broadcast_in_dim", ElementType::kSI64), 0);
  EXPECT_EQ(Count(*m, "stablehlo.iota", ElementType::kSI32), 2);
}

TEST(NarrowIndexCompares, ConstantsConvertsAndReshapesWithinSi32Narrow) {
  auto m = ParseAndNarrow(R"(
func.func @main(%i: tensor<6xi16>, %j: tensor<6xi32>) -> (tensor<2x3xi1>, tensor<6xi1>, tensor<6xi64>) {
  %a = stablehlo.convert %i : (tensor<6xi16>) -> tensor<6xi64>
  %b = stablehlo.convert %j : (tensor<6xi32>) -> tensor<6xi64>
  %ar = stablehlo.reshape %a : (tensor<6xi64>) -> tensor<2x3xi64>
  %k = stablehlo.constant dense<[[-2147483648, 0, 7], [1, 2, 2147483647]]> : tensor<2x3xi64>
  %0 = stablehlo.compare LT, %ar, %k, SIGNED : (tensor<2x3xi64>, tensor<2x3xi64>) -> tensor<2x3xi1>
  %1 = stablehlo.compare EQ, %a, %b, SIGNED : (tensor<6xi64>, tensor<6xi64>) -> tensor<6xi1>
  return %0, %1, %b : tensor<2x3xi1>, tensor<6xi1>, tensor<6xi64>
}
)");
  ASSERT_NE(m, nullptr);
  for (const ir::Operation* c : Compares(*m)) {
    EXPECT_EQ(c->operands[0]->type.element, ElementType::kSI32);
    EXPECT_EQ(c->operands[1]->type.element, ElementType::kSI32);
    EXPECT_EQ(c->GetAttr("compare_type")->str, "SIGNED");
  }
  // %j itself is compared; its convert stays for the result that reads it.
  EXPECT_EQ(Compares(*m)[1]->operands[1]->def, nullptr);
  EXPECT_EQ(Count(*m, "stablehlo.convert", ElementType::kSI64), 1);
}

TEST(NarrowIndexCompares, ArithmeticWithinSi32Narrows) {
  // A band (c - r <= 2) and a window end clamped with minimum; the second
  // compare's sum may reach 2^31 - 1 + 7, past si32, and stays si64.
  auto m = ParseAndNarrow(R"(
func.func @main() -> (tensor<8x8xi1>, tensor<8xi1>, tensor<8xi1>) {
  %r = stablehlo.iota dim = 0 : tensor<8x8xi64>
  %c = stablehlo.iota dim = 1 : tensor<8x8xi64>
  %d = stablehlo.subtract %c, %r : tensor<8x8xi64>
  %k = stablehlo.constant dense<2> : tensor<8x8xi64>
  %0 = stablehlo.compare LE, %d, %k, SIGNED : (tensor<8x8xi64>, tensor<8x8xi64>) -> tensor<8x8xi1>
  %i = stablehlo.iota dim = 0 : tensor<8xi64>
  %big = stablehlo.constant dense<2147483647> : tensor<8xi64>
  %s = stablehlo.add %i, %big : tensor<8xi64>
  %1 = stablehlo.compare GT, %s, %i, SIGNED : (tensor<8xi64>, tensor<8xi64>) -> tensor<8xi1>
  %five = stablehlo.constant dense<5> : tensor<8xi64>
  %e = stablehlo.minimum %i, %five : tensor<8xi64>
  %n = stablehlo.negate %e : tensor<8xi64>
  %2 = stablehlo.compare LT, %n, %i, SIGNED : (tensor<8xi64>, tensor<8xi64>) -> tensor<8xi1>
  return %0, %1, %2 : tensor<8x8xi1>, tensor<8xi1>, tensor<8xi1>
}
)");
  ASSERT_NE(m, nullptr);
  const auto c = Compares(*m);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0]->operands[0]->type.element, ElementType::kSI32);
  EXPECT_EQ(c[0]->operands[0]->def->name, "stablehlo.subtract");
  EXPECT_EQ(c[1]->operands[0]->type.element, ElementType::kSI64);
  EXPECT_EQ(c[2]->operands[0]->type.element, ElementType::kSI32);
  EXPECT_EQ(c[2]->operands[0]->def->name, "stablehlo.negate");
  EXPECT_EQ(Count(*m, "stablehlo.subtract", ElementType::kSI64), 0);
}

TEST(NarrowIndexCompares, LargeSplatConstantStaysASplat) {
  // 16384 x 8 si64 = 1 MiB, kept as one element (ir::kCompactSplatBytes).
  auto m = ParseAndNarrow(R"(
func.func @main() -> tensor<16384x8xi1> {
  %i = stablehlo.iota dim = 0 : tensor<16384x8xi64>
  %k = stablehlo.constant dense<-7> : tensor<16384x8xi64>
  %0 = stablehlo.compare GT, %i, %k, SIGNED : (tensor<16384x8xi64>, tensor<16384x8xi64>) -> tensor<16384x8xi1>
  return %0 : tensor<16384x8xi1>
}
)");
  ASSERT_NE(m, nullptr);
  const auto c = Compares(*m);
  ASSERT_EQ(c.size(), 1u);
  const ir::Operation* k = c[0]->operands[1]->def;
  ASSERT_EQ(k->name, "stablehlo.constant");
  const ir::Attribute* v = k->GetAttr("value");
  EXPECT_EQ(v->type.element, ElementType::kSI32);
  EXPECT_TRUE(v->dense_splat);
  EXPECT_EQ(v->DenseElementCount(), 16384u * 8u);
  int32_t e = 0;
  std::memcpy(&e, v->DenseElement(0), 4);
  EXPECT_EQ(e, -7);
}

TEST(NarrowIndexCompares, ConvertsOfIndicesToFloatsNarrow) {
  // Positions as floats (arange(n).float()), an offset one as f16; a
  // convert to ui64 and one of a value past si32 stay.
  auto m = ParseAndNarrow(R"(
func.func @main() -> (tensor<8xf32>, tensor<8xf16>, tensor<8xui64>, tensor<8xf32>) {
  %i = stablehlo.iota dim = 0 : tensor<8xi64>
  %0 = stablehlo.convert %i : (tensor<8xi64>) -> tensor<8xf32>
  %k = stablehlo.constant dense<3> : tensor<8xi64>
  %s = stablehlo.subtract %i, %k : tensor<8xi64>
  %1 = stablehlo.convert %s : (tensor<8xi64>) -> tensor<8xf16>
  %2 = stablehlo.convert %i : (tensor<8xi64>) -> tensor<8xui64>
  %big = stablehlo.constant dense<4294967296> : tensor<8xi64>
  %b = stablehlo.add %i, %big : tensor<8xi64>
  %3 = stablehlo.convert %b : (tensor<8xi64>) -> tensor<8xf32>
  return %0, %1, %2, %3 : tensor<8xf32>, tensor<8xf16>, tensor<8xui64>, tensor<8xf32>
}
)");
  ASSERT_NE(m, nullptr);
  std::vector<const ir::Operation*> converts;
  for (const auto& op : m->functions[0]->body.blocks[0]->ops)
    if (op->name == "stablehlo.convert") converts.push_back(op.get());
  ASSERT_EQ(converts.size(), 4u);
  EXPECT_EQ(converts[0]->operands[0]->type.element, ElementType::kSI32);
  EXPECT_EQ(converts[1]->operands[0]->type.element, ElementType::kSI32);
  EXPECT_EQ(converts[2]->operands[0]->type.element, ElementType::kSI64);
  EXPECT_EQ(converts[3]->operands[0]->type.element, ElementType::kSI64);
}

TEST(NarrowIndexCompares, LeavesWhatMayNotFit) {
  // A constant past si32, an argument, an iota one operand of whose compare
  // cannot narrow, and an index from an op the pass does not follow.
  auto m = ParseAndNarrow(R"(
func.func @main(%x: tensor<4xi64>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %i = stablehlo.iota dim = 0 : tensor<4xi64>
  %big = stablehlo.constant dense<[0, 1, 2, 2147483648]> : tensor<4xi64>
  %0 = stablehlo.compare LT, %i, %big, SIGNED : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
  %1 = stablehlo.compare LT, %i, %x, SIGNED : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
  %s = stablehlo.multiply %i, %i : tensor<4xi64>
  %2 = stablehlo.compare LT, %s, %i, SIGNED : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
  return %0, %1, %2 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}
)");
  ASSERT_NE(m, nullptr);
  for (const ir::Operation* c : Compares(*m)) {
    EXPECT_EQ(c->operands[0]->type.element, ElementType::kSI64);
    EXPECT_EQ(c->operands[1]->type.element, ElementType::kSI64);
  }
  EXPECT_EQ(Count(*m, "stablehlo.iota", ElementType::kSI32), 0);  // no clone left behind
}

}  // namespace
}  // namespace kiln::compiler

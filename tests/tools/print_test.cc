// vm::FormatTensor, as vm-run prints results, read back by tools::ParseInput
// (the --input syntax): the same bits for every float type, NaN without a
// sign, and --print-max-elements' elision.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "tools/common/input_parse.h"
#include "vm/host_tensor.h"

namespace kiln::tools {
namespace {

vm::HostTensor F64s(std::vector<double> values) {
  vm::HostTensor t;
  t.type = ElementType::kF64;
  t.dims = {static_cast<int64_t>(values.size())};
  t.data.resize(values.size() * 8);
  std::memcpy(t.data.data(), values.data(), t.data.size());
  return t;
}

// Every float type (and complex): random bit patterns that are not NaN print
// as text that --input reads back to the same bits.
TEST(PrintThenParse, GivesTheSameBits) {
  std::mt19937_64 rng(16);
  for (int code = 1; code <= kMaxElementTypeCode; ++code) {
    ElementType type = *ElementTypeFromCode(code);
    if (!IsFloat(type) && !IsComplex(type)) continue;
    const size_t width = StorageBytes(type);
    const int bits = IsComplex(type) ? BitWidth(type) / 2 : BitWidth(type);
    vm::HostTensor t;
    t.type = type;
    while (t.data.size() < 2000 * width) {
      std::vector<uint8_t> e(width);
      for (size_t part = 0; part < (IsComplex(type) ? 2u : 1u); ++part) {
        uint64_t r = rng();
        if (bits < 64) r &= (uint64_t{1} << bits) - 1;
        std::memcpy(e.data() + part * width / (IsComplex(type) ? 2 : 1), &r, width / (IsComplex(type) ? 2 : 1));
      }
      vm::HostTensor one;
      one.type = type;
      one.data = e;
      std::string text = vm::FormatTensor(one);
      if (text.find("nan") != std::string::npos) continue;  // NaN prints as "nan": its bits are not kept
      t.data.insert(t.data.end(), e.begin(), e.end());
    }
    t.dims = {static_cast<int64_t>(t.data.size() / width)};
    std::string text = vm::FormatTensor(t);
    auto back = ParseInput(text);
    ASSERT_TRUE(back.ok()) << Name(type) << ": " << back.status().message();
    EXPECT_EQ(vm::FormatTensor(*back), text) << Name(type);
    for (size_t i = 0; i < t.data.size(); i += width) {
      ASSERT_EQ(std::memcmp(back->data.data() + i, t.data.data() + i, width), 0)
          << Name(type) << " element " << i / width << ": " << vm::FormatElement(t, i / width) << " read back as "
          << vm::FormatElement(*back, i / width);
    }
  }
}

TEST(Print, F64HasTheDigitsToReadBack) {
  EXPECT_EQ(vm::FormatTensor(F64s({0.1, 0.2, 0.1 + 0.2, 1.0 / 3})),
            "4xf64=0.1,0.2,0.30000000000000004,0.3333333333333333");
  EXPECT_EQ(vm::FormatTensor(F64s({65504, -0.0, 1e300, 0.1 * 3})), "4xf64=65504,-0,1e+300,0.30000000000000004");
  // 9 digits (the old form) lose f64 values: 1 + 2^-52 printed as "1".
  EXPECT_EQ(vm::FormatTensor(F64s({1 + std::ldexp(1.0, -52)})), "1xf64=1.0000000000000002");
}

TEST(Print, NanHasNoSign) {
  EXPECT_EQ(vm::FormatTensor(F64s({std::nan(""), -std::nan(""), -INFINITY})), "3xf64=nan,nan,-inf");
  auto t = ParseInput("3xf32=-nan,nan,1");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(vm::FormatTensor(*t), "3xf32=nan,nan,1");
  t = ParseInput("2xcomplex<f32>=(1,-nan),(0.1,2)");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(vm::FormatTensor(*t), "2xcomplex<f32>=(1,nan),(0.1,2)");
}

TEST(Print, ElidesPastMaxElementsWithTheCount) {
  auto t = ParseInput("2x3xi32=1,2,3,4,5,6");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(vm::FormatTensor(*t, 4), "2x3xi32=1,2,3,4,... (6 elements)");
  EXPECT_EQ(vm::FormatTensor(*t, 0), "2x3xi32=... (6 elements)");
  EXPECT_EQ(vm::FormatTensor(*t, 6), "2x3xi32=1,2,3,4,5,6");
  EXPECT_EQ(vm::FormatTensor(*t), "2x3xi32=1,2,3,4,5,6");
}

}  // namespace
}  // namespace kiln::tools

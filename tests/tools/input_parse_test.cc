// tools::ParseInput (tools/common/input_parse.h): values out of their
// type's range and too many elements are errors that say so.
#include "tools/common/input_parse.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

namespace kiln::tools {
namespace {

std::string ErrorOf(const std::string& text) {
  auto t = ParseInput(text);
  return t.ok() ? "" : t.status().message();
}

float F32At(const vm::HostTensor& t, size_t i) {
  float f;
  std::memcpy(&f, t.data.data() + 4 * i, 4);
  return f;
}

TEST(ParseInput, FloatsOutOfTheirTypesRangeAreErrors) {
  EXPECT_EQ(ErrorOf("3xf32=1e40,2,3"), "bad --input '3xf32=1e40,2,3': '1e40' is out of range for f32");
  EXPECT_EQ(ErrorOf("3xf32=1,-1e39,3"), "bad --input '3xf32=1,-1e39,3': '-1e39' is out of range for f32");
  EXPECT_EQ(ErrorOf("3xf16=70000"), "bad --input '3xf16=70000': '70000' is out of range for f16");
  EXPECT_EQ(ErrorOf("f64=1e400"), "bad --input 'f64=1e400': '1e400' is out of range for f64");
  EXPECT_EQ(ErrorOf("bf16=1e39"), "bad --input 'bf16=1e39': '1e39' is out of range for bf16");
  // No infinity: past the largest finite value (448) it would become NaN.
  EXPECT_EQ(ErrorOf("f8E4M3FN=1000"), "bad --input 'f8E4M3FN=1000': '1000' is out of range for f8E4M3FN");
  EXPECT_NE(ErrorOf("f8E4M3FN=inf").find("out of range for f8E4M3FN"), std::string::npos);
  // Neither infinity nor NaN (largest 6): saturating would hide the error.
  EXPECT_NE(ErrorOf("f4E2M1FN=7").find("out of range for f4E2M1FN"), std::string::npos);
  EXPECT_EQ(ErrorOf("f4E2M1FN=6.9"), "");
  // Unsigned exponent-only: no negative values.
  EXPECT_NE(ErrorOf("f8E8M0FNU=-1").find("out of range"), std::string::npos);
  EXPECT_NE(ErrorOf("2xcomplex<f32>=(1,2),(3,1e40)").find("'(3,1e40)' is out of range for complex<f32>"),
            std::string::npos);
}

TEST(ParseInput, FloatsThatRoundIntoRangeAndExplicitSpecialsAreValues) {
  auto t = ParseInput("5xf32=3.4028235e38,inf,-inf,nan,1e-50");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(F32At(*t, 0), 3.4028235e38f);
  EXPECT_EQ(F32At(*t, 1), INFINITY);
  EXPECT_EQ(F32At(*t, 2), -INFINITY);
  EXPECT_TRUE(std::isnan(F32At(*t, 3)));
  EXPECT_EQ(F32At(*t, 4), 0.0f);  // underflow to zero is rounding, not overflow
  EXPECT_EQ(ErrorOf("f16=65519"), "");  // rounds to 65504
  EXPECT_EQ(ErrorOf("f8E4M3FN=460"), "");  // rounds to 448
}

TEST(ParseInput, IntegersOutOfTheirTypesRangeAreErrors) {
  EXPECT_EQ(ErrorOf("i8=300"), "bad --input 'i8=300': '300' is out of range for i8");
  EXPECT_EQ(ErrorOf("ui64=-1"), "bad --input 'ui64=-1': '-1' is out of range for ui64");
  EXPECT_EQ(ErrorOf("i64=9223372036854775808"),
            "bad --input 'i64=9223372036854775808': '9223372036854775808' is out of range for i64");
  EXPECT_EQ(ErrorOf("ui64=18446744073709551616").find("out of range for ui64") != std::string::npos, true);
  EXPECT_EQ(ErrorOf("ui64=18446744073709551615"), "");
  EXPECT_EQ(ErrorOf("i8=x"), "bad --input 'i8=x': 'x' is not a valid i8");
}

TEST(ParseInput, TooManyElementsSaysSoWithTheLimit) {
  EXPECT_EQ(ErrorOf("100000000000xf32=1"),
            "bad --input '100000000000xf32=1': too many elements (100000000000; the limit is 2^32 = 4294967296)");
  EXPECT_EQ(ErrorOf("100000x100000xf32=1"),
            "bad --input '100000x100000xf32=1': too many elements (100000*100000; the limit is 2^32 = 4294967296)");
  EXPECT_NE(ErrorOf("99999999999999999999999xf32=1").find("too many elements (99999999999999999999999;"),
            std::string::npos);
  EXPECT_EQ(ErrorOf("-3xf32=1"), "bad --input '-3xf32=1': invalid dimension '-3' (dimensions are 0 or more)");
  EXPECT_EQ(ErrorOf("4294967296xi1"), "bad --input '4294967296xi1': missing '=' and values");  // at the limit
}

TEST(ParseInput, ComplexValuesAreReAndImInParentheses) {
  auto t = ParseInput("2xcomplex<f32>=(1,2),(-0.5,inf)");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(F32At(*t, 0), 1.0f);
  EXPECT_EQ(F32At(*t, 1), 2.0f);
  EXPECT_EQ(F32At(*t, 2), -0.5f);
  EXPECT_EQ(F32At(*t, 3), INFINITY);
}

}  // namespace
}  // namespace kiln::tools

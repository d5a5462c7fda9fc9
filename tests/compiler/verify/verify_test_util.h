// Shared by the verifier tests (one file per op family, as compiler/verify
// has): a malformed program per violated constraint is a Case, whose error
// must point at the op's line:col and contain the expected message; and the
// reducer regions several families use.
#pragma once
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "compiler/parse/parser.h"
#include "compiler/verify/verifier.h"

namespace kiln::compiler {

inline std::string Fmt(ir::Location l, const std::string& m) {
  return "t.mlir:" + std::to_string(l.line) + ":" + std::to_string(l.col) + ": error: " + m;
}

inline Status ParseAndVerify(const std::string& src) {
  auto m = ir::ParseModule(src, "t.mlir");
  if (!m.ok()) return Status(StatusCode::kInternal, "PARSE: " + m.status().message());
  return VerifyModule(*m.value(), Fmt);
}

// Reducer regions (generic form).
inline const std::string kAddF32 =
    "({\n  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n    %s = stablehlo.add %x, %y : tensor<f32>\n"
    "    stablehlo.return %s : tensor<f32>\n  })";
inline const std::string kAddI32 =
    "({\n  ^bb0(%x: tensor<i32>, %y: tensor<i32>):\n    %s = stablehlo.add %x, %y : tensor<i32>\n"
    "    stablehlo.return %s : tensor<i32>\n  })";
inline const std::string kAddF32Bad =  // returns two values
    "({\n  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n    %s = stablehlo.add %x, %y : tensor<f32>\n"
    "    stablehlo.return %s, %s : tensor<f32>, tensor<f32>\n  })";
inline const std::string kLtF32 =
    "({\n  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"
    "    %s = stablehlo.compare LT, %x, %y : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
    "    stablehlo.return %s : tensor<i1>\n  })";
inline const std::string kGeF32 = kLtF32;

struct Case {
  const char* name;
  std::string args;  // @main's arguments
  std::string body;  // @main's ops; the failing op is the first line naming `op`
  const char* op;
  const char* msg;   // substring of the message
  std::string extra = "";  // more functions
};

inline std::string Program(const Case& c) {
  return "func.func @main(" + c.args + ") {\n" + c.body + "\n  func.return\n}\n" + c.extra;
}

// Line and column of the op's name: first line naming it (quoted, or pretty).
inline ir::Location Where(const std::string& src, const std::string& op) {
  std::istringstream in(src);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    size_t p = line.find("\"" + op + "\"");
    if (p == std::string::npos) {
      p = line.find(" " + op + " ");
      if (p == std::string::npos) p = line.find(" " + op + "(");
      if (p != std::string::npos) ++p;
    }
    if (p != std::string::npos) return {n, static_cast<int>(p) + 1};
  }
  return {};
}

inline const std::string F23 = "%a: tensor<2x3xf32>";

// Each case must fail to verify (not to parse), at the op, with its message;
// `at_least` guards against cases lost from a family's list.
inline void ExpectRejected(const std::vector<Case>& cases, size_t at_least) {
  EXPECT_GE(cases.size(), at_least);
  for (const Case& c : cases) {
    std::string src = Program(c);
    Status s = ParseAndVerify(src);
    if (s.ok()) {
      ADD_FAILURE() << c.name << ": expected an error for\n" << src;
      continue;
    }
    if (s.message().rfind("PARSE", 0) == 0) {
      ADD_FAILURE() << c.name << ": " << s.message() << "\n" << src;
      continue;
    }
    ir::Location at = Where(src, c.op);
    std::string prefix = "t.mlir:" + std::to_string(at.line) + ":" + std::to_string(at.col) + ": error: ";
    EXPECT_EQ(s.message().rfind(prefix, 0), 0u) << c.name << ": want prefix " << prefix << "\ngot " << s.message();
    EXPECT_NE(s.message().find(c.msg), std::string::npos) << c.name << ": want '" << c.msg << "'\ngot " << s.message();
  }
}

}  // namespace kiln::compiler

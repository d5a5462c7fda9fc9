// StableHLO portable artifacts (compiler/parse/bytecode): every pair of
// ../shared/conformance/vhlo compared function by function with its text
// form, and malformed files (every prefix, single-bit flips) refused with a
// message, never a crash; and the builtin dialect's debug locations, read
// as MLIR text locations (ops keep their origin for diagnostics).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "compiler/compile.h"
#include "compiler/parse/bytecode/attr_types.h"
#include "compiler/parse/bytecode/read_bytecode.h"
#include "compiler/parse/parser.h"
#include "tests/support/sanitizers.h"

namespace kiln::ir {
namespace {

namespace fs = std::filesystem;

std::string Slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

fs::path VhloDir() { return fs::path(KILN_SHARED_DIR) / "conformance" / "vhlo"; }

// The text file's functions, each from its `func.func` line to the next.
std::map<std::string, std::string> TextFunctions(const std::string& src) {
  std::map<std::string, std::string> out;
  std::string name, cur;
  std::istringstream in(src);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("func.func", 0) == 0) {
      if (!name.empty()) out[name] = cur;
      size_t at = line.find('@');
      size_t end = line.find_first_of("( ", at);
      name = line.substr(at + 1, end - at - 1);
      cur.clear();
    }
    if (!name.empty()) cur += line + "\n";
  }
  if (!name.empty()) out[name] = cur;
  return out;
}

void SortAttrs(std::vector<NamedAttr>* attrs) {
  std::stable_sort(attrs->begin(), attrs->end(), [](const NamedAttr& a, const NamedAttr& b) { return a.first < b.first; });
}
// Attributes written out with the spec's default value, which VHLO cannot
// tell from an absent one (upstream's deserializer drops them too):
// custom_call's api_version = 1 and a DEFAULT result_accuracy.
bool IsSpelledDefault(const Operation& op, const NamedAttr& a) {
  if (op.name == "stablehlo.custom_call" && a.first == "api_version")
    return a.second.kind == Attribute::Kind::kInt && a.second.i == 1;
  if (a.first == "result_accuracy") {
    const Attribute* mode = a.second.Field("mode");
    const Attribute* ulps = a.second.Field("ulps");
    const Attribute* atol = a.second.Field("atol");
    const Attribute* rtol = a.second.Field("rtol");
    bool is_default = mode && (mode->str == "DEFAULT" || (!mode->fields.empty() && mode->fields[0].second.str == "DEFAULT"));
    return is_default && ulps && ulps->i == 0 && atol && atol->f == 0 && rtol && rtol->f == 0;
  }
  return false;
}

void SortBlock(Block* b) {
  for (auto& op : b->ops) {
    std::erase_if(op->attrs, [&](const NamedAttr& a) { return IsSpelledDefault(*op, a); });
    SortAttrs(&op->attrs);
    for (auto& r : op->regions)
      for (auto& blk : r->blocks) SortBlock(blk.get());
  }
}

// The function's IR as --emit=ir prints it, attributes sorted by name (MLIR
// dictionaries in bytecode are sorted; text keeps the written order) and
// explicitly spelled defaults dropped, or the error message without its
// location.
std::string Canonical(const std::string& text) {
  auto ir = compiler::CompileToIrText(text, "f.mlir");
  if (!ir.ok()) {
    std::string m = ir.status().message();
    size_t e = m.find("error: ");
    m = m.substr(e == std::string::npos ? 0 : e + 7);
    return "ERROR: " + m.substr(0, m.find('\n'));
  }
  auto m = ParseModule(*ir, "printed.mlir");
  if (!m.ok()) return "REPARSE: " + m.status().message();
  for (auto& fn : (*m)->functions)
    for (auto& b : fn->body.blocks) SortBlock(b.get());
  return PrintModule(**m);
}

TEST(VhloConformance, EveryFunctionReadsAsItsText) {
  std::vector<fs::path> bcs;
  if (fs::exists(VhloDir()))
    for (const auto& e : fs::directory_iterator(VhloDir()))
      if (e.path().string().size() > 9 && e.path().string().ends_with(".mlir.bc")) bcs.push_back(e.path());
  std::sort(bcs.begin(), bcs.end());
  ASSERT_EQ(bcs.size(), 28u) << "no artifacts under " << VhloDir();
  int files_read = 0, pairs_all_match = 0, functions = 0, matched = 0, refused_alike = 0;
  std::map<std::string, int> first_diffs;
  for (const auto& bc : bcs) {
    std::string bytes = Slurp(bc);
    std::string text_path = bc.string().substr(0, bc.string().size() - 3);
    auto text_fns = TextFunctions(Slurp(text_path));
    auto fns = ReadBytecodeFunctions(bytes, bc.string());
    if (!fns.ok()) {
      first_diffs[fns.status().message().substr(fns.status().message().find("error:"))]++;
      functions += static_cast<int>(text_fns.size());
      continue;
    }
    ++files_read;
    bool all = fns->size() == text_fns.size();
    EXPECT_EQ(fns->size(), text_fns.size()) << bc;
    for (const auto& fn : *fns) {
      ++functions;
      auto it = text_fns.find(fn.name);
      if (it == text_fns.end()) {
        all = false;
        continue;
      }
      std::string want = Canonical(it->second), got = Canonical(fn.text);
      if (want == got) {
        ++matched;
        refused_alike += want.rfind("ERROR: ", 0) == 0;
      } else {
        all = false;
        first_diffs["function " + fn.name]++;
        // KILN_VHLO_DIFF=1 prints both forms of each differing function.
        if (getenv("KILN_VHLO_DIFF"))
          std::printf("=== %s %s\n--- text:\n%s--- bytecode:\n%s", bc.filename().c_str(), fn.name.c_str(),
                      want.c_str(), got.c_str());
      }
    }
    pairs_all_match += all;
  }
  std::printf(
      "vhlo conformance: %d of %zu artifacts read; %d pairs match in every function; %d of %d functions match "
      "(%d of them refused with the same message from both forms)\n",
      files_read, bcs.size(), pairs_all_match, matched, functions, refused_alike);
  int shown = 0;
  for (auto& [what, n] : first_diffs)
    if (shown++ < 40) std::printf("  differs: %s (%d)\n", what.c_str(), n);
  EXPECT_EQ(files_read, 28);
  EXPECT_EQ(pairs_all_match, 28);
  EXPECT_EQ(matched, functions);
  EXPECT_GT(matched - refused_alike, 5000);  // most functions read to IR, not to a refusal
}

// The smallest artifact, for the malformed-input tests.
std::string SmallArtifact() {
  std::string best;
  if (!fs::exists(VhloDir())) return best;
  for (const auto& e : fs::directory_iterator(VhloDir())) {
    if (!e.path().string().ends_with(".mlir.bc")) continue;
    std::string b = Slurp(e.path());
    if (best.empty() || b.size() < best.size()) best = b;
  }
  return best;
}

TEST(Bytecode, EveryPrefixIsRefusedWithAMessage) {
  std::string bytes = SmallArtifact();
  ASSERT_FALSE(bytes.empty());
  ASSERT_TRUE(ReadBytecodeFunctions(bytes, "whole.mlir.bc").ok());
  int refused = 0;
  // Every prefix up to 4 KiB, then every 37th: the header, the string
  // table and the dialect section are cut at every byte.
  for (size_t n = 0; n < bytes.size(); n += n < 4096 ? 1 : 37) {
    auto r = ReadBytecodeFunctions(std::string_view(bytes).substr(0, n), "cut.mlir.bc");
    if (!r.ok()) {
      ++refused;
      EXPECT_EQ(r.status().message().rfind("cut.mlir.bc: error: ", 0), 0u) << r.status().message();
    }
  }
  EXPECT_GT(refused, 4000);
}

TEST(Bytecode, BitFlipsAreRefusedOrRead) {
  std::string bytes = SmallArtifact();
  ASSERT_FALSE(bytes.empty());
  int refused = 0, read = 0;
  // Every byte of the header and tables, every 13th after them; under the
  // sanitizers every 5th and every 53rd (tests/support/sanitizers.h).
  const size_t head_step = test::kUnderSanitizer ? 5 : 1, tail_step = test::kUnderSanitizer ? 53 : 13;
  for (size_t off = 0; off < bytes.size(); off += off < 2048 ? head_step : tail_step) {
    std::string b = bytes;
    b[off] = static_cast<char>(b[off] ^ (1 << (off % 8)));
    auto r = ReadBytecodeModule(b, "flip.mlir.bc");  // the whole path, text parser included
    if (r.ok()) {
      ++read;
    } else {
      ++refused;
      EXPECT_EQ(r.status().message().rfind("flip.mlir.bc", 0), 0u) << r.status().message();
    }
  }
  EXPECT_GT(refused, 0);
  std::printf("bit flips: %d refused, %d still read\n", refused, read);
}

TEST(Bytecode, HostileCountsDoNotAllocate) {
  // A string table claiming 2^62 strings in a 30-byte file.
  std::string b("ML\xEFR\x0D", 5);
  b += std::string("p\0", 2);
  b += std::string("\x00\x09", 2);  // section 0, length 4
  b += std::string("\x00\xFF\xFF\xFF\xFF\xFF\xFF\x3F", 8);  // 9-byte varint count
  auto r = ReadBytecodeFunctions(b, "hostile.mlir.bc");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("hostile.mlir.bc: error:"), std::string::npos) << r.status().message();
}

TEST(Bytecode, NewerMajorVersionIsRefusedNamingBoth) {
  std::string bytes = SmallArtifact();
  ASSERT_FALSE(bytes.empty());
  // The producer string follows the magic and the version varint.
  size_t at = bytes.find("StableHLO_v");
  ASSERT_NE(at, std::string::npos);
  size_t end = bytes.find('\0', at);
  std::string b = bytes.substr(0, at) + "StableHLO_v9.0.0" + bytes.substr(end);
  auto r = ReadBytecodeFunctions(b, "new.mlir.bc");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("9.0.0"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("1.20.0"), std::string::npos) << r.status().message();
}

std::string WithProducer(const std::string& bytes, const std::string& producer) {
  size_t at = bytes.find("StableHLO_v");
  size_t end = bytes.find('\0', at);
  return bytes.substr(0, at) + producer + bytes.substr(end);
}

TEST(Bytecode, NewerMinorVersionIsRead) {
  // Same major version: read, as long as every op, attribute and type in
  // it is one Kiln knows (a changed op comes with a new _vN name).
  std::string bytes = Slurp(VhloDir() / "stablehlo_legalize_to_vhlo.1_20_0.mlir.bc");
  ASSERT_FALSE(bytes.empty());
  auto r = ReadBytecodeFunctions(WithProducer(bytes, "StableHLO_v1.99.0"), "minor.mlir.bc");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_GT(r->size(), 200u);
}

TEST(Bytecode, UnknownOpVersionIsRefusedByName) {
  // An op version Kiln does not know may mean something else than the op
  // of its name: "add_v1" in the string table becomes "add_v9".
  std::string bytes = Slurp(VhloDir() / "stablehlo_legalize_to_vhlo.1_20_0.mlir.bc");
  ASSERT_FALSE(bytes.empty());
  size_t at = bytes.find(std::string("add_v1\0", 7));
  ASSERT_NE(at, std::string::npos);
  bytes[at + 5] = '9';
  auto r = ReadBytecodeFunctions(WithProducer(bytes, "StableHLO_v1.21.0"), "newop.mlir.bc");
  ASSERT_FALSE(r.ok());
  const std::string& m = r.status().message();
  EXPECT_NE(m.find("op 'vhlo.add_v9' is not known"), std::string::npos) << m;
  EXPECT_NE(m.find("StableHLO_v1.21.0"), std::string::npos) << m;
  EXPECT_NE(m.find("1.20.0"), std::string::npos) << m;
}

TEST(Bytecode, RefusalNamesTheFunction) {
  // 1.20.0's file has functions the text parser refuses (memref types,
  // mesh-axes replica groups); from bytecode the message says which
  // function, not a line of generated text.
  std::string bytes = Slurp(VhloDir() / "stablehlo_legalize_to_vhlo.1_20_0.mlir.bc");
  ASSERT_FALSE(bytes.empty());
  auto r = ReadBytecodeModule(bytes, "m.mlir.bc");
  ASSERT_FALSE(r.ok());
  const std::string& m = r.status().message();
  EXPECT_EQ(m.rfind("m.mlir.bc: error: in function @", 0), 0u) << m;
  EXPECT_NE(m.find(": expected type, got 'memref'"), std::string::npos) << m;
  EXPECT_EQ(m.find('\n'), std::string::npos) << "no line of generated text: " << m;
}

TEST(Bytecode, CompilerDetectsBytecodeByMagic) {
  std::string bytes = SmallArtifact();
  ASSERT_FALSE(bytes.empty());
  // Whatever the name says, the magic decides; the artifact's text form
  // has functions Kiln refuses, so an error naming the file is fine, but
  // never the "Kiln reads MLIR text" refusal.
  auto r = compiler::CompileToIrText(bytes, "model.txt");
  if (!r.ok()) {
    EXPECT_EQ(r.status().message().find("reads MLIR text"), std::string::npos) << r.status().message();
  }
}

// The builtin dialect's location encodings, each entry written by hand
// (BuiltinDialectBytecode.td; small varints are one byte, value * 2 + 1):
// a file position in the old (file, line, column) and the newer range form
// (file, count, line, column), a name around it, a call site, a fused
// location, unknown, a name whose child is itself, and a file position in
// neither form. Each reads as the loc(...) text the parser takes.
TEST(Bytecode, DebugLocationsReadAsTheirText) {
  auto v = [](uint8_t x) { return static_cast<char>(x * 2 + 1); };
  const std::vector<std::string> entries = {
      {v(2), v(1)},                    // 0: StringAttr "/src/model.py"
      {v(2), v(2)},                    // 1: StringAttr "jit(f)/sin"
      {v(11), v(0), v(12), v(8)},      // 2: "/src/model.py":12:8
      {v(11), v(0), v(2), v(13), v(4)},  // 3: "/src/model.py":13:4 (range form)
      {v(14), v(1), v(3)},             // 4: "jit(f)/sin"(#3)
      {v(10), v(4), v(2)},             // 5: callsite(#4 at #2)
      {v(15)},                         // 6: unknown
      {v(12), v(2), v(6), v(5)},       // 7: fused[#6, #5]
      {v(14), v(1), v(8)},             // 8: a name whose child is itself
      {v(11), v(0), v(7), v(1), v(2), v(3)},  // 9: neither form
      {v(12), v(2), v(10), v(10)},     // 10: fused[#10, #10]: doubles at every level
  };
  bytecode::BytecodeFile f;
  f.strings = {"builtin", "/src/model.py", "jit(f)/sin"};
  f.dialects.push_back({"builtin", false, {}});
  for (const auto& e : entries) {
    bytecode::BytecodeFile::Entry entry;
    entry.custom = true;
    entry.data = {reinterpret_cast<const uint8_t*>(e.data()), e.size(), 0};
    f.attrs.push_back(entry);
  }
  bytecode::AttrTypeTable t(f);
  EXPECT_EQ(bytecode::LocationText(t, 2), "\"/src/model.py\":12:8");
  EXPECT_EQ(bytecode::LocationText(t, 3), "\"/src/model.py\":13:4");
  EXPECT_EQ(bytecode::LocationText(t, 4), "\"jit(f)/sin\"(\"/src/model.py\":13:4)");
  EXPECT_EQ(bytecode::LocationText(t, 5),
            "callsite(\"jit(f)/sin\"(\"/src/model.py\":13:4) at \"/src/model.py\":12:8)");
  EXPECT_EQ(bytecode::LocationText(t, 6), "unknown");
  EXPECT_EQ(bytecode::LocationText(t, 7).rfind("fused[unknown, callsite(", 0), 0u);
  EXPECT_EQ(bytecode::LocationText(t, 0), "unknown") << "a string is not a location";
  EXPECT_EQ(bytecode::LocationText(t, 99), "unknown") << "an index out of range";
  EXPECT_LT(bytecode::LocationText(t, 8).size(), 2000u) << "the cycle ends";
  EXPECT_EQ(bytecode::LocationText(t, 9), "\"/src/model.py\":0:0");
  EXPECT_LT(bytecode::LocationText(t, 10).size(), 10000u) << "a bounded number of locations";
}

}  // namespace
}  // namespace kiln::ir

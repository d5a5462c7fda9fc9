// Telling MLIR text from the binary files a user may hand the compiler by
// mistake or because a tool wrote bytecode (compiler/parse/source_format.h).
#include "compiler/parse/source_format.h"

#include <cstring>

#include "schema/module_generated.h"

namespace kiln::ir {
namespace {

// MLIR bytecode files start with these four bytes ("ML", 0xEF, "R").
constexpr char kMlirBytecodeMagic[] = {'M', 'L', '\xEF', 'R'};
// Like git, a NUL among the first bytes marks a binary file; text never has
// one (a NUL further on is reported where the lexer meets it).
constexpr size_t kBinaryProbeBytes = 8000;
constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";

}  // namespace

SourceKind DetectSourceKind(std::string_view bytes) {
  if (bytes.size() >= sizeof kMlirBytecodeMagic &&
      std::memcmp(bytes.data(), kMlirBytecodeMagic, sizeof kMlirBytecodeMagic) == 0)
    return SourceKind::kMlirBytecode;
  // A FlatBuffers file names its schema in bytes 4..7 (schema/module.fbs).
  if (bytes.size() >= 8 && fb::ModuleBufferHasIdentifier(bytes.data())) return SourceKind::kKilnModule;
  if (bytes.substr(0, kBinaryProbeBytes).find('\0') != std::string_view::npos) return SourceKind::kBinary;
  return SourceKind::kMlirText;
}

std::string NotTextReason(SourceKind kind) {
  switch (kind) {
    case SourceKind::kMlirText:
      return "";
    case SourceKind::kMlirBytecode:
      // ParseModule hands bytecode to compiler/parse/bytecode instead.
      return "this is MLIR bytecode (a StableHLO portable artifact or a jax.export serialization), not MLIR text";
    case SourceKind::kKilnModule:
      return "this looks like a Kiln module (kiln-compile's output), not MLIR text";
    case SourceKind::kBinary:
      return "binary file, not MLIR text";
  }
  return "";
}

std::string_view StripByteOrderMark(std::string_view source) {
  if (source.substr(0, kByteOrderMark.size()) == kByteOrderMark) source.remove_prefix(kByteOrderMark.size());
  return source;
}

}  // namespace kiln::ir

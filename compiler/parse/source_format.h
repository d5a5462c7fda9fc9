// What kind of file a compiler input is, judged by its bytes (never by its
// name): MLIR text, MLIR bytecode (what jax.export serializes, and StableHLO
// portable artifacts), a compiled Kiln module, or some other binary file.
// ParseModule asks here first, so every front end (kiln-compile, the
// conformance runner, the fuzzer) refuses a file that is not text with the
// same message; MLIR bytecode goes to the reader in compiler/parse/bytecode,
// where ParseModule dispatches on the kind.
#pragma once
#include <string>
#include <string_view>

namespace kiln::ir {

enum class SourceKind { kMlirText, kMlirBytecode, kKilnModule, kBinary };

SourceKind DetectSourceKind(std::string_view bytes);

// Why a file of this kind cannot be compiled (empty for MLIR text).
std::string NotTextReason(SourceKind kind);

// `source` without a leading UTF-8 byte-order mark (editors on Windows write
// one); line 1 column 1 is the character after it.
std::string_view StripByteOrderMark(std::string_view source);

}  // namespace kiln::ir

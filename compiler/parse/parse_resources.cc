// dense_resource<name> constants and the file metadata that holds their
// data, as MLIR (and JAX) print them:
//
//   %c = stablehlo.constant dense_resource<weights> : tensor<2xf32>
//   ...
//   {-#
//     dialect_resources: {
//       builtin: {
//         weights: "0x040000000000803F00000040"
//       }
//     }
//   #-}
//
// A blob is hex: 4 bytes of alignment (little-endian), then the elements in
// little-endian order. The section follows the module, so the first
// dense_resource reads ahead to it once. `dense_resource<__elided__>` (and a
// blob "__elided__") is what printing with large elements elided leaves: the
// data is not in the file, which is an error that says so.
#include "compiler/parse/parser_impl.h"

namespace kiln::ir::detail {
namespace {

constexpr std::string_view kElided = "__elided__";
constexpr size_t kAlignmentBytes = 4;

std::string ElidedHint() {
  return "print the program again with large constants kept (MLIR: without "
         "--mlir-elide-elementsattrs-if-larger or --mlir-elide-resource-strings-if-larger; "
         "Python: without large_elements_limit)";
}

}  // namespace

Attribute Parser::ParseDenseResource() {
  Token at = cur_;
  Advance();  // dense_resource
  Expect(Tok::kLess, "after 'dense_resource'");
  Token name_tok = cur_;
  std::string name;
  if (cur_.is(Tok::kString)) {
    if (!DecodeStringToken(cur_.text, &name)) Fail(cur_, "invalid escape in string");
  } else if (cur_.is(Tok::kIdent)) {
    name = std::string(cur_.text);
  } else {
    FailExpected("resource name");
  }
  Advance();
  Expect(Tok::kGreater, "to close 'dense_resource<'");
  Expect(Tok::kColon, "and the tensor type of the dense_resource attribute");
  Token type_at = cur_;
  Type t = ParseType();
  if (!t.is_tensor() || !t.HasStaticShape())
    Fail(type_at, "a dense_resource attribute needs a statically shaped tensor type");
  if (name == kElided)
    Fail(at, "this constant's data was elided when the program was printed (dense_resource<__elided__>); " +
                 ElidedHint());
  const Token* blob = FindResourceBlob(name);
  if (!blob)
    Fail(name_tok, "dense_resource<" + name +
                       ">: the file has no blob of that name (a {-# dialect_resources: { builtin: { " + name +
                       ": \"0x...\" } } #-} section after the module)");
  std::string value;
  if (!blob->is(Tok::kString) || !DecodeStringToken(blob->text, &value))
    Fail(*blob, "resource '" + name + "' must be a hex string \"0x...\"");
  if (value == kElided)
    Fail(name_tok, "the data of resource '" + name + "' was elided when the program was printed; " + ElidedHint());
  if (value.size() < 2 || value[0] != '0' || (value[1] != 'x' && value[1] != 'X'))
    Fail(*blob, "resource '" + name + "' must be a hex string \"0x...\"");
  std::vector<uint8_t> raw = DecodeHex(*blob, std::string_view(value).substr(2));
  if (raw.size() < kAlignmentBytes)
    Fail(*blob, "resource '" + name + "' is too short: a blob starts with its 4-byte alignment");
  raw.erase(raw.begin(), raw.begin() + kAlignmentBytes);
  const uint64_t n = static_cast<uint64_t>(t.NumElements());
  if (n > kMaxDenseBytes / StorageBytes(t.element)) Fail(at, "dense attribute too large");
  Attribute a;
  a.kind = Attribute::Kind::kDense;
  a.type = t;
  StoreElementBytes(*blob, t, std::move(raw), /*allow_splat=*/false, &a);
  return a;
}

const Token* Parser::FindResourceBlob(std::string_view name) {
  if (!resources_read_) {
    // Read ahead with a copy of the lexer to the {-# section, parse it, and
    // come back. A lexer error on the way ends the search; parsing meets
    // and reports it later.
    State back = Save();
    Lexer ahead = lex_;
    for (Token t = ahead.Next(); !t.is(Tok::kEof) && !t.is(Tok::kError); t = ahead.Next()) {
      if (!t.is(Tok::kFileMetadataBegin)) continue;
      lex_ = ahead;
      cur_ = t;
      ParseFileMetadata();
      break;
    }
    Restore(back);
    resources_read_ = true;
  }
  auto it = resource_blobs_.find(std::string(name));
  return it == resource_blobs_.end() ? nullptr : &it->second;
}

// {-# key: { dialect: { name: value, ... }, ... }, ... #-}: the blobs of
// dialect_resources.builtin are kept; everything else is skipped.
void Parser::ParseFileMetadata() {
  Expect(Tok::kFileMetadataBegin);
  auto key = [&] {
    std::string name = ParseAttrName();
    Expect(Tok::kColon, "after a file metadata key");
    return name;
  };
  if (!cur_.is(Tok::kFileMetadataEnd)) {
    for (;;) {
      std::string section = key();
      if (section != "dialect_resources") {
        SkipBalanced(Tok::kLBrace, Tok::kRBrace);
      } else {
        Expect(Tok::kLBrace, "to open dialect_resources");
        while (!cur_.is(Tok::kRBrace)) {
          std::string dialect = key();
          if (dialect != "builtin") {
            SkipBalanced(Tok::kLBrace, Tok::kRBrace);
          } else {
            Expect(Tok::kLBrace, "to open the builtin resources");
            while (!cur_.is(Tok::kRBrace)) {
              std::string name = key();
              if (!cur_.is(Tok::kString) && !cur_.IsIdent("true") && !cur_.IsIdent("false"))
                FailExpected("resource value");
              if (!resources_read_) resource_blobs_.emplace(std::move(name), cur_);
              Advance();
              if (!Consume(Tok::kComma)) break;
            }
            Expect(Tok::kRBrace, "to close the builtin resources");
          }
          if (!Consume(Tok::kComma)) break;
        }
        Expect(Tok::kRBrace, "to close dialect_resources");
      }
      if (!Consume(Tok::kComma)) break;
    }
  }
  Expect(Tok::kFileMetadataEnd, "to close the file metadata");
}

}  // namespace kiln::ir::detail

// The parser's internals, shared by parser.cc (structure, SSA, generic ops),
// parse_types.cc, parse_attributes.cc, parse_dense.cc and
// parse_ops_pretty.cc. Not part of the compiler's API.
//
// A recursive-descent parser with one token of lookahead. Errors throw
// ParseError inside the parser only; ParseModule turns it into a Status, so
// no exception leaves the front end.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "compiler/ir.h"
#include "compiler/parse/lexer.h"

namespace kiln::ir::detail {

struct ParseError {
  Location loc;
  std::string message;
};

// Deepest nesting of regions, attributes, types and dense lists we accept:
// deeper input is an error rather than a stack overflow.
constexpr int kMaxNesting = 256;
// Largest dense constant (expanded) we materialize.
constexpr uint64_t kMaxDenseBytes = uint64_t(1) << 32;

// What an SSA name refers to: one value, or a group of `count` results of an
// op starting at result `base` (for `%r:2 = ...`, used as %r#0, %r#1).
struct ValueDef {
  Value* value = nullptr;
  Operation* op = nullptr;
  int base = 0;
  int count = 1;
};

// A result name on the left of `=`: %r or %r:2.
struct ResultName {
  Token tok;
  int count = 1;
};

class Parser {
 public:
  Parser(std::string_view source, int first_line) : lex_(source, first_line) {}

  std::unique_ptr<Module> ParseTopLevel();

  // ---- tokens (parser.cc) ----
  void Advance();
  [[noreturn]] void Fail(const Token& at, const std::string& msg);
  [[noreturn]] void FailExpected(const char* what);
  bool Consume(Tok k) {
    if (!cur_.is(k)) return false;
    Advance();
    return true;
  }
  bool ConsumeIdent(std::string_view s) {
    if (!cur_.IsIdent(s)) return false;
    Advance();
    return true;
  }
  void Expect(Tok k, const char* context = nullptr);
  void ExpectIdent(std::string_view s);
  Token Peek();  // the token after cur_
  static Location LocOf(const Token& t) { return Location{t.line, t.col}; }

  struct State {
    Lexer lex;
    Token cur;
  };
  State Save() const { return State{lex_, cur_}; }
  void Restore(const State& s) {
    lex_ = s.lex;
    cur_ = s.cur;
  }

  // Nesting guard: every recursive production holds one.
  class Nest {
   public:
    explicit Nest(Parser* p) : p_(p) {
      if (++p_->depth_ > kMaxNesting) p_->Fail(p_->cur_, "nesting too deep (more than 256 levels)");
    }
    ~Nest() { --p_->depth_; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;

   private:
    Parser* p_;
  };

  // ---- structure (parser.cc) ----
  void ParseFunction(Module* m);
  // A new op of one result appended to `anchor`'s block, so before `anchor`
  // (which ParseOperation appends after its parse): the ops a rewrite at
  // parse time builds ahead of the one the source names.
  Operation* EmitBefore(Operation* anchor, std::string name, std::vector<Value*> operands, Type type);
  // Module globals (parse_globals.cc).
  void ParseGlobal(Module* m);                          // ml_program.global, util.global
  void ParseGlobalOp(Operation* op, int num_results);   // their loads and stores
  void RemoveGlobalAddresses(Function* fn);             // after the body: util.global.address
  void ParseRegion(Region* region, const std::vector<std::pair<Token, Type>>* entry_args);
  void ParseBlockArgs(Block* block);
  void ParseOperation(Block* block);
  void ParseGenericOp(Operation* op, int num_results);
  void ParseRegionList(Operation* op);  // ({...}, {...})
  void SkipLocation();                  // optional loc(...)
  std::string ParseLocation();          // optional loc(...): its origin (Location::origin), consumed
  std::string LocationOrigin(int depth);  // a location's body (parse_location.cc)
  void ResolveLocationAliases(Module* m);  // origins naming #loc aliases defined after their use
  void SkipBalanced(Tok open, Tok close);
  std::string ParseSymbolName();        // @name -> name
  int64_t ParseIntLiteral(bool allow_negative);

  // ---- SSA (parser.cc) ----
  void PushScope() { scopes_.emplace_back(); }
  void PopScope() { scopes_.pop_back(); }
  void Define(const Token& name, ValueDef def);
  Value* ParseValueUse();  // %x or %x#n at cur_
  std::vector<Value*> ParseValueUseList();  // comma-separated, possibly empty
  Value* AddBlockArg(Block* b, const Token& name, Type t);

  // ---- types (parse_types.cc) ----
  Type ParseType();
  bool AtType() const;
  ElementType ParseElementType(std::shared_ptr<const QuantType>* quant);
  std::shared_ptr<const QuantType> ParseQuantType();
  Type ParseTensorTypeAfterKeyword();
  std::vector<Type> ParseTypeList();  // T, T, ... (at least one)
  // `(T, ...) -> T` or `(T, ...) -> (T, ...)`; returns false (nothing
  // consumed) when cur_ is not '('.
  bool ParseFunctionType(std::vector<Type>* ins, std::vector<Type>* outs);
  ElementType ParseScalarTypeName();  // i64, f32, index ... for typed literals

  // ---- attributes (parse_attributes.cc) ----
  Attribute ParseAttribute();                 // full MLIR attribute
  std::vector<NamedAttr> ParseAttrDict();     // { ... } at cur_
  void MergeAttrs(Operation* op, std::vector<NamedAttr> attrs);
  Attribute ConvFromFields(const Attribute& body, const Token& at);  // #stablehlo.conv by field names
  void ReadDimensionDictionaries(Operation* op, const Token& at);    // MHLO's dict forms as structs
  Attribute ParseLooseValue();                // value in a dialect attribute body
  Attribute ParseHashAttribute();             // #... at cur_
  Attribute ParseStructBody(std::string name);  // after '<' ... '>'
  Attribute ParseConvDimensionNumbers();      // after '#stablehlo.conv<' (or pretty)
  Attribute ParseConvCompact();               // [b, 0, 1, f]x[...]->[...]
  Attribute ParseArrayAttr();                 // after 'array'
  std::vector<int64_t> ParseIntList();        // [1, 2, 3]
  std::string ParseAttrName();                // ident or string
  Attribute NormalizeStruct(Attribute a, const Token& at);

  // ---- dense (parse_dense.cc) ----
  Attribute ParseDense();  // at 'dense'
  void ParseDenseScalar(ElementType et, uint8_t* p);
  void ParseDenseNested(const Type& t, size_t dim, ElementType et, size_t w,
                        std::vector<uint8_t>* out, size_t* index);
  void ParseDenseHex(const Token& tok, const Type& t, Attribute* out);
  std::vector<uint8_t> DecodeHex(const Token& tok, std::string_view digits);  // after "0x"
  // Little-endian element bytes -> out's dense_bytes in the storage encoding
  // of `t` (narrow integers normalized); one element is a splat when
  // allow_splat (kept compact from kCompactSplatBytes: Attribute::dense_splat).
  void StoreElementBytes(const Token& tok, const Type& t, std::vector<uint8_t> raw, bool allow_splat,
                         Attribute* out);

  // ---- dense_resource and the file metadata (parse_resources.cc) ----
  Attribute ParseDenseResource();  // at 'dense_resource'
  void ParseFileMetadata();        // at '{-#', through '#-}'
  // The value of blob `name` in the file's dialect_resources section (which
  // follows the module: the first dense_resource reads ahead to it), or null.
  const Token* FindResourceBlob(std::string_view name);

  // ---- Shardy's sharding annotations (parse_shardy.cc) ----
  void SkipShardyMesh();                       // at 'sdy.mesh'
  Attribute SkipShardyAttribute(const Token& name);  // at the '<' after #sdy.<name>
  // Pretty form of an sdy op (at the token after its name).
  void ParseShardyPretty(Operation* op, const Token& name_tok, int num_results);
  // Drops a parsed sdy op, its results standing for its operands.
  void ForwardShardyOp(const Operation& op, const std::vector<ResultName>& results, const Token& name_tok);
  void StoreInt(ElementType et, const Token& at, bool negative, uint64_t magnitude, uint8_t* p);
  void StoreFloatToken(ElementType et, const Token& tok, bool negative, uint8_t* p);

  // ---- pretty ops (parse_ops_pretty.cc) ----
  void ParsePrettyOp(Operation* op, const Token& name_tok, int num_results);
  void ParseDefaultPretty(Operation* op, int num_results);
  void ParsePrettyKeyValue(Operation* op, const Token& key);
  void ParsePrettySignature(Operation* op, int num_results);
  void ApplyTypeList(Operation* op, int num_results, const std::vector<Type>& types,
                     const Token& at);
  void ApplyFunctionType(Operation* op, int num_results, const std::vector<Type>& ins,
                         const std::vector<Type>& outs, const Token& at);
  void ParseCompare(Operation* op, int num_results);
  void ParseConstant(Operation* op, int num_results);
  void ParseTestConstant(Operation* op, int num_results);  // IREE tests' util/arith/flow constants
  void ParseTensorCast(Operation* op, int num_results);    // tensor.cast %x : T to T'
  void ParseArith(Operation* op, int num_results);         // arith.addf %a, %b : T (tensors)
  void ParseUnsignedArith(Operation* op, int num_results);
  // linalg and tensor ops IREE's tests build tensors with (parse_linalg.cc).
  Attribute ParseAffineMap();
  void ParseEmptyTensor(Operation* op, int num_results);   // tensor.empty, linalg.init_tensor
  void ParseTensorDim(Operation* op, int num_results);     // tensor.dim %x, %c : T
  std::vector<Value*> ParseLinalgOperands(const char* keyword);  // ins(...) / outs(...)
  void ParseLinalgFill(Operation* op, int num_results);
  void ParseLinalgGeneric(Operation* op, int num_results);
  void ParseLinalgExtSort(Operation* op, int num_results);  // iree_linalg_ext.sort
  void ParseLinalgNamed(Operation* op, int num_results);    // matmul, transpose, broadcast, ...
  // [1, %i, 3]: each entry an integer, or an index value (rank-0 si64) whose
  // entry in `values` is Type::kDynamic and in `dynamic` the value.
  struct MixedList {
    std::vector<int64_t> values;
    std::vector<Value*> dynamic;
  };
  MixedList ParseMixedList(const char* what);
  std::vector<int64_t> ParseStaticList(const char* what);  // [1, 2, 3]
  void ParseReassociation(Operation* op, int num_results);  // tensor.expand_shape / collapse_shape
  void ExtractDynamicSlice(Operation* op, int num_results, const Token& at, Value* x, const MixedList& offsets,
                           const MixedList& sizes, const std::vector<int64_t>& strides, const Token& tt, const Type& to);
  void ParseExtractSlice(Operation* op, int num_results);
  void ParseInsertSlice(Operation* op, int num_results);
  void ParseTensorExtract(Operation* op, int num_results); // tensor.extract %t[] : tensor<i1>
  void ParseBranch(Operation* op, int num_results);        // cf.br, cf.cond_br
  void ParseConvolution(Operation* op, int num_results);
  void ParseWindow(Operation* op);
  void ParseReduce(Operation* op, int num_results);
  void ParseWhile(Operation* op, int num_results);
  void ParseIfOrCase(Operation* op, int num_results);
  void ParseCallLike(Operation* op, int num_results);  // custom_call / func.call
  void ParseComposite(Operation* op, int num_results);
  void ParseScan(Operation* op, int num_results);
  void ParseTopK(Operation* op, int num_results);  // chlo.top_k(%x, k = N)
  void ParseParenthesizedCheck(Operation* op, int num_results);  // check.expect_eq(%a, %b) : T (IREE's form)
  void SetResultTypes(Operation* op, const std::vector<Type>& types, int num_results,
                      const Token& at);

  Lexer lex_;
  Token cur_;
  int depth_ = 0;
  std::vector<std::unordered_map<std::string_view, ValueDef>> scopes_;
  std::unordered_map<std::string_view, Attribute> attr_aliases_;
  std::unordered_map<std::string_view, std::string> loc_aliases_;  // #loc3 = loc(...): its origin
  std::unordered_map<std::string_view, Type> type_aliases_;
  // The op whose attributes are being parsed (names enum categories etc.).
  std::string_view current_op_;
  // The dialect_resources blobs, by name: their value tokens (views into
  // the source), read once.
  std::unordered_map<std::string, Token> resource_blobs_;
  bool resources_read_ = false;
};

// Shardy (parse_shardy.cc): an sdy.* op name, and a #sdy.* attribute (kept
// as an empty struct of that name until its dictionary drops it).
bool IsShardyOpName(std::string_view name);
bool IsShardyAnnotation(const Attribute& a);

}  // namespace kiln::ir::detail

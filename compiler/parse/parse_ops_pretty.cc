// Pretty (custom assembly) forms of StableHLO, CHLO, func, check and
// interpreter ops. Most ops share one shape,
//   name %a, %b, key = value, ... {attrs} : types
// handled by ParseDefaultPretty; the keys are renamed to the generic-form
// attribute names (dim -> iota_dimension, dims -> permutation, ...). Ops with
// their own syntax (compare, constant, convolution, reduce, while, if/case,
// custom_call/call, composite, chlo.scan) have dedicated parsers. Whatever
// the syntax, the IR equals what the generic form gives.
#include <cstring>
#include <span>

#include "compiler/op_names.h"
#include "compiler/parse/parser_impl.h"
#include "kernels/scalar/scalar.h"

namespace kiln::ir::detail {
namespace {

bool Is(const Operation* op, std::string_view n) { return op->name == n; }

// A number attribute as a float (an integer literal `1` read as 1.0), as
// the check ops' tolerances are held; false if `v` is no number.
bool AsFloat(Attribute* v) {
  if (v->kind == Attribute::Kind::kInt) {
    v->kind = Attribute::Kind::kFloat;
    v->f = static_cast<double>(v->i);
    v->i = 0;
    v->type = Type::Tensor(ElementType::kF64, {});
  }
  return v->kind == Attribute::Kind::kFloat;
}

// Whether tensor type `general` is `specific` with some (or no) dimensions
// made dynamic: IREE's dynamic constants, casts and check operands.
bool Generalizes(const Type& general, const Type& specific) {
  if (!general.is_tensor() || !specific.is_tensor() || general.element != specific.element ||
      general.rank() != specific.rank())
    return false;
  for (int64_t d = 0; d < general.rank(); ++d)
    if (general.dims[d] != specific.dims[d] && general.dims[d] != Type::kDynamic) return false;
  return true;
}

}  // namespace

namespace {
void AddAttr(Parser* p, Operation* op, std::string name, Attribute a, const Token& at) {
  for (const auto& e : op->attrs)
    if (e.first == name) p->Fail(at, "attribute '" + name + "' given twice");
  op->attrs.emplace_back(std::move(name), std::move(a));
}
}  // namespace

void Parser::ParsePrettyOp(Operation* op, const Token& name_tok, int num_results) {
  const std::string& n = op->name;
  if (n == "stablehlo.constant" || n == "chlo.constant") return ParseConstant(op, num_results);
  if (n == "util.unfoldable_constant" || n == "arith.constant" || n == "flow.tensor.dynamic_constant" ||
      n == "flow.tensor.constant")
    return ParseTestConstant(op, num_results);
  if (n == "tensor.cast") return ParseTensorCast(op, num_results);
  if (!compiler::op_names::ElementwiseAsStablehlo(n).empty() || n == "arith.select" || n == "arith.cmpi" ||
      n == "arith.cmpf")
    return ParseArith(op, num_results);
  if (!compiler::op_names::UnsignedArithAsStablehlo(n).empty()) return ParseUnsignedArith(op, num_results);
  if (n == "tensor.empty" || n == "linalg.init_tensor") return ParseEmptyTensor(op, num_results);
  if (n == "linalg.fill") return ParseLinalgFill(op, num_results);
  if (n == "tensor.dim") return ParseTensorDim(op, num_results);
  if (n == "tensor.expand_shape" || n == "tensor.collapse_shape") return ParseReassociation(op, num_results);
  if (n == "tensor.extract_slice") return ParseExtractSlice(op, num_results);
  if (n == "tensor.insert_slice") return ParseInsertSlice(op, num_results);
  if (n == "linalg.generic") return ParseLinalgGeneric(op, num_results);
  if (compiler::op_names::IsNamedLinalg(n)) return ParseLinalgNamed(op, num_results);
  if (n == "iree_linalg_ext.sort") return ParseLinalgExtSort(op, num_results);
  if (n == "linalg.yield" || n == "iree_linalg_ext.yield") {
    op->name = "stablehlo.return";
    return ParseDefaultPretty(op, num_results);
  }
  if (n == "linalg.index") {  // linalg.index D : index, inside a linalg.generic (parse_linalg.cc)
    Token at = cur_;
    op->attrs.emplace_back("dim", IntAttr(ParseIntLiteral(false)));
    Expect(Tok::kColon, "and the index type");
    Type t = ParseType();
    if (t != Type::Tensor(ElementType::kSI64, {})) Fail(at, "linalg.index is of type index");
    return SetResultTypes(op, {t}, num_results, at);
  }
  if (n == "ml_program.global_load" || n == "ml_program.global_store" || compiler::op_names::IsGlobalAccess(n))
    return ParseGlobalOp(op, num_results);
  if (n == "util.optimization_barrier" || n == "util.do_not_optimize") {  // IREE's (and its older name): StableHLO's
    op->name = "stablehlo.optimization_barrier";
    if (!Consume(Tok::kLParen)) return ParseDefaultPretty(op, num_results);
    op->operands = ParseValueUseList();  // util.do_not_optimize(%a, ...) : T, ...
    Expect(Tok::kRParen, "to close the operands");
    if (cur_.is(Tok::kLBrace)) MergeAttrs(op, ParseAttrDict());
    Expect(Tok::kColon, "and the operands' types");
    return ParsePrettySignature(op, num_results);
  }
  if (n == "tensor.extract") return ParseTensorExtract(op, num_results);
  if (n == "cf.br" || n == "cf.cond_br") return ParseBranch(op, num_results);
  if (n == "stablehlo.compare") return ParseCompare(op, num_results);
  if (n == "stablehlo.convolution" || n == "stablehlo.dynamic_conv")
    return ParseConvolution(op, num_results);
  if (n == "stablehlo.reduce") return ParseReduce(op, num_results);
  if (n == "stablehlo.while") return ParseWhile(op, num_results);
  if (n == "stablehlo.if" || n == "stablehlo.case") return ParseIfOrCase(op, num_results);
  if (n == "stablehlo.custom_call" || n == "func.call") return ParseCallLike(op, num_results);
  if (n == "stablehlo.composite") return ParseComposite(op, num_results);
  if (n == "chlo.scan") return ParseScan(op, num_results);
  if (n == "chlo.top_k" && cur_.is(Tok::kLParen)) return ParseTopK(op, num_results);
  if (n.rfind("check.", 0) == 0 && cur_.is(Tok::kLParen)) return ParseParenthesizedCheck(op, num_results);
  ParseDefaultPretty(op, num_results);
}

// The check dialect as IREE's tests write it: operands in parentheses, an
// expected value as an attribute for the *_const forms, optional tolerances
// `atol X` and `rtol Y` (expect_almost_eq*), then `: type(lhs)`:
//   check.expect_eq_const(%x, dense<[1, 2]> : tensor<2xi32>) : tensor<2xi32>
//   check.expect_almost_eq(%x, %y, atol 1.0e-2, rtol 1.0e-3) : tensor<5xf32>
// The IR is the one the interpreter suite's form gives, with `atol`/`rtol`
// attributes when written.
void Parser::ParseParenthesizedCheck(Operation* op, int num_results) {
  if (num_results != 0) Fail(cur_, op->name + " defines no results");
  const bool takes_value_attr = Is(op, "check.expect_eq_const") || Is(op, "check.expect_almost_eq_const");
  Expect(Tok::kLParen);
  for (bool first = true;; first = false) {
    if (cur_.is(Tok::kValueId)) {
      op->operands.push_back(ParseValueUse());
    } else if (cur_.is(Tok::kIdent) && (cur_.text == "atol" || cur_.text == "rtol") && !first) {
      Token key = cur_;
      Advance();
      Token at = cur_;
      Attribute v = ParseAttribute();
      if (!AsFloat(&v)) Fail(at, "expected a number after '" + std::string(key.text) + "'");
      AddAttr(this, op, std::string(key.text), v, key);
    } else if (takes_value_attr && !first && !op->GetAttr("value")) {
      Token at = cur_;
      AddAttr(this, op, "value", ParseAttribute(), at);
    } else if (Is(op, "check.expect_almost_eq_const") && op->GetAttr("value") && !op->GetAttr("atol") &&
               (cur_.is(Tok::kFloat) || cur_.is(Tok::kInteger))) {
      // IREE's older form: a positional absolute tolerance after the value.
      Token at = cur_;
      Attribute v = ParseAttribute();
      AsFloat(&v);  // a float or an integer token: a number
      AddAttr(this, op, "atol", v, at);
    } else {
      FailExpected(first ? "an operand" : "operand or attribute after ','");
    }
    if (!Consume(Tok::kComma)) break;
  }
  Expect(Tok::kRParen, "to close the check's operands");
  if (cur_.is(Tok::kLBrace)) MergeAttrs(op, ParseAttrDict());
  Expect(Tok::kColon, "and the operand's type");
  // type(lhs), which every operand must fit: a `?` there takes any size
  // (an operand that a tensor.cast made dynamic keeps its static type).
  Token tt = cur_;
  Type t = ParseType();
  for (const Value* v : op->operands)
    if (!Generalizes(t, v->type)) Fail(tt, op->name + ": an operand has type " + v->type.ToString() + ", not " + t.ToString());
}

// chlo.top_k(%operand, k = N) {attrs} : T -> (V, I), CHLO's assembly format.
void Parser::ParseTopK(Operation* op, int num_results) {
  Expect(Tok::kLParen);
  if (!cur_.is(Tok::kValueId)) FailExpected("the operand of chlo.top_k");
  op->operands.push_back(ParseValueUse());
  Expect(Tok::kComma, "after the operand of chlo.top_k");
  Token at = cur_;
  ExpectIdent("k");
  Expect(Tok::kEqual);
  AddAttr(this, op, "k", IntAttr(ParseIntLiteral(false)), at);
  Expect(Tok::kRParen, "to close chlo.top_k's operands");
  if (cur_.is(Tok::kLBrace)) MergeAttrs(op, ParseAttrDict());
  Expect(Tok::kColon, "and the op's type");
  ParsePrettySignature(op, num_results);
}

// name [%operand | key = value | positional attr], ... [{attrs}] [: types] [{attrs}]
void Parser::ParseDefaultPretty(Operation* op, int num_results) {
  const bool takes_value_attr =
      Is(op, "check.expect_eq_const") || Is(op, "check.expect_almost_eq_const");
  bool first = true;
  for (;;) {
    if (cur_.is(Tok::kValueId)) {
      op->operands.push_back(ParseValueUse());
      if (cur_.is(Tok::kLSquare)) {
        Token at = cur_;
        if (Is(op, "stablehlo.get_tuple_element")) {
          Advance();
          Token n = cur_;
          int64_t index = ParseIntLiteral(false);
          if (index > INT32_MAX) Fail(n, "tuple index out of range");
          Expect(Tok::kRSquare, "after the tuple index");
          AddAttr(this, op, "index", IntAttr(index, ElementType::kSI32), at);
        } else if (Is(op, "stablehlo.slice")) {
          // [start:limit(:stride)?, ...]
          Advance();
          std::vector<int64_t> start, limit, stride;
          if (!cur_.is(Tok::kRSquare)) {
            for (;;) {
              start.push_back(ParseIntLiteral(true));
              Expect(Tok::kColon, "in slice range");
              limit.push_back(ParseIntLiteral(true));
              stride.push_back(Consume(Tok::kColon) ? ParseIntLiteral(true) : 1);
              if (!Consume(Tok::kComma)) break;
            }
          }
          Expect(Tok::kRSquare, "to close the slice ranges");
          AddAttr(this, op, "start_indices", IntArrayAttr(start), at);
          AddAttr(this, op, "limit_indices", IntArrayAttr(limit), at);
          AddAttr(this, op, "strides", IntArrayAttr(stride), at);
        } else {
          FailExpected("',' or ':'");
        }
      }
    } else if (cur_.is(Tok::kIdent) && Peek().is(Tok::kEqual)) {
      Token key = cur_;
      ParsePrettyKeyValue(op, key);
    } else if (takes_value_attr && !first) {
      Token at = cur_;
      AddAttr(this, op, "value", ParseAttribute(), at);
    } else {
      if (!first) FailExpected("operand or attribute after ','");
      break;
    }
    first = false;
    if (!Consume(Tok::kComma)) break;
  }
  if (cur_.is(Tok::kLBrace)) MergeAttrs(op, ParseAttrDict());
  if (Consume(Tok::kColon)) {
    ParsePrettySignature(op, num_results);
  } else if (num_results > 0) {
    FailExpected("':' and the op's type");
  }
  if (cur_.is(Tok::kLBrace) && takes_value_attr) MergeAttrs(op, ParseAttrDict());
}

void Parser::ParsePrettyKeyValue(Operation* op, const Token& key) {
  const std::string_view k = key.text;
  Advance();  // key
  Expect(Tok::kEqual);
  const std::string& n = op->name;
  auto ints = [&](const char* canon) { AddAttr(this, op, canon, IntArrayAttr(ParseIntList()), key); };
  if (k == "dim") {
    bool iota = n == "stablehlo.iota" || n == "stablehlo.dynamic_iota";
    AddAttr(this, op, iota ? "iota_dimension" : "dimension", IntAttr(ParseIntLiteral(true)), key);
  } else if (k == "dims") {
    ints(n == "stablehlo.transpose" ? "permutation"
         : (n == "stablehlo.broadcast_in_dim" || n == "stablehlo.dynamic_broadcast_in_dim")
             ? "broadcast_dimensions"
             : "dimensions");
  } else if (k == "sizes") {
    ints(n == "stablehlo.broadcast" ? "broadcast_sizes" : "slice_sizes");
  } else if (k == "low") {
    ints("edge_padding_low");
  } else if (k == "high") {
    ints("edge_padding_high");
  } else if (k == "interior") {
    ints("interior_padding");
  } else if (k == "type" && n == "stablehlo.fft") {
    if (!cur_.is(Tok::kIdent)) FailExpected("FFT type");
    AddAttr(this, op, "fft_type", EnumAttr(cur_.text), key);
    Advance();
  } else if (k == "length" && n == "stablehlo.fft") {
    ints("fft_length");
  } else if (k == "format" && n == "stablehlo.reduce_precision") {
    // e<exponent bits>m<mantissa bits>
    Token f = cur_;
    if (!cur_.is(Tok::kIdent)) FailExpected("format like e5m10");
    std::string_view s = cur_.text;
    size_t m = s.find('m');
    auto digits = [](std::string_view d) {
      return !d.empty() && d.size() < 10 && d.find_first_not_of("0123456789") == std::string_view::npos;
    };
    if (s.size() < 4 || s[0] != 'e' || m == std::string_view::npos || !digits(s.substr(1, m - 1)) ||
        !digits(s.substr(m + 1)))
      Fail(f, "expected format like e5m10");
    int64_t e = std::stoll(std::string(s.substr(1, m - 1)));
    int64_t mb = std::stoll(std::string(s.substr(m + 1)));
    Advance();
    AddAttr(this, op, "exponent_bits", IntAttr(e, ElementType::kSI32), key);
    AddAttr(this, op, "mantissa_bits", IntAttr(mb, ElementType::kSI32), key);
  } else if (k == "batching_dims" || k == "contracting_dims") {
    std::vector<int64_t> lhs = ParseIntList();
    ExpectIdent("x");
    std::vector<int64_t> rhs = ParseIntList();
    Attribute* dn = nullptr;
    for (auto& [an, a] : op->attrs)
      if (an == "dot_dimension_numbers") dn = &a;
    if (!dn) {
      Attribute s;
      s.kind = Attribute::Kind::kStruct;
      s.str = "#stablehlo.dot";
      for (const char* f : {"lhs_batching_dimensions", "rhs_batching_dimensions",
                            "lhs_contracting_dimensions", "rhs_contracting_dimensions"})
        s.fields.emplace_back(f, IntArrayAttr({}));
      op->attrs.emplace_back("dot_dimension_numbers", std::move(s));
      dn = &op->attrs.back().second;
    }
    size_t base = k == "batching_dims" ? 0 : 2;
    dn->fields[base].second.ints = std::move(lhs);
    dn->fields[base + 1].second.ints = std::move(rhs);
  } else if (k == "precision") {
    Attribute v = ParseLooseValue();
    if (v.kind == Attribute::Kind::kIntArray && v.ints.empty()) {
      v = Attribute{};
      v.kind = Attribute::Kind::kArray;
    }
    if (v.kind != Attribute::Kind::kArray) Fail(key, "expected a list of precisions");
    for (const auto& e : v.elements)
      if (e.kind != Attribute::Kind::kEnum) Fail(key, "expected a list of precisions");
    AddAttr(this, op, "precision_config", std::move(v), key);
  } else if (k == "algorithm" && n == "stablehlo.rng_bit_generator") {
    if (!cur_.is(Tok::kIdent)) FailExpected("RNG algorithm");
    AddAttr(this, op, "rng_algorithm", EnumAttr(cur_.text), key);
    Advance();
  } else if (k == "algorithm") {
    Attribute v = ParseLooseValue();
    if (v.kind != Attribute::Kind::kStruct) Fail(key, "expected '<...>' dot algorithm");
    if (v.str.empty()) v.str = "#stablehlo.dot_algorithm";
    AddAttr(this, op, "algorithm", std::move(v), key);
  } else if (k == "distribution") {
    if (!cur_.is(Tok::kIdent)) FailExpected("RNG distribution");
    AddAttr(this, op, "rng_distribution", EnumAttr(cur_.text), key);
    Advance();
  } else if (k == "dim_numbers") {
    Attribute v;
    if (cur_.is(Tok::kHashId))
      v = ParseAttribute();
    else
      v = ParseConvCompact();
    AddAttr(this, op, "dimension_numbers", std::move(v), key);
  } else if (k == "window") {
    ParseWindow(op);
  } else if (k == "probe_id") {
    if (!cur_.is(Tok::kString)) FailExpected("string");
    AddAttr(this, op, "probe_id", ParseAttribute(), key);
  } else if (k == "iter" || k == "max_ulp_difference" || k == "min_ulp_difference") {
    AddAttr(this, op, std::string(k), IntAttr(ParseIntLiteral(true)), key);
  } else if (k == "tolerance") {
    Attribute v = ParseLooseValue();
    if (!AsFloat(&v)) Fail(key, "tolerance must be a number");
    AddAttr(this, op, "tolerance", std::move(v), key);
  } else {
    AddAttr(this, op, std::string(k), ParseLooseValue(), key);
  }
}

// window = {stride = [..], pad = [[lo, hi], ...], lhs_dilate = [..],
//           rhs_dilate = [..], reverse = [..]}
void Parser::ParseWindow(Operation* op) {
  Expect(Tok::kLBrace, "to open the window");
  if (!cur_.is(Tok::kRBrace)) {
    for (;;) {
      Token key = cur_;
      if (!cur_.is(Tok::kIdent)) FailExpected("window field");
      std::string_view k = cur_.text;
      Advance();
      Expect(Tok::kEqual);
      if (k == "stride") {
        AddAttr(this, op, "window_strides", IntArrayAttr(ParseIntList()), key);
      } else if (k == "lhs_dilate") {
        AddAttr(this, op, "lhs_dilation", IntArrayAttr(ParseIntList()), key);
      } else if (k == "rhs_dilate") {
        AddAttr(this, op, "rhs_dilation", IntArrayAttr(ParseIntList()), key);
      } else if (k == "pad") {
        Expect(Tok::kLSquare);
        std::vector<int64_t> v;
        if (!cur_.is(Tok::kRSquare)) {
          for (;;) {
            Expect(Tok::kLSquare, "to open a [low, high] pair");
            v.push_back(ParseIntLiteral(true));
            Expect(Tok::kComma, "in a [low, high] pair");
            v.push_back(ParseIntLiteral(true));
            Expect(Tok::kRSquare, "to close a [low, high] pair");
            if (!Consume(Tok::kComma)) break;
          }
        }
        Expect(Tok::kRSquare);
        Attribute a;
        a.kind = Attribute::Kind::kDense;
        a.type = Type::Tensor(ElementType::kSI64, {static_cast<int64_t>(v.size() / 2), 2});
        a.dense_bytes.resize(v.size() * 8);
        if (!v.empty()) memcpy(a.dense_bytes.data(), v.data(), v.size() * 8);  // (pad = [] has none)
        AddAttr(this, op, "padding", std::move(a), key);
      } else if (k == "reverse") {
        Expect(Tok::kLSquare);
        std::vector<int64_t> v;
        if (!cur_.is(Tok::kRSquare)) {
          for (;;) {
            if (cur_.IsIdent("true") || cur_.IsIdent("false")) {
              v.push_back(cur_.text == "true");
              Advance();
            } else {
              Token at = cur_;
              int64_t x = ParseIntLiteral(false);
              if (x > 1) Fail(at, "reverse flags must be 0/1 or true/false");
              v.push_back(x);
            }
            if (!Consume(Tok::kComma)) break;
          }
        }
        Expect(Tok::kRSquare);
        AddAttr(this, op, "window_reversal", IntArrayAttr(v, ElementType::kI1), key);
      } else {
        Fail(key, "unknown window field '" + std::string(k) + "'");
      }
      if (!Consume(Tok::kComma)) break;
    }
  }
  Expect(Tok::kRBrace, "to close the window");
}

void Parser::ParsePrettySignature(Operation* op, int num_results) {
  Token at = cur_;
  std::vector<Type> ins, outs;
  if (ParseFunctionType(&ins, &outs)) {
    ApplyFunctionType(op, num_results, ins, outs, at);
    return;
  }
  std::vector<Type> types = ParseTypeList();
  if (Consume(Tok::kArrow)) {  // CHLO's `: T -> U`
    if (Consume(Tok::kLParen)) {
      if (!cur_.is(Tok::kRParen)) outs = ParseTypeList();
      Expect(Tok::kRParen, "to close the result types");
    } else {
      outs = ParseTypeList();
    }
    ApplyFunctionType(op, num_results, types, outs, at);
    return;
  }
  ApplyTypeList(op, num_results, types, at);
}

// `: T` or `: T1, T2, ...` (not a function type).
void Parser::ApplyTypeList(Operation* op, int num_results, const std::vector<Type>& types,
                           const Token& at) {
  const size_t k = types.size(), nops = op->operands.size();
  auto check_operands = [&](bool one_for_all) {
    for (size_t i = 0; i < nops; ++i) {
      const Type& want = one_for_all ? types[0] : types[i];
      if (!(op->operands[i]->type == want))
        Fail(at, "type of operand #" + std::to_string(i) + " of '" + op->name + "' is " +
                     op->operands[i]->type.ToString() + " but the op's type says " +
                     want.ToString());
    }
  };
  if ((Is(op, "stablehlo.real") || Is(op, "stablehlo.imag")) && k == 1) {
    // The one type is the operand's; the result drops the complex part.
    check_operands(true);
    Type r = types[0];
    if (IsComplex(r.element)) r.element = ComplexPartType(r.element);
    SetResultTypes(op, {r}, num_results, at);
    return;
  }
  if (num_results == 0) {
    if (k == nops) {
      check_operands(false);
    } else if (k == 1) {
      check_operands(true);
    } else {
      Fail(at, "'" + op->name + "' has " + std::to_string(nops) + " operands but " +
                   std::to_string(k) + " types");
    }
    return;
  }
  if (static_cast<int>(k) == num_results) {
    // One type for operands and result (SameOperandsAndResultType), except
    // where the pretty form names only the result.
    if (k == 1 && !Is(op, "stablehlo.complex") && !Is(op, "stablehlo.tuple")) check_operands(true);
    SetResultTypes(op, types, num_results, at);
    return;
  }
  if (num_results == 1 && k > 1) {  // select: pred type, then the value type
    SetResultTypes(op, {types.back()}, num_results, at);
    return;
  }
  Fail(at, "'" + op->name + "' has " + std::to_string(num_results) + " results but " +
               std::to_string(k) + " types");
}

// The tensor constants of IREE's tests, read as stablehlo.constant:
//   util.unfoldable_constant dense<...> : T     (hidden from IREE's folder;
//       Kiln evaluates nothing at compile time, compiler/options.h)
//   arith.constant dense<...> : T               (tensors only)
//   flow.tensor.dynamic_constant dense<...> : T -> T'
//       (T' = T with some dimensions made dynamic: the result's static
//       shape is known only when it runs; flow.tensor.constant alike)
void Parser::ParseTestConstant(Operation* op, int num_results) {
  if (cur_.is(Tok::kLBrace)) MergeAttrs(op, ParseAttrDict());
  Token at = cur_;
  Attribute v = ParseAttribute();
  if ((v.kind == Attribute::Kind::kInt || v.kind == Attribute::Kind::kFloat || v.kind == Attribute::Kind::kBool) &&
      !Is(op, "flow.tensor.dynamic_constant") && !Is(op, "flow.tensor.constant")) {
    // A scalar, `42 : i32` (`true` is an i1): the rank-0 tensor of it.
    ElementType e = v.kind == Attribute::Kind::kBool ? ElementType::kI1 : v.type.element;
    if (e == ElementType::kInvalid || IsComplex(e)) Fail(at, op->name + ": a scalar constant needs an integer or float type");
    Scalar sc;
    sc.i = v.kind == Attribute::Kind::kBool ? v.b : v.i;
    sc.re = v.kind == Attribute::Kind::kFloat ? v.f : static_cast<double>(sc.i);
    if (v.kind == Attribute::Kind::kFloat && !IsFloat(e)) Fail(at, op->name + ": a float value for type " + std::string(Name(e)));
    Attribute dense;
    dense.kind = Attribute::Kind::kDense;
    dense.type = Type::Tensor(e, {});
    dense.dense_bytes.resize(StorageBytes(e));
    ref::StoreScalar(e, sc, dense.dense_bytes.data());
    v = std::move(dense);
  }
  if (v.kind != Attribute::Kind::kDense) Fail(at, op->name + ": Kiln reads tensor constants only (dense<...> : tensor<...>)");
  Type t = v.type;
  // flow.tensor.constant is the older name, its `-> T'` optional.
  if (Is(op, "flow.tensor.dynamic_constant") || (Is(op, "flow.tensor.constant") && cur_.is(Tok::kArrow))) {
    Expect(Tok::kArrow, "and the constant's dynamic type");
    Token rt = cur_;
    Type r = ParseType();
    if (!Generalizes(r, t)) Fail(rt, "the dynamic type " + r.ToString() + " must be " + t.ToString() + " with dimensions made '?'");
    t = r;
  }
  op->name = "stablehlo.constant";
  AddAttr(this, op, "value", std::move(v), at);
  SetResultTypes(op, {t}, num_results, at);
}

// The arith and math dialects' elementwise ops (IREE's tests; on scalars,
// which are rank-0 tensors here, in linalg bodies):
//   arith.addf %a, %b [fastmath<...>] [{attrs}] : T
//   arith.trunci %a [{attrs}] : T to T'
//   arith.select %c, %a, %b : [C,] T
//   arith.cmpi slt, %a, %b : T        (eq ne slt sle sgt sge)
//   arith.cmpf olt, %a, %b : T        (oeq olt ole ogt oge une)
// read as the StableHLO op compiler::op_names::ElementwiseAsStablehlo names
// (select, compare), with the same operands and result (the verifier checks
// them as that op's).
namespace {
// The unsigned type of a signless integer type's width (i1 stays i1).
ElementType UnsignedOf(ElementType e) {
  switch (e) {
    case ElementType::kSI2: return ElementType::kUI2;
    case ElementType::kSI4: return ElementType::kUI4;
    case ElementType::kSI8: return ElementType::kUI8;
    case ElementType::kSI16: return ElementType::kUI16;
    case ElementType::kSI32: return ElementType::kUI32;
    case ElementType::kSI64: return ElementType::kUI64;
    default: return e;
  }
}
}  // namespace

// arith's unsigned ops (extui, uitofp, fptoui, index_castui, divui, remui,
// maxui, minui; cmpi's ult/ule/ugt/uge in ParseArith): the signless operands
// bitcast to the unsigned type of their width, the StableHLO op on those,
// and an integer result bitcast back.
void Parser::ParseUnsignedArith(Operation* op, int num_results) {
  const std::string arith = op->name;
  const std::string_view stablehlo = compiler::op_names::UnsignedArithAsStablehlo(arith);
  Token at = cur_;
  std::vector<Value*> operands = ParseValueUseList();
  if (operands.empty()) Fail(cur_, "expected the operands of " + arith);
  if (cur_.is(Tok::kLBrace)) SkipBalanced(Tok::kLBrace, Tok::kRBrace);
  Expect(Tok::kColon, "and the operands' type");
  Token tt = cur_;
  Type t = ParseType();
  for (const Value* v : operands)
    if (v->type != t) Fail(tt, arith + ": an operand has type " + v->type.ToString() + ", not " + t.ToString());
  Type result = t;
  if (stablehlo == "stablehlo.convert") {
    ExpectIdent("to");
    tt = cur_;
    result = ParseType();
    if (result.dims != t.dims) Fail(tt, arith + ": the result's shape must be the operand's");
  }
  auto emit = [&](std::string name, std::vector<Value*> args, Type rt) {
    return EmitBefore(op, std::move(name), std::move(args), std::move(rt))->result();
  };
  auto as_unsigned = [&](Value* v) {
    const ElementType u = UnsignedOf(v->type.element);
    return u == v->type.element ? v : emit("stablehlo.bitcast_convert", {v}, Type::Tensor(u, v->type.dims));
  };
  if (!IsInteger(stablehlo == "stablehlo.convert" && arith == "arith.fptoui" ? result.element : t.element) &&
      !IsBool(t.element))
    Fail(tt, arith + " reads integers");
  std::vector<Value*> args;
  if (arith == "arith.fptoui") {
    args = operands;
  } else {
    for (Value* v : operands) args.push_back(as_unsigned(v));
  }
  // The op on unsigned values; an integer result comes back signless.
  const ElementType back = result.element;
  const bool rebitcast = IsInteger(back) && UnsignedOf(back) != back;
  if (rebitcast) {
    Value* u = emit(std::string(stablehlo), args, Type::Tensor(UnsignedOf(back), result.dims));
    op->name = "stablehlo.bitcast_convert";
    op->operands = {u};
  } else {
    op->name = std::string(stablehlo);
    op->operands = args;
  }
  SetResultTypes(op, {result}, num_results, at);
}

void Parser::ParseArith(Operation* op, int num_results) {
  const std::string arith = op->name;
  const bool cast = compiler::op_names::ElementwiseAsStablehlo(arith) == "stablehlo.convert";
  const bool select = arith == "arith.select", compare = arith == "arith.cmpi" || arith == "arith.cmpf";
  bool unsigned_compare = false;
  if (compare) {
    static constexpr std::pair<std::string_view, std::string_view> kInt[] = {
        {"eq", "EQ"}, {"ne", "NE"}, {"slt", "LT"}, {"sle", "LE"}, {"sgt", "GT"}, {"sge", "GE"},
        {"ult", "LT"}, {"ule", "LE"}, {"ugt", "GT"}, {"uge", "GE"}};
    static constexpr std::pair<std::string_view, std::string_view> kFloat[] = {
        {"oeq", "EQ"}, {"olt", "LT"}, {"ole", "LE"}, {"ogt", "GT"}, {"oge", "GE"}, {"une", "NE"}};
    Token p = cur_;
    std::string_view direction;
    if (cur_.is(Tok::kIdent))
      for (const auto& [pred, dir] : arith == "arith.cmpi" ? std::span<const std::pair<std::string_view, std::string_view>>(kInt)
                                                           : std::span<const std::pair<std::string_view, std::string_view>>(kFloat))
        if (cur_.text == pred) direction = dir;
    if (direction.empty()) Fail(p, arith + ": this predicate is not supported (StableHLO's compare has no such form)");
    unsigned_compare = cur_.text.front() == 'u' && arith == "arith.cmpi";
    Advance();
    Expect(Tok::kComma, "after the predicate");
    op->attrs.emplace_back("comparison_direction", EnumAttr(direction));
    op->attrs.emplace_back("compare_type",
                           EnumAttr(arith == "arith.cmpf" ? "FLOAT" : unsigned_compare ? "UNSIGNED" : "SIGNED"));
    op->name = "stablehlo.compare";
  } else {
    op->name = select ? "stablehlo.select" : std::string(compiler::op_names::ElementwiseAsStablehlo(arith));
  }
  op->operands = ParseValueUseList();
  if (op->operands.empty()) Fail(cur_, "expected the operands of " + arith);
  if (cur_.IsIdent("fastmath")) {  // a hint: Kiln computes exactly
    Advance();
    SkipBalanced(Tok::kLess, Tok::kGreater);
  }
  if (cur_.is(Tok::kLBrace)) SkipBalanced(Tok::kLBrace, Tok::kRBrace);
  Expect(Tok::kColon, "and the operands' type");
  Token at = cur_;
  Type t = ParseType();
  if (select && Consume(Tok::kComma)) {  // the condition's type, then the values'
    if (op->operands[0]->type != t) Fail(at, arith + ": the condition has type " + op->operands[0]->type.ToString());
    at = cur_;
    t = ParseType();
  }
  for (size_t k = select ? 1 : 0; k < op->operands.size(); ++k)
    if (op->operands[k]->type != t)
      Fail(at, arith + ": an operand has type " + op->operands[k]->type.ToString() + ", not " + t.ToString());
  if (cast) {
    ExpectIdent("to");
    at = cur_;
    t = ParseType();
  }
  if (unsigned_compare && !IsBool(t.element)) {  // on the unsigned values of the operands' bits
    for (Value*& v : op->operands)
      v = EmitBefore(op, "stablehlo.bitcast_convert", {v}, Type::Tensor(UnsignedOf(t.element), t.dims))->result();
  }
  if (compare) t = Type::Tensor(ElementType::kI1, t.dims);
  if (!t.is_tensor()) Fail(at, arith + " is read on tensors only");
  SetResultTypes(op, {t}, num_results, at);
}

// tensor.cast %x : T to T', as IREE's tests use it. Where T' is T with some
// dimensions made dynamic, the parser binds the result's name to %x itself
// (parser.cc), which keeps the more static type. Where T' is static (a
// dynamic result refined to the shape it has), the cast is a
// stablehlo.reshape, whose element count is checked when it runs. Other
// mixes are refused.
void Parser::ParseTensorCast(Operation* op, int num_results) {
  if (num_results != 1) Fail(cur_, "tensor.cast has one result");
  if (!cur_.is(Tok::kValueId)) FailExpected("the operand of tensor.cast");
  op->operands.push_back(ParseValueUse());
  Expect(Tok::kColon, "and the operand's type");
  Token ft = cur_;
  Type from = ParseType();
  ExpectIdent("to");
  Token tt = cur_;
  Type to = ParseType();
  if (!from.is_tensor() || from != op->operands[0]->type)
    Fail(ft, "tensor.cast: the operand has type " + op->operands[0]->type.ToString() + ", not " + from.ToString());
  const bool generalizes = Generalizes(to, from), refines = to.HasStaticShape() && Generalizes(from, to);
  if (!generalizes && !refines)
    Fail(tt, "tensor.cast to " + to.ToString() + ": Kiln reads casts that make dimensions of " + from.ToString() +
                 " dynamic, or make all of them static, nothing else");
  if (!generalizes) op->name = "stablehlo.reshape";
  SetResultTypes(op, {to}, num_results, tt);
}

// tensor.extract %t[] : tensor<i1>, the condition of a cf.cond_br: read
// as %t itself (bound by parser.cc, as tensor.cast is); Kiln's values are
// tensors, and the branch reads a rank-0 one. Indices are refused.
void Parser::ParseTensorExtract(Operation* op, int num_results) {
  if (num_results != 1) Fail(cur_, "tensor.extract has one result");
  if (!cur_.is(Tok::kValueId)) FailExpected("the operand of tensor.extract");
  op->operands.push_back(ParseValueUse());
  Expect(Tok::kLSquare, "and the indices");
  if (!cur_.is(Tok::kRSquare)) Fail(cur_, "Kiln reads tensor.extract of a rank-0 tensor only (a branch condition)");
  Advance();
  Expect(Tok::kColon, "and the operand's type");
  Token tt = cur_;
  Type t = ParseType();
  if (t != op->operands[0]->type || t.rank() != 0)
    Fail(tt, "tensor.extract of " + op->operands[0]->type.ToString() + ": Kiln reads rank-0 operands only");
  SetResultTypes(op, {t}, num_results, tt);
}

// cf.br ^bb(%a, ... : T, ...) and cf.cond_br %c, ^t[(args : types)], ^f[(...)]:
// the successors become string attributes (dest; true_dest, false_dest and
// true_operand_count), resolved by StructurizeCfg once every block is read.
void Parser::ParseBranch(Operation* op, int num_results) {
  if (num_results != 0) Fail(cur_, op->name + " defines no results");
  auto successor = [&](const char* attr) {
    if (!cur_.is(Tok::kBlockId)) FailExpected("a successor block");
    Attribute a;
    a.kind = Attribute::Kind::kString;
    a.str = std::string(cur_.text.substr(1));
    AddAttr(this, op, attr, a, cur_);
    Advance();
    size_t count = 0;
    if (Consume(Tok::kLParen)) {
      std::vector<Value*> args = ParseValueUseList();
      Expect(Tok::kColon, "and the successor arguments' types");
      Token at = cur_;
      std::vector<Type> types;
      for (;;) {
        types.push_back(ParseType());
        if (!Consume(Tok::kComma)) break;
      }
      if (types.size() != args.size()) Fail(at, "the successor takes " + std::to_string(args.size()) + " values but " + std::to_string(types.size()) + " types are given");
      for (size_t i = 0; i < args.size(); ++i)
        if (args[i]->type != types[i]) Fail(at, "successor value " + std::to_string(i) + " has type " + args[i]->type.ToString() + ", not " + types[i].ToString());
      Expect(Tok::kRParen, "to close the successor arguments");
      op->operands.insert(op->operands.end(), args.begin(), args.end());
      count = args.size();
    }
    return count;
  };
  if (Is(op, "cf.br")) {
    successor("dest");
  } else {
    if (!cur_.is(Tok::kValueId)) FailExpected("the condition of cf.cond_br");
    op->operands.push_back(ParseValueUse());
    Expect(Tok::kComma, "after the condition");
    Token at = cur_;
    size_t t = successor("true_dest");
    AddAttr(this, op, "true_operand_count", IntAttr(static_cast<int64_t>(t)), at);
    Expect(Tok::kComma, "between the successors");
    successor("false_dest");
  }
  if (cur_.is(Tok::kLBrace)) MergeAttrs(op, ParseAttrDict());
}

// stablehlo.constant [{attrs}] dense<...> : T, or the quantized form
// stablehlo.constant() <{value = ...}> : () -> T.
void Parser::ParseConstant(Operation* op, int num_results) {
  if (Consume(Tok::kLParen)) {
    Expect(Tok::kRParen);
    if (Consume(Tok::kLess)) {
      MergeAttrs(op, ParseAttrDict());
      Expect(Tok::kGreater);
    }
    if (cur_.is(Tok::kLBrace)) MergeAttrs(op, ParseAttrDict());
    Expect(Tok::kColon);
    std::vector<Type> ins, outs;
    Token at = cur_;
    if (!ParseFunctionType(&ins, &outs)) FailExpected("function type");
    ApplyFunctionType(op, num_results, ins, outs, at);
    return;
  }
  if (cur_.is(Tok::kLBrace)) MergeAttrs(op, ParseAttrDict());
  Token at = cur_;
  Attribute v = ParseAttribute();
  if (v.kind != Attribute::Kind::kDense) Fail(at, "expected a dense constant");
  Type t = v.type;
  AddAttr(this, op, "value", std::move(v), at);
  SetResultTypes(op, {t}, num_results, at);
}

// stablehlo.compare LT, %a, %b[, FLOAT] [{attrs}] : types
void Parser::ParseCompare(Operation* op, int num_results) {
  Token at = cur_;
  if (!cur_.is(Tok::kIdent)) FailExpected("comparison direction");
  AddAttr(this, op, "comparison_direction", EnumAttr(cur_.text), at);
  Advance();
  Expect(Tok::kComma, "after the comparison direction");
  op->operands.push_back(ParseValueUse());
  Expect(Tok::kComma, "between compare operands");
  op->operands.push_back(ParseValueUse());
  if (Consume(Tok::kComma)) {
    Token t = cur_;
    if (!cur_.is(Tok::kIdent)) FailExpected("comparison type");
    AddAttr(this, op, "compare_type", EnumAttr(cur_.text), t);
    Advance();
  }
  if (cur_.is(Tok::kLBrace)) MergeAttrs(op, ParseAttrDict());
  Expect(Tok::kColon, "before the op's type");
  ParsePrettySignature(op, num_results);
}

// stablehlo.convolution(%lhs, %rhs) dim_numbers = ..., window = {...} {attrs} : type
void Parser::ParseConvolution(Operation* op, int num_results) {
  Expect(Tok::kLParen, "to open the operands");
  op->operands = ParseValueUseList();
  Expect(Tok::kRParen, "to close the operands");
  while (cur_.is(Tok::kIdent) && Peek().is(Tok::kEqual)) {
    Token key = cur_;
    ParsePrettyKeyValue(op, key);
    if (!Consume(Tok::kComma)) break;
  }
  if (cur_.is(Tok::kLBrace)) MergeAttrs(op, ParseAttrDict());
  Expect(Tok::kColon, "before the op's type");
  ParsePrettySignature(op, num_results);
}

// stablehlo.reduce(%x init: %c)[, ...] applies stablehlo.add across dimensions = [..] : type
// stablehlo.reduce(%x init: %c)[, ...] across dimensions = [..] : type
//     reducer(%a: T, %b: T) [(...)] { body }
void Parser::ParseReduce(Operation* op, int num_results) {
  std::vector<Value*> inputs, inits;
  for (;;) {
    Expect(Tok::kLParen, "to open '(%input init: %init)'");
    inputs.push_back(ParseValueUse());
    ExpectIdent("init");
    Expect(Tok::kColon, "after 'init'");
    inits.push_back(ParseValueUse());
    Expect(Tok::kRParen, "to close '(%input init: %init)'");
    if (!Consume(Tok::kComma)) break;
  }
  op->operands = inputs;
  op->operands.insert(op->operands.end(), inits.begin(), inits.end());
  std::string applies;
  Token applies_at = cur_;
  if (ConsumeIdent("applies")) {
    if (!cur_.is(Tok::kIdent)) FailExpected("the reduction op name");
    applies = std::string(cur_.text);
    applies_at = cur_;
    Advance();
  }
  ExpectIdent("across");
  ExpectIdent("dimensions");
  Token key = cur_;
  Expect(Tok::kEqual, "after 'dimensions'");
  AddAttr(this, op, "dimensions", IntArrayAttr(ParseIntList()), key);
  if (cur_.is(Tok::kLBrace)) MergeAttrs(op, ParseAttrDict());
  Expect(Tok::kColon, "before the op's type");
  ParsePrettySignature(op, num_results);
  const size_t n = inputs.size();
  auto region = std::make_unique<Region>();
  region->parent = op;
  if (applies.empty()) {
    ExpectIdent("reducer");
    // Group k names block arguments k and k + n.
    std::vector<std::pair<Token, Type>> firsts, seconds;
    while (cur_.is(Tok::kLParen)) {
      Advance();
      for (int j = 0; j < 2; ++j) {
        if (!cur_.is(Tok::kValueId)) FailExpected("reducer argument");
        Token name = cur_;
        Advance();
        Expect(Tok::kColon, "after reducer argument");
        Type t = ParseType();
        SkipLocation();
        (j == 0 ? firsts : seconds).emplace_back(name, std::move(t));
        if (j == 0) Expect(Tok::kComma, "between reducer arguments");
      }
      Expect(Tok::kRParen, "to close reducer arguments");
    }
    if (firsts.size() != n)
      Fail(cur_, "expected " + std::to_string(n) + " reducer argument pairs, got " +
                     std::to_string(firsts.size()));
    firsts.insert(firsts.end(), seconds.begin(), seconds.end());
    ParseRegion(region.get(), &firsts);
  } else {
    // Build the body the generic form would spell out: one `applies` op per
    // input on (acc_k, x_k), then stablehlo.return.
    auto block = std::make_unique<Block>();
    block->parent = region.get();
    for (size_t j = 0; j < 2 * n; ++j) {
      auto v = std::make_unique<Value>();
      v->type = inits[j % n]->type;
      v->index = static_cast<int>(j);
      v->owner_block = block.get();
      block->args.push_back(std::move(v));
    }
    auto ret = std::make_unique<Operation>();
    ret->name = "stablehlo.return";
    ret->loc = LocOf(applies_at);
    ret->parent = block.get();
    for (size_t k = 0; k < n; ++k) {
      auto body = std::make_unique<Operation>();
      body->name = applies;
      body->loc = LocOf(applies_at);
      body->parent = block.get();
      body->operands = {block->args[k].get(), block->args[k + n].get()};
      auto r = std::make_unique<Value>();
      r->type = inits[k]->type;
      r->def = body.get();
      body->results.push_back(std::move(r));
      ret->operands.push_back(body->result(0));
      block->ops.push_back(std::move(body));
    }
    block->ops.push_back(std::move(ret));
    region->blocks.push_back(std::move(block));
  }
  op->regions.push_back(std::move(region));
}

// stablehlo.while(%iterArg = %x, ...) : T, ... [attributes {...}] cond {...} do {...}
void Parser::ParseWhile(Operation* op, int num_results) {
  Expect(Tok::kLParen, "to open the loop-carried values");
  std::vector<Token> names;
  if (!cur_.is(Tok::kRParen)) {
    for (;;) {
      if (!cur_.is(Tok::kValueId)) FailExpected("iteration argument name");
      names.push_back(cur_);
      Advance();
      Expect(Tok::kEqual, "after iteration argument name");
      op->operands.push_back(ParseValueUse());
      if (!Consume(Tok::kComma)) break;
    }
  }
  Expect(Tok::kRParen, "to close the loop-carried values");
  std::vector<Type> types;
  Token at = cur_;
  if (Consume(Tok::kColon)) types = ParseTypeList();
  if (types.size() != names.size())
    Fail(at, "while has " + std::to_string(names.size()) + " loop-carried values but " +
                 std::to_string(types.size()) + " types");
  for (size_t i = 0; i < types.size(); ++i)
    if (!(types[i] == op->operands[i]->type))
      Fail(at, "type of loop-carried value #" + std::to_string(i) + " is " +
                   op->operands[i]->type.ToString() + " but the op's type says " +
                   types[i].ToString());
  if (ConsumeIdent("attributes")) MergeAttrs(op, ParseAttrDict());
  std::vector<std::pair<Token, Type>> args;
  for (size_t i = 0; i < names.size(); ++i) args.emplace_back(names[i], types[i]);
  for (const char* kw : {"cond", "do"}) {
    ExpectIdent(kw);
    auto r = std::make_unique<Region>();
    r->parent = op;
    ParseRegion(r.get(), &args);
    op->regions.push_back(std::move(r));
  }
  SetResultTypes(op, types, num_results, at);
}

// stablehlo.if %pred [-> types] {...} else {...}
// stablehlo.case %index [-> types] {...}, {...}
// Without `-> types` (or a trailing `: (..) -> (..)`) the result types are
// those of the first region's terminator.
void Parser::ParseIfOrCase(Operation* op, int num_results) {
  Token at = cur_;
  op->operands.push_back(ParseValueUse());
  std::vector<Type> types;
  bool have_types = false;
  if (Consume(Tok::kArrow)) {
    have_types = true;
    if (Consume(Tok::kLParen)) {
      if (!cur_.is(Tok::kRParen)) types = ParseTypeList();
      Expect(Tok::kRParen);
    } else {
      types = ParseTypeList();
    }
  }
  const bool is_if = Is(op, "stablehlo.if");
  for (;;) {
    auto r = std::make_unique<Region>();
    r->parent = op;
    ParseRegion(r.get(), nullptr);
    op->regions.push_back(std::move(r));
    if (is_if) {
      if (op->regions.size() == 1) {
        ExpectIdent("else");
        continue;
      }
      break;
    }
    if (Consume(Tok::kComma) || cur_.is(Tok::kLBrace)) continue;
    break;
  }
  if (cur_.is(Tok::kLBrace)) MergeAttrs(op, ParseAttrDict());
  if (Consume(Tok::kColon)) {
    Token sig = cur_;
    std::vector<Type> ins, outs;
    if (ParseFunctionType(&ins, &outs)) {
      ApplyFunctionType(op, num_results, ins, outs, sig);
      return;
    }
    types = ParseTypeList();
    have_types = true;
  }
  if (!have_types) {
    const Region& r0 = *op->regions[0];
    if (!r0.blocks.empty() && !r0.blocks[0]->ops.empty())
      for (Value* v : r0.blocks[0]->ops.back()->operands) types.push_back(v->type);
  }
  SetResultTypes(op, types, num_results, at);
}

// stablehlo.custom_call @target(%a, ...) {attrs} : type
// func.call @f(%a, ...) : type
void Parser::ParseCallLike(Operation* op, int num_results) {
  Token at = cur_;
  std::string target = ParseSymbolName();
  Attribute a;
  if (Is(op, "func.call")) {
    a.kind = Attribute::Kind::kSymbol;
    a.str = std::move(target);
    AddAttr(this, op, "callee", std::move(a), at);
  } else {
    a.kind = Attribute::Kind::kString;
    a.str = std::move(target);
    AddAttr(this, op, "call_target_name", std::move(a), at);
  }
  Expect(Tok::kLParen, "to open the operands");
  op->operands = ParseValueUseList();
  Expect(Tok::kRParen, "to close the operands");
  if (cur_.is(Tok::kLBrace)) MergeAttrs(op, ParseAttrDict());
  Expect(Tok::kColon, "before the op's type");
  ParsePrettySignature(op, num_results);
}

// stablehlo.composite "name" %a, ... {attrs} : type
void Parser::ParseComposite(Operation* op, int num_results) {
  Token at = cur_;
  if (!cur_.is(Tok::kString)) FailExpected("composite name string");
  AddAttr(this, op, "name", ParseAttribute(), at);
  op->operands = ParseValueUseList();
  if (cur_.is(Tok::kLBrace)) MergeAttrs(op, ParseAttrDict());
  Expect(Tok::kColon, "before the op's type");
  ParsePrettySignature(op, num_results);
}

// chlo.scan(%inputs) inits(%inits) dimension=N [attributes {...}] {body} : type
void Parser::ParseScan(Operation* op, int num_results) {
  Expect(Tok::kLParen, "to open the scan inputs");
  std::vector<Value*> inputs = ParseValueUseList();
  Expect(Tok::kRParen, "to close the scan inputs");
  ExpectIdent("inits");
  Expect(Tok::kLParen, "to open the scan inits");
  std::vector<Value*> inits = ParseValueUseList();
  Expect(Tok::kRParen, "to close the scan inits");
  op->operands = inputs;
  op->operands.insert(op->operands.end(), inits.begin(), inits.end());
  Token key = cur_;
  ExpectIdent("dimension");
  Expect(Tok::kEqual, "after 'dimension'");
  AddAttr(this, op, "dimension", IntAttr(ParseIntLiteral(true)), key);
  if (ConsumeIdent("attributes")) MergeAttrs(op, ParseAttrDict());
  AddAttr(this, op, "operandSegmentSizes",
          IntArrayAttr({static_cast<int64_t>(inputs.size()), static_cast<int64_t>(inits.size())},
                       ElementType::kSI32),
          key);
  auto r = std::make_unique<Region>();
  r->parent = op;
  ParseRegion(r.get(), nullptr);
  op->regions.push_back(std::move(r));
  Expect(Tok::kColon, "before the op's type");
  ParsePrettySignature(op, num_results);
}

}  // namespace kiln::ir::detail

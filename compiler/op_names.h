// The op names the compiler's passes, lowering and verifier test for outside
// their name-keyed tables, in one place. Kernel names come from
// kernels/kernels.def (KernelId) and elementwise ops from
// kernels/common/scalar_ops.def (ScalarOp); the remaining names (terminators,
// control flow, collectives, custom_call) are spelled here once, with the sets
// of ops that several passes ask about, so no pass matches an op name by a
// string literal of its own.
#pragma once
#include <string>
#include <string_view>
#include <utility>

#include "kernels/common/scalar_program.h"
#include "kernels/kernel_table.h"

namespace kiln::compiler::op_names {

inline constexpr std::string_view kReturn = "stablehlo.return";
inline constexpr std::string_view kFuncReturn = "func.return";
inline constexpr std::string_view kFuncCall = "func.call";
inline constexpr std::string_view kWhile = "stablehlo.while";
inline constexpr std::string_view kIf = "stablehlo.if";
inline constexpr std::string_view kCase = "stablehlo.case";
inline constexpr std::string_view kAsyncStart = "stablehlo.async_start";
inline constexpr std::string_view kCustomCall = "stablehlo.custom_call";
inline constexpr std::string_view kTuple = "stablehlo.tuple";
inline constexpr std::string_view kGetDimensionSize = "stablehlo.get_dimension_size";
inline constexpr std::string_view kAllGather = "stablehlo.all_gather";
inline constexpr std::string_view kAllReduce = "stablehlo.all_reduce";
inline constexpr std::string_view kReduceScatter = "stablehlo.reduce_scatter";
inline constexpr std::string_view kCollectiveReduce = "stablehlo.collective_reduce";
// The dialect prefixes, for printing an op's enum attributes and for chlo's
// broadcasting forms.
inline constexpr std::string_view kStablehloPrefix = "stablehlo.";
inline constexpr std::string_view kChloPrefix = "chlo.";
// The compiler's own dispatches (kiln.elementwise, kiln.copy): made by its
// passes, never written in a program.
inline constexpr std::string_view kKilnPrefix = "kiln.";

// Whether `name` is an op of the input language: StableHLO (with the ops
// VHLO still carries), CHLO, func, or the conformance suite's check.* and
// interpreter.* ops (op_names.cc). The verifier refuses any other name as an
// unknown operation; a known op Kiln cannot run is refused later, by
// lowering or a target, as not supported.
bool IsKnownOp(std::string_view name);
// "unknown operation 'NAME'", saying which dialects Kiln reads when NAME is
// not in one of them.
std::string UnknownOpMessage(std::string_view name);

// Whether `name` is kernel `id`'s op (kernels.def names each kernel once).
inline bool IsKernelOp(std::string_view name, KernelId id) { return name == KernelName(id); }
// Whether `name` is the op that scalar op `s` evaluates (scalar_ops.def).
inline bool IsScalarOp(std::string_view name, ScalarOp s) { return name == ScalarOpName(s); }
inline bool IsConstant(std::string_view name) { return IsScalarOp(name, ScalarOp::kConstant); }

// A block terminator: a region's or a function's return.
inline bool IsReturn(std::string_view name) { return name == kReturn || name == kFuncReturn; }

// IREE's util.global ops and ml_program's load_const: the parser reads them
// as ml_program.global_load / global_store (parse_globals.cc).
inline bool IsGlobalAccess(std::string_view name) {
  return name == "ml_program.global_load_const" || name == "util.global.load" || name == "util.global.store" ||
         name == "util.global.address" || name == "util.global.load.indirect" ||
         name == "util.global.store.indirect";
}

// The arith and math dialects' elementwise ops, as IREE's tests write them
// (on tensors, and on scalars in linalg bodies), and the StableHLO op each
// is (parse_ops_pretty.cc); "" if `name` is none.
// Only those whose meaning on signless integers StableHLO's op has (signed
// division and extension, wrapping truncation, NaN-propagating max/min).
inline std::string_view ElementwiseAsStablehlo(std::string_view name) {
  static constexpr std::pair<std::string_view, std::string_view> kOps[] = {
      {"arith.addf", "stablehlo.add"},          {"arith.addi", "stablehlo.add"},
      {"arith.subf", "stablehlo.subtract"},     {"arith.subi", "stablehlo.subtract"},
      {"arith.mulf", "stablehlo.multiply"},     {"arith.muli", "stablehlo.multiply"},
      {"arith.divf", "stablehlo.divide"},       {"arith.divsi", "stablehlo.divide"},
      {"arith.remf", "stablehlo.remainder"},    {"arith.remsi", "stablehlo.remainder"},
      {"arith.maximumf", "stablehlo.maximum"},  {"arith.maxf", "stablehlo.maximum"},
      {"arith.minimumf", "stablehlo.minimum"},  {"arith.minf", "stablehlo.minimum"},
      {"arith.maxsi", "stablehlo.maximum"},     {"arith.minsi", "stablehlo.minimum"},
      {"arith.andi", "stablehlo.and"},          {"arith.ori", "stablehlo.or"},
      {"arith.xori", "stablehlo.xor"},          {"arith.negf", "stablehlo.negate"},
      {"arith.trunci", "stablehlo.convert"},    {"arith.truncf", "stablehlo.convert"},
      {"arith.extsi", "stablehlo.convert"},     {"arith.extf", "stablehlo.convert"},
      {"arith.sitofp", "stablehlo.convert"},    {"arith.fptosi", "stablehlo.convert"},
      {"arith.index_cast", "stablehlo.convert"},
      {"math.exp", "stablehlo.exponential"},    {"math.expm1", "stablehlo.exponential_minus_one"},
      {"math.log", "stablehlo.log"},            {"math.log1p", "stablehlo.log_plus_one"},
      {"math.tanh", "stablehlo.tanh"},          {"math.sqrt", "stablehlo.sqrt"},
      {"math.rsqrt", "stablehlo.rsqrt"},        {"math.absf", "stablehlo.abs"},
      {"math.absi", "stablehlo.abs"},           {"math.ceil", "stablehlo.ceil"},
      {"math.floor", "stablehlo.floor"},        {"math.cos", "stablehlo.cosine"},
      {"math.sin", "stablehlo.sine"},           {"math.powf", "stablehlo.power"},
      {"math.roundeven", "stablehlo.round_nearest_even"}, {"math.round", "stablehlo.round_nearest_afz"},
      {"math.atan2", "stablehlo.atan2"},        {"math.erf", "chlo.erf"},
  };
  for (const auto& [arith, stablehlo] : kOps)
    if (arith == name) return stablehlo;
  return {};
}

// arith's ops that read signless integers as unsigned, and the StableHLO op
// of that meaning on unsigned integers (the parser bitcasts the operands to
// the unsigned type and back: parse_ops_pretty.cc, ParseUnsignedArith); ""
// if `name` is none.
inline std::string_view UnsignedArithAsStablehlo(std::string_view name) {
  static constexpr std::pair<std::string_view, std::string_view> kOps[] = {
      {"arith.extui", "stablehlo.convert"},  {"arith.uitofp", "stablehlo.convert"},
      {"arith.fptoui", "stablehlo.convert"}, {"arith.index_castui", "stablehlo.convert"},
      {"arith.divui", "stablehlo.divide"},   {"arith.remui", "stablehlo.remainder"},
      {"arith.maxui", "stablehlo.maximum"},  {"arith.minui", "stablehlo.minimum"},
  };
  for (const auto& [arith, stablehlo] : kOps)
    if (arith == name) return stablehlo;
  return {};
}

// linalg's named ops the parser reads (compiler/parse/parse_linalg.cc).
inline bool IsNamedLinalg(std::string_view name) {
  return name == "linalg.matmul" || name == "linalg.batch_matmul" || name == "linalg.matvec" ||
         name == "linalg.vecmat" || name == "linalg.dot" || name == "linalg.transpose" || name == "linalg.broadcast";
}

// Ops of other dialects that IREE's tests write and the parser reads as
// StableHLO (constants, casts, branches: compiler/parse/parse_ops_pretty.cc
// and structurize_cfg.h); they never reach the verifier under these names.
inline bool IsReadByParser(std::string_view name) {
  return name == "util.unfoldable_constant" || name == "arith.constant" || name == "flow.tensor.dynamic_constant" ||
         name == "flow.tensor.constant" ||
         name == "tensor.cast" || name == "tensor.extract" || name == "cf.br" || name == "cf.cond_br" ||
         name == "util.optimization_barrier" || name == "util.do_not_optimize" || IsGlobalAccess(name) ||
         !ElementwiseAsStablehlo(name).empty() || name == "arith.select" || name == "arith.cmpi" ||
         name == "arith.cmpf" || name == "tensor.empty" || name == "linalg.init_tensor" || name == "linalg.fill" ||
         name == "linalg.generic" || name == "linalg.yield" || name == "linalg.index" ||
         name == "iree_linalg_ext.sort" || name == "iree_linalg_ext.yield" ||
         name == "tensor.expand_shape" || name == "tensor.collapse_shape" || name == "tensor.extract_slice" ||
         name == "tensor.insert_slice" || name == "tensor.dim" || !UnsignedArithAsStablehlo(name).empty() ||
         IsNamedLinalg(name);
}

// Ops whose regions the VM runs itself (as branches and loops), rather than
// kernels running them as scalar programs.
inline bool HasVmRegions(std::string_view name) {
  return name == kWhile || name == kIf || name == kCase || name == kAsyncStart;
}

// Collectives that combine values with a reduction body.
inline bool IsReducingCollective(std::string_view name) {
  return name == kAllReduce || name == kReduceScatter || name == kCollectiveReduce;
}

// Kernels whose single result an elementwise epilogue may be fused into
// (compiler/passes/fuse_elementwise.cc): the contractions with a plain
// dispatch.
inline bool IsEpilogueProducer(std::string_view name) {
  return IsKernelOp(name, KernelId::kDotGeneral) || IsKernelOp(name, KernelId::kDot) ||
         IsKernelOp(name, KernelId::kConvolution);
}

}  // namespace kiln::compiler::op_names

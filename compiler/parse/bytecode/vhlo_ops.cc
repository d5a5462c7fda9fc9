// VHLO op tables and attribute rules (vhlo_ops.h).
#include "compiler/parse/bytecode/vhlo_ops.h"

#include <cstring>
#include <map>
#include <set>

namespace kiln::ir::bytecode {
namespace {

const std::map<std::string, std::vector<const char*>>& PropertyNames() {
  // Each op version's attributes, sorted by name: the order ODS writes
  // properties in. Ops without attributes have no entry.
  static const std::map<std::string, std::vector<const char*>> names = {
      {"vhlo.all_gather_v1", {"all_gather_dim", "channel_id", "replica_groups", "use_global_device_ids"}},
      {"vhlo.all_gather_v2", {"all_gather_dim", "channel_id", "replica_groups", "use_global_device_ids"}},
      {"vhlo.all_reduce_v1", {"channel_id", "replica_groups", "use_global_device_ids"}},
      {"vhlo.all_reduce_v2", {"channel_id", "replica_groups", "use_global_device_ids"}},
      {"vhlo.all_to_all_v1", {"channel_id", "concat_dimension", "replica_groups", "split_count", "split_dimension"}},
      {"vhlo.all_to_all_v2", {"channel_id", "concat_dimension", "replica_groups", "split_count", "split_dimension"}},
      {"vhlo.batch_norm_grad_v1", {"epsilon", "feature_index"}},
      {"vhlo.batch_norm_inference_v1", {"epsilon", "feature_index"}},
      {"vhlo.batch_norm_training_v1", {"epsilon", "feature_index"}},
      {"vhlo.broadcast_in_dim_v1", {"broadcast_dimensions"}},
      {"vhlo.broadcast_v1", {"broadcast_sizes"}},
      {"vhlo.call_v1", {"callee"}},
      {"vhlo.cbrt_v2", {"result_accuracy"}},
      {"vhlo.cholesky_v1", {"lower"}},
      {"vhlo.collective_broadcast_v1", {"channel_id", "replica_groups"}},
      {"vhlo.collective_broadcast_v2", {"channel_id", "has_dynamic_root", "replica_groups"}},
      {"vhlo.collective_permute_v1", {"channel_id", "source_target_pairs"}},
      {"vhlo.collective_reduce_v1", {"channel_id", "has_dynamic_root", "replica_groups", "use_global_device_ids"}},
      {"vhlo.compare_v1", {"compare_type", "comparison_direction"}},
      {"vhlo.composite_v1", {"composite_attributes", "decomposition", "name", "version"}},
      {"vhlo.composite_v2", {"composite_attributes", "decomposition", "name", "version"}},
      {"vhlo.concatenate_v1", {"dimension"}},
      {"vhlo.constant_v1", {"value"}},
      {"vhlo.convolution_v1", {"batch_group_count", "feature_group_count", "input_batch_dimension", "input_feature_dimension", "input_spatial_dimensions", "kernel_input_feature_dimension", "kernel_output_feature_dimension", "kernel_spatial_dimensions", "lhs_dilation", "output_batch_dimension", "output_feature_dimension", "output_spatial_dimensions", "padding", "precision_config", "rhs_dilation", "window_reversal", "window_strides"}},
      {"vhlo.cosine_v2", {"result_accuracy"}},
      {"vhlo.cross-replica-sum_v1", {"replica_groups"}},
      {"vhlo.custom_call_v1", {"api_version", "backend_config", "call_target_name", "called_computations", "has_side_effect", "operand_layouts", "output_operand_aliases", "result_layouts"}},
      {"vhlo.custom_call_v2", {"api_version", "backend_config", "call_target_name", "called_computations", "has_side_effect", "operand_layouts", "output_operand_aliases", "result_layouts", "result_tilings"}},
      {"vhlo.dot_general_v1", {"lhs_batching_dimensions", "lhs_contracting_dimensions", "precision_config", "rhs_batching_dimensions", "rhs_contracting_dimensions"}},
      {"vhlo.dot_general_v2", {"accumulation_type", "allow_imprecise_accumulation", "lhs_batching_dimensions", "lhs_component_count", "lhs_contracting_dimensions", "lhs_precision_type", "num_primitive_operations", "precision_config", "rhs_batching_dimensions", "rhs_component_count", "rhs_contracting_dimensions", "rhs_precision_type"}},
      {"vhlo.dot_v1", {"precision_config"}},
      {"vhlo.dynamic_broadcast_in_dim_v1", {"broadcast_dimensions", "known_expanding_dimensions", "known_nonexpanding_dimensions"}},
      {"vhlo.dynamic_conv_v1", {"batch_group_count", "feature_group_count", "input_batch_dimension", "input_feature_dimension", "input_spatial_dimensions", "kernel_input_feature_dimension", "kernel_output_feature_dimension", "kernel_spatial_dimensions", "lhs_dilation", "output_batch_dimension", "output_feature_dimension", "output_spatial_dimensions", "padding", "precision_config", "rhs_dilation", "window_reversal", "window_strides"}},
      {"vhlo.dynamic_conv_v2", {"batch_group_count", "feature_group_count", "input_batch_dimension", "input_feature_dimension", "input_spatial_dimensions", "kernel_input_feature_dimension", "kernel_output_feature_dimension", "kernel_spatial_dimensions", "lhs_dilation", "output_batch_dimension", "output_feature_dimension", "output_spatial_dimensions", "precision_config", "rhs_dilation", "window_reversal", "window_strides"}},
      {"vhlo.dynamic_gather_v1", {"collapsed_slice_dims", "index_vector_dim", "indices_are_sorted", "offset_dims", "start_index_map"}},
      {"vhlo.dynamic_gather_v2", {"collapsed_slice_dims", "index_vector_dim", "indices_are_sorted", "offset_dims", "operand_batching_dims", "start_index_map", "start_indices_batching_dims"}},
      {"vhlo.dynamic_iota_v1", {"iota_dimension"}},
      {"vhlo.dynamic_slice_v1", {"slice_sizes"}},
      {"vhlo.einsum_v1", {"einsum_config"}},
      {"vhlo.exponential_minus_one_v2", {"result_accuracy"}},
      {"vhlo.exponential_v2", {"result_accuracy"}},
      {"vhlo.fft_v1", {"fft_length", "fft_type"}},
      {"vhlo.func_v1", {"arg_attrs", "function_type", "res_attrs", "sym_name", "sym_visibility"}},
      {"vhlo.gather_v1", {"collapsed_slice_dims", "index_vector_dim", "indices_are_sorted", "offset_dims", "slice_sizes", "start_index_map"}},
      {"vhlo.gather_v2", {"collapsed_slice_dims", "index_vector_dim", "indices_are_sorted", "offset_dims", "operand_batching_dims", "slice_sizes", "start_index_map", "start_indices_batching_dims"}},
      {"vhlo.get_dimension_size_v1", {"dimension"}},
      {"vhlo.get_tuple_element_v1", {"index"}},
      {"vhlo.infeed_v1", {"infeed_config", "layout"}},
      {"vhlo.iota_v1", {"iota_dimension"}},
      {"vhlo.log_plus_one_v2", {"result_accuracy"}},
      {"vhlo.log_v2", {"result_accuracy"}},
      {"vhlo.logistic_v2", {"result_accuracy"}},
      {"vhlo.map_v1", {"dimensions"}},
      {"vhlo.outfeed_v1", {"outfeed_config"}},
      {"vhlo.pad_v1", {"edge_padding_high", "edge_padding_low", "interior_padding"}},
      {"vhlo.recv_v1", {"channel_id", "channel_type", "is_host_transfer"}},
      {"vhlo.recv_v2", {"channel_id", "channel_type", "is_host_transfer", "source_target_pairs"}},
      {"vhlo.reduce_precision_v1", {"exponent_bits", "mantissa_bits"}},
      {"vhlo.reduce_scatter_v1", {"channel_id", "replica_groups", "scatter_dimension", "use_global_device_ids"}},
      {"vhlo.reduce_v1", {"dimensions"}},
      {"vhlo.reduce_window_v1", {"base_dilations", "padding", "window_dilations", "window_dimensions", "window_strides"}},
      {"vhlo.reverse_v1", {"dimensions"}},
      {"vhlo.rng_bit_generator_v1", {"rng_algorithm"}},
      {"vhlo.rng_v1", {"rng_distribution"}},
      {"vhlo.rsqrt_v2", {"result_accuracy"}},
      {"vhlo.scatter_v1", {"index_vector_dim", "indices_are_sorted", "inserted_window_dims", "scatter_dims_to_operand_dims", "unique_indices", "update_window_dims"}},
      {"vhlo.scatter_v2", {"index_vector_dim", "indices_are_sorted", "input_batching_dims", "inserted_window_dims", "scatter_dims_to_operand_dims", "scatter_indices_batching_dims", "unique_indices", "update_window_dims"}},
      {"vhlo.select_and_scatter_v1", {"padding", "window_dimensions", "window_strides"}},
      {"vhlo.send_v1", {"channel_id", "channel_type", "is_host_transfer"}},
      {"vhlo.send_v2", {"channel_id", "channel_type", "is_host_transfer", "source_target_pairs"}},
      {"vhlo.set_dimension_size_v1", {"dimension"}},
      {"vhlo.sine_v2", {"result_accuracy"}},
      {"vhlo.slice_v1", {"limit_indices", "start_indices", "strides"}},
      {"vhlo.sort_v1", {"dimension", "is_stable"}},
      {"vhlo.sqrt_v2", {"result_accuracy"}},
      {"vhlo.tan_v2", {"result_accuracy"}},
      {"vhlo.tanh_v2", {"result_accuracy"}},
      {"vhlo.torch_index_select_v1", {"batch_dims", "dim"}},
      {"vhlo.transpose_v1", {"permutation"}},
      {"vhlo.triangular_solve_v1", {"left_side", "lower", "transpose_a", "unit_diagonal"}},
      {"vhlo.unary_einsum_v1", {"einsum_config"}},


  };
  return names;
}

}  // namespace

const std::vector<const char*>* VhloPropertyNames(const std::string& op) {
  auto it = PropertyNames().find(op);
  return it == PropertyNames().end() ? nullptr : &it->second;
}

bool VhloOpKnown(const std::string& op) {
  // Every op version of StableHLO 0.9.0 to 1.20.0 (the artifacts of
  // ../shared/conformance/vhlo). A version not listed may mean something
  // else than the StableHLO op of its name, so it is refused.
  static const std::set<std::string> known = {
      "vhlo.abs_v1", "vhlo.add_v1", "vhlo.after_all_v1", "vhlo.all_gather_v1",
      "vhlo.all_gather_v2", "vhlo.all_reduce_v1", "vhlo.all_reduce_v2", "vhlo.all_to_all_v1",
      "vhlo.all_to_all_v2", "vhlo.and_v1", "vhlo.async_done_v1", "vhlo.async_start_v1",
      "vhlo.atan2_v1", "vhlo.batch_norm_grad_v1", "vhlo.batch_norm_inference_v1", "vhlo.batch_norm_training_v1",
      "vhlo.bitcast_convert_v1", "vhlo.broadcast_in_dim_v1", "vhlo.broadcast_v1", "vhlo.call_v1",
      "vhlo.case_v1", "vhlo.cbrt_v1", "vhlo.cbrt_v2", "vhlo.ceil_v1",
      "vhlo.cholesky_v1", "vhlo.clamp_v1", "vhlo.collective_broadcast_v1", "vhlo.collective_broadcast_v2",
      "vhlo.collective_permute_v1", "vhlo.collective_reduce_v1", "vhlo.compare_v1", "vhlo.complex_v1",
      "vhlo.composite_v1", "vhlo.composite_v2", "vhlo.concatenate_v1", "vhlo.constant_v1",
      "vhlo.convert_v1", "vhlo.convolution_v1", "vhlo.cosine_v1", "vhlo.cosine_v2",
      "vhlo.count_leading_zeros_v1", "vhlo.create_token_v1", "vhlo.cross-replica-sum_v1", "vhlo.custom_call_v1",
      "vhlo.custom_call_v2", "vhlo.divide_v1", "vhlo.dot_general_v1", "vhlo.dot_general_v2",
      "vhlo.dot_v1", "vhlo.dynamic_broadcast_in_dim_v1", "vhlo.dynamic_conv_v1", "vhlo.dynamic_conv_v2",
      "vhlo.dynamic_gather_v1", "vhlo.dynamic_gather_v2", "vhlo.dynamic_iota_v1", "vhlo.dynamic_pad_v1",
      "vhlo.dynamic_reshape_v1", "vhlo.dynamic_slice_v1", "vhlo.dynamic_update_slice_v1", "vhlo.einsum_v1",
      "vhlo.exponential_minus_one_v1", "vhlo.exponential_minus_one_v2", "vhlo.exponential_v1", "vhlo.exponential_v2",
      "vhlo.fft_v1", "vhlo.floor_v1", "vhlo.func_v1", "vhlo.gather_v1",
      "vhlo.gather_v2", "vhlo.get_dimension_size_v1", "vhlo.get_tuple_element_v1", "vhlo.if_v1",
      "vhlo.imag_v1", "vhlo.infeed_v1", "vhlo.iota_v1", "vhlo.is_finite_v1",
      "vhlo.log_plus_one_v1", "vhlo.log_plus_one_v2", "vhlo.log_v1", "vhlo.log_v2",
      "vhlo.logistic_v1", "vhlo.logistic_v2", "vhlo.map_v1", "vhlo.maximum_v1",
      "vhlo.minimum_v1", "vhlo.multiply_v1", "vhlo.negate_v1", "vhlo.not_v1",
      "vhlo.optimization_barrier_v1", "vhlo.or_v1", "vhlo.outfeed_v1", "vhlo.pad_v1",
      "vhlo.partition_id_v1", "vhlo.popcnt_v1", "vhlo.power_v1", "vhlo.real_dynamic_slice_v1",
      "vhlo.real_v1", "vhlo.recv_v1", "vhlo.recv_v2", "vhlo.reduce_precision_v1",
      "vhlo.reduce_scatter_v1", "vhlo.reduce_v1", "vhlo.reduce_window_v1", "vhlo.remainder_v1",
      "vhlo.replica_id_v1", "vhlo.reshape_v1", "vhlo.return_v1", "vhlo.reverse_v1",
      "vhlo.rng_bit_generator_v1", "vhlo.rng_v1", "vhlo.round_nearest_afz_v1", "vhlo.round_nearest_even_v1",
      "vhlo.rsqrt_v1", "vhlo.rsqrt_v2", "vhlo.scatter_v1", "vhlo.scatter_v2",
      "vhlo.select_and_scatter_v1", "vhlo.select_v1", "vhlo.send_v1", "vhlo.send_v2",
      "vhlo.set_dimension_size_v1", "vhlo.shift_left_v1", "vhlo.shift_right_arithmetic_v1", "vhlo.shift_right_logical_v1",
      "vhlo.sign_v1", "vhlo.sine_v1", "vhlo.sine_v2", "vhlo.slice_v1",
      "vhlo.sort_v1", "vhlo.sqrt_v1", "vhlo.sqrt_v2", "vhlo.subtract_v1",
      "vhlo.tan_v1", "vhlo.tan_v2", "vhlo.tanh_v1", "vhlo.tanh_v2",
      "vhlo.torch_index_select_v1", "vhlo.transpose_v1", "vhlo.triangular_solve_v1", "vhlo.tuple_v1",
      "vhlo.unary_einsum_v1", "vhlo.uniform_dequantize_v1", "vhlo.uniform_quantize_v1", "vhlo.while_v1",
      "vhlo.xor_v1"
  };
  return known.count(op) > 0;
}

bool IsSymbolAttr(const std::string& name) {
  return name == "callee" || name == "decomposition" || name == "called_computations";
}

bool IsIntArrayAttr(const std::string& name) {
  static const std::set<std::string> names = {
      "broadcast_dimensions", "dimensions", "permutation", "start_indices", "limit_indices", "strides",
      "slice_sizes", "window_dimensions", "window_strides", "base_dilations", "window_dilations",
      "lhs_dilation", "rhs_dilation", "window_reversal", "edge_padding_low", "edge_padding_high",
      "interior_padding", "fft_length", "broadcast_sizes", "known_expanding_dimensions",
      "known_nonexpanding_dimensions"};
  return names.count(name) > 0;
}

namespace {

using Named = std::vector<std::pair<std::string, const AttrInfo*>>;

const AttrInfo* Find(const Named& attrs, const char* name) {
  for (auto& [n, a] : attrs)
    if (n == name) return a;
  return nullptr;
}

bool IsBool(const AttrInfo* a, bool v) { return a && a->kind == AttrInfo::Kind::kBool && a->b == v; }
bool IsInt(const AttrInfo* a, int64_t v) { return a && a->kind == AttrInfo::Kind::kInt && a->i == v; }
bool IsEmptyArray(const AttrInfo* a) { return a && a->kind == AttrInfo::Kind::kArray && a->elements.empty(); }
bool IsEmptyString(const AttrInfo* a) { return a && a->kind == AttrInfo::Kind::kString && a->str.empty(); }
bool IsEmptyTensor(const AttrInfo* a) { return a && a->kind == AttrInfo::Kind::kTensor && a->data.size == 0; }
bool IsEmptyDict(const AttrInfo* a) { return a && a->kind == AttrInfo::Kind::kDict && a->pairs.empty(); }
bool IsEnum(const AttrInfo* a, const char* v) { return a && a->kind == AttrInfo::Kind::kEnum && a->str == v; }
bool IsNoneType(AttrTypeTable& t, const AttrInfo* a) {
  return a && a->kind == AttrInfo::Kind::kType && t.Type(a->type, 0).kind == TypeInfo::Kind::kNone;
}

// Every element of an int64 (or i1) tensor equals `v`; an empty tensor too.
bool IsSplatTensor(AttrTypeTable& t, const AttrInfo* a, int64_t v) {
  if (!a || a->kind != AttrInfo::Kind::kTensor) return false;
  const TypeInfo& ty = t.Type(a->type, a->data.offset);
  if (ty.kind != TypeInfo::Kind::kTensor) return false;
  const TypeInfo& el = t.Type(ty.element, a->data.offset);
  if (el.kind != TypeInfo::Kind::kInt) return false;
  size_t w = el.bits == 1 ? 1 : static_cast<size_t>(el.bits) / 8;
  if (w == 0 || a->data.size % w) return false;
  for (size_t k = 0; k < a->data.size; k += w) {
    int64_t x = 0;
    memcpy(&x, a->data.data + k, w);
    if (el.bits == 1) x = x != 0;
    if (x != v) return false;
  }
  return true;
}

bool IsSplatArrayOfEnum(const AttrTypeTable& t, const AttrInfo* a, const char* v) {
  if (!a || a->kind != AttrInfo::Kind::kArray) return false;
  for (uint64_t e : a->elements) {
    const AttrInfo& x = const_cast<AttrTypeTable&>(t).Attr(e, 0);
    if (!IsEnum(&x, v)) return false;
  }
  return true;
}

// The ints of a 1-D integer tensor attribute, as "[a, b]".
std::string IntList(AttrTypeTable& t, const AttrInfo* a, size_t at) {
  if (!a || a->kind != AttrInfo::Kind::kTensor) Fail(at, "expected a dimension list");
  const TypeInfo& ty = t.Type(a->type, at);
  const TypeInfo& el = t.Type(ty.element, at);
  if (ty.kind != TypeInfo::Kind::kTensor || el.kind != TypeInfo::Kind::kInt || el.bits != 64)
    Fail(at, "a dimension list must be a tensor of i64");
  if (a->data.size % 8) Fail(at, "a dimension list has a partial element");
  std::string s = "[";
  for (size_t k = 0; k < a->data.size; k += 8) {
    int64_t x;
    memcpy(&x, a->data.data + k, 8);
    s += (k ? ", " : "") + std::to_string(x);
  }
  return s + "]";
}

int64_t Int(const AttrInfo* a, size_t at, const char* what) {
  if (!a || a->kind != AttrInfo::Kind::kInt) Fail(at, std::string("expected an integer ") + what);
  return a->i;
}

}  // namespace

void ConvertVhloAttrs(const std::string& op, const std::string&, const Named& attrs, size_t at,
                      const RenderFn& render, std::vector<std::pair<std::string, std::string>>* out,
                      AttrTypeTable& t) {
  std::set<std::string> drop;
  auto has = [&](const char* n) { return Find(attrs, n) != nullptr; };
  auto list = [&](const char* n) { return std::string(n) + " = " + IntList(t, Find(attrs, n), at); };
  auto list_or_empty = [&](const char* n) {
    return has(n) ? list(n) : std::string(n) + " = []";
  };
  // 1. Dimension numbers, which VHLO keeps as one attribute per field.
  if (op == "dot_general") {
    out->emplace_back("dot_dimension_numbers",
                      "#stablehlo.dot<" + list("lhs_batching_dimensions") + ", " + list("rhs_batching_dimensions") +
                          ", " + list("lhs_contracting_dimensions") + ", " + list("rhs_contracting_dimensions") + ">");
    drop.insert({"lhs_batching_dimensions", "rhs_batching_dimensions", "lhs_contracting_dimensions",
                 "rhs_contracting_dimensions"});
    const char* algo[] = {"lhs_precision_type", "rhs_precision_type", "accumulation_type", "lhs_component_count",
                          "rhs_component_count", "num_primitive_operations", "allow_imprecise_accumulation"};
    if (has("lhs_precision_type")) {
      if (!IsNoneType(t, Find(attrs, "lhs_precision_type"))) {
        std::string s = "#stablehlo.dot_algorithm<";
        for (int k = 0; k < 7; ++k) {
          const AttrInfo* a = Find(attrs, algo[k]);
          if (!a) Fail(at, std::string("dot_general needs ") + algo[k]);
          std::string v = a->kind == AttrInfo::Kind::kInt ? std::to_string(a->i) : render(algo[k], *a);
          s += (k ? ", " : "") + std::string(algo[k]) + " = " + v;
        }
        out->emplace_back("algorithm", s + ">");
      }
      for (const char* n : algo) drop.insert(n);
    }
  }
  if (op == "gather" || op == "dynamic_gather") {
    out->emplace_back("dimension_numbers",
                      "#stablehlo.gather<" + list("offset_dims") + ", " + list("collapsed_slice_dims") + ", " +
                          list_or_empty("operand_batching_dims") + ", " + list_or_empty("start_indices_batching_dims") +
                          ", " + list("start_index_map") + ", index_vector_dim = " +
                          std::to_string(Int(Find(attrs, "index_vector_dim"), at, "index_vector_dim")) + ">");
    drop.insert({"offset_dims", "collapsed_slice_dims", "operand_batching_dims", "start_indices_batching_dims",
                 "start_index_map", "index_vector_dim"});
  }
  if (op == "scatter") {
    out->emplace_back("scatter_dimension_numbers",
                      "#stablehlo.scatter<" + list("update_window_dims") + ", " + list("inserted_window_dims") + ", " +
                          list_or_empty("input_batching_dims") + ", " + list_or_empty("scatter_indices_batching_dims") +
                          ", " + list("scatter_dims_to_operand_dims") + ", index_vector_dim = " +
                          std::to_string(Int(Find(attrs, "index_vector_dim"), at, "index_vector_dim")) + ">");
    drop.insert({"update_window_dims", "inserted_window_dims", "input_batching_dims", "scatter_indices_batching_dims",
                 "scatter_dims_to_operand_dims", "index_vector_dim"});
  }
  if (op == "convolution" || op == "dynamic_conv") {
    auto i = [&](const char* n) { return std::string(n) + " = " + std::to_string(Int(Find(attrs, n), at, n)); };
    out->emplace_back("dimension_numbers",
                      "#stablehlo.conv<raw " + i("input_batch_dimension") + ", " + i("input_feature_dimension") + ", " +
                          list("input_spatial_dimensions") + ", " + i("kernel_input_feature_dimension") + ", " +
                          i("kernel_output_feature_dimension") + ", " + list("kernel_spatial_dimensions") + ", " +
                          i("output_batch_dimension") + ", " + i("output_feature_dimension") + ", " +
                          list("output_spatial_dimensions") + ">");
    drop.insert({"input_batch_dimension", "input_feature_dimension", "input_spatial_dimensions",
                 "kernel_input_feature_dimension", "kernel_output_feature_dimension", "kernel_spatial_dimensions",
                 "output_batch_dimension", "output_feature_dimension", "output_spatial_dimensions"});
  }
  // 2. Channels: send/recv carry id and type, collectives an id only.
  if (op == "send" || op == "recv") {
    out->emplace_back("channel_handle", "#stablehlo.channel_handle<handle = " +
                                            std::to_string(Int(Find(attrs, "channel_id"), at, "channel_id")) +
                                            ", type = " +
                                            std::to_string(Int(Find(attrs, "channel_type"), at, "channel_type")) + ">");
    drop.insert({"channel_id", "channel_type"});
  } else if (has("channel_id")) {
    int64_t id = Int(Find(attrs, "channel_id"), at, "channel_id");
    if (id != 0 || !(op == "all_gather" || op == "all_reduce" || op == "reduce_scatter" || op == "all_to_all" ||
                     op == "collective_permute" || op == "collective_broadcast" || op == "collective_reduce"))
      out->emplace_back("channel_handle", "#stablehlo.channel_handle<handle = " + std::to_string(id) + ", type = 0>");
    drop.insert("channel_id");
  }
  // Booleans that StableHLO spells as unit attributes: present or absent.
  for (const char* flag : {"use_global_device_ids", "has_dynamic_root"}) {
    if (!has(flag)) continue;
    if (IsBool(Find(attrs, flag), true)) out->emplace_back(flag, "unit");
    drop.insert(flag);
  }
  // 3. Attributes that restate StableHLO's defaults (VHLO has no defaults).
  auto drop_if = [&](const char* n, bool cond) {
    if (cond) drop.insert(n);
  };
  if (op == "cholesky") drop_if("lower", IsBool(Find(attrs, "lower"), false));
  if (op == "compare") drop_if("compare_type", IsEnum(Find(attrs, "compare_type"), "NOTYPE"));
  if (op == "convolution" || op == "dynamic_conv") {
    drop_if("window_strides", IsSplatTensor(t, Find(attrs, "window_strides"), 1));
    drop_if("padding", IsSplatTensor(t, Find(attrs, "padding"), 0));
    drop_if("lhs_dilation", IsSplatTensor(t, Find(attrs, "lhs_dilation"), 1));
    drop_if("rhs_dilation", IsSplatTensor(t, Find(attrs, "rhs_dilation"), 1));
    drop_if("window_reversal", IsSplatTensor(t, Find(attrs, "window_reversal"), 0));
  }
  if (op == "convolution" || op == "dynamic_conv" || op == "dot_general" || op == "dot")
    drop_if("precision_config", IsSplatArrayOfEnum(t, Find(attrs, "precision_config"), "DEFAULT"));
  if (op == "custom_call") {
    drop_if("has_side_effect", IsBool(Find(attrs, "has_side_effect"), false));
    drop_if("backend_config", IsEmptyString(Find(attrs, "backend_config")) || IsEmptyDict(Find(attrs, "backend_config")));
    drop_if("api_version", IsEnum(Find(attrs, "api_version"), "API_VERSION_ORIGINAL"));
    for (const char* n : {"called_computations", "output_operand_aliases", "result_tilings"})
      drop_if(n, IsEmptyArray(Find(attrs, n)));
    // Layouts come in pairs: one list alone is not valid StableHLO.
    bool no_layouts = IsEmptyArray(Find(attrs, "operand_layouts")) && IsEmptyArray(Find(attrs, "result_layouts"));
    drop_if("operand_layouts", no_layouts);
    drop_if("result_layouts", no_layouts);
  }
  if (op == "dynamic_broadcast_in_dim") {
    drop_if("known_expanding_dimensions", IsEmptyTensor(Find(attrs, "known_expanding_dimensions")));
    drop_if("known_nonexpanding_dimensions", IsEmptyTensor(Find(attrs, "known_nonexpanding_dimensions")));
  }
  if (op == "gather" || op == "dynamic_gather" || op == "scatter")
    drop_if("indices_are_sorted", IsBool(Find(attrs, "indices_are_sorted"), false));
  if (op == "scatter") drop_if("unique_indices", IsBool(Find(attrs, "unique_indices"), false));
  if (op == "infeed") {
    drop_if("infeed_config", IsEmptyString(Find(attrs, "infeed_config")));
    drop_if("layout", IsEmptyArray(Find(attrs, "layout")));
  }
  if (op == "outfeed") drop_if("outfeed_config", IsEmptyString(Find(attrs, "outfeed_config")));
  if (op == "send" || op == "recv") {
    drop_if("is_host_transfer", IsBool(Find(attrs, "is_host_transfer"), false));
    drop_if("source_target_pairs", IsEmptyTensor(Find(attrs, "source_target_pairs")));
  }
  if (op == "reduce_window") {
    drop_if("window_strides", IsSplatTensor(t, Find(attrs, "window_strides"), 1));
    drop_if("base_dilations", IsSplatTensor(t, Find(attrs, "base_dilations"), 1));
    drop_if("window_dilations", IsSplatTensor(t, Find(attrs, "window_dilations"), 1));
    drop_if("padding", IsSplatTensor(t, Find(attrs, "padding"), 0));
  }
  if (op == "select_and_scatter") {
    drop_if("window_strides", IsSplatTensor(t, Find(attrs, "window_strides"), 1));
    drop_if("padding", IsSplatTensor(t, Find(attrs, "padding"), 0));
  }
  if (op == "sort") {
    drop_if("dimension", IsInt(Find(attrs, "dimension"), -1));
    drop_if("is_stable", IsBool(Find(attrs, "is_stable"), false));
  }
  if (op == "composite") {
    drop_if("composite_attributes", IsEmptyDict(Find(attrs, "composite_attributes")));
    drop_if("version", IsInt(Find(attrs, "version"), 0));
  }
  if (const AttrInfo* ra = Find(attrs, "result_accuracy")) {
    if (ra->kind == AttrInfo::Kind::kResultAccuracy && ra->f1 == 0 && ra->f2 == 0 && ra->i == 0 &&
        IsEnum(&t.Attr(ra->elements[0], at), "DEFAULT"))
      drop.insert("result_accuracy");
  }
  for (auto& [n, a] : attrs)
    if (!drop.count(n)) out->emplace_back(n, render(n, *a));
}

}  // namespace kiln::ir::bytecode

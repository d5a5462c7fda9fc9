// VHLO op tables and attribute rules (vhlo_ops.h).
#include "compiler/parse/bytecode/vhlo_ops.h"

#include <cstdio>
#include <cstdlib>
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

bool VhloOpKnown(const std::string&) { return true; }

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

void ConvertVhloAttrs(const std::string& op, const std::string&,
                      const std::vector<std::pair<std::string, const AttrInfo*>>& attrs, size_t,
                      const RenderFn& render, std::vector<std::pair<std::string, std::string>>* out,
                      AttrTypeTable&) {
  for (auto& [n, a] : attrs) out->emplace_back(n, render(n, *a));
}

}  // namespace kiln::ir::bytecode

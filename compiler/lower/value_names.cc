#include "compiler/lower/value_names.h"

#include <string_view>
#include <vector>

namespace kiln::compiler {
namespace {

// Entry `index` of the function's per-value attribute array `list`
// ("arg_attrs" or "res_attrs"), or null when there is none.
const ir::Attribute* EntryAttrs(const ir::Function& fn, std::string_view list, size_t index) {
  for (const auto& na : fn.attrs)
    if (na.first == list && na.second.kind == ir::Attribute::Kind::kArray && index < na.second.elements.size())
      return &na.second.elements[index];
  return nullptr;
}

std::string StringField(const ir::Attribute* dict, std::string_view field) {
  if (!dict) return "";
  const ir::Attribute* a = dict->Field(field);
  return a && a->kind == ir::Attribute::Kind::kString ? a->str : "";
}

// tf_saved_model.index_path = ["a", 0, "b"]: its parts joined by '.'.
std::string IndexPath(const ir::Attribute* dict) {
  if (!dict) return "";
  const ir::Attribute* a = dict->Field("tf_saved_model.index_path");
  if (!a || a->kind != ir::Attribute::Kind::kArray) return "";
  std::string out;
  for (const auto& e : a->elements) {
    std::string part;
    if (e.kind == ir::Attribute::Kind::kString) part = e.str;
    else if (e.kind == ir::Attribute::Kind::kInt) part = std::to_string(e.i);
    else return "";
    out += (out.empty() ? "" : ".") + part;
  }
  return out;
}

// The index'th comma-separated name of tf.entry_function's `key`, or ""
// unless the list names exactly `count` values (a list that does not match
// the signature, say after an argument was bound, names nothing reliably).
std::string EntryFunctionName(const ir::Function& fn, std::string_view key, size_t index, size_t count) {
  for (const auto& na : fn.attrs) {
    if (na.first != "tf.entry_function" || na.second.kind != ir::Attribute::Kind::kDict) continue;
    const std::string list = StringField(&na.second, key);
    if (list.empty()) return "";
    std::vector<std::string> names(1);
    for (char c : list) {
      if (c == ',') names.emplace_back();
      else names.back() += c;
    }
    return names.size() == count ? names[index] : "";
  }
  return "";
}

std::string NameOf(const ir::Function& fn, std::string_view list, std::string_view jax_field,
                   std::string_view tf_key, size_t index, size_t count) {
  const ir::Attribute* attrs = EntryAttrs(fn, list, index);
  std::string name = StringField(attrs, jax_field);
  if (name.empty()) name = IndexPath(attrs);
  if (name.empty()) name = EntryFunctionName(fn, tf_key, index, count);
  return name;
}

}  // namespace

std::string ArgumentSourceName(const ir::Function& fn, size_t index) {
  return NameOf(fn, "arg_attrs", "jax.arg_info", "inputs", index, fn.arg_types.size());
}

std::string ResultSourceName(const ir::Function& fn, size_t index) {
  return NameOf(fn, "res_attrs", "jax.result_info", "outputs", index, fn.result_types.size());
}

}  // namespace kiln::compiler

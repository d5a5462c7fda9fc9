// What Kiln knows of VHLO's ops (stablehlo/dialect/VhloOps.td): the names of
// each op version's attributes in the order their properties are written
// (bytecode version 5 on stores them without names), and the rules that turn
// VHLO attributes into StableHLO ones.
#pragma once
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "compiler/parse/bytecode/attr_types.h"

namespace kiln::ir::bytecode {

// Property names of `op` (e.g. "vhlo.compare_v1"), or null if unknown.
const std::vector<const char*>* VhloPropertyNames(const std::string& op);
bool VhloOpKnown(const std::string& op);
// Attributes whose VHLO strings are StableHLO symbol references.
bool IsSymbolAttr(const std::string& name);
// Attributes that StableHLO spells array<i64: ...> (VHLO: a 1-D tensor).
bool IsIntArrayAttr(const std::string& name);

using RenderFn = std::function<std::string(const std::string& name, const AttrInfo&)>;
// Appends (name, StableHLO text) for the attributes of VHLO op `op` (without
// dialect and version) in the order Kiln's text form would have them.
void ConvertVhloAttrs(const std::string& op, const std::string& version,
                      const std::vector<std::pair<std::string, const AttrInfo*>>& attrs, size_t offset,
                      const RenderFn& render, std::vector<std::pair<std::string, std::string>>* out,
                      AttrTypeTable& table);

}  // namespace kiln::ir::bytecode

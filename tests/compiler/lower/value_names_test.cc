// The names of arguments and results the compiler keeps in the module's
// signatures (compiler/lower/value_names.h, TensorSig.name): JAX's and TF's
// attributes, in order of preference; none where the source gives none; and
// still each value's own after a pass drops arguments (--params-from-args,
// --platforms).
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "schema/module_generated.h"

namespace kiln::compiler {
namespace {

std::string ReadSource(const std::string& path) {
  std::ifstream in(std::string(KILN_SOURCE_DIR) + "/" + path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

struct Names {
  std::vector<std::string> args, results;
};

// The names of function `fn` in the compiled module; "<none>" where the
// file stores no name at all (an empty name is never stored).
Names NamesOf(const std::string& source, const std::string& fn, CompileOptions options = {}) {
  options.target = "cpu";
  auto bytes = Compile(source, "names.mlir", options, nullptr);
  EXPECT_TRUE(bytes.ok()) << bytes.status().message();
  Names out;
  if (!bytes.ok()) return out;
  const fb::Module* m = fb::GetModule(bytes.value().data());
  for (const auto* f : *m->functions()) {
    if (f->name()->str() != fn) continue;
    auto name = [](const fb::TensorSig* s) { return s->name() ? s->name()->str() : std::string("<none>"); };
    for (const auto* s : *f->args()) out.args.push_back(name(s));
    for (const auto* s : *f->results()) out.results.push_back(name(s));
  }
  return out;
}

using V = std::vector<std::string>;

TEST(ValueNames, JaxArgAndResultInfo) {
  Names n = NamesOf(ReadSource("tests/data/named_values.mlir"), "main");
  EXPECT_EQ(n.args, (V{"params['w']", "x", "<none>"}));
  EXPECT_EQ(n.results, (V{"[0]", "['count']", "<none>"}));
}

TEST(ValueNames, TfIndexPathThenEntryFunction) {
  // a: index_path ["inputs", 0]; b: none of its own, so entry_function's.
  Names n = NamesOf(ReadSource("tests/data/named_values.mlir"), "tf_names");
  EXPECT_EQ(n.args, (V{"inputs.0", "b"}));
  EXPECT_EQ(n.results, (V{"sum"}));
}

TEST(ValueNames, LoneJaxResultHasNoName) {
  Names n = NamesOf(ReadSource("tests/data/named_values.mlir"), "lone");
  EXPECT_EQ(n.args, (V{"x"}));
  EXPECT_EQ(n.results, (V{"<none>"}));
}

TEST(ValueNames, EntryFunctionListOfAnotherLengthNamesNothing) {
  Names n = NamesOf(R"(
func.func @f(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> attributes {tf.entry_function = {inputs = "a", outputs = "o,p"}} {
  %0 = stablehlo.add %a, %b : tensor<f32>
  return %0 : tensor<f32>
}
)",
                    "f");
  EXPECT_EQ(n.args, (V{"<none>", "<none>"}));
  EXPECT_EQ(n.results, (V{"<none>"}));
}

TEST(ValueNames, NamesFollowTheirArgumentsWhenParamsFromArgsDropsSome) {
  CompileOptions options;
  options.params_from_args = {"params"};
  options.params_scope = "w";
  Names n = NamesOf(ReadSource("tests/data/cli_jax_params.mlir"), "main", options);
  EXPECT_EQ(n.args, (V{"x"}));
}

TEST(ValueNames, NamesFollowTheirArgumentsWhenThePlatformIndexIsBound) {
  CompileOptions options;
  options.platforms = {"cuda", "cpu", "tpu"};
  Names n = NamesOf(ReadSource("tests/data/jax/platform_index.mlir"), "main", options);
  EXPECT_EQ(n.args, (V{"x"}));
  EXPECT_EQ(n.results, (V{"<none>"}));
}

}  // namespace
}  // namespace kiln::compiler

# What JAX exports and the StableHLO tools print (included by
# tests/CMakeLists.txt after cli_tools.cmake, whose cli_test it uses; T is
# the scratch folder): the syntax of tests/data/jax/syntax.mlir, refusals
# with their messages.
set(JD ${CMAKE_CURRENT_SOURCE_DIR}/data/jax)

add_test(NAME conformance.jax_syntax.cpu COMMAND kiln-conformance ${JD}/syntax.mlir --strict)
set_tests_properties(conformance.jax_syntax.cpu PROPERTIES
                     PASS_REGULAR_EXPRESSION "unsupported: 0\nconformance: 6 passed, 0 failed")

# A body that calls a recursive function cannot be inlined: refused at the call.
cli_test(cli.compile_refuses_recursive_body_call "" "recursive_body_call.mlir:2:8: error: func.call @f in a body: more than 4096 calls to inline [(]a recursive function cannot be inlined[)]\n.*exit=1\n$"
         "${COMPILE} ${JD}/recursive_body_call.mlir -o ${T}/recursive.kiln --target=cpu")

# What JAX exports and the StableHLO tools print (included by
# tests/CMakeLists.txt after cli_tools.cmake, whose cli_test it uses; T is
# the scratch folder): the syntax of tests/data/jax/syntax.mlir, refusals
# with their messages.
set(JD ${CMAKE_CURRENT_SOURCE_DIR}/data/jax)

add_test(NAME conformance.jax_syntax.cpu COMMAND kiln-conformance ${JD}/syntax.mlir --strict)
set_tests_properties(conformance.jax_syntax.cpu PROPERTIES
                     PASS_REGULAR_EXPRESSION "unsupported: 0\nconformance: 7 passed, 0 failed")

# A body that calls a recursive function cannot be inlined: refused at the call.
cli_test(cli.compile_refuses_recursive_body_call "" "recursive_body_call.mlir:2:8: error: func.call @f in a body: more than 4096 calls to inline [(]a recursive function cannot be inlined[)]\n.*exit=1\n$"
         "${COMPILE} ${JD}/recursive_body_call.mlir -o ${T}/recursive.kiln --target=cpu")

# JAX's conventions with checked values: sharding custom calls, composite,
# a shape assertion that holds (tests/data/jax/conventions.mlir).
add_test(NAME conformance.jax_conventions.cpu COMMAND kiln-conformance ${JD}/conventions.mlir --strict)
set_tests_properties(conformance.jax_conventions.cpu PROPERTIES
                     PASS_REGULAR_EXPRESSION "unsupported: 0\nconformance: 3 passed, 0 failed")

# A shape assertion: passes for a batch of 2; for a batch of 1 the call fails
# with JAX's message, its placeholders replaced by the dimension's value, at
# the custom_call's location.
add_test(NAME cli.compile_jax_shape_assertion
         COMMAND kiln-compile ${JD}/shape_assertion.mlir -o ${T}/shape_assertion.kiln)
cli_test(cli.run_jax_shape_assertion_passes cli.compile_jax_shape_assertion "^2x3xf32=2,2,2,4,4,4\nexit=0\n$"
         "${RUN} ${T}/shape_assertion.kiln --input=2x3xf32=1,1,1,2,2,2")
cli_test(cli.run_jax_shape_assertion_fails cli.compile_jax_shape_assertion
         "^error: [^\n]*shape_assertion.mlir:11:5: Input shapes do not match the polymorphic shapes specification. Expected value >= 2 for dimension variable 'b'. Using the following polymorphic shapes specifications: args\\[0\\].shape = [(]b, 3[)]. Obtained dimension variables: 'b' = 1 from specification 'b' for dimension args\\[0\\].shape\\[0\\] [(]= 1[)], . Please see https://docs.jax.dev/en/latest/export/shape_poly.html#shape-assertion-errors for more details.\nexit=1\n$"
         "${RUN} ${T}/shape_assertion.kiln --input=1x3xf32=1,1,1")
if(KILN_ENABLE_VULKAN)
  cli_test(cli.run_jax_shape_assertion_fails_on_vulkan cli.compile_jax_shape_assertion
           "^error: [^\n]*shape_assertion.mlir:11:5: Input shapes do not match [^\n]*'b' = 0 from specification[^\n]*\nexit=1\n$"
           "${RUN} ${T}/shape_assertion.kiln --device=vulkan --input=0x3xf32=")
endif()
# A placeholder naming a value the assertion lacks is refused at compile time.
cli_test(cli.compile_refuses_shape_assertion_bad_placeholder ""
         "shape_assertion_bad_placeholder.mlir:5:3: error: stablehlo.custom_call @shape_assertion: error_message's placeholder [{]1[}] names value 1, but the assertion has 1 values after its predicate\n.*exit=1\n$"
         "${COMPILE} ${JD}/shape_assertion_bad_placeholder.mlir -o ${T}/bad_placeholder.kiln")

# The platform index of a multi-platform export (tests/data/jax/
# platform_index.mlir: x + 2, x + 3, x + 4 on the three platforms): bound to
# cpu's position in --platforms, it leaves the signature; without
# --platforms it stays an argument, with a warning naming the flag; a list
# without cpu is refused.
cli_test(cli.jax_platform_index_cpu_second "" "^3xf32=4,5,6\nexit=0\n$"
         "${COMPILE} ${JD}/platform_index.mlir -o ${T}/platform_index.kiln --platforms=cuda,cpu,tpu && ${RUN} ${T}/platform_index.kiln --input=3xf32=1,2,3")
cli_test(cli.jax_platform_index_cpu_first "" "^3xf32=3,4,5\nexit=0\n$"
         "${COMPILE} ${JD}/platform_index.mlir -o ${T}/platform_index_first.kiln --platforms=CPU,cuda,tpu && ${RUN} ${T}/platform_index_first.kiln --input=3xf32=1,2,3")
cli_test(cli.jax_platform_index_unknown ""
         "platform_index.mlir:8:3: warning: argument 0 of @main [(]JAX's platform index[)] stays an argument: pass the export's platforms [(]jax.export's Exported.platforms[)] with --platforms=cpu,... to bind it to the cpu lowering's index\n.*\n3xf32=5,6,7\nexit=0\n$"
         "${COMPILE} ${JD}/platform_index.mlir -o ${T}/platform_index_arg.kiln && ${RUN} ${T}/platform_index_arg.kiln --input=i32=2 --input=3xf32=1,2,3")
cli_test(cli.jax_platform_index_without_cpu ""
         "platform_index.mlir:8:3: error: the export's platforms [(]cuda, tpu[)] do not include cpu: Kiln runs the cpu lowering\n.*exit=1\n$"
         "${COMPILE} ${JD}/platform_index.mlir -o ${T}/platform_index_nocpu.kiln --platforms=cuda,tpu")

# Deprecated ops are legalized to spec ops (tests/data/ops/deprecated_ops.mlir
# checks their values); what a rewrite cannot express is refused at the op.
cli_test(cli.compile_refuses_einsum_diagonal ""
         "einsum_diagonal.mlir:2:8: error: stablehlo.unary_einsum 'ii->i': label 'i' repeats in one operand or the result [(]a diagonal[)], which is not supported\n.*exit=1\n$"
         "${COMPILE} ${JD}/einsum_diagonal.mlir -o ${T}/einsum_diagonal.kiln")
cli_test(cli.compile_refuses_einsum_wrong_result ""
         "einsum_wrong_result.mlir:2:8: error: stablehlo.einsum 'ab,bc->ac' gives tensor \\[2, 4\\] of f32, but the result is tensor<2x5xf32>\n.*exit=1\n$"
         "${COMPILE} ${JD}/einsum_wrong_result.mlir -o ${T}/einsum_wrong_result.kiln")

# XLA's linear-algebra custom calls: LAPACK's Cholesky, LU, QR, symmetric
# and Hermitian eigendecompositions, the general eigendecomposition, real
# and complex SVD (gesdd, and gesvd for algorithm=QR), the Schur
# decomposition, Hessenberg and tridiagonal reductions, the tridiagonal
# solve and BLAS's triangular solve run (tests/data/jax/cholesky_lapack.mlir,
# lu_lapack.mlir, qr_lapack.mlir, eigh_lapack.mlir; with LAPACK's own
# values (gen_lapack_values.py) eig_lapack.mlir, eigh_signs_lapack.mlir,
# tridiagonal_solve_lapack.mlir, pivoted_qr_lapack.mlir and
# svd_signs_lapack.mlir; svd_lapack.mlir,
# svd_complex_lapack.mlir,
# hessenberg_lapack.mlir, tridiagonal_lapack.mlir, trsm_blas.mlir); the
# Schur decomposition runs too (schur_lapack.mlir, LAPACK's own values);
# any other lapack_ or blas_ target is refused (unknown_lapack.mlir).
# Each: test name, file, the number of its check functions.
foreach(case "lapack_cholesky;cholesky_lapack;4" "lapack_lu;lu_lapack;5" "blas_trsm;trsm_blas;4" "lapack_qr;qr_lapack;5"
             "lapack_eigh;eigh_lapack;5" "lapack_svd;svd_lapack;5" "lapack_svd_complex;svd_complex_lapack;2"
             "lapack_hessenberg;hessenberg_lapack;3" "lapack_tridiagonal;tridiagonal_lapack;4"
             "lapack_legacy;legacy_lapack;7" "lapack_eig;eig_lapack;13"
             "lapack_eigh_signs;eigh_signs_lapack;7" "lapack_tridiagonal_solve;tridiagonal_solve_lapack;7"
             "lapack_pivoted_qr;pivoted_qr_lapack;9" "lapack_svd_signs;svd_signs_lapack;18"
             "lapack_schur;schur_lapack;12")
  list(GET case 0 name)
  list(GET case 1 file)
  list(GET case 2 checks)
  add_test(NAME conformance.jax_${name}.cpu COMMAND kiln-conformance ${JD}/${file}.mlir --strict)
  set_tests_properties(conformance.jax_${name}.cpu PROPERTIES
                       PASS_REGULAR_EXPRESSION "unsupported: 0\nconformance: ${checks} passed, 0 failed")
endforeach()
if(KILN_ENABLE_VULKAN)
  # Cholesky, LU, QR, pivoted QR, eigh, the SVDs (gesdd, gesvd), the
  # tridiagonal reduction and solve (real and complex), the Hessenberg
  # reduction, the triangular solve and jaxlib's forms before the FFI on
  # the Vulkan device too. Each: test name, file,
  # functions passed, functions refused.
  foreach(case "lapack_cholesky;cholesky_lapack;4;0" "lapack_lu;lu_lapack;5;0" "lapack_qr;qr_lapack;5;0"
               "lapack_eigh;eigh_lapack;5;0" "lapack_eigh_signs;eigh_signs_lapack;7;0" "lapack_pivoted_qr;pivoted_qr_lapack;9;0"
               "lapack_svd;svd_lapack;5;0" "lapack_svd_complex;svd_complex_lapack;2;0"
               "lapack_svd_signs;svd_signs_lapack;18;0" "lapack_legacy;legacy_lapack;7;0"
               "lapack_tridiagonal;tridiagonal_lapack;4;0" "lapack_tridiagonal_solve;tridiagonal_solve_lapack;7;0"
               "blas_trsm;trsm_blas;4;0" "lapack_hessenberg;hessenberg_lapack;3;0")
    list(GET case 0 name)
    list(GET case 1 file)
    list(GET case 2 checks)
    list(GET case 3 refused)
    add_test(NAME conformance.jax_${name}.vulkan COMMAND kiln-conformance ${JD}/${file}.mlir --device=vulkan)
    set_tests_properties(conformance.jax_${name}.vulkan PROPERTIES
                         PASS_REGULAR_EXPRESSION "unsupported: ${refused}\nconformance: ${checks} passed, 0 failed")
  endforeach()
endif()
cli_test(cli.compile_refuses_unknown_lapack ""
         "unknown_lapack.mlir:2:10: error: stablehlo.custom_call @lapack_ssysv_ffi [(]a LAPACK routine Kiln does not run[)] is not supported yet. Kiln runs lapack_[?]potrf_ffi [(]Cholesky[)], lapack_[?]getrf_ffi [(]LU[)], lapack_[?]geqrf_ffi and lapack_[?]orgqr_ffi [(]QR[)], lapack_[?]geqp3_ffi [(]pivoted QR[)], lapack_[{]s,d[}]syevd_ffi and lapack_[{]c,z[}]heevd_ffi [(]symmetric and Hermitian eigendecompositions[)], lapack_[?]gesdd_ffi and lapack_[?]gesvd_ffi [(]SVD[)], lapack_[?]geev_ffi [(]eigendecomposition[)], lapack_[?]gees_ffi [(]Schur[)], lapack_[?]gehrd_ffi [(]Hessenberg[)], lapack_[{]s,d[}]sytrd_ffi and lapack_[{]c,z[}]hetrd_ffi [(]tridiagonal[)], lapack_[?]gtsv_ffi [(]tridiagonal solve[)], blas_[?]trsm_ffi [(]triangular solve[)], and jaxlib's forms of potrf, getrf, geqrf, orgqr, syevd, heevd, gesdd, geev, gees and trsm before the FFI\n.*exit=1\n$"
         "${COMPILE} ${JD}/unknown_lapack.mlir -o ${T}/unknown.kiln")
# Ops that exports carry as custom calls: @mhlo.topk (chlo.top_k in a
# portable artifact), @mhlo.erf, JAX's @stablehlo.dynamic_top_k,
# @stablehlo.dynamic_reduce_window and @stablehlo.dynamic_rng_bit_generator
# run on both devices
# (tests/data/jax/mhlo_custom_calls.mlir); the forms they cannot express
# are refused at the op.
# jax.lax.approx_max_k / approx_min_k: XLA's @ApproxTopK run as its CPU
# fallback (tests/data/jax/approx_top_k.mlir). Each: name, file, checks;
# on the CPU and, where built, on the Vulkan device.
foreach(case "mhlo_custom_calls;mhlo_custom_calls;7" "approx_top_k;approx_top_k;3")
  list(GET case 0 name)
  list(GET case 1 file)
  list(GET case 2 checks)
  set(devices cpu)
  if(KILN_ENABLE_VULKAN)
    list(APPEND devices vulkan)
  endif()
  foreach(device ${devices})
    add_test(NAME conformance.jax_${name}.${device}
             COMMAND kiln-conformance ${JD}/${file}.mlir --device=${device} --strict)
    set_tests_properties(conformance.jax_${name}.${device} PROPERTIES
                         PASS_REGULAR_EXPRESSION "unsupported: 0\nconformance: ${checks} passed, 0 failed")
  endforeach()
endforeach()
cli_test(cli.compile_refuses_mhlo_topk_smallest ""
         "mhlo_topk_smallest.mlir:2:10: error: stablehlo.custom_call @mhlo.topk [(]top_k[)]: largest = false [(]the k smallest[)] is not supported\n.*exit=1\n$"
         "${COMPILE} ${JD}/mhlo_topk_smallest.mlir -o ${T}/mhlo_topk_smallest.kiln")
# The rewrite runs before --params-from-args adds Kiln's own ops (the
# module is verified again after it).
cli_test(cli.jax_mhlo_topk_with_params_from_args ""
         "^exit=0\n$"
         "${COMPILE} ${JD}/mhlo_topk_params.mlir -o ${T}/mhlo_topk_params.kiln --target=cpu --params-from-args=w")
cli_test(cli.compile_refuses_dynamic_reduce_window_runtime_window ""
         "dynamic_reduce_window_runtime_window.mlir:9:8: error: stablehlo.custom_call @stablehlo.dynamic_reduce_window [(]reduce_window[)]: window_dimensions must be a constant [(]window parameters known only at run time are not supported[)]\n.*exit=1\n$"
         "${COMPILE} ${JD}/dynamic_reduce_window_runtime_window.mlir -o ${T}/drw.kiln")
cli_test(cli.compile_refuses_dynamic_rng_bit_generator_runtime_shape ""
         "dynamic_rng_bit_generator_runtime_shape.mlir:2:10: error: stablehlo.custom_call @stablehlo.dynamic_rng_bit_generator [(]rng_bit_generator[)]: output_shape must be a constant [(]a shape known only at run time is not supported[)]\n.*exit=1\n$"
         "${COMPILE} ${JD}/dynamic_rng_bit_generator_runtime_shape.mlir -o ${T}/drbg.kiln")
cli_test(cli.compile_refuses_dynamic_top_k_runtime_k ""
         "dynamic_top_k_runtime_k.mlir:2:10: error: stablehlo.custom_call @stablehlo.dynamic_top_k [(]top_k[)]: k must be a constant [(]a k known only at run time is not supported[)]\n.*exit=1\n$"
         "${COMPILE} ${JD}/dynamic_top_k_runtime_k.mlir -o ${T}/dynamic_top_k.kiln")
# jaxlib's calls before the FFI (tests/data/jax/legacy_lapack.mlir): the
# dims and flags must be constants; a routine Kiln does not run is refused
# by name in that form too.
cli_test(cli.compile_refuses_legacy_lapack_flag_not_constant ""
         "legacy_lapack_bad.mlir:3:8: error: stablehlo.custom_call @lapack_spotrf [(]jaxlib's form before the FFI[)]: operand 0 [(]a dim or flag[)] must be a stablehlo.constant\n.*exit=1\n$"
         "${COMPILE} ${JD}/legacy_lapack_bad.mlir -o ${T}/legacy_bad.kiln")
cli_test(cli.compile_refuses_legacy_unknown_lapack ""
         "legacy_unknown_lapack.mlir:3:8: error: stablehlo.custom_call @lapack_ssysv [(]a LAPACK routine Kiln does not run[)] is not supported yet"
         "${COMPILE} ${JD}/legacy_unknown_lapack.mlir -o ${T}/legacy_unknown.kiln")

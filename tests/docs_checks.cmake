# Included by tests/CMakeLists.txt: what the README and docs promise about
# the build, the Quickstart, the thread default, device names and the Vulkan
# target's refusals, checked against what the code does.

# GCC 12's false positives inside libstdc++ stay silenced by the project's
# warning flags (KILN_WARNING_FLAGS, top-level CMakeLists.txt): the
# reproducers compile at -O3 with -Werror.
add_test(NAME build.no_gcc12_false_positives
         COMMAND ${CMAKE_CXX_COMPILER} -std=c++20 -O3 ${KILN_WARNING_FLAGS} -Werror
                 -c ${CMAKE_CURRENT_SOURCE_DIR}/data/gcc12_false_positives.cc
                 -o ${CMAKE_CURRENT_BINARY_DIR}/gcc12_false_positives.o)

# scripts/run_example.sh builds every tool README.md and docs/ run from build/.
add_test(NAME docs.quickstart_builds_every_tool
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/data/check_quickstart_tools.sh ${CMAKE_SOURCE_DIR})

if(KILN_BUILD_COMPILER AND KILN_BUILD_TOOLS)
  set(DT ${CMAKE_CURRENT_BINARY_DIR}/docs_checks)
  file(MAKE_DIRECTORY ${DT})
  # Each test compiles its own copy of the spec example (tests may run in parallel).
  set(DT_INPUTS "--input=28x28xf32=0.5 --input=784x10xf32=0.01 --input=1x10xf32=0.25")
  foreach(n 1 2 3 4)
    set(DT_SPEC${n} "$<TARGET_FILE:kiln-compile> ${CMAKE_SOURCE_DIR}/examples/spec_program.mlir -o ${DT}/spec${n}.kiln --target=cpu")
  endforeach()
  # KILN_THREADS sizes the CPU device's pool when --threads is not given; the
  # device's name (vm-bench prints it) says how many threads it has.
  add_test(NAME cli.kiln_threads_sizes_the_cpu_pool
           COMMAND sh -c "${DT_SPEC1} && KILN_THREADS=1 $<TARGET_FILE:vm-bench> ${DT}/spec1.kiln --function=main --iterations=1 --warmup=0 ${DT_INPUTS}")
  set_tests_properties(cli.kiln_threads_sizes_the_cpu_pool PROPERTIES
                       PASS_REGULAR_EXPRESSION "main on cpu [(](inline|deferred), 1 thread[)]: ")
  add_test(NAME cli.threads_flag_wins_over_kiln_threads
           COMMAND sh -c "${DT_SPEC2} && KILN_THREADS=1 $<TARGET_FILE:vm-bench> ${DT}/spec2.kiln --function=main --iterations=1 --warmup=0 --threads=3 ${DT_INPUTS}")
  set_tests_properties(cli.threads_flag_wins_over_kiln_threads PROPERTIES
                       PASS_REGULAR_EXPRESSION "main on cpu [(](inline|deferred), 3 threads[)]: ")
  add_test(NAME cli.vm_run_refuses_bad_kiln_threads
           COMMAND sh -c "${DT_SPEC3} && KILN_THREADS=lots $<TARGET_FILE:vm-run> ${DT}/spec3.kiln ${DT_INPUTS} 2>&1; echo exit=$?")
  set_tests_properties(cli.vm_run_refuses_bad_kiln_threads PROPERTIES PASS_REGULAR_EXPRESSION
                       "^error: KILN_THREADS='lots' is not a thread count: expected a whole number from 0 to 1024 [(]0: one per core[)]\nexit=1\n$")
  # "" is no device's name (the tools and the C API share the lookup).
  add_test(NAME cli.vm_run_refuses_empty_device
           COMMAND sh -c "${DT_SPEC4} && $<TARGET_FILE:vm-run> ${DT}/spec4.kiln --device '' ${DT_INPUTS} 2>&1; echo exit=$?")
  set_tests_properties(cli.vm_run_refuses_empty_device PROPERTIES PASS_REGULAR_EXPRESSION
                       "^error: the device name is empty [(]expected cpu or vulkan\\[:N\\][)]\nexit=1\n$")
endif()

if(KILN_BUILD_COMPILER)
  # The chlo ops of tests/data/ops/chlo_ops.mlir give the right values on the CPU.
  add_test(NAME conformance.chlo_ops.cpu
           COMMAND kiln-conformance ${CMAKE_SOURCE_DIR}/tests/data/ops/chlo_ops.mlir --strict)
  set_tests_properties(conformance.chlo_ops.cpu PROPERTIES
                       PASS_REGULAR_EXPRESSION "unsupported: 0\nconformance: 19 passed, 0 failed")
  if(KILN_ENABLE_VULKAN)
    # ... and on the Vulkan device, none refused (the special functions in f64).
    add_test(NAME conformance.chlo_ops.vulkan
             COMMAND kiln-conformance ${CMAKE_SOURCE_DIR}/tests/data/ops/chlo_ops.mlir --device=vulkan --strict)
    set_tests_properties(conformance.chlo_ops.vulkan PROPERTIES
                         PASS_REGULAR_EXPRESSION "unsupported: 0\nconformance: 19 passed, 0 failed")
  endif()
endif()
if(KILN_BUILD_COMPILER AND KILN_BUILD_TOOLS)
  # docs/performance.md says how many dispatches the benchmark chain takes.
  add_test(NAME docs.performance_chain_dispatches
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/data/check_chain_dispatches_documented.sh ${CMAKE_SOURCE_DIR}
                   $<TARGET_FILE:kiln-compile> $<TARGET_FILE:vm-dump> ${CMAKE_CURRENT_BINARY_DIR}/docs_checks/chain)
endif()
if(KILN_BUILD_COMPILER AND KILN_BUILD_TOOLS AND KILN_ENABLE_VULKAN)
  # docs/vulkan.md (Not yet) and docs/ops.md name every one the vulkan target refuses.
  add_test(NAME docs.vulkan_refusals_documented
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/data/check_vulkan_refusals_documented.sh ${CMAKE_SOURCE_DIR}
                   $<TARGET_FILE:kiln-conformance> ${CMAKE_CURRENT_BINARY_DIR}/docs_checks/vulkan_refusals)
endif()

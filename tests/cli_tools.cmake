# The tools' command lines (included by tests/CMakeLists.txt inside its
# KILN_BUILD_TOOLS block; T is the scratch folder, io.kiln comes from
# cli.compile_io). Each command ends with "exit=$?" so a test sees both the
# message and the exit status.
set(D ${CMAKE_CURRENT_SOURCE_DIR}/data)
function(cli_test name deps regex command)
  add_test(NAME ${name} COMMAND sh -c "${command} 2>&1; echo exit=$?")
  set_tests_properties(${name} PROPERTIES PASS_REGULAR_EXPRESSION "${regex}" TIMEOUT 60)
  if(NOT "${deps}" STREQUAL "")
    set_tests_properties(${name} PROPERTIES DEPENDS "${deps}")
  endif()
endfunction()
set(RUN $<TARGET_FILE:vm-run>)
set(CHECK $<TARGET_FILE:vm-check>)
set(BENCH $<TARGET_FILE:vm-bench>)
set(DUMP $<TARGET_FILE:vm-dump>)
set(COMPILE $<TARGET_FILE:kiln-compile>)

# Options in any order: a repeatable option takes one value per occurrence,
# so the module path after it stays the module.
cli_test(cli.vm-run_input_before_module cli.compile_io "^3xf32=1,1,1\nexit=0\n$"
         "${RUN} --input=3xf32=1 ${T}/io.kiln")
cli_test(cli.vm-run_input_value_after_space cli.compile_io "^3xf32=2,2,2\nexit=0\n$"
         "${RUN} --input 3xf32=2 ${T}/io.kiln")
cli_test(cli.vm-run_output_before_module cli.compile_io "^written\nexit=0\n$"
         "rm -f ${T}/first.npy; ${RUN} --output=@${T}/first.npy ${T}/io.kiln --input=3xf32=2 && test -s ${T}/first.npy && echo written")
cli_test(cli.vm-bench_input_before_module cli.compile_io "main on cpu[^\n]*: 2 runs, min [0-9.]+ ms[^\n]*\nexit=0\n$"
         "${BENCH} --input=3xf32=1 --iterations=2 ${T}/io.kiln")
cli_test(cli.vm-run_second_module cli.compile_io "^error: unexpected argument 'other.kiln' [(]vm-run takes one module file [(].kiln[)][)]\nexit=1\n$"
         "${RUN} ${T}/io.kiln other.kiln --input=3xf32=1")
cli_test(cli.vm-run_unknown_option cli.compile_io "^error: unknown option '--inptu' [(]'vm-run --help' lists the options[)]\nexit=1\n$"
         "${RUN} ${T}/io.kiln --inptu=3xf32=1")
cli_test(cli.vm-run_option_without_value cli.compile_io "^error: --input needs a value [(]--input=VALUE[)]\nexit=1\n$"
         "${RUN} ${T}/io.kiln --input")
cli_test(cli.vm-check_needs_module "" "^error: vm-check needs a module file [(].kiln[)] [(]'vm-check --help' shows the usage[)]\nexit=1\n$"
         "${CHECK} --stats")

# Numeric flags: a stated range and a plain message.
cli_test(cli.vm-bench_iterations_at_least_1 cli.compile_io "^error: --iterations must be at least 1, not 0\nexit=1\n$"
         "${BENCH} ${T}/io.kiln --input=3xf32=1 --iterations=0")
cli_test(cli.vm-bench_warmup_not_negative cli.compile_io "^error: --warmup must be at least 0, not -1\nexit=1\n$"
         "${BENCH} ${T}/io.kiln --input=3xf32=1 --warmup=-1")
cli_test(cli.vm-run_threads_not_a_number cli.compile_io
         "^error: --threads must be a whole number between 0 and 1024 [(]0: KILN_THREADS if set, else one per core[)], not 'abc'\nexit=1\n$"
         "${RUN} ${T}/io.kiln --input=3xf32=1 --threads=abc")
cli_test(cli.vm-check_threads_negative cli.compile_io
         "^error: --threads must be between 0 and 1024 [(]0: KILN_THREADS if set, else one per core[)], not -1\nexit=1\n$"
         "${CHECK} ${T}/io.kiln --threads=-1")
foreach(value 1e300 inf 0)
  cli_test(cli.vm-run_collective_timeout_${value} cli.compile_io
           "^error: --collective-timeout must be more than 0 and at most 1000000 seconds, not ${value}\nexit=1\n$"
           "${RUN} ${T}/io.kiln --input=3xf32=1 --collective-timeout=${value}")
endforeach()
cli_test(cli.vm-check_timeout_not_a_number cli.compile_io
         "^error: --timeout must be a number of seconds, more than 0 and at most 1000000 seconds, not 'soon'\nexit=1\n$"
         "${CHECK} ${T}/io.kiln --timeout=soon")
cli_test(cli.kiln-compile_target_choices "" "^error: --target must be cpu, vulkan or all, not 'gpu'\nexit=1\n$"
         "${COMPILE} ${D}/cli_io.mlir -o ${T}/gpu.kiln --target=gpu")
# A repeated single-value option keeps its last value.
cli_test(cli.vm-run_last_value_wins cli.compile_io "^3xi64=7,7,7\nexit=0\n$"
         "${RUN} ${T}/io.kiln --function=main --function=i64 --input=3xi64=7")
# --help shows each option's range and default.
cli_test(cli.vm-bench_help_shows_defaults "" "--iterations INT +timed invocations [(]at least 1; default: 20[)].*--warmup INT +untimed invocations first [(]at least 0; default: 3[)].*exit=0"
         "${BENCH} --help")
cli_test(cli.kiln-compile_help_shows_defaults "" "-o,--output TEXT +output file: the module [(]required with --emit=module[)].*--target TEXT +the devices to compile for [(]cpu, vulkan or all; default: all[)].*exit=0"
         "${COMPILE} --help")

# --version on every tool: Kiln version, git commit, module format.
foreach(tool vm-run vm-check vm-dump vm-bench kiln-compile)
  cli_test(cli.${tool}_version "" "^${tool} [0-9]+[.][0-9]+[.][0-9]+ [(]commit [^,\n]+, module format [0-9]+[.][0-9]+[)]\nexit=0\n$"
           "$<TARGET_FILE:${tool}> --version")
endforeach()

# Outside a git checkout (no repository: GIT_DIR names none) the commit has a fallback.
cli_test(cli.version_commit_outside_git "" "#define KILN_GIT_COMMIT \"unknown: not built from a git checkout\"\nexit=0\n$"
         "rm -rf ${T}/nogit && GIT_DIR=${T}/no-repository ${CMAKE_COMMAND} -DKILN_GEN_DIR=${T}/nogit -DPROJECT_VERSION=0.1.0 -P ${CMAKE_SOURCE_DIR}/cmake/build_info.cmake && cat ${T}/nogit/kiln_build_info.h")

# --timeout: a deadline on the call, checked in the VM (endless loops on the
# scalar path and with device work, on one process and on a grid).
add_test(NAME cli.compile_endless COMMAND kiln-compile ${D}/endless.mlir -o ${T}/endless.kiln --target=cpu)
cli_test(cli.vm-run_timeout_scalar_loop cli.compile_endless "^error: [^\n]*endless.mlir:[0-9]+:[0-9]+: timed out after 0.2 s\nexit=1\n$"
         "${RUN} ${T}/endless.kiln --function=spin --input=i64=0 --timeout=0.2")
cli_test(cli.vm-run_timeout_device_loop cli.compile_endless "^error: [^\n]*endless.mlir:[0-9]+:[0-9]+: timed out after 0.2 s\nexit=1\n$"
         "${RUN} ${T}/endless.kiln --function=spin_tensor --input=64xf32=0.5 --timeout=0.2")
cli_test(cli.vm-run_timeout_grid cli.compile_endless "error: process [(]0, 0[)]: [^\n]*timed out after 0.2 s\n.*error: process [(]1, 0[)]: [^\n]*timed out after 0.2 s\nexit=1\n$"
         "${RUN} ${T}/endless.kiln --function=spin --input=i64=0 --replicas=2 --timeout=0.2")
cli_test(cli.vm-run_timeout_not_reached cli.compile_endless "^4xf32=2,2,2,2\nexit=0\n$"
         "${RUN} ${T}/endless.kiln --function=finishes --input=4xf32=1 --timeout=60")
cli_test(cli.vm-check_timeout_per_function cli.compile_endless
         "FAIL endless: [^\n]*endless.mlir:[0-9]+:[0-9]+: timed out after 0.2 s\nPASS passes\n1 passed, 1 failed, 3 skipped\nexit=1\n$"
         "${CHECK} ${T}/endless.kiln --timeout=0.2")
cli_test(cli.vm-bench_timeout cli.compile_endless "^error: [^\n]*timed out after 0.2 s\nexit=1\n$"
         "${BENCH} ${T}/endless.kiln --function=spin --input=i64=0 --timeout=0.2")

# vm-run --timeout=1 on an endless loop: the run ends within 1.5 s of its start.
cli_test(cli.vm-run_timeout_one_second cli.compile_endless "timed out after 1 s rc=1 within 1.5 s\nexit=0\n$"
         "t0=$(date +%s%N); out=$(${RUN} ${T}/endless.kiln --function=spin --input=i64=0 --timeout=1 2>&1); rc=$?; t1=$(date +%s%N); [ $(( (t1 - t0) / 1000000 )) -le 1500 ] && echo $out rc=$rc within 1.5 s")

# --max-memory: a module whose arena passes the limit is refused when opened;
# without an arena, the run that needs more is stopped (hal/allocation_gate.h).
add_test(NAME cli.compile_memory_hungry
         COMMAND sh -c "$<TARGET_FILE:kiln-compile> ${D}/memory_hungry.mlir -o ${T}/hungry.kiln --target=cpu && $<TARGET_FILE:kiln-compile> ${D}/memory_hungry.mlir -o ${T}/hungry_no_arena.kiln --target=cpu --no-arena")
cli_test(cli.vm-run_max_memory_refuses_module cli.compile_memory_hungry
         "^error: function 'main' declares an arena of [0-9]+ bytes, above the memory limit of 1048576 bytes\nexit=1\n$"
         "${RUN} ${T}/hungry.kiln --input=512x512xf32=0.5 --max-memory=1M")
cli_test(cli.vm-run_max_memory_stops_run cli.compile_memory_hungry
         "^error: [^\n]*memory limit of 2097152 bytes reached: allocating [0-9]+ bytes with [0-9]+ bytes of device memory live\nexit=1\n$"
         "${RUN} ${T}/hungry_no_arena.kiln --input=512x512xf32=0.5 --max-memory=2M")
cli_test(cli.vm-run_max_memory_enough cli.compile_memory_hungry "^f32=[0-9.e+]+\nexit=0\n$"
         "${RUN} ${T}/hungry.kiln --input=512x512xf32=0.001 --max-memory=64M")
cli_test(cli.vm-run_max_memory_not_a_size cli.compile_io
         "^error: --max-memory: 'lots' is not a size [(]a whole number of bytes, optionally with K, M or G: 512M[)]\nexit=1\n$"
         "${RUN} ${T}/io.kiln --input=3xf32=1 --max-memory=lots")

# Private functions are not entry points (as in the C API).
foreach(tool vm-run vm-bench)
  cli_test(cli.${tool}_refuses_private_function cli.compile_endless "^error: function 'hidden' is private: only the module's public functions can be [^\n]+\nexit=1\n$"
           "$<TARGET_FILE:${tool}> ${T}/endless.kiln --function=hidden --input=4xf32=1")
endforeach()

# --output: its count is checked before the run (the function here never
# ends), and a grid of several processes needs a file per process.
cli_test(cli.vm-run_output_count_before_running cli.compile_endless
         "^error: function 'spin' has 1 result, but 2 --output files were given\nexit=1\n$"
         "${RUN} ${T}/endless.kiln --function=spin --input=i64=0 --output=@${T}/a.npy --output=@${T}/b.npy")
cli_test(cli.vm-run_input_count_grammar cli.compile_io "takes 1 input[^s][^\n]*got 2\nexit=1\n$"
         "${RUN} ${T}/io.kiln --input=3xf32=1 --input=3xf32=1")
cli_test(cli.vm-run_grid_output_needs_placeholder cli.compile_grid
         "^error: --output '@${T}/same.npy' would be written by all 2 processes of the grid: name a file per process with [{]replica[}], [{]partition[}] or [{]process[}]\nexit=1\n$"
         "${RUN} ${T}/grid.kiln --input=2xf32=1 --output=@${T}/same.npy")
cli_test(cli.vm-run_grid_outputs_without_headers cli.compile_grid "^2 files\nexit=0\n$"
         "rm -f ${T}/grid_out.*.npy; ${RUN} ${T}/grid.kiln --input=2xf32={replica} --output=@${T}/grid_out.{process}.npy && ls ${T}/grid_out.*.npy | wc -l | sed 's/$/ files/'")

# kiln-compile: - is stdin (named <stdin> in messages), -o - is stdout, and
# the output may not be the input file.
cli_test(cli.kiln-compile_from_stdin "" "^3xf32=4,4,4\nexit=0\n$"
         "${COMPILE} - -o ${T}/stdin.kiln --target=cpu < ${D}/cli_io.mlir && ${RUN} ${T}/stdin.kiln --input=3xf32=4")
cli_test(cli.kiln-compile_stdin_in_messages "" "^<stdin>:[0-9]+:[0-9]+: error: "
         "printf 'func.func @f() {\\n  %%0 = stablehlo.bogus\\n}\\n' | ${COMPILE} - -o ${T}/bad_stdin.kiln")
cli_test(cli.kiln-compile_to_stdout "" "^no file named -\n3xf32=5,5,5\nexit=0\n$"
         "cd ${T} && rm -f ./- && ${COMPILE} ${D}/cli_io.mlir -o - --target=cpu > ${T}/stdout.kiln && (test -e ./- || echo no file named -) && ${RUN} ${T}/stdout.kiln --input=3xf32=5")
cli_test(cli.kiln-compile_refuses_output_is_input ""
         "^error: the output '${T}/./same.mlir' is the input file; choose another -o\ncompile=1\nunchanged\nexit=0\n$"
         "cp ${D}/cli_io.mlir ${T}/same.mlir && ${COMPILE} ${T}/same.mlir -o ${T}/./same.mlir; echo compile=$?; cmp -s ${D}/cli_io.mlir ${T}/same.mlir && echo unchanged")

# vm-check names what it skips; failure locations carry the file name.
cli_test(cli.vm-check_lists_skipped cli.compile_checks "SKIP takes_args [(]takes arguments[)]\n1 passed, 1 failed, 1 skipped\nexit=1\n$"
         "${CHECK} ${T}/checks.kiln")
cli_test(cli.vm-check_failure_names_file cli.compile_checks "FAIL fails: expect_eq failed in fails at [^ ]*checks.mlir:[0-9]+:[0-9]+: "
         "${CHECK} ${T}/checks.kiln")
# Several modules in one process: each after its "== PATH" line with its
# own summary, one that cannot run reported and counted, then the sum.
cli_test(cli.vm-check_several_modules cli.compile_checks
         "^== [^\n]*checks.kiln\n[^=]*1 passed, 1 failed, 1 skipped\n== [^\n]*nothere.kiln\nerror: cannot open [^\n]*\n== [^\n]*checks.kiln\n[^=]*1 passed, 1 failed, 1 skipped\n3 modules [(]1 could not run[)]: 2 passed, 2 failed, 2 skipped\nexit=1\n$"
         "${CHECK} ${T}/checks.kiln ${T}/nothere.kiln ${T}/checks.kiln")
cli_test(cli.vm-check_several_modules_pass cli.compile_io "^== [^\n]*io.kiln\n[^=]*1 passed, 0 failed, 5 skipped\n== [^\n]*io.kiln\n[^=]*1 passed, 0 failed, 5 skipped\n2 modules: 2 passed, 0 failed, 10 skipped\nexit=0\n$"
         "${CHECK} ${T}/io.kiln ${T}/io.kiln")

# vm-dump: attribute values; with the vulkan target, each variant, the
# --sizes totals and --dump-spirv.
add_test(NAME cli.compile_dump_cpu COMMAND kiln-compile ${D}/cli_dump.mlir -o ${T}/dump_cpu.kiln --target=cpu)
cli_test(cli.vm-dump_attribute_values cli.compile_dump_cpu
         "exe#0: kernel stablehlo.transpose permutation=[[]1, 0[]]\nexe#1: kernel stablehlo.reduce dimensions=0 body=<program: stablehlo.maximum>\n"
         "${DUMP} ${T}/dump_cpu.kiln")
cli_test(cli.vm-dump_targets_and_checksums cli.compile_dump_cpu
         "\ntargets: cpu; checksums: xxHash64 of the metadata and of each constant\n"
         "${DUMP} ${T}/dump_cpu.kiln")
cli_test(cli.vm-dump_spirv_none cli.compile_dump_cpu "error: the module has no Vulkan shaders to dump [(]compile it with --target=all or vulkan[)]\nexit=1\n$"
         "${DUMP} ${T}/dump_cpu.kiln --dump-spirv=${T}/no_spirv")
if(KILN_ENABLE_VULKAN)
  add_test(NAME cli.compile_dump_all COMMAND kiln-compile ${D}/cli_dump.mlir -o ${T}/dump_all.kiln)
  cli_test(cli.vm-dump_targets_all cli.compile_dump_all "\ntargets: cpu, vulkan; checksums: xxHash64"
           "${DUMP} ${T}/dump_all.kiln")
  cli_test(cli.vm-dump_vulkan_variants cli.compile_dump_all
           "exe#1: kernel stablehlo.reduce [^\n]*\n  vulkan #0: [(]rank-2 f32, rank-0 f32[)] -> [(]rank-1 f32[)]: [1-9][0-9]* bytes of SPIR-V, entry main, workgroup [1-9][0-9]*, grid [a-z0-9 ]+( [[][0-9, ]+[]])?, features none\n"
           "${DUMP} ${T}/dump_all.kiln")
  add_test(NAME cli.compile_endless_all COMMAND kiln-compile ${D}/endless.mlir -o ${T}/endless_all.kiln)
  cli_test(cli.vm-run_timeout_device_loop_vulkan cli.compile_endless_all
           "^error: [^\n]*endless.mlir:[0-9]+:[0-9]+: timed out after 0.3 s\nexit=1\n$"
           "${RUN} ${T}/endless_all.kiln --device=vulkan --function=spin_tensor --input=64xf32=0.5 --timeout=0.3")
  cli_test(cli.vm-dump_sizes_count_vulkan cli.compile_dump_all "; 2 executables; vulkan shaders [1-9][0-9]* bytes of SPIR-V in 2 variants\nexit=0\n$"
           "${DUMP} ${T}/dump_all.kiln --sizes")
  # Each file is a SPIR-V module (its magic word) of the size vm-dump lists.
  cli_test(cli.vm-dump_writes_spirv cli.compile_dump_all "wrote 2 SPIR-V files to [^\n]*\nexit=0\n07230203\n07230203\nexit=0\n$"
           "rm -rf ${T}/spirv && ${DUMP} ${T}/dump_all.kiln --sizes --dump-spirv=${T}/spirv >/dev/null; echo exit=$?; for f in ${T}/spirv/exe0.0.spv ${T}/spirv/exe1.0.spv; do od -An -tx4 -N4 $f | tr -d ' '; done")
endif()

# kiln-conformance --help prints its usage.
cli_test(cli.kiln-conformance_help "" "^usage: kiln-conformance DIR_OR_FILE[.][.][.] .*exit=0\n$" "$<TARGET_FILE:kiln-conformance> --help")
cli_test(cli.kiln-conformance_unknown_option "" "^kiln-conformance: unknown option '--devcie=cpu'\nusage: .*exit=2\n$"
         "$<TARGET_FILE:kiln-conformance> --devcie=cpu")
cli_test(cli.kiln-compile_output_required "" "^error: -o OUT.kiln is required [(]-o - writes the module to stdout[)]\nexit=1\n$"
         "${COMPILE} ${D}/cli_io.mlir")

# External weights (docs/parameters.md): --externalize writes the constant to
# a safetensors file; vm-run refuses the module until --parameters binds it,
# then prints what the inline module prints; vm-dump lists the parameter.
add_test(NAME cli.compile_params
         COMMAND sh -c "${COMPILE} ${D}/cli_params.mlir -o ${T}/params_inline.kiln --target=cpu && \
                        ${COMPILE} ${D}/cli_params.mlir -o ${T}/params_ext.kiln --target=cpu --externalize=64 \
                                   --params-out=${T}/params.safetensors --params-scope=w")
set_tests_properties(cli.compile_params PROPERTIES FIXTURES_SETUP cli_params)
function(cli_params_test name regex command)
  cli_test(${name} "" "${regex}" "${command}")
  set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED cli_params)
endfunction()
cli_params_test(cli.vm-run_parameters_unbound
                "^error: parameter 'w::constant.0' is not bound: pass its file with --parameters=w=FILE [^\n]*\nexit=1\n$"
                "${RUN} ${T}/params_ext.kiln --input=4x4xf32=1")
cli_params_test(cli.vm-run_parameters_match_inline "^same\nexit=0\n$"
                "a=$(${RUN} ${T}/params_inline.kiln --input=4x4xf32=0.5) && \
                 b=$(${RUN} ${T}/params_ext.kiln --input=4x4xf32=0.5 --parameters=w=${T}/params.safetensors) && \
                 test \"$a\" = \"$b\" && test -n \"$a\" && echo same")
cli_params_test(cli.vm-dump_parameters
                "const#0: 4x4xf32, parameter 'w::constant.0', 64 bytes, xxHash64 [0-9a-f]+, bound to [^\n]*params.safetensors\n.*parameters: 64 bytes in 1 parameter outside the module, 1 bound\nexit=0\n$"
                "${DUMP} ${T}/params_ext.kiln --parameters=w=${T}/params.safetensors")
cli_params_test(cli.vm-run_parameters_not_safetensors
                "^error: [^\n]*params_inline.kiln: invalid safetensors file: the header length [0-9]+ runs past the end of the file [(][0-9]+ bytes[)]\nexit=1\n$"
                "${RUN} ${T}/params_ext.kiln --input=4x4xf32=1 --parameters=w=${T}/params_inline.kiln")
cli_test(cli.kiln-compile_externalize_needs_params_out "" "^error: --externalize=SIZE and --params-out=FILE go together\nexit=1\n$"
         "${COMPILE} ${D}/cli_params.mlir -o ${T}/params_x.kiln --externalize=64")
cli_test(cli.kiln-compile_externalize_size "" "^error: --externalize takes a byte count such as 4096, 64K or 1M, not '64Q'\nexit=1\n$"
         "${COMPILE} ${D}/cli_params.mlir -o ${T}/params_x.kiln --externalize=64Q --params-out=${T}/x.safetensors")
# --params-from-args: the weight arguments leave the signature (only x is
# left to pass) and must be bound.
cli_test(cli.kiln-compile_params_from_args ""
         "^error: parameter 'params\\['dense'\\]\\['kernel'\\]' is not bound: pass its file with --parameters=FILE [^\n]*\nexit=1\n$"
         "${COMPILE} ${D}/cli_jax_params.mlir -o ${T}/jax_params.kiln --target=cpu --params-from-args=params && \
          ${RUN} ${T}/jax_params.kiln --input=4x2xf32=1")

# A StableHLO portable artifact (VHLO in MLIR bytecode, written by
# data/make_vhlo_artifact.py), compiled and run: the bytecode reader end to
# end. The file's name does not say bytecode; its magic does.
cli_test(cli.compile_portable_artifact "" "^4xf32=11,44,99,176\nexit=0\n$"
         "${Python3_EXECUTABLE} ${D}/make_vhlo_artifact.py ${T}/artifact.model && ${COMPILE} ${T}/artifact.model -o ${T}/artifact.kiln --target=cpu && ${RUN} ${T}/artifact.kiln --input=4xf32=1,2,3,4 --input=4xf32=10,20,30,40")
# Cut short, it is refused with the offset where it ends.
cli_test(cli.compile_truncated_artifact "" "^[^\n]*cut[.]mlir[.]bc: error: [^\n]*[(]at byte [0-9]+[)]\nexit=1\n$"
         "${Python3_EXECUTABLE} ${D}/make_vhlo_artifact.py ${T}/whole.mlir.bc && head -c 150 ${T}/whole.mlir.bc > ${T}/cut.mlir.bc && ${COMPILE} ${T}/cut.mlir.bc -o ${T}/cut.kiln --target=cpu")
# --emit=ir shows the module's name and attributes as the artifact has them.
cli_test(cli.compile_portable_artifact_ir "" "^module @jit_f attributes [{]mhlo.num_partitions = 1 : i32[}] [{]\n  func.func @main"
         "${Python3_EXECUTABLE} ${D}/make_vhlo_artifact.py ${T}/artifact_ir.bin && ${COMPILE} ${T}/artifact_ir.bin --emit=ir")

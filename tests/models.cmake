# The model suite (examples/models/, docs/performance.md "Models"): each
# model's program is written by its generator at build time (target
# kiln_models; the programs are build outputs, several MB of inline weights),
# compiled for the CPU, run by vm-run at batch 1 (@main) and 64 (@main_b64)
# on the generator's fixed-seed inputs and compared with what numpy computes
# for them (tests/models/compare_npy.py); and the batch-64 result must be
# the same bits at 1, 2 and 4 threads. Included by tests/CMakeLists.txt
# where the tools are built.
# The generators and the expected outputs need numpy: Python3_EXECUTABLE if
# it has numpy, else Debian's /usr/bin/python3 (scripts/setup.sh installs
# python3-numpy; a pyenv python found first may lack it).
set(MODELS_PY "")
foreach(py ${Python3_EXECUTABLE} /usr/bin/python3)
  execute_process(COMMAND ${py} -c "import numpy" RESULT_VARIABLE no_numpy OUTPUT_QUIET ERROR_QUIET)
  if(no_numpy EQUAL 0)
    set(MODELS_PY ${py})
    break()
  endif()
endforeach()
if(NOT MODELS_PY)
  message(WARNING "no python3 with numpy: the model suite's tests (tests/models.cmake) are not registered; "
                  "scripts/setup.sh installs python3-numpy")
  return()
endif()
set(KILN_MODELS transformer resnet_block mobilenet_block gru embedding_bag)
set(MODELS_SRC ${CMAKE_SOURCE_DIR}/examples/models)
set(KILN_MODELS_DIR ${CMAKE_BINARY_DIR}/examples/models)  # the generated .mlir files
set(MT ${CMAKE_CURRENT_BINARY_DIR}/models)                 # the tests' scratch folder
set(model_outputs "")
foreach(m ${KILN_MODELS})
  add_custom_command(OUTPUT ${KILN_MODELS_DIR}/${m}.mlir
                     COMMAND ${CMAKE_COMMAND} -E make_directory ${KILN_MODELS_DIR}
                     COMMAND ${MODELS_PY} ${MODELS_SRC}/gen.py ${m} ${KILN_MODELS_DIR}/${m}.mlir
                     DEPENDS ${MODELS_SRC}/gen.py ${MODELS_SRC}/common.py ${MODELS_SRC}/${m}.py
                     COMMENT "Generating examples/models/${m}.mlir")
  list(APPEND model_outputs ${KILN_MODELS_DIR}/${m}.mlir)
endforeach()
add_custom_target(kiln_models ALL DEPENDS ${model_outputs})

foreach(m ${KILN_MODELS})
  add_test(NAME models.${m}.compile
           COMMAND sh -c "mkdir -p ${MT} && $<TARGET_FILE:kiln-compile> ${KILN_MODELS_DIR}/${m}.mlir -o ${MT}/${m}.kiln --target=cpu")
  add_test(NAME models.${m}.numpy COMMAND ${MODELS_PY} ${MODELS_SRC}/gen.py ${m} --data ${MT})
  set_tests_properties(models.${m}.compile PROPERTIES FIXTURES_SETUP model_${m})
  set_tests_properties(models.${m}.numpy PROPERTIES FIXTURES_SETUP model_${m} TIMEOUT 300)
  foreach(fb main:1 main_b64:64)
    string(REPLACE ":" ";" fb ${fb})
    list(GET fb 0 fn)
    list(GET fb 1 batch)
    # Every model has one input (in0).
    add_test(NAME models.${m}.b${batch}
             COMMAND sh -c "$<TARGET_FILE:vm-run> ${MT}/${m}.kiln --function=${fn} --input=@${MT}/${m}.b${batch}.in0.npy --output=@${MT}/${m}.b${batch}.got.npy && ${MODELS_PY} ${CMAKE_CURRENT_SOURCE_DIR}/models/compare_npy.py ${MT}/${m}.b${batch}.got.npy ${MT}/${m}.b${batch}.expect.npy")
    set_tests_properties(models.${m}.b${batch} PROPERTIES FIXTURES_REQUIRED model_${m} TIMEOUT 300
                         PASS_REGULAR_EXPRESSION "PASS: [0-9]+ elements")
  endforeach()
  add_test(NAME models.${m}.same_bits_at_1_2_4_threads
           COMMAND sh -c "for t in 1 2 4; do $<TARGET_FILE:vm-run> ${MT}/${m}.kiln --function=main_b64 --threads=$t --input=@${MT}/${m}.b64.in0.npy --output=@${MT}/${m}.t$t.npy || exit 1; done && cmp ${MT}/${m}.t1.npy ${MT}/${m}.t2.npy && cmp ${MT}/${m}.t1.npy ${MT}/${m}.t4.npy && echo same bits")
  set_tests_properties(models.${m}.same_bits_at_1_2_4_threads PROPERTIES FIXTURES_REQUIRED model_${m} TIMEOUT 300
                       PASS_REGULAR_EXPRESSION "same bits")
endforeach()

# The GRU on the Vulkan device (lavapipe in CI) at batch 1: its gates are
# slices of one product, read by the fused chain through input_slices.
add_test(NAME models.gru.vulkan_b1
         COMMAND sh -c "$<TARGET_FILE:kiln-compile> ${KILN_MODELS_DIR}/gru.mlir -o ${MT}/gru.vulkan.kiln --target=vulkan && $<TARGET_FILE:vm-run> ${MT}/gru.vulkan.kiln --device=vulkan --input=@${MT}/gru.b1.in0.npy --output=@${MT}/gru.vulkan.b1.got.npy && ${MODELS_PY} ${CMAKE_CURRENT_SOURCE_DIR}/models/compare_npy.py ${MT}/gru.vulkan.b1.got.npy ${MT}/gru.b1.expect.npy")
set_tests_properties(models.gru.vulkan_b1 PROPERTIES FIXTURES_REQUIRED model_gru TIMEOUT 300
                     PASS_REGULAR_EXPRESSION "PASS: [0-9]+ elements")

# The data-parallel training step (examples/train_step/, docs/collectives.md):
# one process on the whole batch against numpy, then 2 replicas on halves
# with their gradients all_reduced against the one process: as threads of
# one vm-run, and as 2 MPI ranks.
add_test(NAME train_step.in_process
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/data/check_train_step.sh ${MODELS_PY} $<TARGET_FILE:kiln-compile>
                 $<TARGET_FILE:vm-run> ${CMAKE_CURRENT_BINARY_DIR}/train_step/in_process)
# The script's exit status decides (vm-run exits 1 when a result differs from
# --expected-output); the ranks' lines interleave, so no text is matched.
if(MPI_C_FOUND AND KILN_MPIRUN)
  add_test(NAME train_step.mpi
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/data/check_train_step.sh ${MODELS_PY} $<TARGET_FILE:kiln-compile>
                   $<TARGET_FILE:vm-run> ${CMAKE_CURRENT_BINARY_DIR}/train_step/mpi ${KILN_MPIRUN})
  set_tests_properties(train_step.mpi PROPERTIES RUN_SERIAL TRUE)
endif()

# The int8 MobileNet block (examples/int8_block/, docs/performance.md "int8
# convolution"): compiled, and every dispatch of a batch-1 call equal to the
# reference kernels' result (integers: no tolerance).
set(INT8_BLOCK ${CMAKE_CURRENT_BINARY_DIR}/int8_block)
add_test(NAME models.int8_block.matches_the_reference
         COMMAND sh -c "mkdir -p ${INT8_BLOCK} && ${MODELS_PY} ${CMAKE_SOURCE_DIR}/examples/int8_block/gen_int8_block.py ${INT8_BLOCK} && $<TARGET_FILE:kiln-compile> ${INT8_BLOCK}/int8_block.mlir -o ${INT8_BLOCK}/int8_block.kiln --target=cpu && $<TARGET_FILE:vm-run> ${INT8_BLOCK}/int8_block.kiln --input=@${INT8_BLOCK}/x.npy --compare-with=reference --atol 0 --rtol 0 --output=@${INT8_BLOCK}/out.npy")
set_tests_properties(models.int8_block.matches_the_reference PROPERTIES TIMEOUT 300
                     PASS_REGULAR_EXPRESSION " dispatches compared, all within tolerance")
# The same block on the Vulkan device (lavapipe in CI): its per-axis
# requantizes and integer convolutions give the CPU's integers, bit for bit.
set(INT8_BLOCK_VK ${CMAKE_CURRENT_BINARY_DIR}/int8_block_vulkan)
add_test(NAME models.int8_block.vulkan_same_bits_as_cpu
         COMMAND sh -c "mkdir -p ${INT8_BLOCK_VK} && ${MODELS_PY} ${CMAKE_SOURCE_DIR}/examples/int8_block/gen_int8_block.py ${INT8_BLOCK_VK} && $<TARGET_FILE:kiln-compile> ${INT8_BLOCK_VK}/int8_block.mlir -o ${INT8_BLOCK_VK}/cpu.kiln --target=cpu && $<TARGET_FILE:kiln-compile> ${INT8_BLOCK_VK}/int8_block.mlir -o ${INT8_BLOCK_VK}/vulkan.kiln --target=vulkan && $<TARGET_FILE:vm-run> ${INT8_BLOCK_VK}/cpu.kiln --input=@${INT8_BLOCK_VK}/x.npy --output=@${INT8_BLOCK_VK}/cpu.npy && $<TARGET_FILE:vm-run> ${INT8_BLOCK_VK}/vulkan.kiln --device=vulkan --input=@${INT8_BLOCK_VK}/x.npy --output=@${INT8_BLOCK_VK}/vulkan.npy && cmp ${INT8_BLOCK_VK}/cpu.npy ${INT8_BLOCK_VK}/vulkan.npy && echo same bits")
set_tests_properties(models.int8_block.vulkan_same_bits_as_cpu PROPERTIES TIMEOUT 300 PASS_REGULAR_EXPRESSION "same bits")

# Turns the GLSL templates of kernels/vulkan into a C++ header (a table of
# name -> text), so the compiler never reads the source tree at run time.
# Inputs: OUT (the header), DIR (kernels/vulkan).
file(GLOB FILES ${DIR}/*.glsl)
list(SORT FILES)
set(text "// Generated from kernels/vulkan/*.glsl by cmake/embed_templates.cmake.\n")
foreach(f ${FILES})
  get_filename_component(name ${f} NAME)
  file(READ ${f} body)
  string(APPEND text "{\"${name}\", R\"KILN_GLSL(${body})KILN_GLSL\"},\n")
endforeach()
file(WRITE ${OUT}.tmp "${text}")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different ${OUT}.tmp ${OUT})

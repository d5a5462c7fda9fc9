# Install rules (docs/embedding.md, "Installing"): `cmake --install BUILD
# --prefix P` writes
#   P/include/kiln/...            the headers, by their source paths (vm/kiln.h
#                                 is the C API) and the generated ones
#   P/lib/libkiln_*.a             the static libraries
#   P/lib/libkiln.so              the C API as one shared library
#   P/lib/cmake/Kiln/             KilnConfig.cmake: find_package(Kiln CONFIG)
#                                 with Kiln::runtime, Kiln::runtime_minimal,
#                                 Kiln::compiler (when built), Kiln::kiln_shared
#   P/lib/pkgconfig/kiln.pc       the shared C API for pkg-config
#   P/bin/                        kiln-compile and the vm-* tools
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# --- the shared library: every static runtime library behind the C API ------
if(KILN_BUILD_SHARED)
  add_library(kiln_shared SHARED vm/kiln.h)
  set_target_properties(kiln_shared PROPERTIES OUTPUT_NAME kiln LINKER_LANGUAGE CXX
                        VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR})
  # The whole core goes in (the C API lives in it); only kiln_* is exported.
  # (by its file: the group in kiln_vm names the same library once more,
  # and CMake allows one link feature per library)
  add_dependencies(kiln_shared kiln_vm_core)
  target_link_libraries(kiln_shared PRIVATE -Wl,--whole-archive $<TARGET_FILE:kiln_vm_core> -Wl,--no-whole-archive
                        kiln_vm)
  target_link_options(kiln_shared PRIVATE "-Wl,--version-script=${CMAKE_SOURCE_DIR}/cmake/kiln.map" -Wl,--no-undefined)
  set_target_properties(kiln_shared PROPERTIES LINK_DEPENDS ${CMAKE_SOURCE_DIR}/cmake/kiln.map)
  target_include_directories(kiln_shared INTERFACE $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}>
                             $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/kiln>)
endif()

# --- the exported targets ------------------------------------------------------
add_library(kiln_runtime INTERFACE)
target_link_libraries(kiln_runtime INTERFACE kiln_vm)
set(kiln_export_targets kiln_kernels_common kiln_scalar kiln_kernels_reference kiln_kernels_cpu kiln_hal
    kiln_schema kiln_vm_core kiln_vm kiln_vm_collectives_minimal kiln_runtime kiln_runtime_minimal)
if(TARGET kiln_vm_collectives)
  list(APPEND kiln_export_targets kiln_vm_collectives)
endif()
if(TARGET kiln_compiler)
  list(APPEND kiln_export_targets kiln_compiler)
endif()
if(KILN_BUILD_SHARED)
  list(APPEND kiln_export_targets kiln_shared)
endif()
# Kiln::runtime rather than Kiln::kiln_runtime for the three documented names.
set_target_properties(kiln_runtime PROPERTIES EXPORT_NAME runtime)
set_target_properties(kiln_runtime_minimal PROPERTIES EXPORT_NAME runtime_minimal)
if(TARGET kiln_compiler)
  set_target_properties(kiln_compiler PROPERTIES EXPORT_NAME compiler)
endif()
install(TARGETS ${kiln_export_targets} EXPORT KilnTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(EXPORT KilnTargets NAMESPACE Kiln:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Kiln)

# --- headers: the source tree's, at their include paths -----------------------
foreach(dir vm hal kernels compiler schema)
  install(DIRECTORY ${CMAKE_SOURCE_DIR}/${dir} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kiln
          FILES_MATCHING PATTERN "*.h" PATTERN "*.hpp" PATTERN "*.def")
endforeach()
install(FILES ${KILN_GEN_DIR}/kiln_version.h ${KILN_GEN_DIR}/kiln_selected_kernels.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kiln)
install(FILES ${KILN_GEN_DIR}/schema/module_generated.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kiln/schema)

# --- tools -----------------------------------------------------------------------
foreach(tool kiln-compile vm-run vm-check vm-dump vm-bench)
  if(TARGET ${tool})
    install(TARGETS ${tool} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()
endforeach()

# --- KilnConfig.cmake, its version file, kiln.pc -----------------------------
set(KILN_CONFIG_WITH_VULKAN ${KILN_ENABLE_VULKAN})
set(KILN_CONFIG_WITH_COMPILER_SHADERC OFF)
if(TARGET kiln_compiler AND KILN_ENABLE_VULKAN)
  set(KILN_CONFIG_WITH_COMPILER_SHADERC ON)
endif()
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/KilnConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/KilnConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Kiln)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/KilnConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/KilnConfig.cmake ${CMAKE_BINARY_DIR}/KilnConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Kiln)
if(KILN_BUILD_SHARED)
  file(RELATIVE_PATH KILN_PC_TO_PREFIX "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
  configure_file(${CMAKE_SOURCE_DIR}/cmake/kiln.pc.in ${CMAKE_BINARY_DIR}/kiln.pc @ONLY)
  install(FILES ${CMAKE_BINARY_DIR}/kiln.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()

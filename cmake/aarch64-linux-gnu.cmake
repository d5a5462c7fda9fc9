# Cross build for 64-bit Arm Linux with Debian's g++-aarch64-linux-gnu and the
# arm64 development packages of Debian multiarch (scripts/setup_arm64.sh).
#   cmake -S . -B build-arm64 -G Ninja --toolchain cmake/aarch64-linux-gnu.cmake \
#         -DKILN_BUILD_COMPILER=OFF -DKILN_BUILD_TESTS=OFF
# Host programs (flatc) come from the build machine; headers, libraries and
# CMake/pkg-config packages only from the arm64 side.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)

# pkg-config must see the arm64 .pc files, never the build machine's.
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")

# Programs built here run under qemu-user (ctest, try_run). Their loader and
# libraries come from the arm64 packages of Debian multiarch (/lib/ld-linux-
# aarch64.so.1, /lib/aarch64-linux-gnu), the same files the program was linked
# against: the cross toolchain's own copy under /usr/aarch64-linux-gnu can be
# an older glibc build, and its ld.so paired with the newer libc.so.6 hangs
# in the first pthread_create.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64;-L;/)

#!/usr/bin/env bash
# Installs the Debian 12 packages Kiln needs to build and test. Idempotent:
# installs only what is missing. Run as root (or with sudo available).
#   scripts/setup.sh           the native build, tests, tools and peers' libraries
#   scripts/setup.sh --arm64   what the arm64 cross build and its qemu runs need:
#                              Debian's aarch64 cross compiler, qemu-user, and the
#                              arm64 -dev packages of the runtime (Debian multiarch)
set -euo pipefail

NAME=setup
PACKAGES=(
  build-essential cmake ninja-build pkg-config git
  libflatbuffers-dev flatbuffers-compiler
  libhwy-dev libzstd-dev libxxhash-dev spirv-headers spirv-tools
  libvulkan-dev mesa-vulkan-drivers vulkan-tools vulkan-validationlayers
  libshaderc-dev glslc
  libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev
  clang libclang-rt-14-dev
  python3 python3-numpy python3-dev pybind11-dev python3-pytest
  libopenmpi-dev openmpi-bin
)
if [ "${1:-}" = "--arm64" ]; then
  NAME=setup_arm64
  PACKAGES=(
    g++-aarch64-linux-gnu qemu-user
    libhwy-dev:arm64 libflatbuffers-dev:arm64 libzstd-dev:arm64 libxxhash-dev:arm64 libvulkan-dev:arm64
    libgtest-dev:arm64 libgmock-dev:arm64 spirv-headers
  )
fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "$NAME: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
if [ "$NAME" = setup_arm64 ] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
  $SUDO dpkg --add-architecture arm64
fi
echo "$NAME: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "$NAME: done"

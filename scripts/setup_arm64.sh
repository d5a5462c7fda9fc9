#!/usr/bin/env bash
# Installs what the arm64 cross build and its qemu runs need (idempotent):
# Debian's aarch64 cross compiler, qemu-user, and the arm64 development
# packages of the runtime's dependencies through Debian multiarch.
set -euo pipefail

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

PACKAGES=(
  g++-aarch64-linux-gnu qemu-user
  libhwy-dev:arm64 libflatbuffers-dev:arm64 libzstd-dev:arm64 libvulkan-dev:arm64
  libgtest-dev:arm64 libgmock-dev:arm64
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup_arm64: all ${#PACKAGES[@]} packages present"
  exit 0
fi

if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  $SUDO dpkg --add-architecture arm64
fi
echo "setup_arm64: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup_arm64: done"

// Intel AMX (Advanced Matrix Extensions) on x86-64 Linux: whether the CPU
// has the tile unit with its int8 (or bf16) dot products and the kernel has
// granted this process the tile data state, and the one tile configuration
// Kiln's AMX micro-kernels use.
//
// Linux hands out the 8 KB tile state only on request (arch_prctl
// ARCH_REQ_XCOMP_PERM for XFEATURE_XTILEDATA, kernel 5.16 and later); the
// request is made once per process, on first use, and covers every thread.
// Where it is refused (an older kernel, a hypervisor hiding the state) the
// kernels keep their AVX-512 forms.
#pragma once

#if defined(__x86_64__) && defined(__GNUC__) && defined(__linux__)
#define KILN_AMX 1
#include <cpuid.h>
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>

namespace kiln::cpu::amx {

// CPUID leaf 7, EDX: AMX-BF16 (bit 22), AMX-TILE (24), AMX-INT8 (25).
inline bool CpuHasTileFeature(unsigned bit) {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d) == 0) return false;
  return (d & (1u << 24)) != 0 && (d & (1u << bit)) != 0;
}

// Whether this process may use the tile registers (asked once).
inline bool TileStateGranted() {
  static const bool granted = [] {
    constexpr long kArchReqXcompPerm = 0x1023;
    constexpr long kXfeatureXtiledata = 18;
    return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
  }();
  return granted;
}

inline bool Int8Usable() {
  static const bool usable = CpuHasTileFeature(25) && __builtin_cpu_supports("avx512vnni") && TileStateGranted();
  return usable;
}

inline bool Bf16Usable() {
  static const bool usable = CpuHasTileFeature(22) && __builtin_cpu_supports("avx512bf16") && TileStateGranted();
  return usable;
}

// Palette 1 with all eight tiles at their largest: 16 rows of 64 bytes
// (an A tile: 16 rows x 64 bytes of K; a B tile: 16 rows of K/4 quads x 16
// columns; a C tile: 16 x 16 i32 or f32). The narrow form for a
// contraction of at most 32 bytes (an int8 1x1 convolution over 32 or
// fewer features): A tiles (tmm4-5) of 16 rows x 32 bytes and B tiles
// (tmm6-7) of 8 rows, so a whole step is 32 bytes of K, not 64 of which
// half would be padding.
struct alignas(64) TileConfig {
  uint8_t palette = 1;
  uint8_t start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t colsb[16] = {64, 64, 64, 64, 64, 64, 64, 64};
  uint8_t rows[16] = {16, 16, 16, 16, 16, 16, 16, 16};
};
inline TileConfig NarrowKConfig() {
  TileConfig c;
  c.colsb[4] = c.colsb[5] = 32;
  c.rows[6] = c.rows[7] = 8;
  return c;
}

// Loads the configuration into this thread's tile unit (ldtilecfg also
// zeroes the tiles). It costs about as much as a small tile's arithmetic,
// so it runs once per GEMM call and worker thread (ForEachPanelRow's
// begin), not per tile; not once per thread for good, since other code on
// the thread (another library's AMX kernels) may configure the tiles
// differently between two of Kiln's calls. `narrow_k`: NarrowKConfig.
__attribute__((target("amx-tile"))) inline void Configure(bool narrow_k = false) {
  static const TileConfig config;
  static const TileConfig narrow = NarrowKConfig();
  _tile_loadconfig(narrow_k ? &narrow : &config);
}

// Stores the sums of tmm0-3, a 32 x 32 tile of C of 4-byte elements (tmm0
// and tmm1 rows 0-15, tmm2 and tmm3 rows 16-31), at c with rows ld
// elements apart; only rows 0-15 where rows <= 16.
template <class T>
__attribute__((target("amx-tile"))) inline void StoreSums(T* c, int64_t ld, int64_t rows) {
  static_assert(sizeof(T) == 4);
  const int64_t stride = ld * 4;
  _tile_stored(0, c, stride);
  _tile_stored(1, c + 16, stride);
  if (rows <= 16) return;
  _tile_stored(2, c + 16 * ld, stride);
  _tile_stored(3, c + 16 * ld + 16, stride);
}

}  // namespace kiln::cpu::amx
#endif

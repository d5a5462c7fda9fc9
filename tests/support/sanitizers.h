// Whether the test binary runs under AddressSanitizer (the sanitizer build,
// scripts/test.sh --sanitize, with clang or GCC). GCC defines
// __SANITIZE_ADDRESS__; clang 14 only answers __has_feature.
//
// Exhaustive sweeps (every byte of a module flipped, thousands of mutations)
// run about five times slower there; they sample a fixed subset instead, and
// the release build keeps the whole sweep.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define KILN_TEST_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KILN_TEST_UNDER_ASAN 1
#endif
#endif

namespace kiln::test {

#ifdef KILN_TEST_UNDER_ASAN
inline constexpr bool kUnderSanitizer = true;
#else
inline constexpr bool kUnderSanitizer = false;
#endif

}  // namespace kiln::test

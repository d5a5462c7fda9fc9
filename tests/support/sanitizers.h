// Whether the test binary runs under AddressSanitizer (the sanitizer build,
// scripts/test.sh --sanitize, or clang's fuzzer build). Exhaustive sweeps
// (every byte of a module flipped, thousands of mutations) run about five
// times slower there; they sample a fixed subset instead, and the release
// build keeps the whole sweep.
#pragma once

namespace kiln::test {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kUnderSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kUnderSanitizer = true;
#else
inline constexpr bool kUnderSanitizer = false;
#endif
#else
inline constexpr bool kUnderSanitizer = false;
#endif

}  // namespace kiln::test

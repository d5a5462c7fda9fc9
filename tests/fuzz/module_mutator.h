// A structure-aware mutator for module files (docs/fuzzing.md): it reads the
// file's FlatBuffer through the schema's reflection data and changes one
// field, as a hostile writer could, instead of random bytes:
//  - a scalar field or vector element set to a boundary value (0, 1, -1, the
//    type's least and greatest), nudged by one, doubled, a bit flipped, or
//    copied from another field of the same type (a valid index elsewhere);
//  - a vector's or string's length word, or an offset, moved (the verifier
//    must refuse what then points outside the buffer);
//  - a vector shortened by one element or emptied, in place, so that the
//    result is still a well-formed FlatBuffer whose counts disagree
//    (function indices past the end, dims without data, ...).
// Byte-level mutations (libFuzzer's own) stay the fallback: the module
// loader fuzzer alternates between the two.
#pragma once
#include <cstddef>
#include <cstdint>

namespace kiln::fuzz {

// Mutates the module file in data[0, size) in place, choosing with `seed`
// (the file keeps its size; max_size is libFuzzer's bound, for mutations that
// would grow it). Returns the size, or 0 when the bytes are not a FlatBuffer
// of the module schema (then nothing was changed).
size_t MutateModuleStructure(uint8_t* data, size_t size, size_t max_size, uint32_t seed);

}  // namespace kiln::fuzz

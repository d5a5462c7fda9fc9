// External weights (format 0.4, docs/parameters.md): safetensors files
// mapped read-only and bound, per scope, to the module's parameter
// constants. The reader trusts nothing in a file: every length, offset,
// dtype and shape is checked against the file's size before any tensor is
// used.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/common/element_type.h"
#include "kernels/common/status.h"
#include "schema/safetensors_dtype.h"

namespace kiln::vm {

class LoadedConstant;

using kiln::SafetensorsDtype;
using kiln::ElementTypeFromSafetensors;

struct SafetensorsTensor {
  std::string key;
  ElementType type = ElementType::kInvalid;
  std::string dtype;  // as the file spells it
  std::vector<int64_t> dims;
  uint64_t offset = 0;  // from the start of the file
  uint64_t size = 0;    // bytes
};

struct SafetensorsHeader {
  std::vector<SafetensorsTensor> tensors;  // in the header's order
  std::map<std::string, std::string> metadata;  // "__metadata__"
  uint64_t data_offset = 0;  // 8 + the header's length
};

// Parses and checks a safetensors file held in `size` bytes at `file`: the
// 8-byte little-endian header length (within the file), the JSON header
// (an object; each tensor an object with exactly "dtype", "shape" and
// "data_offsets"; "__metadata__" an object of strings; no duplicate keys;
// trailing spaces allowed as padding), every dtype known, every shape's
// byte size equal to its data_offsets' span, every span inside the data
// and no two overlapping. Errors name the problem and the tensor.
StatusOr<SafetensorsHeader> ParseSafetensors(const uint8_t* file, size_t size);

// One safetensors file, mapped read-only (or, where mapping fails, e.g. for
// a pipe, read into memory) and parsed.
class ParameterFile {
 public:
  static StatusOr<std::shared_ptr<const ParameterFile>> Open(const std::string& path);
  // From bytes the caller has (tests, the C API's in-memory form); copied.
  static StatusOr<std::shared_ptr<const ParameterFile>> FromBytes(std::string name, std::vector<uint8_t> bytes);
  ~ParameterFile();
  const std::string& path() const { return path_; }
  const SafetensorsHeader& header() const { return header_; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  // Whether the bytes are a mapping of the file (not a copy).
  bool mapped() const { return mapped_; }
  const SafetensorsTensor* Find(std::string_view key) const;

 private:
  ParameterFile() = default;
  std::string path_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  bool mapped_ = false;
  std::vector<uint8_t> owned_;
  SafetensorsHeader header_;
  std::map<std::string, size_t, std::less<>> index_;
};

// The parameter files bound for one load, by scope ("" is the default
// scope). A scope may hold several files; a key found in two of one
// scope's files is refused as ambiguous when the second is added.
class ParameterSet {
 public:
  // "[scope=]FILE", as the tools' --parameters takes it.
  Status AddSpec(const std::string& spec);
  Status Add(const std::string& scope, std::shared_ptr<const ParameterFile> file);
  bool HasScope(const std::string& scope) const { return scopes_.count(scope) != 0; }
  // The tensor and its file, or NotFound naming the parameter and the files searched.
  StatusOr<std::pair<const SafetensorsTensor*, std::shared_ptr<const ParameterFile>>> Find(
      const std::string& scope, const std::string& key) const;
  bool empty() const { return scopes_.empty(); }

 private:
  std::map<std::string, std::vector<std::shared_ptr<const ParameterFile>>> scopes_;
};

// "'key'" or "'scope::key'": how messages name a parameter.
std::string ParameterName(const std::string& scope, const std::string& key);

// Binds a parameter constant (its `parameter` set, its type, dims and size
// already checked) to its tensor in `set`: the key must be there with the
// constant's element type and shape. Reads only the file's header: with
// `verify_checksum` and a checksum in the module, the constant is marked to
// have its bytes checked on first use (LoadedConstant::Data), so binding costs
// the same for any size of weights. A scope with no file bound leaves the
// constant unbound (a context refuses it); a null `set` binds nothing.
// Errors name the parameter.
Status BindParameter(const ParameterSet* set, bool verify_checksum, LoadedConstant* constant);

// The error of a bound parameter whose bytes do not match the module's
// xxHash64 of them (LoadedConstant::Data checks it on first use), naming the
// parameter and its file.
Status ParameterChecksumMismatch(const LoadedConstant& constant);

}  // namespace kiln::vm

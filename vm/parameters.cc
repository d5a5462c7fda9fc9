// The safetensors reader and parameter binding (vm/parameters.h). The JSON
// parser below reads only the shape a safetensors header has (an object of
// objects, arrays of integers and strings), not JSON in general: a header
// that strays from it is refused rather than interpreted, and nothing in it
// recurses on the input's nesting.
#include "vm/parameters.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

#define XXH_INLINE_ALL  // as schema/module_checksum.h: no shared library
#include <xxhash.h>

#include "kernels/common/file_io.h"
#include "vm/module.h"

namespace kiln::vm {
namespace {

// safetensors refuses headers above 100 MB; so does this reader.
constexpr uint64_t kMaxHeaderBytes = uint64_t{100} << 20;
constexpr int64_t kMaxDim = int64_t{1} << 40;

Status Bad(const std::string& what) { return DataLoss("invalid safetensors file: " + what); }

// A cursor over the header text.
class Json {
 public:
  Json(const char* p, size_t n) : p_(p), end_(p + n) {}

  void SkipSpace() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) ++p_;
  }
  bool AtEnd() {
    SkipSpace();
    return p_ == end_;
  }
  bool Consume(char c) {
    SkipSpace();
    if (p_ < end_ && *p_ == c) {
      ++p_;
      return true;
    }
    return false;
  }
  Status Expect(char c, const char* what) {
    if (!Consume(c)) return Bad(std::string("malformed JSON header: expected '") + c + "' " + what + Where());
    return Status::Ok();
  }
  std::string Where() const { return " at header byte " + std::to_string(offset()); }
  size_t offset() const { return static_cast<size_t>(p_ - start_); }
  void set_start(const char* s) { start_ = s; }

  // A JSON string, escapes decoded to UTF-8.
  StatusOr<std::string> String() {
    SkipSpace();
    if (p_ >= end_ || *p_ != '"') return Bad("malformed JSON header: expected a string" + Where());
    ++p_;
    std::string out;
    while (true) {
      if (p_ >= end_) return Bad("malformed JSON header: unterminated string");
      unsigned char c = static_cast<unsigned char>(*p_++);
      if (c == '"') return out;
      if (c < 0x20) return Bad("malformed JSON header: a control character in a string" + Where());
      if (c != '\\') {
        out += static_cast<char>(c);
        continue;
      }
      if (p_ >= end_) return Bad("malformed JSON header: unterminated string");
      char e = *p_++;
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          KILN_ASSIGN_OR_RETURN(uint32_t cp, Hex4());
          if (cp >= 0xD800 && cp < 0xDC00) {  // a surrogate pair
            if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u')
              return Bad("malformed JSON header: an unpaired surrogate" + Where());
            p_ += 2;
            KILN_ASSIGN_OR_RETURN(uint32_t lo, Hex4());
            if (lo < 0xDC00 || lo >= 0xE000) return Bad("malformed JSON header: an unpaired surrogate" + Where());
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          } else if (cp >= 0xDC00 && cp < 0xE000) {
            return Bad("malformed JSON header: an unpaired surrogate" + Where());
          }
          AppendUtf8(cp, &out);
          break;
        }
        default:
          return Bad("malformed JSON header: unknown escape" + Where());
      }
    }
  }

  // A non-negative integer (no sign, fraction or exponent), at most `max`.
  StatusOr<uint64_t> Unsigned(uint64_t max, const std::string& what) {
    SkipSpace();
    if (p_ >= end_ || *p_ < '0' || *p_ > '9') return Bad(what + " is not a non-negative integer" + Where());
    uint64_t v = 0;
    const char* first = p_;
    while (p_ < end_ && *p_ >= '0' && *p_ <= '9') {
      uint64_t digit = static_cast<uint64_t>(*p_ - '0');
      if (v > (max - digit) / 10) return Bad(what + " is too large" + Where());
      v = v * 10 + digit;
      ++p_;
    }
    if (p_ - first > 1 && *first == '0') return Bad("malformed JSON header: a number with a leading zero" + Where());
    if (p_ < end_ && (*p_ == '.' || *p_ == 'e' || *p_ == 'E'))
      return Bad(what + " is not a non-negative integer" + Where());
    return v;
  }

  // [n, n, ...]
  StatusOr<std::vector<uint64_t>> UnsignedArray(uint64_t max, const std::string& what, size_t max_len) {
    KILN_RETURN_IF_ERROR(Expect('[', "to open " + std::string(what)));
    std::vector<uint64_t> out;
    if (Consume(']')) return out;
    do {
      if (out.size() == max_len) return Bad(what + " has more than " + std::to_string(max_len) + " entries");
      KILN_ASSIGN_OR_RETURN(uint64_t v, Unsigned(max, what));
      out.push_back(v);
    } while (Consume(','));
    KILN_RETURN_IF_ERROR(Expect(']', "to close " + std::string(what)));
    return out;
  }

 private:
  Status Expect(char c, const std::string& what) { return Expect(c, what.c_str()); }
  StatusOr<uint32_t> Hex4() {
    if (end_ - p_ < 4) return Bad("malformed JSON header: a short \\u escape");
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      char c = *p_++;
      v <<= 4;
      if (c >= '0' && c <= '9') v |= static_cast<uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f') v |= static_cast<uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= static_cast<uint32_t>(c - 'A' + 10);
      else return Bad("malformed JSON header: a bad \\u escape" + Where());
    }
    return v;
  }
  static void AppendUtf8(uint32_t cp, std::string* out) {
    if (cp < 0x80) {
      *out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      *out += static_cast<char>(0xC0 | (cp >> 6));
      *out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      *out += static_cast<char>(0xE0 | (cp >> 12));
      *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      *out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      *out += static_cast<char>(0xF0 | (cp >> 18));
      *out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      *out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  const char* p_;
  const char* end_;
  const char* start_ = nullptr;
};

// One tensor's entry: {"dtype": ..., "shape": [...], "data_offsets": [b, e]}.
Status ParseTensor(Json& j, const std::string& key, uint64_t data_size, SafetensorsTensor* t) {
  const std::string who = "tensor '" + key + "'";
  if (!j.Consume('{')) return Bad(who + " is not an object" + j.Where());
  bool has_dtype = false, has_shape = false, has_offsets = false;
  std::vector<uint64_t> offsets;
  if (!j.Consume('}')) {
    do {
      KILN_ASSIGN_OR_RETURN(std::string field, j.String());
      KILN_RETURN_IF_ERROR(j.Expect(':', "after a field name"));
      bool* seen = field == "dtype" ? &has_dtype : field == "shape" ? &has_shape
                 : field == "data_offsets" ? &has_offsets : nullptr;
      if (!seen) return Bad(who + " has an unknown field '" + field + "'");
      if (*seen) return Bad(who + " has the field '" + field + "' twice");
      *seen = true;
      if (field == "dtype") {
        KILN_ASSIGN_OR_RETURN(t->dtype, j.String());
        auto type = ElementTypeFromSafetensors(t->dtype);
        if (!type) return Bad(who + " has an unknown dtype '" + t->dtype + "'");
        t->type = *type;
      } else if (field == "shape") {
        KILN_ASSIGN_OR_RETURN(auto dims, j.UnsignedArray(kMaxDim, who + "'s shape", 64));
        t->dims.assign(dims.begin(), dims.end());
      } else {
        KILN_ASSIGN_OR_RETURN(offsets, j.UnsignedArray(UINT64_MAX, who + "'s data_offsets", 2));
      }
    } while (j.Consume(','));
    KILN_RETURN_IF_ERROR(j.Expect('}', "to close a tensor"));
  }
  if (!has_dtype || !has_shape || !has_offsets)
    return Bad(who + " lacks '" + std::string(!has_dtype ? "dtype" : !has_shape ? "shape" : "data_offsets") + "'");
  if (offsets.size() != 2) return Bad(who + "'s data_offsets is not [begin, end]");
  if (offsets[0] > offsets[1]) return Bad(who + "'s data_offsets end before they begin");
  if (offsets[1] > data_size)
    return Bad(who + "'s data_offsets [" + std::to_string(offsets[0]) + ", " + std::to_string(offsets[1]) +
               "] run past the end of the data (" + std::to_string(data_size) + " bytes)");
  // The shape's size, overflow-checked: every dimension is at most 2^40,
  // and a product past the span refutes it already.
  const uint64_t span = offsets[1] - offsets[0];
  uint64_t bytes = StorageBytes(t->type);
  bool zero = false;
  for (int64_t d : t->dims) zero = zero || d == 0;
  if (zero) bytes = 0;
  for (int64_t d : t->dims) {
    if (zero) break;
    if (bytes > span / static_cast<uint64_t>(d)) {
      bytes = span + 1;  // past the span: a mismatch
      break;
    }
    bytes *= static_cast<uint64_t>(d);
  }
  if (bytes != span)
    return Bad(who + " has shape and dtype " + t->dtype + " needing " +
               (bytes > span ? "more than " + std::to_string(span) : std::to_string(bytes)) +
               " bytes, but its data_offsets span " + std::to_string(span));
  t->key = key;
  t->size = span;
  t->offset = offsets[0];  // made absolute by the caller
  return Status::Ok();
}

}  // namespace

namespace {

// The header length word of a file of `size` bytes whose first 8 are `file`.
StatusOr<uint64_t> HeaderLength(const uint8_t* file, size_t size) {
  if (size < 8) return Bad("the file is " + std::to_string(size) + " bytes, shorter than the 8-byte header length");
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | file[i];  // little-endian, whatever the host
  if (n > size - 8)
    return Bad("the header length " + std::to_string(n) + " runs past the end of the file (" +
               std::to_string(size) + " bytes)");
  if (n > kMaxHeaderBytes) return Bad("the header length " + std::to_string(n) + " is above 100 MB");
  return n;
}

// `file` holds at least the header (8 + its length bytes) of a file of
// `size` bytes.
StatusOr<SafetensorsHeader> ParseHeader(const uint8_t* file, size_t size) {
  KILN_ASSIGN_OR_RETURN(const uint64_t n, HeaderLength(file, size));
  SafetensorsHeader h;
  h.data_offset = 8 + n;
  const uint64_t data_size = size - h.data_offset;
  const char* text = reinterpret_cast<const char*>(file + 8);
  Json j(text, n);
  j.set_start(text);
  if (!j.Consume('{')) return Bad("malformed JSON header: it is not an object");
  std::set<std::string> keys;
  bool has_metadata = false;
  if (!j.Consume('}')) {
    do {
      KILN_ASSIGN_OR_RETURN(std::string key, j.String());
      KILN_RETURN_IF_ERROR(j.Expect(':', "after a key"));
      if (key == "__metadata__") {
        if (has_metadata) return Bad("the key '__metadata__' appears twice");
        has_metadata = true;
        KILN_RETURN_IF_ERROR(j.Expect('{', "to open __metadata__"));
        if (!j.Consume('}')) {
          do {
            KILN_ASSIGN_OR_RETURN(std::string k, j.String());
            KILN_RETURN_IF_ERROR(j.Expect(':', "after a key"));
            KILN_ASSIGN_OR_RETURN(std::string v, j.String());
            if (!h.metadata.emplace(k, v).second) return Bad("__metadata__ has the key '" + k + "' twice");
          } while (j.Consume(','));
          KILN_RETURN_IF_ERROR(j.Expect('}', "to close __metadata__"));
        }
        continue;
      }
      if (!keys.insert(key).second) return Bad("the tensor '" + key + "' appears twice");
      SafetensorsTensor t;
      KILN_RETURN_IF_ERROR(ParseTensor(j, key, data_size, &t));
      h.tensors.push_back(std::move(t));
    } while (j.Consume(','));
    KILN_RETURN_IF_ERROR(j.Expect('}', "to close the header"));
  }
  // Only spaces may follow (the padding that aligns the data).
  if (!j.AtEnd()) return Bad("malformed JSON header: text after the header object" + j.Where());
  // No two tensors may share a byte: sort the spans and compare neighbours.
  std::vector<const SafetensorsTensor*> order;
  for (const auto& t : h.tensors)
    if (t.size) order.push_back(&t);
  std::sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->offset < b->offset; });
  for (size_t i = 1; i < order.size(); ++i)
    if (order[i]->offset < order[i - 1]->offset + order[i - 1]->size)
      return Bad("the tensors '" + order[i - 1]->key + "' and '" + order[i]->key + "' overlap");
  for (auto& t : h.tensors) t.offset += h.data_offset;
  return h;
}

// Reads exactly `n` bytes at `offset`; false on an error or a short file.
bool ReadAt(int fd, uint8_t* out, size_t n, uint64_t offset) {
  while (n > 0) {
    const ssize_t got = ::pread(fd, out, n, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    out += got;
    n -= static_cast<size_t>(got);
    offset += static_cast<uint64_t>(got);
  }
  return true;
}

}  // namespace

StatusOr<SafetensorsHeader> ParseSafetensors(const uint8_t* file, size_t size) { return ParseHeader(file, size); }

// --- ParameterFile ---

ParameterFile::~ParameterFile() {
  if (mapped_ && size_) munmap(const_cast<uint8_t*>(data_), size_);
}

namespace {

Status Index(const SafetensorsHeader& h, std::map<std::string, size_t, std::less<>>* index) {
  for (size_t i = 0; i < h.tensors.size(); ++i) index->emplace(h.tensors[i].key, i);
  return Status::Ok();
}

}  // namespace

StatusOr<std::shared_ptr<const ParameterFile>> ParameterFile::Open(const std::string& path) {
  std::shared_ptr<ParameterFile> f(new ParameterFile());
  f->path_ = path;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    std::string why = std::strerror(errno);
    return Status(errno == ENOENT ? StatusCode::kNotFound : StatusCode::kInvalidArgument,
                  "cannot open parameter file '" + path + "': " + why);
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
    ::close(fd);
    return InvalidArgument("cannot read parameter file '" + path + "': not a regular file");
  }
  if (S_ISREG(st.st_mode) && st.st_size > 0) {
    // Mapped read-only and private: the device reads the weights in place,
    // and a stray write faults instead of changing the file.
    void* p = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      ::close(fd);
      return InvalidArgument("cannot map parameter file '" + path + "': " + std::strerror(errno));
    }
    f->data_ = static_cast<const uint8_t*>(p);
    f->size_ = static_cast<size_t>(st.st_size);
    f->mapped_ = true;
    // The header is parsed from a copy read with pread, not through the
    // mapping: a fault on its bytes would map the whole page-cache folio
    // around them (up to 2 MiB of the weights) into the process.
    std::vector<uint8_t> head(std::min<size_t>(f->size_, 8));
    if (ReadAt(fd, head.data(), head.size(), 0)) {
      auto n = HeaderLength(head.data(), f->size_);
      if (n.ok()) head.resize(8 + static_cast<size_t>(*n));
      if (n.ok() && !ReadAt(fd, head.data() + 8, head.size() - 8, 8)) head.clear();
    } else {
      head.clear();
    }
    ::close(fd);
    // Unread (an error, a short read): parse through the mapping.
    auto h = head.empty() ? ParseHeader(f->data_, f->size_) : ParseHeader(head.data(), f->size_);
    if (!h.ok()) return Status(h.status().code(), path + ": " + h.status().message());
    f->header_ = std::move(*h);
    KILN_RETURN_IF_ERROR(Index(f->header_, &f->index_));
    return std::shared_ptr<const ParameterFile>(std::move(f));
  } else {
    ::close(fd);  // a pipe or an empty file: read what there is
    KILN_ASSIGN_OR_RETURN(std::string bytes, ReadFile(path));
    f->owned_.assign(bytes.begin(), bytes.end());
    f->data_ = f->owned_.data();
    f->size_ = f->owned_.size();
  }
  auto h = ParseSafetensors(f->data_, f->size_);
  if (!h.ok()) return Status(h.status().code(), path + ": " + h.status().message());
  f->header_ = std::move(*h);
  KILN_RETURN_IF_ERROR(Index(f->header_, &f->index_));
  return std::shared_ptr<const ParameterFile>(std::move(f));
}

StatusOr<std::shared_ptr<const ParameterFile>> ParameterFile::FromBytes(std::string name, std::vector<uint8_t> bytes) {
  std::shared_ptr<ParameterFile> f(new ParameterFile());
  f->path_ = std::move(name);
  f->owned_ = std::move(bytes);
  f->data_ = f->owned_.data();
  f->size_ = f->owned_.size();
  auto h = ParseSafetensors(f->data_, f->size_);
  if (!h.ok()) return Status(h.status().code(), f->path_ + ": " + h.status().message());
  f->header_ = std::move(*h);
  KILN_RETURN_IF_ERROR(Index(f->header_, &f->index_));
  return std::shared_ptr<const ParameterFile>(std::move(f));
}

const SafetensorsTensor* ParameterFile::Find(std::string_view key) const {
  auto it = index_.find(key);
  return it == index_.end() ? nullptr : &header_.tensors[it->second];
}

// --- ParameterSet ---

std::string ParameterName(const std::string& scope, const std::string& key) {
  return "'" + (scope.empty() ? key : scope + "::" + key) + "'";
}

Status ParameterSet::AddSpec(const std::string& spec) {
  // "scope=FILE": a scope is a name, so an '=' after a '/' belongs to a path.
  std::string scope, path = spec;
  size_t eq = spec.find('=');
  if (eq != std::string::npos && spec.find('/') > eq) {
    scope = spec.substr(0, eq);
    path = spec.substr(eq + 1);
  }
  if (path.empty()) return InvalidArgument("--parameters=" + spec + " names no file");
  KILN_ASSIGN_OR_RETURN(auto file, ParameterFile::Open(path));
  return Add(scope, std::move(file));
}

Status ParameterSet::Add(const std::string& scope, std::shared_ptr<const ParameterFile> file) {
  auto& files = scopes_[scope];
  for (const auto& t : file->header().tensors)
    for (const auto& other : files)
      if (other->Find(t.key))
        return InvalidArgument("parameter " + ParameterName(scope, t.key) + " is in both '" + other->path() +
                               "' and '" + file->path() + "'");
  files.push_back(std::move(file));
  return Status::Ok();
}

StatusOr<std::pair<const SafetensorsTensor*, std::shared_ptr<const ParameterFile>>> ParameterSet::Find(
    const std::string& scope, const std::string& key) const {
  auto it = scopes_.find(scope);
  std::string searched;
  if (it != scopes_.end())
    for (const auto& f : it->second) {
      if (const SafetensorsTensor* t = f->Find(key)) return std::make_pair(t, f);
      searched += (searched.empty() ? "'" : ", '") + f->path() + "'";
    }
  return NotFound("parameter " + ParameterName(scope, key) + " is not in " +
                  (searched.empty() ? "any bound parameter file" : searched));
}

Status BindParameter(const ParameterSet* set, bool verify_checksum, LoadedConstant* c) {
  const ParameterRef& p = *c->parameter;
  if (!set || !set->HasScope(p.scope)) return Status::Ok();  // unbound: Context::Create says so
  const std::string name = "parameter " + ParameterName(p.scope, p.key);
  KILN_ASSIGN_OR_RETURN(auto found, set->Find(p.scope, p.key));
  const auto& [t, file] = found;
  if (t->type != c->type)
    return InvalidArgument(name + " is " + std::string(Name(c->type)) + " in the module but " + t->dtype + " in '" +
                           file->path() + "'");
  if (t->dims != c->dims) {
    auto text = [](const std::vector<int64_t>& d) {
      std::string s = "[";
      for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
      return s + "]";
    };
    return InvalidArgument(name + " has shape " + text(c->dims) + " in the module but " + text(t->dims) + " in '" +
                           file->path() + "'");
  }
  // The constant's bytes are the tensor's, in the mapped file; its
  // checksum is the module's record of them, checked on first use
  // (LoadedConstant::Data), so binding reads no weights.
  c->stored = t->size ? file->data() + t->offset : nullptr;
  c->stored_size = t->size;
  c->size = t->size;
  c->verify = verify_checksum && p.has_checksum;
  c->checksum = p.checksum;
  c->bound = true;
  c->parameter_file = file;
  return Status::Ok();
}

Status ParameterChecksumMismatch(const LoadedConstant& c) {
  const ParameterRef& p = *c.parameter;
  return InvalidArgument("parameter " + ParameterName(p.scope, p.key) + " in '" + c.parameter_file->path() +
                         "' does not match the module's checksum of it (other weights than the module was "
                         "compiled with, or a damaged file)");
}

}  // namespace kiln::vm

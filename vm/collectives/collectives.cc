// Collective descriptors, process groups and the host-side data movement
// shared by every transport.
#include "vm/collectives/collectives.h"

#include <algorithm>
#include <charconv>
#include <cstring>

namespace kiln::vm {

namespace {

bool ParseInt(std::string_view s, int64_t* v) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), *v);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == sep) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  return out;
}

}  // namespace

StatusOr<CollectiveDesc> CollectiveDesc::Parse(std::string_view text) {
  CollectiveDesc d;
  auto bad = [&](std::string_view what) {
    return InvalidArgument("invalid collective descriptor '" + std::string(text) + "': " + std::string(what));
  };
  for (std::string_view field : Split(text, ';')) {
    size_t eq = field.find('=');
    if (eq == std::string_view::npos) return bad("a field without '='");
    std::string_view key = field.substr(0, eq), value = field.substr(eq + 1);
    int64_t v = 0;
    if (key == "op") {
      d.op = std::string(value);
      continue;
    }
    if (key == "groups") {
      d.has_groups = true;
      if (value.empty()) continue;
      for (std::string_view row : Split(value, '|')) {
        std::vector<int64_t> ids;
        if (!row.empty())
          for (std::string_view id : Split(row, ',')) {
            if (!ParseInt(id, &v)) return bad("a group id that is not an integer");
            ids.push_back(v);
          }
        d.groups.push_back(std::move(ids));
      }
      continue;
    }
    if (!ParseInt(value, &v)) return bad("a value that is not an integer");
    if (key == "channel") d.channel = v;
    else if (key == "channel_type") d.channel_type = v;
    else if (key == "global") d.use_global_device_ids = v != 0;
    else if (key == "dynamic_root") d.has_dynamic_root = v != 0;
    else if (key == "host") d.is_host_transfer = v != 0;
    else if (key == "dim") d.dim = v;
    else if (key == "split_dimension") d.split_dimension = v;
    else if (key == "concat_dimension") d.concat_dimension = v;
    else if (key == "split_count") d.split_count = v;
    else return bad("unknown field");
  }
  if (d.op.empty()) return bad("no op");
  return d;
}

std::string CollectiveDesc::Label() const {
  return op + " (channel " + std::to_string(std::max<int64_t>(channel, 0)) + ")";
}

std::string ProcessName(uint32_t flat_id, uint32_t num_partitions) {
  return "(" + std::to_string(flat_id / num_partitions) + ", " + std::to_string(flat_id % num_partitions) + ")";
}

std::string DescribeMismatch(const std::string& a, uint32_t a_id, const std::string& b, uint32_t b_id,
                             uint32_t num_partitions) {
  std::string ra = a.substr(0, a.find(" with ")), rb = b.substr(0, b.find(" with "));
  if (ra == rb) {
    ra = a;
    rb = b;
  }
  return "process " + ProcessName(a_id, num_partitions) + " runs " + ra + ", process " +
         ProcessName(b_id, num_partitions) + " runs " + rb;
}

void FeedQueue::Push(HostTensor t) {
  std::lock_guard<std::mutex> l(mu_);
  q_.push_back(std::move(t));
}

bool FeedQueue::Pop(HostTensor* t) {
  std::lock_guard<std::mutex> l(mu_);
  if (q_.empty()) return false;
  *t = std::move(q_.front());
  q_.pop_front();
  return true;
}

std::vector<HostTensor> FeedQueue::Drain() {
  std::lock_guard<std::mutex> l(mu_);
  std::vector<HostTensor> out(std::make_move_iterator(q_.begin()), std::make_move_iterator(q_.end()));
  q_.clear();
  return out;
}

StatusOr<std::vector<std::vector<uint32_t>>> ProcessGroups(const CollectiveDesc& d, uint32_t R, uint32_t P) {
  enum class Strategy { kCrossReplica, kCrossPartition, kCrossReplicaAndPartition, kFlattenedIds };
  bool three_way = d.op == "stablehlo.all_gather" || d.op == "stablehlo.all_reduce" || d.op == "stablehlo.reduce_scatter";
  Strategy s;
  if (three_way) {
    if (d.use_global_device_ids && d.channel <= 0)
      return InvalidArgument(d.Label() + ": use_global_device_ids needs a channel (C4)");
    s = d.channel <= 0 ? Strategy::kCrossReplica
                       : (d.use_global_device_ids ? Strategy::kFlattenedIds : Strategy::kCrossReplicaAndPartition);
  } else {
    s = d.channel <= 0 ? Strategy::kCrossReplica : Strategy::kCrossPartition;
  }
  // The ids a row names: replicas, partitions, or flattened process ids.
  uint32_t bound = s == Strategy::kCrossPartition ? P : (s == Strategy::kFlattenedIds ? R * P : R);
  std::vector<std::vector<int64_t>> rows;
  for (const auto& row : d.groups) {
    std::vector<int64_t> ids;
    for (int64_t id : row) {
      if (id < 0) continue;  // padding of a ragged row
      if (id >= bound)
        return InvalidArgument(d.Label() + ": id " + std::to_string(id) + " in its groups is out of range [0, " +
                               std::to_string(bound) + ") for a grid of " + std::to_string(R) + "x" +
                               std::to_string(P));
      ids.push_back(id);
    }
    if (!ids.empty()) rows.push_back(std::move(ids));
  }
  if (rows.empty()) {  // no groups: one group of every id
    std::vector<int64_t> all(bound);
    for (uint32_t i = 0; i < bound; ++i) all[i] = i;
    rows.push_back(std::move(all));
  }
  std::vector<std::vector<uint32_t>> groups;
  auto id = [&](int64_t r, int64_t p) { return static_cast<uint32_t>(r * P + p); };
  for (const auto& row : rows) {
    switch (s) {
      case Strategy::kCrossReplica:
        for (uint32_t p = 0; p < P; ++p) {
          std::vector<uint32_t> g;
          for (int64_t r : row) g.push_back(id(r, p));
          groups.push_back(std::move(g));
        }
        break;
      case Strategy::kCrossPartition:
        for (uint32_t r = 0; r < R; ++r) {
          std::vector<uint32_t> g;
          for (int64_t p : row) g.push_back(id(r, p));
          groups.push_back(std::move(g));
        }
        break;
      case Strategy::kCrossReplicaAndPartition: {
        std::vector<uint32_t> g;
        for (uint32_t p = 0; p < P; ++p)
          for (int64_t r : row) g.push_back(id(r, p));
        groups.push_back(std::move(g));
        break;
      }
      case Strategy::kFlattenedIds: {
        std::vector<uint32_t> g;
        for (int64_t f : row) g.push_back(static_cast<uint32_t>(f));
        groups.push_back(std::move(g));
        break;
      }
    }
  }
  return groups;
}

namespace {

// Splits dims around `dim` into outer x dims[dim] x inner (in elements).
void Blocks(const HostTensor& t, int64_t dim, int64_t* outer, int64_t* inner) {
  *outer = 1;
  *inner = 1;
  for (int64_t i = 0; i < dim; ++i) *outer *= t.dims[i];
  for (size_t i = dim + 1; i < t.dims.size(); ++i) *inner *= t.dims[i];
}

}  // namespace

StatusOr<HostTensor> ConcatHost(const std::vector<const HostTensor*>& parts, int64_t dim) {
  if (parts.empty()) return InvalidArgument("concatenation of nothing");
  const HostTensor& first = *parts[0];
  if (dim < 0 || dim >= static_cast<int64_t>(first.dims.size()))
    return InvalidArgument("dimension " + std::to_string(dim) + " out of range for rank " +
                           std::to_string(first.dims.size()));
  HostTensor out;
  out.type = first.type;
  out.dims = first.dims;
  out.dims[dim] = 0;
  for (const HostTensor* p : parts) {
    if (p->type != first.type || p->dims.size() != first.dims.size())
      return InvalidArgument("processes contribute tensors of different types");
    for (size_t i = 0; i < first.dims.size(); ++i)
      if (static_cast<int64_t>(i) != dim && p->dims[i] != first.dims[i])
        return InvalidArgument("processes contribute tensors of different shapes");
    out.dims[dim] += p->dims[dim];
  }
  size_t w = StorageBytes(first.type);
  int64_t outer, inner;
  Blocks(first, dim, &outer, &inner);
  out.data.resize(static_cast<size_t>(out.NumElements()) * w);
  uint8_t* dst = out.data.data();
  for (int64_t o = 0; o < outer; ++o)
    for (const HostTensor* p : parts) {
      size_t n = static_cast<size_t>(p->dims[dim] * inner) * w;
      if (n > 0) std::memcpy(dst, p->data.data() + o * n, n);  // a zero-sized part may have no storage
      dst += n;
    }
  return out;
}

StatusOr<HostTensor> SliceHost(const HostTensor& t, int64_t dim, int64_t part, int64_t count) {
  if (dim < 0 || dim >= static_cast<int64_t>(t.dims.size()))
    return InvalidArgument("dimension " + std::to_string(dim) + " out of range for rank " + std::to_string(t.dims.size()));
  if (count <= 0 || t.dims[dim] % count != 0)
    return InvalidArgument("dimension " + std::to_string(dim) + " of size " + std::to_string(t.dims[dim]) +
                           " does not split into " + std::to_string(count) + " parts");
  HostTensor out;
  out.type = t.type;
  out.dims = t.dims;
  out.dims[dim] = t.dims[dim] / count;
  size_t w = StorageBytes(t.type);
  int64_t outer, inner;
  Blocks(t, dim, &outer, &inner);
  out.data.resize(static_cast<size_t>(out.NumElements()) * w);
  size_t chunk = static_cast<size_t>(out.dims[dim] * inner) * w;
  size_t row = static_cast<size_t>(t.dims[dim] * inner) * w;
  if (chunk > 0)  // a zero-sized slice may have no storage
    for (int64_t o = 0; o < outer; ++o) std::memcpy(out.data.data() + o * chunk, t.data.data() + o * row + part * chunk, chunk);
  return out;
}

HostTensor ZerosLike(const HostTensor& t) {
  HostTensor z;
  z.type = t.type;
  z.dims = t.dims;
  z.data.assign(t.data.size(), 0);
  return z;
}

namespace {

template <typename T>
void Put(std::vector<uint8_t>* out, T v) {
  const auto* b = reinterpret_cast<const uint8_t*>(&v);
  out->insert(out->end(), b, b + sizeof(T));
}

}  // namespace

std::vector<uint8_t> EncodeHeaders(const std::string& signature, const std::vector<HostTensor>& tensors) {
  std::vector<uint8_t> out;
  Put<uint32_t>(&out, 0x584e4c4b);  // "KLNX"
  Put<uint32_t>(&out, static_cast<uint32_t>(signature.size()));
  out.insert(out.end(), signature.begin(), signature.end());
  Put<uint32_t>(&out, static_cast<uint32_t>(tensors.size()));
  for (const auto& t : tensors) {
    Put<uint32_t>(&out, static_cast<uint32_t>(t.type));
    Put<uint8_t>(&out, t.is_token ? 1 : 0);
    Put<uint32_t>(&out, static_cast<uint32_t>(t.dims.size()));
    for (int64_t d : t.dims) Put<int64_t>(&out, d);
    Put<uint64_t>(&out, t.data.size());
  }
  return out;
}

Status DecodeHeaders(const uint8_t* data, size_t size, std::string* signature, std::vector<HostTensor>* tensors) {
  size_t at = 0;
  auto get = [&](void* v, size_t n) {
    if (size - at < n) return false;
    std::memcpy(v, data + at, n);
    at += n;
    return true;
  };
  auto bad = [] { return DataLoss("a malformed collective message"); };
  uint32_t magic = 0, len = 0, count = 0;
  if (!get(&magic, 4) || magic != 0x584e4c4b || !get(&len, 4) || size - at < len) return bad();
  signature->assign(reinterpret_cast<const char*>(data + at), len);
  at += len;
  if (!get(&count, 4) || count > size) return bad();
  tensors->clear();
  for (uint32_t i = 0; i < count; ++i) {
    HostTensor t;
    uint32_t type = 0, rank = 0;
    uint8_t token = 0;
    uint64_t bytes = 0;
    if (!get(&type, 4) || !get(&token, 1) || !get(&rank, 4) || rank > 64) return bad();
    auto et = ElementTypeFromCode(type);
    if (!et && !token) return bad();
    t.type = et ? *et : ElementType::kInvalid;
    t.is_token = token != 0;
    t.dims.resize(rank);
    for (auto& d : t.dims)
      if (!get(&d, 8) || d < 0) return bad();
    if (!get(&bytes, 8) || bytes > (uint64_t{1} << 40)) return bad();
    int64_t n = 1;
    for (int64_t d : t.dims)
      if (__builtin_mul_overflow(n, d, &n) || n > (int64_t{1} << 40)) return bad();
    if (!t.is_token && bytes != static_cast<uint64_t>(n) * StorageBytes(t.type)) return bad();
    t.data.resize(bytes);
    tensors->push_back(std::move(t));
  }
  return at == size ? Status::Ok() : bad();
}

}  // namespace kiln::vm

// The in-process transport's all_reduce between buffers in host memory
// (CollectiveTransport::AllReduceBuffers): the members meet once to learn
// each other's input and result addresses, each reduces its own slice of
// the elements from every member's input, in group order, and writes it
// into every member's result; a second meeting keeps each member's buffers
// alive and unread by the others until all have finished. No copies, no
// allocations: each process reads N/N of the inputs and writes N/N of the
// results, as MPI's reduce-scatter + all-gather does.
#include <cstring>
#include <type_traits>

#include "vm/collectives/collectives_local.h"
#include "vm/collectives/host_reduce.h"

namespace kiln::vm {

namespace {

// Elements reduced into a stack tile before the tile is written to every
// result: the inputs are read once, and a result may be its own input.
constexpr int64_t kTile = 1024;

template <typename T, typename Op>
void ReduceSlice(const std::vector<const T*>& ins, const std::vector<T*>& outs, int64_t begin, int64_t end, Op op) {
  T tile[kTile];
  for (int64_t i = begin; i < end; i += kTile) {
    const int64_t n = std::min(kTile, end - i);
    std::memcpy(tile, ins[0] + i, static_cast<size_t>(n) * sizeof(T));
    for (size_t j = 1; j < ins.size(); ++j) {
      const T* in = ins[j] + i;
      for (int64_t k = 0; k < n; ++k) tile[k] = op(tile[k], in[k]);
    }
    for (T* out : outs) std::memcpy(out + i, tile, static_cast<size_t>(n) * sizeof(T));
  }
}

// The reduction of `op` on T, as the reduction body computes it: IEEE
// arithmetic for floats, two's-complement wrapping for integers. Floating
// max/min (NaN and signed-zero rules) stay on the general path.
// The type integer arithmetic wraps in (unsigned); floats as they are.
template <typename T, bool kInteger>
struct Wrapping {
  using type = T;
};
template <typename T>
struct Wrapping<T, true> {
  using type = std::make_unsigned_t<T>;
};

template <typename T>
bool ReduceTyped(StandardReduction op, const std::vector<const void*>& in_ptrs, const std::vector<void*>& out_ptrs,
                 int64_t begin, int64_t end) {
  std::vector<const T*> ins;
  std::vector<T*> outs;
  for (const void* p : in_ptrs) ins.push_back(static_cast<const T*>(p));
  for (void* p : out_ptrs) outs.push_back(static_cast<T*>(p));
  using U = typename Wrapping<T, std::is_integral_v<T>>::type;
  switch (op) {
    case StandardReduction::kSum:
      ReduceSlice(ins, outs, begin, end, [](T a, T b) { return static_cast<T>(static_cast<U>(a) + static_cast<U>(b)); });
      return true;
    case StandardReduction::kProduct:
      ReduceSlice(ins, outs, begin, end, [](T a, T b) { return static_cast<T>(static_cast<U>(a) * static_cast<U>(b)); });
      return true;
    case StandardReduction::kMax:
      if constexpr (std::is_integral_v<T>) {
        ReduceSlice(ins, outs, begin, end, [](T a, T b) { return a < b ? b : a; });
        return true;
      }
      return false;
    case StandardReduction::kMin:
      if constexpr (std::is_integral_v<T>) {
        ReduceSlice(ins, outs, begin, end, [](T a, T b) { return b < a ? b : a; });
        return true;
      }
      return false;
    default: return false;
  }
}

}  // namespace

bool HostReduceSupported(StandardReduction op, ElementType type) {
  const bool is_float = type == ElementType::kF32 || type == ElementType::kF64;
  const bool is_int = type == ElementType::kSI32 || type == ElementType::kSI64 || type == ElementType::kUI32 ||
                      type == ElementType::kUI64;
  if (op == StandardReduction::kSum || op == StandardReduction::kProduct) return is_float || is_int;
  if (op == StandardReduction::kMax || op == StandardReduction::kMin) return is_int;
  return false;
}

bool HostReduce(StandardReduction op, ElementType type, const std::vector<const void*>& ins,
                const std::vector<void*>& outs, int64_t begin, int64_t end) {
  switch (type) {
    case ElementType::kF32: return ReduceTyped<float>(op, ins, outs, begin, end);
    case ElementType::kF64: return ReduceTyped<double>(op, ins, outs, begin, end);
    case ElementType::kSI32: return ReduceTyped<int32_t>(op, ins, outs, begin, end);
    case ElementType::kSI64: return ReduceTyped<int64_t>(op, ins, outs, begin, end);
    case ElementType::kUI32: return ReduceTyped<uint32_t>(op, ins, outs, begin, end);
    case ElementType::kUI64: return ReduceTyped<uint64_t>(op, ins, outs, begin, end);
    default: return false;
  }
}

StatusOr<bool> InProcessTransport::ShareBuffers(const Exchange& e, SharedBuffers mine,
                                                std::vector<SharedBuffers>* all) {
  auto addresses = std::make_shared<std::vector<HostTensor>>(1);
  HostTensor& t = (*addresses)[0];
  t.type = ElementType::kUI64;
  t.dims = {2};
  t.data.resize(2 * sizeof(uint64_t));
  const uint64_t words[2] = {reinterpret_cast<uint64_t>(mine.in), reinterpret_cast<uint64_t>(mine.out)};
  std::memcpy(t.data.data(), words, sizeof words);
  Exchange meet = e;
  meet.payload = addresses;
  meet.signature = e.signature + " (in place)";
  KILN_ASSIGN_OR_RETURN(std::vector<Payload> payloads, ExchangeAll(meet));
  all->clear();
  for (const auto& p : payloads) {
    uint64_t w[2];
    std::memcpy(w, (*p)[0].data.data(), sizeof w);
    all->push_back(SharedBuffers{reinterpret_cast<const void*>(w[0]), reinterpret_cast<void*>(w[1])});
  }
  return true;
}

Status InProcessTransport::BuffersDone(const Exchange& e) {
  Exchange done = e;
  done.payload = std::make_shared<std::vector<HostTensor>>();
  done.signature = e.signature + " (done)";
  return ExchangeAll(done).status();
}

StatusOr<bool> InProcessTransport::AllReduceBuffers(const Exchange& e, StandardReduction op, const ReduceBuffers& b) {
  // Decided from the op and type alone, which the signature holds, so every
  // member of the group decides alike.
  if (!HostReduceSupported(op, b.type) || b.count < 0) return false;
  std::vector<SharedBuffers> all;
  KILN_ASSIGN_OR_RETURN(bool shared, ShareBuffers(e, SharedBuffers{b.in, b.out}, &all));
  if (!shared) return false;
  std::vector<const void*> ins;
  std::vector<void*> outs;
  size_t me = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    ins.push_back(all[i].in);
    outs.push_back(all[i].out);
    if (e.group[i] == e.self) me = i;
  }
  // Each member reduces its own slice into every member's result.
  const int64_t n = static_cast<int64_t>(all.size());
  HostReduce(op, b.type, ins, outs, b.count * static_cast<int64_t>(me) / n, b.count * static_cast<int64_t>(me + 1) / n);
  KILN_RETURN_IF_ERROR(BuffersDone(e));
  return true;
}

}  // namespace kiln::vm

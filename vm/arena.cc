// arena.view and arena.view.inplace: a planned tensor's view of its activation's arena (memory
// planning, compiler/passes/memory_plan.h; docs/memory.md).
#include <cstdlib>
#include <cstring>
#include <vector>

#include "vm/context.h"

namespace kiln::vm {

bool ArenaPoisonRequested() {
  const char* v = std::getenv("KILN_ARENA_POISON");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

Status Context::ArenaView(const Instruction& ins, Frame& frame) {
  const LoadedFunction& fn = module_->functions[frame.function];
  const auto& o = ins.operands;
  const auto type = static_cast<ElementType>(o[1].value);
  const uint64_t offset = o[2].value;
  uint64_t elems = 1;
  for (uint32_t r : o[3].list) {
    const int64_t d = frame.i64[r];
    if (d < 0 || __builtin_mul_overflow(elems, static_cast<uint64_t>(d), &elems) || elems > (uint64_t{1} << 40))
      return InvalidArgument("arena.view with invalid dimensions");
  }
  const uint64_t bytes = elems * StorageBytes(type);
  // The verifier checked offset < arena_bytes; the dimensions are known only now.
  if (bytes > fn.arena_bytes - offset)
    return InvalidArgument("arena.view of " + std::to_string(bytes) + " bytes at offset " + std::to_string(offset) +
                           " runs past the function's arena of " + std::to_string(fn.arena_bytes) + " bytes");
  if (!frame.arena) {
    // The arena a finished activation left, if nothing else holds it: the
    // command buffers that recorded work on it hold it until their
    // submission has run (the deferred CPU queue and the Vulkan fence drop
    // them only then), and views of it die with their frame. Otherwise (a
    // pending submission, or a recursive or re-entrant activation while the
    // kept one is in use) a fresh buffer from the device. Not zero-filled:
    // every tensor in it is written before it is read (KILN_ARENA_POISON
    // checks), and a fill per call was a pass over the whole arena.
    if (arena_cache_.size() <= static_cast<size_t>(frame.function)) arena_cache_.resize(module_->functions.size());
    std::shared_ptr<hal::Buffer>& kept = arena_cache_[frame.function];
    if (kept && kept.use_count() == 1 && kept->size() >= fn.arena_bytes) {
      frame.arena = std::move(kept);
    } else {
      KILN_ASSIGN_OR_RETURN(frame.arena, device_->AllocateUninitialized(fn.arena_bytes));
    }
  }
  // The register's previous view is rewritten in place where it can be: an
  // arena.view then allocates nothing.
  RefValue& dst = frame.refs[o[0].value];
  std::shared_ptr<hal::BufferView> view = TakeReusableView(dst, views_);
  view->type = type;
  view->dims.resize(o[3].list.size());
  for (size_t i = 0; i < o[3].list.size(); ++i) view->dims[i] = frame.i64[o[3].list[i]];
  view->buffer = frame.arena;
  view->offset = offset;
  if (arena_poison_ && bytes > 0 && ins.op == Opcode::kArenaView) {
    if (!poison_ || poison_->size() < bytes) {
      std::vector<uint8_t> ff(std::max<uint64_t>(bytes, poison_ ? 2 * poison_->size() : 0), 0xff);
      KILN_ASSIGN_OR_RETURN(poison_, device_->AllocateCopy(ff.data(), ff.size()));
    }
    hal::BufferView source{ElementType::kUI8, {static_cast<int64_t>(bytes)}, poison_, 0};
    hal::BufferView target{ElementType::kUI8, {static_cast<int64_t>(bytes)}, frame.arena, offset};
    if (!pending_) pending_ = device_->CreateCommandBuffer();
    pending_->Copy(source, target);
  }
  dst.kind = RefValue::Kind::kView;
  dst.view = std::move(view);
  dst.list.reset();
  return Status::Ok();
}

void Context::KeepArena(Frame& frame) {
  if (!frame.arena) return;
  if (arena_cache_.size() <= static_cast<size_t>(frame.function)) arena_cache_.resize(module_->functions.size());
  std::shared_ptr<hal::Buffer>& kept = arena_cache_[frame.function];
  if (!kept) kept = std::move(frame.arena);
}

}  // namespace kiln::vm

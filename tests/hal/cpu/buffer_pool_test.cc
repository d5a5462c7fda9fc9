#include "hal/cpu/buffer_pool.h"

#include <gtest/gtest.h>

#include <cstring>

namespace kiln::hal {
namespace {

TEST(BufferPool, SizeClassesCoverTheRequestWithLittleWaste) {
  for (size_t bytes : {size_t{0}, size_t{1}, size_t{63}, size_t{64}, size_t{65}, size_t{4095}, size_t{4096},
                       size_t{4097}, size_t{5000}, size_t{8192}, size_t{12289}, size_t{1} << 20,
                       (size_t{1} << 20) + 1, size_t{3} << 28}) {
    SCOPED_TRACE(bytes);
    const size_t c = BufferPool::SizeClass(bytes);
    EXPECT_GE(c, bytes);
    EXPECT_GT(c, 0u);
    EXPECT_EQ(c % BufferPool::kAlignment, 0u);
    if (bytes > 4096) {
      EXPECT_LE(c, bytes + bytes / 4);
    }
    EXPECT_EQ(BufferPool::SizeClass(c), c);  // a class is its own class
  }
}

TEST(BufferPool, ReusesReleasedBlocksZeroed) {
  BufferPool pool(1 << 20);
  size_t cap = 0;
  uint8_t* a = pool.Acquire(1000, &cap);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % BufferPool::kAlignment, 0u);
  for (size_t i = 0; i < 1000; ++i) EXPECT_EQ(a[i], 0);
  std::memset(a, 0xab, cap);
  pool.Release(a, cap);
  EXPECT_EQ(pool.cached_bytes(), cap);
  size_t cap2 = 0;
  uint8_t* b = pool.Acquire(990, &cap2);  // same class: the same block, zeroed again
  EXPECT_EQ(b, a);
  EXPECT_EQ(cap2, cap);
  for (size_t i = 0; i < 990; ++i) ASSERT_EQ(b[i], 0) << i;
  EXPECT_EQ(pool.cached_bytes(), 0u);
  pool.Release(b, cap2);
}

TEST(BufferPool, UnfilledBlocksKeepTheirBytesOrTakeThePoison) {
  BufferPool pool(1 << 20);
  size_t cap = 0;
  uint8_t* a = pool.Acquire(1000, &cap);
  std::memset(a, 0xab, cap);
  pool.Release(a, cap);
  // Reused without a fill: what the last tensor left (a dispatch output is
  // written whole before it is read, so nothing sees it).
  uint8_t* b = pool.Acquire(1000, &cap, nullptr, BufferPool::Fill::kNone);
  ASSERT_EQ(b, a);
  for (size_t i = 0; i < 1000; ++i) ASSERT_EQ(b[i], 0xab) << i;
  pool.Release(b, cap);

  BufferPool poisoned(1 << 20, 0xff);
  uint8_t* c = poisoned.Acquire(1000, &cap, nullptr, BufferPool::Fill::kNone);
  for (size_t i = 0; i < 1000; ++i) ASSERT_EQ(c[i], 0xff) << i;
  std::memset(c, 0, cap);
  poisoned.Release(c, cap);
  uint8_t* d = poisoned.Acquire(1000, &cap, nullptr, BufferPool::Fill::kNone);  // reused: poisoned again
  for (size_t i = 0; i < 1000; ++i) ASSERT_EQ(d[i], 0xff) << i;
  poisoned.Release(d, cap);
  uint8_t* z = poisoned.Acquire(1000, &cap);  // a zeroed block stays zeroed
  for (size_t i = 0; i < 1000; ++i) ASSERT_EQ(z[i], 0) << i;
  poisoned.Release(z, cap);
}

TEST(BufferPool, FreesWhatExceedsTheCache) {
  BufferPool pool(10000);
  size_t c1 = 0, c2 = 0;
  uint8_t* a = pool.Acquire(8000, &c1);
  uint8_t* b = pool.Acquire(8000, &c2);
  pool.Release(a, c1);
  pool.Release(b, c2);  // over the limit: freed, not kept
  EXPECT_EQ(pool.cached_bytes(), c1);
}

// Blocks of 2 MiB and more start on a 2 MiB boundary (so that transparent
// huge pages can back them), are usable to their last byte, and go back to
// the allocator they came from when freed (ASan checks the pairing).
TEST(BufferPool, LargeBlocksStartOnHugePageBoundaries) {
  BufferPool pool(0);  // nothing cached: every release frees
  for (size_t bytes : {BufferPool::kHugePage, size_t{5} << 20, (size_t{9} << 20) + 3}) {
    size_t capacity = 0;
    uint8_t* b = pool.Acquire(bytes, &capacity, nullptr, BufferPool::Fill::kZero);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b) % BufferPool::kHugePage, 0u) << bytes;
    EXPECT_EQ(b[bytes - 1], 0);
    b[capacity - 1] = 7;
    pool.Release(b, capacity);
  }
  size_t capacity = 0;
  uint8_t* small = pool.Acquire(4096, &capacity);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(small) % BufferPool::kAlignment, 0u);
  pool.Release(small, capacity);
}

}  // namespace
}  // namespace kiln::hal

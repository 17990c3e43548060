// Guarded memory (adapters/common/guarded_memory.h): blocks are aligned and zero-filled, keep their
// contents through Reallocate, and a write just past a block's end kills the process at once (the
// property the adapters rely on to turn a library's overflow into a crash of the case that did
// it, instead of a corrupted heap).
#include "guarded_memory.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace convparity_adapter {
namespace {

TEST(GuardedMemory, BlocksAreAlignedZeroFilledAndKeepTheirContentsThroughReallocate) {
  for (size_t alignment : {16u, 64u, 4096u}) {
    auto* p = static_cast<unsigned char*>(GuardedMemory::Allocate(100, alignment));
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % alignment, 0u);
    for (int i = 0; i < 100; ++i) EXPECT_EQ(p[i], 0) << i;
    for (int i = 0; i < 100; ++i) p[i] = static_cast<unsigned char>(i);
    p = static_cast<unsigned char*>(GuardedMemory::Reallocate(p, 5000, alignment));
    ASSERT_NE(p, nullptr);
    for (int i = 0; i < 100; ++i) EXPECT_EQ(p[i], i);
    p[4999] = 1;  // the whole new size is writable
    GuardedMemory::Free(p);
  }
  GuardedMemory::Free(nullptr);
  EXPECT_EQ(GuardedMemory::Allocate(1, 2 * 65536), nullptr);  // alignment above a page
}

void WritePastTheEnd(size_t count) {
  GuardedFloats block(count);
  block.data()[count - 1] = 1.0f;  // fine
  // The block ends at the guard page, rounded up to its 64-byte alignment: 16 floats further on
  // is past any rounding.
  volatile float* past = block.data() + count + 16;
  *past = 1.0f;
}

TEST(GuardedMemoryDeathTest, AWritePastTheEndKillsTheProcessAtOnce) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(WritePastTheEnd(16), "");
  EXPECT_DEATH(WritePastTheEnd(1000), "");
}

}  // namespace
}  // namespace convparity_adapter

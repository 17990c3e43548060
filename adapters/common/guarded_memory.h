// Memory with a guard page after each block, for the buffers a library under test writes: a
// library that writes past the end of one dies there, at once (a crash of the case that did it),
// instead of corrupting the process's heap and with it later cases of the same worker. XNNPACK's
// deconvolution overflow (findings/xnnpack-1) did the latter: malloc aborted in the next case, and
// a poisoned oracle produced a false mismatch. Linux (mmap); every block is its own mapping, so
// keep them for per-case buffers, not for millions of small objects.
//
// NOTE: a block ends where its guard page starts, rounded up to its alignment: an overflow smaller
// than the alignment (XNNPACK asks for 64 bytes) goes unnoticed; so does an underflow.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <new>
#include <unordered_map>
#include <utility>

namespace convparity_adapter {

class GuardedMemory {
 public:
  // Zero-filled, `alignment`-aligned (a power of two up to the page size); nullptr when out of
  // memory.
  static void* Allocate(size_t size, size_t alignment = 16) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    if (alignment < 16) alignment = 16;
    if (alignment > page) return nullptr;
    const size_t padded = RoundUp(size == 0 ? 1 : size, alignment);
    const size_t length = RoundUp(padded, page) + page;
    void* base = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) return nullptr;
    char* guard = static_cast<char*>(base) + length - page;
    if (mprotect(guard, page, PROT_NONE) != 0) {
      munmap(base, length);
      return nullptr;
    }
    void* data = guard - padded;
    std::lock_guard<std::mutex> lock(Mutex());
    Blocks()[data] = {base, length, size};
    return data;
  }

  // realloc's contract: the old block stays valid when this fails.
  static void* Reallocate(void* p, size_t size, size_t alignment = 16) {
    if (p == nullptr) return Allocate(size, alignment);
    void* fresh = Allocate(size, alignment);
    if (fresh == nullptr) return nullptr;
    size_t old_size = 0;
    {
      std::lock_guard<std::mutex> lock(Mutex());
      old_size = Blocks().at(p).size;
    }
    std::memcpy(fresh, p, old_size < size ? old_size : size);
    Free(p);
    return fresh;
  }

  static void Free(void* p) {
    if (p == nullptr) return;
    Block b;
    {
      std::lock_guard<std::mutex> lock(Mutex());
      auto it = Blocks().find(p);
      if (it == Blocks().end()) return;  // not ours: leave it alone rather than crash here
      b = it->second;
      Blocks().erase(it);
    }
    munmap(b.base, b.length);
  }

 private:
  struct Block {
    void* base;
    size_t length;
    size_t size;
  };
  static size_t RoundUp(size_t v, size_t m) { return (v + m - 1) / m * m; }
  static std::mutex& Mutex() {
    static std::mutex mutex;
    return mutex;
  }
  static std::unordered_map<void*, Block>& Blocks() {
    static auto* blocks = new std::unordered_map<void*, Block>;  // outlives static destructors
    return *blocks;
  }
};

// A zero-filled float array in guarded memory (std::bad_alloc when none is left).
class GuardedFloats {
 public:
  explicit GuardedFloats(size_t count)
      : data_(static_cast<float*>(GuardedMemory::Allocate(count * sizeof(float), 64))),
        size_(count) {
    if (data_ == nullptr) throw std::bad_alloc();
  }
  GuardedFloats(GuardedFloats&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), size_(o.size_) {}
  GuardedFloats(const GuardedFloats&) = delete;
  GuardedFloats& operator=(const GuardedFloats&) = delete;
  GuardedFloats& operator=(GuardedFloats&&) = delete;
  ~GuardedFloats() { GuardedMemory::Free(data_); }

  float* data() { return data_; }
  const float* data() const { return data_; }
  size_t size() const { return size_; }
  float& operator[](size_t i) { return data_[i]; }

 private:
  float* data_;
  size_t size_;
};

}  // namespace convparity_adapter

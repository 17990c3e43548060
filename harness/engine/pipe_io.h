// Reading and writing whole messages on pipes, without C++ streams (a forked process must not
// inherit what its parent's stream had buffered): the worker's protocol and its SUT host's.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <string>

namespace convparity {

// Lines, and blocks of a known size, from one file descriptor.
class PipeReader {
 public:
  explicit PipeReader(int fd) : fd_(fd) {}

  // The next line, without its '\n'; false at the end of the stream.
  bool Line(std::string& line) {
    for (size_t scanned = 0;;) {
      const size_t nl = buffer_.find('\n', scanned);
      if (nl != std::string::npos) {
        line.assign(buffer_, 0, nl);
        buffer_.erase(0, nl + 1);
        return true;
      }
      scanned = buffer_.size();
      if (!Fill()) return false;
    }
  }

  // The next `n` bytes; false when the stream ends before them.
  bool Bytes(size_t n, std::string& bytes) {
    while (buffer_.size() < n)
      if (!Fill()) return false;
    bytes.assign(buffer_, 0, n);
    buffer_.erase(0, n);
    return true;
  }

 private:
  bool Fill() {
    char chunk[65536];
    for (;;) {
      const ssize_t n = read(fd_, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      buffer_.append(chunk, static_cast<size_t>(n));
      return true;
    }
  }

  int fd_;
  std::string buffer_;
};

// False when the reader has gone.
inline bool WriteAll(int fd, const std::string& text) {
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace convparity

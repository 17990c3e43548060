/* Breaks the atomic writes of harness/io/files.cc on purpose, for tests/README.md's "test the
 * tests": preloaded (LD_PRELOAD) into convparity, it opens the final file wherever the harness
 * opens its temp file "<name>.tmp.<pid>", and makes the rename that follows a no-op. Every JSON
 * file is then truncated and written in place, so a kill in the middle of a write leaves a torn
 * file, and tests/cli/killed_campaign_test.sh must fail.
 *
 * libstdc++'s std::ofstream opens files with fopen (fopen64 with large-file support) and
 * std::filesystem::rename calls rename: those three are the whole interface. Without effect under
 * AddressSanitizer, whose interceptors come first (the asan preset does not build it). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* The final file of a temp path "<name>.tmp.<digits>" into `out`; 0 when `path` is no temp path. */
static int FinalPath(const char* path, char* out, size_t size) {
  const char* tmp = strstr(path, ".tmp.");
  if (tmp == NULL || tmp == path || tmp[5] == '\0') return 0;
  for (const char* c = tmp + 5; *c; ++c)
    if (*c < '0' || *c > '9') return 0;
  const size_t n = (size_t)(tmp - path);
  if (n + 1 > size) return 0;
  memcpy(out, path, n);
  out[n] = '\0';
  return 1;
}

typedef FILE* (*OpenFunction)(const char*, const char*);

static FILE* OpenInPlace(const char* symbol, const char* path, const char* mode) {
  OpenFunction real = (OpenFunction)dlsym(RTLD_NEXT, symbol);
  char final_path[4096];
  return real(FinalPath(path, final_path, sizeof final_path) ? final_path : path, mode);
}

FILE* fopen(const char* path, const char* mode) { return OpenInPlace("fopen", path, mode); }
FILE* fopen64(const char* path, const char* mode) { return OpenInPlace("fopen64", path, mode); }

int rename(const char* from, const char* to) {
  char final_path[4096];
  if (FinalPath(from, final_path, sizeof final_path) && strcmp(final_path, to) == 0) return 0;
  int (*real)(const char*, const char*) =
      (int (*)(const char*, const char*))dlsym(RTLD_NEXT, "rename");
  return real(from, to);
}

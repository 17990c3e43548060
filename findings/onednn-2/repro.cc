// oneDNN 2.6.3: jit:avx512_core reads and writes out of bounds in a 3-D weight gradient when the
// front depth padding is large (see README.md): the convolution below gets wrong weight gradients,
// the deconvolution writes past the end of diff_weights. This program needs only oneDNN. Every
// buffer a primitive touches is ours, with guard zones after it that hold 1000.0 (after src and
// diff_dst: an out-of-bounds read brings in 1000s) or 12345.0 (around diff_weights: an
// out-of-bounds write changes them). Inputs are small integers, so every implementation must agree
// exactly with the plain loop. NOTE: the convolution goes wrong on one OpenMP thread (two threads
// take another path), so the program runs itself again with OMP_NUM_THREADS=1.
//
//   g++ -std=c++17 repro.cc -ldnnl -o repro && ./repro
//
// Exit code: 1 when an implementation is wrong or writes outside diff_weights (the bug), 0 when
// none does, 77 when oneDNN offers no AVX-512 implementation here (the one that shows the bug).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <oneapi/dnnl/dnnl.hpp>
#include <vector>

using namespace dnnl;
using tag = memory::format_tag;
using dt = memory::data_type;

constexpr size_t kGuard = 4096;  // floats on each side of a buffer

// A buffer for a memory descriptor, inside guard zones of `fill`.
struct Guarded {
  Guarded(const memory::desc& md, float fill)
      : n(md.get_size() / sizeof(float)), fill(fill), v(kGuard + n + kGuard, fill) {}
  float* data() { return v.data() + kGuard; }
  // Guard floats that changed, before and after the buffer.
  size_t Changed() const {
    size_t changed = 0;
    for (size_t i = 0; i < kGuard; ++i) changed += (v[i] != fill) + (v[kGuard + n + i] != fill);
    return changed;
  }
  size_t n;
  float fill;
  std::vector<float> v;
};

struct Run {
  std::vector<float> diff_weights;  // plain
  size_t wrote_outside;             // floats written outside diff_weights
};

// Runs a backward-weights primitive descriptor on plain src and diff_dst.
Run RunBackwardWeights(const primitive_desc& pd, engine& eng, stream& s,
                       const memory::desc& src_plain, std::vector<float> src,
                       const memory::desc& dst_plain, std::vector<float> diff_dst,
                       const memory::desc& wei_plain) {
  const memory::desc src_md = pd.query_md(query::src_md), dst_md = pd.query_md(query::diff_dst_md),
                     wei_md = pd.query_md(query::diff_weights_md);
  Guarded src_g(src_md, 1000.0f), dst_g(dst_md, 1000.0f), wei_g(wei_md, 12345.0f);
  memory src_user(src_plain, eng, src.data()), dst_user(dst_plain, eng, diff_dst.data());
  memory src_m(src_md, eng, src_g.data()), dst_m(dst_md, eng, dst_g.data()),
      wei_m(wei_md, eng, wei_g.data());
  reorder(src_user, src_m).execute(s, src_user, src_m);
  reorder(dst_user, dst_m).execute(s, dst_user, dst_m);
  primitive(pd).execute(
      s, {{DNNL_ARG_SRC, src_m}, {DNNL_ARG_DIFF_DST, dst_m}, {DNNL_ARG_DIFF_WEIGHTS, wei_m}});
  s.wait();
  const size_t wrote_outside = wei_g.Changed();
  Run run{std::vector<float>(wei_plain.get_size() / sizeof(float)), wrote_outside};
  memory wei_user(wei_plain, eng, run.diff_weights.data());
  reorder(wei_m, wei_user).execute(s, wei_m, wei_user);
  s.wait();
  return run;
}

std::vector<float> SmallIntegers(size_t n, unsigned seed) {
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>((seed = seed * 1103515245u + 12345u) >> 16 & 7) - 3;
  return v;
}

// Part 1. A convolution: N = C_in = C_out = 1, input depth 3 (height and width 1), kernel depth 5,
// stride 3, padding 4 in front and 1 behind; output depth (3 + 5 - 5) / 3 + 1 = 2.
int Convolution(engine& eng, stream& s) {
  const memory::dim id = 3, kd = 5, sd = 3, front = 4, back = 1;
  const memory::dim od = (id + front + back - kd) / sd + 1;
  const std::vector<float> src = SmallIntegers(id, 7), diff_dst = SmallIntegers(od, 8);
  std::vector<float> expected(kd, 0.0f);
  for (memory::dim k = 0; k < kd; ++k)
    for (memory::dim o = 0; o < od; ++o)
      if (const memory::dim i = o * sd - front + k; i >= 0 && i < id)
        expected[k] += src[i] * diff_dst[o];
  const memory::dims src_dims{1, 1, id, 1, 1}, wei_dims{1, 1, kd, 1, 1}, dst_dims{1, 1, od, 1, 1};
  const memory::desc src_any(src_dims, dt::f32, tag::any), wei_any(wei_dims, dt::f32, tag::any),
      dst_any(dst_dims, dt::f32, tag::any);
  const memory::dims strides{sd, 1, 1}, dilates{0, 0, 0}, pad_l{front, 0, 0}, pad_r{back, 0, 0};
#if DNNL_VERSION_MAJOR >= 3
  convolution_forward::primitive_desc hint(eng, prop_kind::forward_training,
                                           algorithm::convolution_direct, src_any, wei_any, dst_any,
                                           strides, dilates, pad_l, pad_r);
  primitive_desc pd = convolution_backward_weights::primitive_desc(
      eng, algorithm::convolution_direct, src_any, wei_any, dst_any, strides, dilates, pad_l, pad_r,
      hint, primitive_attr(), /*allow_empty=*/true);
#else
  convolution_forward::desc fwd(prop_kind::forward_training, algorithm::convolution_direct, src_any,
                                wei_any, dst_any, strides, dilates, pad_l, pad_r);
  convolution_forward::primitive_desc hint(fwd, eng);
  convolution_backward_weights::desc bwd(algorithm::convolution_direct, src_any, wei_any, dst_any,
                                         strides, dilates, pad_l, pad_r);
  primitive_desc pd(&bwd.data, nullptr, eng, hint.get(), /*allow_empty=*/true);
#endif
  if (!pd) return -1;
  int bad = 0;
  bool avx512 = false;
  do {  // every implementation oneDNN offers, in its order of preference
    avx512 = avx512 || std::strstr(pd.impl_info_str(), "avx512") != nullptr;
    const Run run = RunBackwardWeights(pd, eng, s, {src_dims, dt::f32, tag::ncdhw}, src,
                                       {dst_dims, dt::f32, tag::ncdhw}, diff_dst,
                                       {wei_dims, dt::f32, tag::oidhw});
    int differ = 0;
    for (memory::dim k = 0; k < kd; ++k) differ += run.diff_weights[k] != expected[k];
    std::printf("convolution    %-16s %s", pd.impl_info_str(), differ ? "WRONG" : "ok");
    if (run.wrote_outside)
      std::printf(", WROTE %zu floats OUTSIDE diff_weights", run.wrote_outside);
    std::printf("\n");
    for (memory::dim k = 0; differ && k < kd; ++k)
      std::printf("  diff_weights[kd=%ld] expected %g, got %g\n", static_cast<long>(k), expected[k],
                  run.diff_weights[k]);
    bad += differ > 0 || run.wrote_outside > 0;
  } while (pd.next_impl());
  return bad > 0 ? bad : avx512 ? 0 : -1;
}

// Part 2. A deconvolution: C_in = 3, C_out = 1, input depth 3 and width 2, kernel depth 4, stride
// 2, padding 3 on both sides; output depth (3 - 1) * 2 - 6 + 4 = 2. oneDNN's first choice only.
int Deconvolution(engine& eng, stream& s) {
  const memory::dims src_dims{1, 3, 3, 1, 2}, wei_dims{1, 3, 4, 1, 1}, dst_dims{1, 1, 2, 1, 2};
  const memory::desc src_any(src_dims, dt::f32, tag::any), wei_any(wei_dims, dt::f32, tag::any),
      dst_any(dst_dims, dt::f32, tag::any);
  const memory::dims strides{2, 1, 1}, dilates{0, 0, 0}, pad{3, 0, 0};
#if DNNL_VERSION_MAJOR >= 3
  deconvolution_forward::primitive_desc hint(eng, prop_kind::forward_training,
                                             algorithm::deconvolution_direct, src_any, wei_any,
                                             dst_any, strides, dilates, pad, pad);
  primitive_desc pd = deconvolution_backward_weights::primitive_desc(
      eng, algorithm::deconvolution_direct, src_any, wei_any, dst_any, strides, dilates, pad, pad,
      hint, primitive_attr(), /*allow_empty=*/true);
#else
  deconvolution_forward::desc fwd(prop_kind::forward_training, algorithm::deconvolution_direct,
                                  src_any, wei_any, dst_any, strides, dilates, pad, pad);
  deconvolution_forward::primitive_desc hint(fwd, eng);
  deconvolution_backward_weights::desc bwd(algorithm::deconvolution_direct, src_any, wei_any,
                                           dst_any, strides, dilates, pad, pad);
  primitive_desc pd(&bwd.data, nullptr, eng, hint.get(), /*allow_empty=*/true);
#endif
  if (!pd) return 0;
  const Run run = RunBackwardWeights(pd, eng, s, {src_dims, dt::f32, tag::ncdhw},
                                     SmallIntegers(18, 9), {dst_dims, dt::f32, tag::ncdhw},
                                     SmallIntegers(4, 10), {wei_dims, dt::f32, tag::oidhw});
  if (run.wrote_outside)
    std::printf("deconvolution  %-16s WROTE %zu floats OUTSIDE diff_weights\n", pd.impl_info_str(),
                run.wrote_outside);
  else
    std::printf("deconvolution  %-16s stayed inside diff_weights\n", pd.impl_info_str());
  return run.wrote_outside > 0;
}

int main(int argc, char** argv) {
  // OpenMP reads OMP_NUM_THREADS when it is loaded, before main: set it, and start again.
  const char* threads = std::getenv("OMP_NUM_THREADS");
  if (threads == nullptr || std::strcmp(threads, "1") != 0) {
    setenv("OMP_NUM_THREADS", "1", 1);
    execv("/proc/self/exe", argv);
    return 2;
  }
  engine eng(engine::kind::cpu, 0);
  stream s(eng);
  const int convolution = Convolution(eng, s);
  if (convolution < 0) return 77;
  const int deconvolution = Deconvolution(eng, s);
  return convolution > 0 || deconvolution > 0 ? 1 : 0;
}

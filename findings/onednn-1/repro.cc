// oneDNN 2.6.3: convolution backward-weights of jit:avx512_core gives wrong weight gradients for a
// 1-D convolution with dilation, stride 2 and padding 15 (see README.md). This program needs only
// oneDNN: it computes the weight gradient of one small problem with every implementation oneDNN
// offers and compares each with a plain loop. Inputs are small integers, so every implementation
// must agree exactly.
//
//   g++ -std=c++17 repro.cc -ldnnl -o repro && ./repro
//
// Exit code: 1 when an implementation differs from the loop (the bug), 0 when all agree, 77 when
// oneDNN offers no AVX-512 implementation here (the one that shows the bug).
#include <cstdio>
#include <cstring>
#include <oneapi/dnnl/dnnl.hpp>
#include <vector>

using namespace dnnl;
using tag = memory::format_tag;

int main() {
  // N = 1, C_in = C_out = 1, width 51, kernel 7, stride 2, padding 15 on both sides, dilation 4
  // (oneDNN writes dilation minus one: 3). Output width (51 + 30 - 25) / 2 + 1 = 29.
  const memory::dim iw = 51, kw = 7, stride = 2, pad = 15, dil = 4;
  const memory::dim ow = (iw + 2 * pad - ((kw - 1) * dil + 1)) / stride + 1;

  // Small integers from a fixed generator.
  unsigned state = 12345;
  auto next = [&] {
    return static_cast<float>((state = state * 1103515245u + 12345u) >> 16 & 7) - 3;
  };
  std::vector<float> src(iw), diff_dst(ow);
  for (float& v : src) v = next();
  for (float& v : diff_dst) v = next();

  // The reference: diff_weights[k] = sum over ow of src[ow * stride - pad + k * dil] *
  // diff_dst[ow].
  std::vector<float> expected(kw, 0.0f);
  for (memory::dim k = 0; k < kw; ++k)
    for (memory::dim o = 0; o < ow; ++o) {
      const memory::dim i = o * stride - pad + k * dil;
      if (i >= 0 && i < iw) expected[k] += src[i] * diff_dst[o];
    }

  engine eng(engine::kind::cpu, 0);
  stream s(eng);
  const memory::desc src_any({1, 1, iw}, memory::data_type::f32, tag::any);
  const memory::desc wei_any({1, 1, kw}, memory::data_type::f32, tag::any);
  const memory::desc dst_any({1, 1, ow}, memory::data_type::f32, tag::any);
  const memory::dims strides{stride}, dilates{dil - 1}, padding{pad};
#if DNNL_VERSION_MAJOR >= 3
  // oneDNN 3 makes primitive descriptors from memory descriptors directly.
  convolution_forward::primitive_desc hint(eng, prop_kind::forward_training,
                                           algorithm::convolution_direct, src_any, wei_any, dst_any,
                                           strides, dilates, padding, padding);
  primitive_desc pd = convolution_backward_weights::primitive_desc(
      eng, algorithm::convolution_direct, src_any, wei_any, dst_any, strides, dilates, padding,
      padding, hint, primitive_attr(), /*allow_empty=*/true);
#else
  convolution_forward::desc fwd(prop_kind::forward_training, algorithm::convolution_direct, src_any,
                                wei_any, dst_any, strides, dilates, padding, padding);
  convolution_forward::primitive_desc hint(fwd, eng);
  convolution_backward_weights::desc bwd(algorithm::convolution_direct, src_any, wei_any, dst_any,
                                         strides, dilates, padding, padding);
  primitive_desc pd(&bwd.data, nullptr, eng, hint.get(), /*allow_empty=*/true);
#endif
  if (!pd) return 77;

  int wrong = 0;
  bool avx512 = false;
  do {  // every implementation oneDNN offers for this problem, in its order of preference
    const memory::desc src_md = pd.query_md(query::src_md),
                       wei_md = pd.query_md(query::diff_weights_md),
                       dst_md = pd.query_md(query::diff_dst_md);
    memory src_user({{1, 1, iw}, memory::data_type::f32, tag::ncw}, eng, src.data());
    memory dst_user({{1, 1, ow}, memory::data_type::f32, tag::ncw}, eng, diff_dst.data());
    std::vector<float> got(kw, -999.0f);
    memory wei_user({{1, 1, kw}, memory::data_type::f32, tag::oiw}, eng, got.data());
    memory src_m(src_md, eng), dst_m(dst_md, eng), wei_m(wei_md, eng);
    reorder(src_user, src_m).execute(s, src_user, src_m);
    reorder(dst_user, dst_m).execute(s, dst_user, dst_m);
    primitive(pd).execute(
        s, {{DNNL_ARG_SRC, src_m}, {DNNL_ARG_DIFF_DST, dst_m}, {DNNL_ARG_DIFF_WEIGHTS, wei_m}});
    reorder(wei_m, wei_user).execute(s, wei_m, wei_user);
    s.wait();
    int differ = 0;
    for (memory::dim k = 0; k < kw; ++k) differ += got[k] != expected[k];
    std::printf("%-20s %s\n", pd.impl_info_str(), differ ? "WRONG" : "ok");
    for (memory::dim k = 0; differ && k < kw; ++k)
      std::printf("  diff_weights[%ld] expected %g, got %g\n", static_cast<long>(k), expected[k],
                  got[k]);
    wrong += differ > 0;
    avx512 = avx512 || std::strstr(pd.impl_info_str(), "avx512") != nullptr;
  } while (pd.next_impl());
  return wrong ? 1 : avx512 ? 0 : 77;
}

// oneDNN 2.6.3: the Winograd convolution's backward-data (jit_wino_4x3:avx512_core) computes
// wrong gradients when the padding at the top differs from the padding at the bottom (see
// README.md). This program needs only oneDNN: it computes diff_src of one small problem with every
// implementation of the Winograd algorithm and of the direct algorithm, and compares each with a
// plain loop. Inputs are small integers: the direct implementations must agree exactly, and
// Winograd, which is not exact, within a tolerance far below the errors it makes here.
//
//   g++ -std=c++17 repro.cc -ldnnl -o repro && ./repro
//
// Exit code: 1 when an implementation is wrong (the bug), 0 when all agree, 77 when oneDNN has no
// Winograd implementation here (it needs AVX-512).
#include <cmath>
#include <cstdio>
#include <oneapi/dnnl/dnnl.hpp>
#include <vector>

using namespace dnnl;
using tag = memory::format_tag;
using dt = memory::data_type;

int main() {
  // N = 1, C_in = C_out = 16, 8×8 input, 3×3 kernel, stride 1, padding 1 at the top and none at
  // the bottom, left or right: output (8 + 1 - 3) + 1 = 7 rows of 6.
  const memory::dim c = 16, ih = 8, iw = 8, k = 3, top = 1, bottom = 0;
  const memory::dim oh = ih + top + bottom - k + 1, ow = iw - k + 1;
  unsigned state = 3;
  auto next = [&] {
    return static_cast<float>((state = state * 1103515245u + 12345u) >> 16 & 7) - 3;
  };
  std::vector<float> diff_dst(c * oh * ow), weights(c * c * k * k);
  for (float& v : diff_dst) v = next();
  for (float& v : weights) v = next();

  // The reference: diff_src[ic, y, x] = sum of diff_dst[oc, oy, ox] * w[oc, ic, ky, kx] over
  // y = oy - top + ky, x = ox + kx.
  std::vector<float> expected(c * ih * iw, 0.0f), magnitude(c * ih * iw, 0.0f);
  for (memory::dim oc = 0; oc < c; ++oc)
    for (memory::dim ic = 0; ic < c; ++ic)
      for (memory::dim oy = 0; oy < oh; ++oy)
        for (memory::dim ox = 0; ox < ow; ++ox)
          for (memory::dim ky = 0; ky < k; ++ky)
            for (memory::dim kx = 0; kx < k; ++kx) {
              const memory::dim y = oy - top + ky, x = ox + kx;
              if (y < 0 || y >= ih) continue;
              const float term =
                  diff_dst[(oc * oh + oy) * ow + ox] * weights[((oc * c + ic) * k + ky) * k + kx];
              expected[(ic * ih + y) * iw + x] += term;
              magnitude[(ic * ih + y) * iw + x] += std::fabs(term);
            }

  engine eng(engine::kind::cpu, 0);
  stream s(eng);
  const memory::dims src_dims{1, c, ih, iw}, wei_dims{c, c, k, k}, dst_dims{1, c, oh, ow};
  const memory::desc src_any(src_dims, dt::f32, tag::any), wei_any(wei_dims, dt::f32, tag::any),
      dst_any(dst_dims, dt::f32, tag::any);
  const memory::dims strides{1, 1}, dilates{0, 0}, pad_l{top, 0}, pad_r{bottom, 0};
  int wrong = 0, winograd = 0;
  for (algorithm a : {algorithm::convolution_winograd, algorithm::convolution_direct}) {
#if DNNL_VERSION_MAJOR >= 3
    convolution_forward::primitive_desc hint(eng, prop_kind::forward_training, a, src_any, wei_any,
                                             dst_any, strides, dilates, pad_l, pad_r,
                                             primitive_attr(), /*allow_empty=*/true);
    if (!hint) continue;
    primitive_desc pd = convolution_backward_data::primitive_desc(
        eng, a, src_any, wei_any, dst_any, strides, dilates, pad_l, pad_r, hint, primitive_attr(),
        /*allow_empty=*/true);
#else
    convolution_forward::desc fwd(prop_kind::forward_training, a, src_any, wei_any, dst_any,
                                  strides, dilates, pad_l, pad_r);
    convolution_forward::primitive_desc hint(fwd, eng, /*allow_empty=*/true);
    if (!hint) continue;
    convolution_backward_data::desc bwd(a, src_any, wei_any, dst_any, strides, dilates, pad_l,
                                        pad_r);
    primitive_desc pd(&bwd.data, nullptr, eng, hint.get(), /*allow_empty=*/true);
#endif
    if (!pd) continue;
    do {  // every implementation of the algorithm, in oneDNN's order of preference
      winograd += a == algorithm::convolution_winograd;
      memory dst_user({dst_dims, dt::f32, tag::nchw}, eng, diff_dst.data());
      memory wei_user({wei_dims, dt::f32, tag::oihw}, eng, weights.data());
      std::vector<float> got(expected.size(), NAN);
      memory src_user({src_dims, dt::f32, tag::nchw}, eng, got.data());
      memory dst_m(pd.query_md(query::diff_dst_md), eng),
          wei_m(pd.query_md(query::weights_md), eng), src_m(pd.query_md(query::diff_src_md), eng);
      reorder(dst_user, dst_m).execute(s, dst_user, dst_m);
      reorder(wei_user, wei_m).execute(s, wei_user, wei_m);
      primitive(pd).execute(
          s, {{DNNL_ARG_DIFF_DST, dst_m}, {DNNL_ARG_WEIGHTS, wei_m}, {DNNL_ARG_DIFF_SRC, src_m}});
      reorder(src_m, src_user).execute(s, src_m, src_user);
      s.wait();
      // Winograd's rounding stays far below 1e-4 of the magnitudes; the errors here are whole
      // units.
      int differ = 0;
      size_t worst = 0;
      for (size_t i = 0; i < got.size(); ++i) {
        const double tolerance = a == algorithm::convolution_winograd ? 1e-4 * magnitude[i] : 0.0;
        if (!(std::fabs(got[i] - expected[i]) <= tolerance)) {
          if (differ == 0 ||
              std::fabs(got[i] - expected[i]) > std::fabs(got[worst] - expected[worst]))
            worst = i;
          ++differ;
        }
      }
      std::printf("%-26s %s", pd.impl_info_str(), differ ? "WRONG" : "ok\n");
      if (differ)
        std::printf(
            ": %d of %zu elements differ; worst diff_src[ic=%zu, y=%zu, x=%zu] expected %g, got "
            "%g\n",
            differ, got.size(), worst / (ih * iw), worst / iw % ih, worst % iw, expected[worst],
            got[worst]);
      wrong += differ > 0;
    } while (pd.next_impl());
  }
  if (winograd == 0) return 77;
  return wrong ? 1 : 0;
}

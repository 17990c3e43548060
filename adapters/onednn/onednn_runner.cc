#include "onednn_runner.h"

#include <deque>
#include <map>
#include <memory>
#include <new>
#include <oneapi/dnnl/dnnl.hpp>
#include <unordered_map>
#include <utility>
#include <vector>

#include "guarded_memory.h"
#include "onednn_mapping.h"

namespace convparity_onednn {
namespace {

using dnnl::memory;

dnnl::engine& Engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

dnnl::stream& Stream() {
  static dnnl::stream stream(Engine());
  return stream;
}

const char* DirectionText(Direction d, bool deconvolution) {
  switch (d) {
    case Direction::kForward:
      return deconvolution ? "deconvolution forward" : "convolution forward";
    case Direction::kBackwardData:
      return deconvolution ? "deconvolution backward-data" : "convolution backward-data";
    case Direction::kBackwardWeight:
      return deconvolution ? "deconvolution backward-weights" : "convolution backward-weights";
  }
  return "?";
}

// One implementation that accepts a problem, and its primitive once made.
struct Implementation {
  dnnl::primitive_desc pd;
  std::string name;
  dnnl::primitive primitive;  // empty until first run
};

// The implementations that accept a problem in one direction with one algorithm, in oneDNN's
// order, or why there are none.
struct Implementations {
  std::string decline;
  std::vector<Implementation> list;
};

dnnl::algorithm AlgorithmOf(const Mapping& m, bool winograd) {
  if (m.deconvolution)
    return winograd ? dnnl::algorithm::deconvolution_winograd
                    : dnnl::algorithm::deconvolution_direct;
  return winograd ? dnnl::algorithm::convolution_winograd : dnnl::algorithm::convolution_direct;
}

// Every implementation `pd` can iterate to, from its current one, in oneDNN's order.
Implementations Collect(dnnl::primitive_desc pd) {
  Implementations found;
  if (!pd) return found;
  do {
    // A copy keeps this implementation's descriptor: next_impl() fetches a new one.
    found.list.push_back({pd, pd.impl_info_str(), {}});
  } while (pd.next_impl());
  return found;
}

Implementations NoHint(const Mapping& m, bool winograd) {
  Implementations none;
  none.decline = std::string("oneDNN has no ") + (winograd ? "Winograd " : "") +
                 DirectionText(Direction::kForward, m.deconvolution) +
                 " (for training) to hint the backward direction with";
  return none;
}

// The implementations of one direction. The forward direction asks for inference (brgemm
// convolutions exist only there); the backward ones take the first forward implementation for
// training as their hint, as oneDNN requires. Fwd, BwdData and BwdWeights are oneDNN's
// convolution or deconvolution primitives.
// The scratchpad is ours (Execute puts it in guarded memory).
dnnl::primitive_attr UserScratchpad() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

#if DNNL_VERSION_MAJOR >= 3
// oneDNN 3 makes primitive descriptors from memory descriptors directly.
template <typename Fwd, typename BwdData, typename BwdWeights>
Implementations FindOrThrow(const Mapping& m, Direction direction, bool winograd) {
  const dnnl::algorithm a = AlgorithmOf(m, winograd);
  const memory::desc bias = m.bias ? m.bias_md : memory::desc();
  const dnnl::primitive_attr attr = UserScratchpad();
  if (direction == Direction::kForward)
    return Collect(typename Fwd::primitive_desc(
        Engine(), dnnl::prop_kind::forward_inference, a, m.src, m.weights, bias, m.dst, m.strides,
        m.dilates, m.padding_l, m.padding_r, attr, /*allow_empty=*/true));
  const typename Fwd::primitive_desc hint(Engine(), dnnl::prop_kind::forward_training, a, m.src,
                                          m.weights, bias, m.dst, m.strides, m.dilates, m.padding_l,
                                          m.padding_r, attr, true);
  if (!hint) return NoHint(m, winograd);
  if (direction == Direction::kBackwardData)
    return Collect(typename BwdData::primitive_desc(Engine(), a, m.src, m.weights, m.dst, m.strides,
                                                    m.dilates, m.padding_l, m.padding_r, hint, attr,
                                                    true));
  return Collect(typename BwdWeights::primitive_desc(Engine(), a, m.src, m.weights, m.dst,
                                                     m.strides, m.dilates, m.padding_l, m.padding_r,
                                                     hint, attr, true));
}
#else
// oneDNN 2 makes primitive descriptors from operation descriptors.
template <typename Fwd, typename BwdData, typename BwdWeights>
Implementations FindOrThrow(const Mapping& m, Direction direction, bool winograd) {
  const dnnl::algorithm a = AlgorithmOf(m, winograd);
  const memory::desc bias = m.bias ? m.bias_md : memory::desc();
  const dnnl::primitive_attr attr = UserScratchpad();
  auto iterate = [&attr](const auto& op_desc, const_dnnl_primitive_desc_t hint) {
    return Collect(dnnl::primitive_desc(&op_desc.data, &attr, Engine(), hint,
                                        /*allow_empty=*/true));
  };
  if (direction == Direction::kForward)
    return iterate(typename Fwd::desc(dnnl::prop_kind::forward_inference, a, m.src, m.weights, bias,
                                      m.dst, m.strides, m.dilates, m.padding_l, m.padding_r),
                   nullptr);
  const typename Fwd::desc training(dnnl::prop_kind::forward_training, a, m.src, m.weights, bias,
                                    m.dst, m.strides, m.dilates, m.padding_l, m.padding_r);
  const dnnl::primitive_desc hint(&training.data, nullptr, Engine(), nullptr, true);
  if (!hint) return NoHint(m, winograd);
  if (direction == Direction::kBackwardData)
    return iterate(typename BwdData::desc(a, m.src, m.weights, m.dst, m.strides, m.dilates,
                                          m.padding_l, m.padding_r),
                   hint.get());
  return iterate(typename BwdWeights::desc(a, m.src, m.weights, m.dst, m.strides, m.dilates,
                                           m.padding_l, m.padding_r),
                 hint.get());
}
#endif

Implementations FindOrThrow(const Mapping& m, Direction direction, bool winograd) {
  Implementations found =
      m.deconvolution ? FindOrThrow<dnnl::deconvolution_forward, dnnl::deconvolution_backward_data,
                                    dnnl::deconvolution_backward_weights>(m, direction, winograd)
                      : FindOrThrow<dnnl::convolution_forward, dnnl::convolution_backward_data,
                                    dnnl::convolution_backward_weights>(m, direction, winograd);
  if (found.list.empty() && found.decline.empty())
    found.decline = std::string("oneDNN has no ") + (winograd ? "Winograd " : "") +
                    DirectionText(direction, m.deconvolution) + " for this problem (formats " +
                    FormatPolicyName(m.policy) + ")";
  return found;
}

Implementations Find(const Mapping& m, Direction direction, bool winograd) {
  try {
    return FindOrThrow(m, direction, winograd);
  } catch (const dnnl::error& e) {
    // A descriptor oneDNN rejects (invalid arguments) is a configuration it cannot express.
    Implementations none;
    none.decline = std::string("oneDNN rejects the descriptor of this ") +
                   DirectionText(direction, m.deconvolution) + ": " + e.what();
    return none;
  }
}

// The cache: problem fields, direction and algorithm → implementations. Bounded: a campaign draws
// new shapes all the time, and each entry may hold JIT-compiled code.
class Cache {
 public:
  Implementations& Get(const convparity_problem& p, const Mapping& m, Direction d, bool winograd) {
    std::vector<int64_t> key{
        static_cast<int64_t>(d), winograd, p.rank,        p.transposed,   p.has_bias, p.data_layout,
        p.weight_layout,         p.batch,  p.in_channels, p.out_channels, p.groups};
    for (const int64_t* field :
         {p.input, p.kernel, p.stride, p.pad_begin, p.pad_end, p.dilation, p.output_padding})
      key.insert(key.end(), field, field + p.rank);
    auto it = entries_.find(key);
    if (it != entries_.end()) return it->second;
    if (entries_.size() >= kCapacity) {
      entries_.erase(order_.front());
      order_.pop_front();
    }
    order_.push_back(key);
    return entries_.emplace(key, Find(m, d, winograd)).first->second;
  }

 private:
  static constexpr size_t kCapacity = 64;
  std::map<std::vector<int64_t>, Implementations> entries_;
  std::deque<std::vector<int64_t>> order_;
};

// One argument of a primitive: the user's buffer in PyTorch's layout, and the memory the primitive
// reads or writes, a reordered copy when the implementation chose another format.
struct Argument {
  int id;
  memory::desc user;
  const float* data;
  bool output;
};

// Where oneDNN writes goes to guarded memory (adapters/common/guarded_memory.h): the outputs and
// the scratchpad, each ending at a guard page, so that an implementation writing past a buffer
// crashes the case that does it instead of corrupting the heap for the worker's next cases
// (findings/onednn-2). The inputs are reordered into library memory or read where they are.
void Execute(Implementation& impl, const std::vector<Argument>& arguments) {
  if (!impl.primitive) impl.primitive = dnnl::primitive(impl.pd);
  dnnl::stream& stream = Stream();
  std::vector<convparity_adapter::GuardedFloats> guarded;
  guarded.reserve(arguments.size() + 1);
  auto guarded_memory = [&](const memory::desc& md) {
    guarded.emplace_back((md.get_size() + sizeof(float) - 1) / sizeof(float));
    return memory(md, Engine(), guarded.back().data());
  };
  std::unordered_map<int, memory> args;
  std::vector<std::pair<memory, memory>> write_back;  // (primitive's, user's)
  for (const Argument& a : arguments) {
    const memory::desc wanted = impl.pd.query_md(dnnl::query::exec_arg_md, a.id);
    memory user(a.user, Engine(), const_cast<float*>(a.data));
    if (a.output) {
      // The user's buffer holds convparity's poison: copied in, an element the implementation
      // leaves unwritten is still reported as unwritten.
      memory own = guarded_memory(wanted);
      dnnl::reorder(user, own).execute(stream, user, own);
      write_back.emplace_back(own, user);
      args.emplace(a.id, own);
    } else if (wanted == a.user) {
      args.emplace(a.id, user);
    } else {
      memory own(wanted, Engine());
      dnnl::reorder(user, own).execute(stream, user, own);
      args.emplace(a.id, own);
    }
  }
  const memory::desc scratchpad = impl.pd.scratchpad_desc();
  if (scratchpad.get_size() > 0) args.emplace(DNNL_ARG_SCRATCHPAD, guarded_memory(scratchpad));
  impl.primitive.execute(stream, args);
  for (auto& [own, user] : write_back) dnnl::reorder(own, user).execute(stream, own, user);
  stream.wait();
}

std::vector<Argument> ArgumentsOf(const Mapping& m, Direction d, const Buffers& b) {
  switch (d) {
    case Direction::kForward: {
      std::vector<Argument> args{{DNNL_ARG_SRC, m.user_src, b.src, false},
                                 {DNNL_ARG_WEIGHTS, m.user_weights, b.weights, false},
                                 {DNNL_ARG_DST, m.user_dst, b.result, true}};
      if (m.bias) args.push_back({DNNL_ARG_BIAS, m.user_bias, b.bias, false});
      return args;
    }
    case Direction::kBackwardData:
      return {{DNNL_ARG_DIFF_DST, m.user_dst, b.diff_dst, false},
              {DNNL_ARG_WEIGHTS, m.user_weights, b.weights, false},
              {DNNL_ARG_DIFF_SRC, m.user_src, b.result, true}};
    case Direction::kBackwardWeight:
      return {{DNNL_ARG_SRC, m.user_src, b.src, false},
              {DNNL_ARG_DIFF_DST, m.user_dst, b.diff_dst, false},
              {DNNL_ARG_DIFF_WEIGHTS, m.user_weights, b.result, true}};
  }
  return {};
}

Outcome Declined(std::string why) { return {CONVPARITY_UNSUPPORTED, std::move(why), "", false}; }

}  // namespace

Outcome Run(const convparity_problem& p, Direction direction, Choice choice, const Buffers& b) {
  static Cache cache;
  try {
    Mapping m;
    if (std::string why = MapProblem(p, &m); !why.empty()) return Declined(why);
    Implementations& found = cache.Get(p, m, direction, choice.winograd);
    if (found.list.empty()) return Declined(found.decline);
    if (choice.index >= static_cast<int>(found.list.size()))
      return Declined("only " + std::to_string(found.list.size()) + " implementation" +
                      (found.list.size() == 1 ? "" : "s") + " of oneDNN accept this problem (" +
                      DirectionText(direction, m.deconvolution) + ", formats " +
                      FormatPolicyName(m.policy) + ")");
    Implementation& impl = found.list[static_cast<size_t>(choice.index)];
    Execute(impl, ArgumentsOf(m, direction, b));
    Outcome done{CONVPARITY_OK, "", impl.name, false};
    done.inexact = choice.winograd || impl.name.find("wino") != std::string::npos;
    return done;
  } catch (const dnnl::error& e) {
    return {CONVPARITY_ERROR, std::string("oneDNN error: ") + e.what(), "", false};
  } catch (const std::bad_alloc&) {
    return {CONVPARITY_ERROR, "out of memory", "", false};
  }
}

}  // namespace convparity_onednn

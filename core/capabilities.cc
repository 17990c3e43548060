#include "core/capabilities.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "core/case_graphs.h"
#include "core/problem_fields.h"
#include "core/quote.h"
#include "core/strict_json.h"

namespace convparity {
namespace {

using nlohmann::json;

// A predicate that is a set of values: the case's value must be among the region's.
struct SetPredicate {
  const char* key;   // in JSON
  const char* what;  // one value's kind, in messages
  uint32_t CapabilityRegion::*mask;
  std::vector<std::string> (*names)();  // value i's name, bit i of the mask
  size_t (*value)(const std::string& form, Direction d, const ConvProblem& p);
};

template <typename E, size_t N>
std::vector<std::string> ProtocolNames(const EnumValue<E> (&values)[N]) {
  std::vector<std::string> names;
  for (const EnumValue<E>& e : values) names.push_back(e.protocol);
  return names;
}

size_t IndexOf(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) - names.begin();
}

std::vector<std::string> FormNames() {
  std::vector<std::string> names;
  for (const GraphForm& f : GraphForms()) names.push_back(f.name);
  return names;
}

const SetPredicate kSets[] = {
    {"forms", "form", &CapabilityRegion::forms, FormNames,
     [](const std::string& form, Direction, const ConvProblem&) {
       return IndexOf(FormNames(), form);
     }},
    {"directions", "direction", &CapabilityRegion::directions,
     [] {
       return std::vector<std::string>{"fwd", "bwd_data", "bwd_weight"};
     },
     [](const std::string&, Direction d, const ConvProblem&) { return static_cast<size_t>(d); }},
    {"ranks", "rank", &CapabilityRegion::ranks,
     [] {
       return std::vector<std::string>{"0", "1", "2", "3"};
     },
     [](const std::string&, Direction, const ConvProblem& p) {
       return static_cast<size_t>(std::clamp(p.rank, 0, kMaxSpatialRank));
     }},
    {"kinds", "kind", &CapabilityRegion::kinds,
     [] {
       return std::vector<std::string>{"ordinary", "transposed"};
     },
     [](const std::string&, Direction, const ConvProblem& p) {
       return static_cast<size_t>(p.transposed);
     }},
    {"groups", "group kind", &CapabilityRegion::groups,
     [] {
       return std::vector<std::string>{"plain", "grouped", "depthwise", "depthwise_multiplier"};
     },
     [](const std::string&, Direction, const ConvProblem& p) {
       return static_cast<size_t>(GroupKindOf(p));
     }},
    {"data_layouts", "data layout", &CapabilityRegion::data_layouts,
     [] { return ProtocolNames(kDataLayouts); },
     [](const std::string&, Direction, const ConvProblem& p) {
       return static_cast<size_t>(p.data_layout);
     }},
    {"weight_layouts", "weight layout", &CapabilityRegion::weight_layouts,
     [] { return ProtocolNames(kWeightLayouts); },
     [](const std::string&, Direction, const ConvProblem& p) {
       return static_cast<size_t>(p.weight_layout);
     }},
};

const std::vector<std::string> kOutputPaddingRules = {
    "any", "below_stride", "below_stride_or_end_pad", "below_stride_plus_end_pad"};
const std::vector<std::string> kPaddingRules = {"any", "none", "tf_valid_or_same"};

bool Has(uint32_t mask, size_t i) { return i < 32 && (mask >> i & 1u); }

std::string Among(uint32_t mask, const std::vector<std::string>& names) {
  std::vector<std::string> in;
  for (size_t i = 0; i < names.size(); ++i)
    if (Has(mask, i)) in.push_back(names[i]);
  return in.empty() ? "none" : NameList(in);
}

std::string DimsText(const Dims& d, int rank) {
  std::string s = "(";
  for (int i = 0; i < rank; ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + ")";
}

bool AllAre(const Dims& d, int rank, int64_t v) {
  return std::all_of(d.begin(), d.begin() + rank, [v](int64_t x) { return x == v; });
}

// TensorFlow's SAME padding of one axis: the output is ⌈n/s⌉, the excess split with the larger
// half at the end.
bool IsTfSame(const ConvProblem& p, int axis, int64_t n) {
  const int64_t s = p.stride[axis];
  if (s < 1) return false;  // not a valid problem
  const int64_t total = std::max<int64_t>(
      ((n + s - 1) / s - 1) * s + p.dilation[axis] * (p.kernel[axis] - 1) + 1 - n, 0);
  return p.pad_begin[axis] == total / 2 && p.pad_end[axis] == total - total / 2;
}

std::optional<std::string> WhyPaddingOutside(PaddingRule rule, const ConvProblem& p) {
  const int r = std::clamp(p.rank, 0, kMaxSpatialRank);
  const bool none = AllAre(p.pad_begin, r, 0) && AllAre(p.pad_end, r, 0);
  if (rule == PaddingRule::kAny || none) return std::nullopt;
  const std::string padding =
      "padding " + DimsText(p.pad_begin, r) + " to " + DimsText(p.pad_end, r);
  if (rule == PaddingRule::kNone) return padding + " is not none";
  const Dims out = p.output();
  for (int i = 0; i < r; ++i)
    if (!IsTfSame(p, i, p.transposed ? out[i] : p.input[i]))
      return padding + " is neither TensorFlow's VALID nor SAME";
  return std::nullopt;
}

std::optional<std::string> WhyOutputPaddingOutside(OutputPaddingRule rule, const ConvProblem& p) {
  if (!p.transposed || rule == OutputPaddingRule::kAny) return std::nullopt;
  for (int i = 0; i < std::clamp(p.rank, 0, kMaxSpatialRank); ++i) {
    const int64_t op = p.output_padding[i], s = p.stride[i], pe = p.pad_end[i];
    const bool ok = op < s || (rule == OutputPaddingRule::kBelowStrideOrEndPad && op <= pe) ||
                    (rule == OutputPaddingRule::kBelowStridePlusEndPad && op < s + pe);
    if (!ok)
      return "output_padding " + std::to_string(op) + " on axis " + std::to_string(i) + " is not " +
             kOutputPaddingRules[static_cast<size_t>(rule)] + " (stride " + std::to_string(s) +
             ", pad_end " + std::to_string(pe) + ")";
  }
  return std::nullopt;
}

// Reading: `path` names the value in messages.
Status Invalid(const std::string& path, const std::string& what) {
  return Status::Invalid(path + ": " + what);
}

// A value from the input in a message: one line, cut short.
std::string Shown(const json& v) {
  std::string s = v.dump();
  return s.size() > 80 ? s.substr(0, 80) + "..." : s;
}

// A non-empty list of distinct names (of ranks, numbers).
Result<uint32_t> ReadSet(const json& v, const std::string& path, const SetPredicate& set) {
  if (!v.is_array() || v.empty()) return Invalid(path, "expected a non-empty array");
  const std::vector<std::string> names = set.names();
  const bool ranks = set.mask == &CapabilityRegion::ranks;
  uint32_t mask = 0;
  for (const json& e : v) {
    const bool typed = ranks ? e.is_number_integer() : e.is_string();
    const size_t i = typed ? IndexOf(names, ranks ? e.dump() : e.get<std::string>()) : names.size();
    if (i == names.size() || (ranks && i == 0))
      return Invalid(
          path,
          Shown(e) + " is not a " + std::string(set.what) + " (" +
              NameList(ranks ? std::vector<std::string>(names.begin() + 1, names.end()) : names) +
              ")");
    if (Has(mask, i)) return Invalid(path, Shown(e) + " is listed twice");
    mask |= 1u << i;
  }
  return mask;
}

Result<size_t> ReadRule(const json& v, const std::string& path,
                        const std::vector<std::string>& rules) {
  const size_t i = v.is_string() ? IndexOf(rules, v.get<std::string>()) : rules.size();
  if (i == rules.size()) return Invalid(path, "expected one of " + NameList(rules));
  return i;
}

Result<CapabilityRegion> RegionFromJson(const json& j, const std::string& path) {
  if (!j.is_object()) return Invalid(path, "expected an object");
  std::vector<std::string> keys = {"unit_channels_per_group",
                                   "dilation",
                                   "stride_with_dilation",
                                   "output_padding",
                                   "padding",
                                   "kernel",
                                   "stride"};
  for (const SetPredicate& set : kSets) keys.push_back(set.key);
  if (std::optional<std::string> unknown = FirstUnknownField(j, keys))
    return Invalid(path, "unknown predicate " + QuoteForMessage(*unknown, QuoteEscapes::kJson) +
                             "; expected one of " + NameList(keys));
  CapabilityRegion r;
  for (const SetPredicate& set : kSets) {
    if (!j.contains(set.key)) continue;
    Result<uint32_t> mask = ReadSet(j[set.key], path + "." + set.key, set);
    if (!mask.ok()) return mask.status();
    r.*set.mask = *mask;
  }
  for (auto [key, flag] : {std::pair{"unit_channels_per_group", &r.unit_channels_per_group},
                           {"dilation", &r.dilation},
                           {"stride_with_dilation", &r.stride_with_dilation}}) {
    if (!j.contains(key)) continue;
    if (!j[key].is_boolean()) return Invalid(path + "." + key, "expected true or false");
    *flag = j[key].get<bool>();
  }
  if (j.contains("output_padding")) {
    Result<size_t> rule =
        ReadRule(j["output_padding"], path + ".output_padding", kOutputPaddingRules);
    if (!rule.ok()) return rule.status();
    r.output_padding = static_cast<OutputPaddingRule>(*rule);
  }
  if (j.contains("padding")) {
    Result<size_t> rule = ReadRule(j["padding"], path + ".padding", kPaddingRules);
    if (!rule.ok()) return rule.status();
    r.padding = static_cast<PaddingRule>(*rule);
  }
  for (auto [key, size] : {std::pair{"kernel", &r.kernel}, {"stride", &r.stride}}) {
    if (!j.contains(key)) continue;
    const std::optional<uint64_t> v = WholeNumber(j[key]);
    if (!v || *v < 1 || *v > (uint64_t{1} << 30))
      return Invalid(path + "." + key, "expected an integer from 1 to 2^30");
    *size = static_cast<int64_t>(*v);
  }
  return r;
}

}  // namespace

GroupKind GroupKindOf(const ConvProblem& p) {
  if (p.groups <= 1) return GroupKind::kPlain;
  if (p.groups != p.in_channels) return GroupKind::kGrouped;
  return p.out_channels == p.groups ? GroupKind::kDepthwise : GroupKind::kDepthwiseMultiplier;
}

std::vector<std::string> ReasonsOutside(const CapabilityRegion& region, const std::string& form,
                                        Direction d, const ConvProblem& p) {
  std::vector<std::string> why;
  for (const SetPredicate& set : kSets) {
    const size_t i = set.value(form, d, p);
    if (Has(region.*set.mask, i)) continue;
    const std::vector<std::string> names = set.names();
    why.push_back(std::string(set.what) + " " + (i < names.size() ? names[i] : "?") +
                  " is not among " + Among(region.*set.mask, names));
  }
  const int r = std::clamp(p.rank, 0, kMaxSpatialRank);
  if (region.unit_channels_per_group && p.groups > 0 &&
      (p.in_channels != p.groups || p.out_channels != p.groups))
    why.push_back("channels per group " + std::to_string(p.in_channels / p.groups) + " in, " +
                  std::to_string(p.out_channels / p.groups) + " out, are not 1");
  const bool dilated = !AllAre(p.dilation, r, 1), strided = !AllAre(p.stride, r, 1);
  if (!region.dilation && dilated)
    why.push_back("dilation " + DimsText(p.dilation, r) + " is not none");
  if (!region.stride_with_dilation && dilated && strided)
    why.push_back("stride " + DimsText(p.stride, r) + " with dilation " + DimsText(p.dilation, r) +
                  " is both at once");
  if (std::optional<std::string> op = WhyOutputPaddingOutside(region.output_padding, p))
    why.push_back(*op);
  if (std::optional<std::string> pad = WhyPaddingOutside(region.padding, p)) why.push_back(*pad);
  for (auto [what, size, dims] :
       {std::tuple{"kernel", region.kernel, p.kernel}, {"stride", region.stride, p.stride}})
    if (size && !AllAre(dims, r, *size))
      why.push_back(std::string(what) + " " + DimsText(dims, r) + " is not all " +
                    std::to_string(*size));
  return why;
}

std::optional<std::string> WhyOutside(const CapabilityRegion& region, const std::string& form,
                                      Direction d, const ConvProblem& p) {
  std::vector<std::string> why = ReasonsOutside(region, form, d, p);
  if (why.empty()) return std::nullopt;
  return why.front();
}

std::optional<std::string> WhyOutside(const Capabilities& caps, const std::string& form,
                                      Direction d, const ConvProblem& p) {
  if (!caps.declared) return std::nullopt;
  if (caps.regions.empty()) return "outside its declaration, which holds no case";
  std::string why;
  for (const CapabilityRegion& region : caps.regions) {
    std::optional<std::string> outside = WhyOutside(region, form, d, p);
    if (!outside) return std::nullopt;
    why += (why.empty() ? "" : "; ") + *outside;
  }
  return "outside its declaration: " + why;
}

bool JustOutside(const Capabilities& caps, const std::string& form, Direction d,
                 const ConvProblem& p) {
  if (!caps.declared) return false;
  bool one_off = false;
  for (const CapabilityRegion& region : caps.regions) {
    const size_t off = ReasonsOutside(region, form, d, p).size();
    if (off == 0) return false;
    one_off = one_off || off == 1;
  }
  return one_off;
}

bool HoldsEveryProblem(const CapabilityRegion& r) {
  for (const SetPredicate& set : kSets) {
    if (set.mask == &CapabilityRegion::forms || set.mask == &CapabilityRegion::directions) continue;
    const size_t values = set.names().size();
    for (size_t i = set.mask == &CapabilityRegion::ranks ? 1 : 0; i < values; ++i)
      if (!Has(r.*set.mask, i)) return false;
  }
  const CapabilityRegion any;
  return !r.unit_channels_per_group && r.dilation && r.stride_with_dilation &&
         r.output_padding == any.output_padding && r.padding == any.padding && !r.kernel &&
         !r.stride;
}

Capabilities Within(Capabilities caps, uint32_t forms, uint32_t directions) {
  for (CapabilityRegion& r : caps.regions) {
    r.forms &= forms;
    r.directions &= directions;
  }
  return caps;
}

Capabilities Union(const std::vector<Capabilities>& declarations) {
  Capabilities all;
  all.declared = !declarations.empty();
  for (const Capabilities& caps : declarations) {
    if (!caps.declared) return Capabilities{};
    all.regions.insert(all.regions.end(), caps.regions.begin(), caps.regions.end());
  }
  return all;
}

uint32_t DirectionMask(const std::vector<Direction>& directions) {
  uint32_t mask = 0;
  for (Direction d : directions) mask |= 1u << static_cast<int>(d);
  return mask;
}

Result<Capabilities> CapabilitiesFromJson(const json& j, const std::string& path) {
  if (j.is_null()) return Capabilities{};
  if (!j.is_array()) return Invalid(path, "expected an array of regions, or null");
  Capabilities caps;
  caps.declared = true;
  for (size_t i = 0; i < j.size(); ++i) {
    Result<CapabilityRegion> r = RegionFromJson(j[i], path + "[" + std::to_string(i) + "]");
    if (!r.ok()) return r.status();
    caps.regions.push_back(*r);
  }
  return caps;
}

json CapabilitiesToJson(const Capabilities& caps) {
  if (!caps.declared) return nullptr;
  json regions = json::array();
  const CapabilityRegion any;
  for (const CapabilityRegion& r : caps.regions) {
    json j = json::object();
    for (const SetPredicate& set : kSets) {
      const std::vector<std::string> names = set.names();
      const bool ranks = set.mask == &CapabilityRegion::ranks;
      bool every = true;
      json values = json::array();
      for (size_t i = ranks ? 1 : 0; i < names.size(); ++i) {
        every = every && Has(r.*set.mask, i);
        if (!Has(r.*set.mask, i)) continue;
        if (ranks)
          values.push_back(static_cast<int>(i));
        else
          values.push_back(names[i]);
      }
      if (!every) j[set.key] = values;
    }
    if (r.unit_channels_per_group) j["unit_channels_per_group"] = true;
    if (!r.dilation) j["dilation"] = false;
    if (!r.stride_with_dilation) j["stride_with_dilation"] = false;
    if (r.output_padding != any.output_padding)
      j["output_padding"] = kOutputPaddingRules[static_cast<size_t>(r.output_padding)];
    if (r.padding != any.padding) j["padding"] = kPaddingRules[static_cast<size_t>(r.padding)];
    if (r.kernel) j["kernel"] = *r.kernel;
    if (r.stride) j["stride"] = *r.stride;
    regions.push_back(j);
  }
  return regions;
}

}  // namespace convparity

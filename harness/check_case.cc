#include "harness/check_case.h"

#include <chrono>
#include <cmath>
#include <exception>
#include <sstream>

#include "generators/fill.h"

namespace convparity {
namespace {

class Stopwatch {
 public:
  double Lap() {
    auto now = std::chrono::steady_clock::now();
    double s = std::chrono::duration<double>(now - last_).count();
    last_ = now;
    return s;
  }

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

CaseOutcome Ended(Verdict v, std::string reason) {
  CaseOutcome out;
  out.verdict = v;
  out.reason = std::move(reason);
  return out;
}

std::string Summary(const Judgement& j) {
  std::ostringstream os;
  switch (j.verdict) {
    case Verdict::kShapeMismatch:
      return "result has another shape than the reference";
    case Verdict::kUnwritten:
      os << j.unwritten << " of " << j.elements << " result elements were never written";
      return os.str();
    case Verdict::kFailed:
      os << j.mismatches << " of " << j.elements << " elements differ";
      if (j.worst)
        os << "; worst at " << ShapeText(j.worst->index) << ": expected " << j.worst->expected
           << ", got " << j.worst->got << " (error " << j.worst->error << ", bound "
           << j.worst->bound << ")";
      return os.str();
    case Verdict::kMistrusted:
      os << "passed, but " << static_cast<int>(j.zero_share * 100)
         << "% of the reference is exactly zero";
      return os.str();
    default:
      return "";
  }
}

}  // namespace

SutRun RunSut(ConvSut& sut, const ConvProblem& p, Direction d, const CaseInputs& inputs) {
  const std::vector<float> x = ToMemoryOrder(inputs.input, DataMemoryOrder(p));
  const std::vector<float> w = ToMemoryOrder(inputs.weight, WeightMemoryOrder(p));
  const std::vector<float> dy = ToMemoryOrder(inputs.grad_output, DataMemoryOrder(p));
  const Shape result_shape = ResultShape(p, d);
  std::vector<float> result(NumElements(result_shape), PoisonValue());
  ConvBuffers buffers;
  buffers.input = x.empty() ? nullptr : x.data();
  buffers.weight = w.empty() ? nullptr : w.data();
  buffers.bias = inputs.bias.values.empty() ? nullptr : inputs.bias.values.data();
  buffers.grad_output = dy.empty() ? nullptr : dy.data();
  buffers.result = result.data();
  SutRun run;
  try {
    run.status = sut.Run(p, d, buffers);
  } catch (const std::exception& e) {
    run.status = Status::Internal(std::string("exception: ") + e.what());
  }
  run.result = FromMemoryOrder(result_shape, result, ResultMemoryOrder(p, d));
  return run;
}

PreparedCase PrepareCase(const ConvCase& c, const Limits& limits) {
  PreparedCase prep;
  prep.c = c;
  const ConvProblem& p = c.problem;
  const Direction d = c.direction;
  if (Status st = CheckLimits(p, limits); !st.ok()) {  // validates first
    prep.ended = Ended(Verdict::kInvalid, st.message());
    return prep;
  }
  if (c.fill == Fill::kExact && !ChooseExactRange(p, d).exact) {
    prep.ended = Ended(Verdict::kSkipped, "the reduction is too long for exact mode");
    return prep;
  }
  Stopwatch clock;
  prep.inputs = FillInputs(p, d, c.fill, c.seed);
  prep.timing.fill = clock.Lap();
  const bool random = c.fill != Fill::kExact;
  Result<OracleOutput> ref = TorchOracle::Compute(p, d, prep.inputs, random);
  prep.timing.oracle = clock.Lap();
  if (!ref.ok()) {
    prep.ended = Ended(Verdict::kInvalid, "the oracle rejected it: " + ref.status().message());
    return prep;
  }
  prep.reference = std::move(ref).value();
  if (random)
    for (double v : prep.reference.result.values)
      if (!std::isfinite(v)) {
        prep.ended = Ended(Verdict::kSkipped, "ill-conditioned: the reference is not finite");
        break;
      }
  return prep;
}

CaseOutcome RunPrepared(const PreparedCase& prep, ConvSut& sut) {
  if (prep.ended) return *prep.ended;
  const ConvProblem& p = prep.c.problem;
  const Direction d = prep.c.direction;
  CaseOutcome out;
  out.timing = prep.timing;
  Stopwatch clock;

  const SutRun run = RunSut(sut, p, d, prep.inputs);
  out.timing.sut = clock.Lap();
  if (run.status.code() == StatusCode::kUnsupported)
    return Ended(Verdict::kSkipped, run.status.message());
  if (run.status.code() == StatusCode::kBrokenPromise)
    return Ended(Verdict::kBrokenPromise, sut.name() + " broke a promise: " + run.status.message());
  if (run.status.code() == StatusCode::kShapeMismatch)
    return Ended(Verdict::kShapeMismatch, sut.name() + ": " + run.status.message());
  if (!run.status.ok())
    return Ended(Verdict::kCrashed, sut.name() + " returned an error: " + run.status.message());

  const int64_t k = ReductionLength(p, d) + (d == Direction::kForward && p.bias ? 1 : 0);
  out.judgement = Judge(prep.reference.result.shape, prep.reference.result.values,
                        prep.reference.magnitude.values, run.result, prep.c.fill, k);
  out.timing.compare = clock.Lap();
  out.verdict = out.judgement.verdict;
  out.reason = Summary(out.judgement);
  return out;
}

}  // namespace convparity

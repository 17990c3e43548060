#include "harness/engine/check_case.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <sstream>

#include "generators/fill.h"
#include "harness/engine/symptom.h"
#include "oracles/case_reference.h"

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
      if (j.symptom != Symptom::kNone) os << " (" << SymptomName(j.symptom) << ")";
      if (j.worst)
        os << "; worst at " << ShapeText(j.worst->index) << ": expected " << j.worst->expected
           << ", got " << j.worst->got << " (error " << j.worst->error << ", bound "
           << j.worst->bound << ")";
      return os.str();
    case Verdict::kMistrusted:
      os << "passed, but " << static_cast<int>(j.data_zero_share * 100)
         << "% of the reference is exactly zero where the problem's structure reaches";
      return os.str();
    default:
      return "";
  }
}

// The oracle's answer for a prepared case on other inputs of the same shapes.
Result<OracleOutput> ComputeOn(const PreparedCase& prep, const CaseInputs& in,
                               bool with_magnitude) {
  return ComputeReference(prep.c.problem, *prep.c.graph, prep.c.direction, in, with_magnitude);
}

// The magnitudes A of the error bound for a case prepared without them (an exact fill), computed
// the way PrepareCase computes them for a random fill.
Result<RefTensor> MagnitudeOf(const PreparedCase& prep) {
  Result<OracleOutput> ref = ComputeOn(prep, prep.inputs, /*with_magnitude=*/true);
  if (!ref.ok()) return ref.status();
  return std::move(ref->magnitude);
}

}  // namespace

std::vector<double> ReachOf(const PreparedCase& prep) {
  CaseInputs ones = prep.inputs;
  for (auto& [name, t] : ones.vars) std::fill(t.values.begin(), t.values.end(), 1.0f);
  Result<OracleOutput> ref = ComputeOn(prep, ones, /*with_magnitude=*/false);
  if (!ref.ok()) return {};
  return std::move(ref).value().result.values;
}

CaseMemory InMemoryOrder(const ConvProblem& p, Direction d, const GraphForm& form,
                         const CaseInputs& inputs) {
  CaseMemory m;
  for (const CaseVar& var : CaseVars(form, p, d))
    if (const HostTensor& filled = inputs.Get(var.name); !filled.values.empty())
      m.buffers.vars[var.name] =
          (m.storage[var.name] = ToMemoryOrder(filled, var.memory_order)).data();
  return m;
}

SutRun RunSut(Sut& sut, const ConvProblem& p, Direction d, const CaseInputs& inputs,
              const GraphForm& form, const Spelling& spelling) {
  const Shape result_shape = ResultShape(p, d);
  std::vector<float> result(NumElements(result_shape), PoisonValue());
  CaseMemory memory = InMemoryOrder(p, d, form, inputs);
  CaseBuffers& buffers = memory.buffers;
  buffers.result = result.data();
  SutRun run;
  run.declared = sut.capabilities().declared;
  run.outside = WhyOutside(sut.capabilities(), form.name, d, p);
  Stopwatch clock;
  try {
    GraphRun graph_run = sut.RunGraph(p, form, d, spelling, buffers);
    run.status = std::move(graph_run.status);
    run.verdict = graph_run.verdict;
    if (run.status.ok()) run.notes = sut.LastRunNotes();
  } catch (const std::exception& e) {
    run.status = Status::Internal(std::string("exception: ") + e.what());
  }
  run.seconds = clock.Lap();
  run.result = FromMemoryOrder(result_shape, result, ResultMemoryOrder(p, d));
  return run;
}

Status CheckCaseLimits(const ConvCase& c, const Limits& limits) {
  CP_RETURN_IF_ERROR(CheckLimits(c.problem, limits));
  if (*c.graph == ConvForm()) return Status::Ok();
  Result<std::vector<ConvProblem>> convs = FormConvs(*c.graph, c.problem);
  if (!convs.ok()) return convs.status().WithContext("the " + c.graph->name + " graph");
  for (size_t i = 1; i < convs->size(); ++i)
    CP_RETURN_IF_ERROR(
        CheckLimits((*convs)[i], limits)
            .WithContext("the " + c.graph->name + "'s convolution " + std::to_string(i + 1)));
  int64_t macs = 0;  // FormMacs, without building the graph again
  for (const ConvProblem& q : *convs) macs += q.macs();
  if (macs > limits.max_macs)
    return Status::Limit("the " + c.graph->name + " has " + std::to_string(macs) +
                         " multiply-adds, over the limit of " + std::to_string(limits.max_macs) +
                         " (--max-macs)");
  return Status::Ok();
}

// Every moment of preparing and running a case belongs to a phase of its timing (checking the
// limits and choosing the ranges to fill, the reference's finiteness to the oracle, the layout
// conversions around a SUT and the verdict's summary to compare), so that a campaign's time split
// accounts for the worker's whole time.
namespace {

PreparedCase Prepare(const ConvCase& c, const CheckContext& context, bool with_reference) {
  Stopwatch clock;
  PreparedCase prep;
  prep.c = c;
  const ConvProblem& p = c.problem;
  const Direction d = c.direction;
  auto end = [&](Verdict v, std::string reason, double& phase) {
    prep.ended = Ended(v, std::move(reason));
    phase = clock.Lap();
    prep.ended->timing = prep.timing;
  };
  if (Status st = CheckCaseLimits(c, context.limits); !st.ok()) {  // validates first
    end(Verdict::kInvalid, st.message(), prep.timing.fill);
    return prep;
  }
  if (c.fill == Fill::kExact && !ChooseExactRange(p, d, *c.graph).exact) {
    end(Verdict::kSkipped, "the reduction is too long for exact mode", prep.timing.fill);
    return prep;
  }
  prep.inputs = FillInputs(p, d, c.fill, c.seed, *c.graph);
  prep.timing.fill = clock.Lap();
  if (!with_reference) return prep;
  const bool random = c.fill != Fill::kExact;
  Result<OracleOutput> ref = ComputeReference(p, *c.graph, d, prep.inputs, random);
  if (!ref.ok()) {
    end(Verdict::kInvalid, "the oracle rejected it: " + ref.status().message(), prep.timing.oracle);
    return prep;
  }
  prep.reference = std::move(ref).value();
  if (random)
    for (double v : prep.reference.result.values)
      if (!std::isfinite(v)) {
        end(Verdict::kSkipped, "ill-conditioned: the reference is not finite", prep.timing.oracle);
        return prep;
      }
  prep.timing.oracle = clock.Lap();
  return prep;
}

}  // namespace

PreparedCase PrepareCase(const ConvCase& c, const CheckContext& context) {
  return Prepare(c, context, /*with_reference=*/true);
}

PreparedCase PrepareInputs(const ConvCase& c, const CheckContext& context) {
  return Prepare(c, context, /*with_reference=*/false);
}

CaseOutcome RunPrepared(const PreparedCase& prep, Sut& sut) {
  if (prep.ended) return *prep.ended;
  Stopwatch clock;
  const SutRun run =
      RunSut(sut, prep.c.problem, prep.c.direction, prep.inputs, *prep.c.graph, prep.c.spelling);
  return JudgeRun(prep, sut.name(), run, clock.Lap());
}

CaseOutcome JudgeRun(const PreparedCase& prep, const std::string& sut_name, const SutRun& run,
                     double around_seconds) {
  Stopwatch clock;
  CaseOutcome out;
  out.timing = prep.timing;
  auto end = [&](Verdict v, std::string reason) {
    CaseOutcome ended = Ended(v, std::move(reason));
    ended.timing = out.timing;
    return ended;
  };
  // The SUT's time is its own call's; converting the inputs to its layouts and its result back is
  // the harness's, counted with the comparison.
  out.timing.compare = around_seconds - run.seconds;
  out.timing.sut = run.seconds;
  // A SUT's declaration is a promise: a decline inside it, or a result outside it, breaks it.
  if (run.status.code() == StatusCode::kUnsupported) {
    if (run.declared && !run.outside)
      return end(Verdict::kBrokenPromise,
                 sut_name + " declined a case inside its declaration: " + run.status.message());
    return end(Verdict::kSkipped, run.status.message());
  }
  if (run.verdict == Verdict::kBrokenPromise)
    return end(Verdict::kBrokenPromise, sut_name + " broke a promise: " + run.status.message());
  if (run.verdict)  // a result of another shape
    return end(*run.verdict, sut_name + ": " + run.status.message());
  if (run.status.code() == StatusCode::kTimedOut)
    return end(Verdict::kHung, sut_name + ": " + run.status.message());
  if (!run.status.ok())
    return end(Verdict::kCrashed, sut_name + " returned an error: " + run.status.message());

  out.notes = run.notes;
  // A case that asks for an inexact algorithm (benchdnn's --alg=wino or auto) is judged as one,
  // whatever the SUT says: one that can pick Winograd may not report it.
  const Comparison comparison =
      ComparisonFor(prep.c.fill, run.notes.inexact || prep.c.algorithm != Algorithm::kDirect);
  const RefTensor* magnitude = &prep.reference.magnitude;
  RefTensor exact_fill_magnitude;
  if (comparison != Comparison::kBitwise && magnitude->values.empty()) {
    // An inexact result of an exact fill: the oracle computed no magnitudes for the bound.
    Result<RefTensor> computed = MagnitudeOf(prep);
    if (!computed.ok())
      return end(Verdict::kInvalid, "the oracle rejected it: " + computed.status().message());
    exact_fill_magnitude = std::move(computed).value();
    magnitude = &exact_fill_magnitude;
  }
  // Asked only for a mostly-zero reference; the oracle's time, not the comparison's.
  double reach_seconds = 0;
  const ReachFn reach = [&] {
    Stopwatch oracle;
    std::vector<double> reached = ReachOf(prep);
    reach_seconds = oracle.Lap();
    return reached;
  };
  out.judgement =
      Judge(prep.reference.result.shape, prep.reference.result.values, magnitude->values,
            run.result, comparison, prep.reference.bound_reduction_length, ErrorBound{}, reach);
  if (out.judgement.verdict == Verdict::kFailed) {
    // What went wrong (symptom.h) needs the magnitudes, which an exact fill computes only now.
    if (magnitude->values.empty())
      if (Result<RefTensor> computed = MagnitudeOf(prep); computed.ok())
        exact_fill_magnitude = std::move(computed).value(), magnitude = &exact_fill_magnitude;
    out.judgement.symptom = ClassifySymptom(
        prep.reference.result.shape, prep.reference.result.values, magnitude->values, run.result,
        comparison, prep.reference.bound_reduction_length);
  }
  out.verdict = out.judgement.verdict;
  out.reason = Summary(out.judgement);
  // Right or barely tested, a result is a promise broken; wrong values say more as they are.
  if (run.outside && (out.verdict == Verdict::kPassed || out.verdict == Verdict::kMistrusted)) {
    out.verdict = Verdict::kBrokenPromise;
    out.reason = sut_name + " computed a case " + *run.outside;
  }
  out.timing.oracle += reach_seconds;
  out.timing.own_oracle = reach_seconds;
  out.timing.compare += clock.Lap() - reach_seconds;
  return out;
}

}  // namespace convparity

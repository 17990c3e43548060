// The worker's side of the protocol (worker_process.h).
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/engine/check_case.h"
#include "harness/engine/outcome_wire.h"
#include "harness/engine/pipe_io.h"
#include "harness/engine/sut_cache.h"
#include "harness/engine/sut_host.h"
#include "harness/engine/worker_process.h"
#include "oracles/torch_oracle.h"

namespace convparity {
namespace {

// The protocol's loop (worker_process.h), on `in_fd` and `out_fd`.
int ServeRequests(int in_fd, int out_fd, const CheckContext& context, SutHost& apart) {
  auto answer = [&](const WorkerAnswer& a) { WriteAll(out_fd, FramedAnswer(a)); };
  SutCache cache(context.suts);
  answer({});  // ready
  using Clock = std::chrono::steady_clock;
  auto seconds = [](Clock::duration d) { return std::chrono::duration<double>(d).count(); };
  Clock::time_point idle_since = Clock::now();
  double tail = 0;  // the previous request's time after its protocol share was measured
  PipeReader requests(in_fd);
  std::string line;
  while (requests.Line(line)) {
    const Clock::time_point received = Clock::now();
    const double idle = seconds(received - idle_since);
    nlohmann::json request = nlohmann::json::parse(line, nullptr, false);
    if (request.is_discarded() || !request.contains("case") || !request.contains("suts")) return 3;
    Result<ConvCase> c = CaseFromJson(request["case"]);
    if (!c.ok()) return 3;
    const uint64_t id = request.value("id", uint64_t{0});
    const auto suts = request["suts"].get<std::vector<std::string>>();
    auto named = [&](const char* field, const std::string& sut) {
      const auto names = request.value(field, std::vector<std::string>{});
      return std::find(names.begin(), names.end(), sut) != names.end();
    };
    // The SUTs run apart start on the case in the host's children while the oracle computes (their
    // time then overlaps the oracle's, and the phases may add up to more than the request took).
    for (const std::string& sut : suts)
      if (named("fresh", sut) || named("kept", sut)) apart.Send(*c, sut, named("kept", sut));
    const PreparedCase prep = PrepareCase(*c, context);
    // The oracle's time lets the parent scale the SUT's timeout to the case (WorkerPolicy).
    WorkerAnswer prepared{WorkerAnswer::Kind::kPrepared, id, prep.timing.oracle};
    answer(prepared);
    double phases = prep.timing.fill + prep.timing.oracle;
    Clock::time_point measured = received;
    WorkerAnswer ran{WorkerAnswer::Kind::kOutcome, id};
    for (size_t k = 0; k < suts.size(); ++k) {
      const bool kept = named("kept", suts[k]);
      ran.sut = static_cast<uint32_t>(k);
      ran.outcome = kept || named("fresh", suts[k]) ? apart.Receive(prep, suts[k], kept)
                                                    : RunOne(prep, cache, suts[k]);
      const CaseTiming& t = ran.outcome.timing;
      phases += t.sut + t.compare + t.own_oracle;
      if (k + 1 == suts.size()) {
        // The last answer carries the worker's time around the request: what was not a phase of
        // a check went to the protocol (with the previous request's last answer), and before the
        // request came the worker waited.
        measured = Clock::now();
        ran.outcome.timing.protocol = std::max(0.0, seconds(measured - received) - phases) + tail;
        ran.outcome.timing.idle = idle;
      }
      answer(ran);
    }
    idle_since = Clock::now();
    tail = seconds(idle_since - measured);
  }
  return 0;
}

}  // namespace

int WorkerMain(const CheckContext& context) {
  // First, while this process is small and runs one thread; then the oracle, before the worker
  // says it is ready: a case's time limits are not for loading LibTorch.
  SutHost apart(context);
  if (Status loaded = TorchOracle::Available(); !loaded.ok()) {
    std::fprintf(stderr, "convparity worker: %s\n", loaded.message().c_str());
    return 3;
  }
  // Each case allocates and frees tensors of up to a few MiB; above glibc's default threshold those
  // are mmap'ed and unmapped every time, and the page faults cost more than the small convolutions.
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  // A SUT that prints to stdout must not corrupt the protocol: answers go to a private copy of the
  // original stdout, and the SUTs' stdout goes to stderr.
  const int protocol_fd = dup(STDOUT_FILENO);
  dup2(STDERR_FILENO, STDOUT_FILENO);
  return ServeRequests(STDIN_FILENO, protocol_fd, context, apart);
}

}  // namespace convparity

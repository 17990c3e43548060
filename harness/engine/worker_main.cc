// The worker's side of the protocol (worker_process.h).
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/engine/check_case.h"
#include "harness/engine/outcome_json.h"
#include "harness/engine/sut_cache.h"
#include "harness/engine/worker_process.h"

namespace convparity {

int WorkerMain(const CheckContext& context) {
  // Requests are read line by line: without this, every character is a locked C stdio call.
  std::ios::sync_with_stdio(false);
  // Each case allocates and frees tensors of up to a few MiB; above glibc's default threshold those
  // are mmap'ed and unmapped every time, and the page faults cost more than the small convolutions.
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  // A SUT that prints to stdout must not corrupt the protocol: answers go to a private copy of the
  // original stdout, and the SUTs' stdout goes to stderr.
  const int protocol_fd = dup(STDOUT_FILENO);
  dup2(STDERR_FILENO, STDOUT_FILENO);
  FILE* protocol = fdopen(protocol_fd, "w");
  auto emit = [&](const nlohmann::json& j) {
    const std::string line = j.dump() + "\n";
    std::fwrite(line.data(), 1, line.size(), protocol);
    std::fflush(protocol);
  };
  SutCache cache(context.suts);
  emit({{"ready", true}});
  using Clock = std::chrono::steady_clock;
  auto seconds = [](Clock::duration d) { return std::chrono::duration<double>(d).count(); };
  Clock::time_point idle_since = Clock::now();
  double tail = 0;  // the previous request's time after its protocol share was measured
  std::string line;
  while (std::getline(std::cin, line)) {
    const Clock::time_point received = Clock::now();
    const double idle = seconds(received - idle_since);
    nlohmann::json request = nlohmann::json::parse(line, nullptr, false);
    if (request.is_discarded() || !request.contains("case") || !request.contains("suts")) return 3;
    Result<ConvCase> c = CaseFromJson(request["case"]);
    if (!c.ok()) return 3;
    const nlohmann::json id = request.value("id", nlohmann::json(0));
    const PreparedCase prep = PrepareCase(*c, context);
    // The oracle's time lets the parent scale the SUT's timeout to the case (WorkerPolicy).
    emit({{"id", id}, {"prepared", true}, {"oracle_seconds", prep.timing.oracle}});
    double phases = prep.timing.fill + prep.timing.oracle;
    Clock::time_point measured = received;
    const auto suts = request["suts"].get<std::vector<std::string>>();
    for (size_t k = 0; k < suts.size(); ++k) {
      const CaseOutcome outcome = RunOne(prep, cache, suts[k]);
      phases += outcome.timing.sut + outcome.timing.compare;
      nlohmann::json answer = {{"id", id}, {"outcome", k}, {"value", OutcomeToJson(outcome)}};
      if (k + 1 == suts.size()) {
        // The last answer carries the worker's time around the request: what was not a phase of
        // a check went to the protocol (with the previous request's last answer), and before the
        // request came the worker waited.
        measured = Clock::now();
        answer["protocol"] = std::max(0.0, seconds(measured - received) - phases) + tail;
        answer["idle"] = idle;
      }
      emit(answer);
    }
    idle_since = Clock::now();
    tail = seconds(idle_since - measured);
  }
  return 0;
}

}  // namespace convparity

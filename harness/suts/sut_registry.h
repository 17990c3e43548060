// Systems under test by name: our kernels, `known-bug:<id>` reproductions of historical bugs,
// adapters to other people's libraries (`xnnpack`, `armnn`, …) and plugins.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/sut.h"

namespace convparity {

// Our own kernels: what a default campaign checks.
std::vector<std::string> OurSutNames();
// Every name MakeSut accepts, with a one-line description, for `convparity list`.
std::vector<std::pair<std::string, std::string>> ListSuts();
Result<std::unique_ptr<ConvSut>> MakeSut(const std::string& name);

}  // namespace convparity

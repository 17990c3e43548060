// Whether this test binary runs under AddressSanitizer (the asan preset), where everything runs 2-5
// times slower: timed campaigns in tests get more time there, so that they find as much.
#pragma once

namespace convparity {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

}  // namespace convparity

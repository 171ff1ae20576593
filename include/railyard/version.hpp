// railyard/version.hpp — the library version (kept equal to the CMake
// project version; the top-level CMakeLists.txt checks it at configure time).
//
//   std::cout << "railyard " << railyard::kVersion << "\n";
#pragma once

#include <string_view>

namespace railyard {

inline constexpr int kVersionMajor = 0;
inline constexpr int kVersionMinor = 1;
inline constexpr int kVersionPatch = 0;
inline constexpr std::string_view kVersion = "0.1.0";

}  // namespace railyard

// railyard/core/core.hpp — umbrella header for the core layer: strong ids,
// units, strings, status helpers, value parsers, progress callbacks, the spec-string reader, Slurm
// hostlist expressions, UTF-8 validation and XML escaping.
//
//   #include "railyard/core/core.hpp"
//   auto hosts = railyard::parse_host_list("hosts", "0-15,32-47");
#pragma once

#include "railyard/core/csv.hpp"
#include "railyard/core/file.hpp"
#include "railyard/core/hostlist.hpp"
#include "railyard/core/ids.hpp"
#include "railyard/core/parse.hpp"
#include "railyard/core/progress.hpp"
#include "railyard/core/spec.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/core/units.hpp"
#include "railyard/core/utf8.hpp"
#include "railyard/core/xml_escape.hpp"

// railyard/export/sysfs_pci.hpp — the GPUs and RDMA NICs of one host as Linux sysfs
// shows them, for the NCCL topology file (nccl_xml.hpp).
//
//   railyard::StatusOr<railyard::exports::SysfsHost> host =
//       railyard::exports::read_sysfs_host("/sys");   // or a copied tree in tests
//   for (const railyard::exports::SysfsDevice& g : host->gpus)
//     ... g.self.busid ("0000:1b:00.0"), g.self.numa_node, g.upstream (root port first) ...
//
// What is read, and why (kernel ABI: Documentation/ABI/testing/sysfs-bus-pci,
// sysfs-class-infiniband; NCCL reads the same files, src/graph/xml.cc
// ncclTopoGetXmlFromSys):
// * GPUs: every /sys/bus/pci/devices/<busid> with vendor 0x10de and a class
//   starting 0x03 (NCCL takes the 0x03 prefix for a GPU, topo.cc kvDictPciClass),
//   in bus id order (NVML and CUDA's PCI_BUS_ID order).
// * RDMA NICs: every /sys/class/infiniband/<name> whose `device` is a PCI
//   function, with its port numbers (ports/<n>): NCCL's IB transport names its
//   devices by these names and finds their PCI path through the same link
//   (src/transport/net_ib/init.cc, ncclIbGetPciPath). Ordered by (bus id, name).
//   Devices without a PCI function (soft RoCE) are skipped: NCCL attaches them to
//   the first CPU, not to a PCI tree. Ethernet interfaces (/sys/class/net) are
//   not RDMA devices NCCL's IB transport uses and are not read.
// * Per PCI function: class, vendor, device, numa_node, local_cpus (a cpumap,
//   the CPUs of the function's NUMA node), max_link_speed/max_link_width; the
//   upstream bridges are the bus ids of the resolved sysfs path between the root
//   complex (pciDDDD:BB) and the function, as NCCL walks them.
//
// Errors (InvalidArgument, field "sysfs_root" or the file's path): a root that is
// not a directory, a device link that does not resolve, a numa_node that is not an
// integer, a class/vendor that is not hex, a local_cpus that is not a cpumap or is
// longer than NCCL reads (255 bytes). A root with no such devices is not an error:
// the caller decides (nccl_xml.hpp refuses a bare-metal file without real ids).
// Output is a pure function of the tree's content: same tree, same result.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "railyard/core/file.hpp"
#include "railyard/core/lazy.hpp"
#include "railyard/core/parse.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"

namespace railyard::exports {

// One PCI function as sysfs describes it; empty strings for files that are absent.
struct SysfsPciFunction {
  std::string busid;       // dddd:bb:dd.f, lower-case
  std::string pci_class;   // "0x030200"
  std::string vendor;      // "0x10de"
  std::string device;      // "0x2330"
  int32_t numa_node = -1;  // -1: no NUMA information (the kernel's value too)
  std::string local_cpus;  // cpumap "ffffffff,00000000,..."
  std::string link_speed;  // max_link_speed, e.g. "32.0 GT/s PCIe"
  std::string link_width;  // max_link_width, e.g. "16"
};

// A GPU or an RDMA NIC and the bridges above it.
struct SysfsDevice {
  SysfsPciFunction self;
  std::vector<SysfsPciFunction> upstream;  // root port first, the device's own bridge last
  std::string ib_name;                     // NICs: the RDMA device name (mlx5_0)
  std::vector<int32_t> ports;              // NICs: port numbers, ascending
};

struct SysfsHost {
  std::vector<SysfsDevice> gpus;  // bus id order
  std::vector<SysfsDevice> nics;  // (bus id, name) order; one entry per RDMA device
};

inline constexpr std::string_view kNvidiaPciVendor = "0x10de";

namespace detail {

namespace fs = std::filesystem;

// dddd:bb:dd.f with hex digits (NCCL's checkBDFFormat, xml.cc).
[[nodiscard]] inline bool is_bdf(std::string_view s) {
  if (s.size() != 12 || s[4] != ':' || s[7] != ':' || s[10] != '.') return false;
  for (size_t i : {0u, 1u, 2u, 3u, 5u, 6u, 8u, 9u, 11u})
    if (!is_digit(s[i]) && !((s[i] >= 'a' && s[i] <= 'f') || (s[i] >= 'A' && s[i] <= 'F')))
      return false;
  return true;
}

// The first line of a sysfs attribute, trimmed; "" when the file is absent.
[[nodiscard]] inline std::string sysfs_attr(const fs::path& dir, std::string_view name) {
  std::string text;
  if (!read_file_into((dir / std::string(name)).string(), text).empty()) return {};
  const size_t nl = text.find('\n');
  if (nl != std::string::npos) text.resize(nl);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\r')) text.pop_back();
  return text;
}

[[nodiscard]] inline bool is_hex_value(std::string_view s) {
  if (s.size() < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) return false;
  for (char c : s.substr(2))
    if (!is_digit(c) && !((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) return false;
  return true;
}

// Reads the attributes of the PCI function at `dir` (its resolved sysfs path).
RAILYARD_LAZY
StatusOr<SysfsPciFunction> read_pci_function(const fs::path& dir) {
  SysfsPciFunction f;
  f.busid = to_lower(dir.filename().string());
  const std::string where = dir.string();
  for (auto [name, out] : {std::pair<std::string_view, std::string*>{"class", &f.pci_class},
                           {"vendor", &f.vendor},
                           {"device", &f.device}}) {
    *out = to_lower(sysfs_attr(dir, name));
    if (!out->empty() && !is_hex_value(*out))
      return invalid_field(str_cat(where, "/", name), *out, "not a hex value 0x...");
  }
  if (const std::string numa = sysfs_attr(dir, "numa_node"); !numa.empty()) {
    auto n = parse_signed_int(str_cat(where, "/numa_node"), numa);
    if (!n.ok()) return n.status();
    if (*n < -1 || *n > 65535)
      return invalid_field(str_cat(where, "/numa_node"), numa, "not a NUMA node (-1 or 0..65535)");
    f.numa_node = static_cast<int32_t>(*n);
  }
  f.local_cpus = to_lower(sysfs_attr(dir, "local_cpus"));
  for (char c : f.local_cpus)
    if (!is_digit(c) && !(c >= 'a' && c <= 'f') && c != ',')
      return invalid_field(str_cat(where, "/local_cpus"), f.local_cpus,
                           "not a cpumap (hex words separated by commas)");
  if (f.local_cpus.size() > 255)
    return invalid_field(str_cat(where, "/local_cpus"), f.local_cpus.substr(0, 32) + "...",
                         "longer than the 255 bytes NCCL reads (MAX_STR_LEN, src/graph/xml.h)");
  f.link_speed = sysfs_attr(dir, "max_link_speed");
  f.link_width = sysfs_attr(dir, "max_link_width");
  return f;
}

// The function at `link` (a sysfs link to a PCI function) and its upstream bridges.
RAILYARD_LAZY
StatusOr<SysfsDevice> read_pci_device(const fs::path& link) {
  std::error_code ec;
  const fs::path real = fs::canonical(link, ec);
  if (ec) return invalid_field("sysfs", link.string(), "does not resolve to a PCI function");
  std::vector<fs::path> chain;  // the function, then its bridges upwards
  for (fs::path p = real; is_bdf(p.filename().string()); p = p.parent_path()) chain.push_back(p);
  if (chain.empty()) return invalid_field("sysfs", link.string(), "not a PCI function");
  SysfsDevice dev;
  RAILYARD_ASSIGN_OR_RETURN(dev.self, read_pci_function(chain.front()));
  for (size_t i = chain.size(); i-- > 1;) {
    RAILYARD_ASSIGN_OR_RETURN(SysfsPciFunction f, read_pci_function(chain[i]));
    dev.upstream.push_back(std::move(f));
  }
  return dev;
}

[[nodiscard]] inline std::vector<fs::path> sorted_entries(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    out.push_back(it->path());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace detail

// The GPUs and RDMA NICs under sysfs root `root` (normally "/sys").
RAILYARD_LAZY
[[nodiscard]] StatusOr<SysfsHost> read_sysfs_host(std::string_view root) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path base{std::string(root)};
  if (root.empty() || !fs::is_directory(base, ec))
    return invalid_field("sysfs_root", root, "not a directory");
  SysfsHost host;
  for (const fs::path& entry : detail::sorted_entries(base / "bus" / "pci" / "devices")) {
    if (!detail::is_bdf(entry.filename().string())) continue;
    const std::string vendor = to_lower(detail::sysfs_attr(entry, "vendor"));
    const std::string cls = to_lower(detail::sysfs_attr(entry, "class"));
    if (vendor != kNvidiaPciVendor || !cls.starts_with("0x03")) continue;
    RAILYARD_ASSIGN_OR_RETURN(SysfsDevice gpu, detail::read_pci_device(entry));
    host.gpus.push_back(std::move(gpu));
  }
  for (const fs::path& entry : detail::sorted_entries(base / "class" / "infiniband")) {
    const fs::path device = entry / "device";
    std::error_code link_ec;
    const fs::path real = fs::canonical(device, link_ec);
    if (link_ec || !detail::is_bdf(real.filename().string())) continue;  // not a PCI device
    RAILYARD_ASSIGN_OR_RETURN(SysfsDevice nic, detail::read_pci_device(device));
    nic.ib_name = entry.filename().string();
    for (const fs::path& port : detail::sorted_entries(entry / "ports")) {
      auto n = parse_int_in(port.string(), port.filename().string(), 1, 255);
      if (!n.ok()) return n.status();
      nic.ports.push_back(static_cast<int32_t>(*n));
    }
    std::sort(nic.ports.begin(), nic.ports.end());
    if (nic.ports.empty()) nic.ports.push_back(1);  // a device has at least port 1
    host.nics.push_back(std::move(nic));
  }
  std::sort(host.nics.begin(), host.nics.end(), [](const SysfsDevice& a, const SysfsDevice& b) {
    return a.self.busid != b.self.busid ? a.self.busid < b.self.busid : a.ib_name < b.ib_name;
  });
  return host;
}

}  // namespace railyard::exports

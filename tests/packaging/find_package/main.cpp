// Packaging check: a program outside the railyard tree that includes the
// umbrella header and parses a preset cluster spec.
#include <iostream>
#include <railyard/railyard.hpp>

int main() {
  const auto spec = railyard::topology::parse_cluster("h100-1024");
  if (!spec.ok()) {
    std::cerr << "parse_cluster failed: " << spec.status() << "\n";
    return 1;
  }
  std::cout << "h100-1024 hosts: " << spec->hosts << "\n";
  return 0;
}

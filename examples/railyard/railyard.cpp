// PLACEHOLDER written by the build-system engineer so the build configures;
// the CLI author overwrites this file.
#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--help") == 0) {
    std::puts("usage: railyard <subcommand> [flags]\n\nsubcommands:\n  describe  inventory");
    return 0;
  }
  std::fputs("railyard: placeholder build, no subcommands yet\n", stderr);
  return 2;
}

// check_readme — runs every command the README shows and checks that the
// README shows what the command prints.
//
//   check_readme README.md <working dir> railyard=<path> build/examples/railyard_quickstart=<path>
//
// A ```console block starts with "$ <program> <args>" (a line ending in '\'
// continues on the next; a block may hold several commands, each from its
// "$ " line to the next). The lines after a command are the output as shown: runs of
// lines must appear in the real standard output exactly, in order; a line
// "..." stands for any number of omitted lines (at the start, the end or in
// between). Without "..." at the ends, the shown output must start and end
// where the real one does. The command must exit with status 0.
//
// Every console block must start with its command, so no figure in a console
// block goes unchecked. Exits 1 and names the README line on any mismatch.
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Block {
  int line = 0;  // README line of the "$ " command
  std::string command;
  std::vector<std::string> shown;  // output lines as shown, "..." included
};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::string line;
  std::istringstream in(text);
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

bool read_blocks(const std::string& path, std::vector<Block>& blocks) {
  std::ifstream in(path);
  if (!in) {
    std::cerr << "check_readme: cannot read " << path << "\n";
    return false;
  }
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  bool ok = true;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i] != "```console") continue;
    const size_t open = i;
    size_t end = i + 1;
    while (end < lines.size() && lines[end] != "```") ++end;
    if (end == lines.size()) {
      std::cerr << path << ":" << open + 1 << ": console block never closed\n";
      return false;
    }
    size_t k = open + 1;
    if (k == end || !lines[k].starts_with("$ ")) {
      std::cerr << path << ":" << open + 2
                << ": a console block must start with \"$ <command>\" so that its output is "
                   "checked\n";
      ok = false;
      i = end;
      continue;
    }
    // One command per "$ " line, its output up to the next "$ " line.
    while (k < end) {
      Block b;
      b.line = static_cast<int>(k + 1);
      std::string command = lines[k].substr(2);
      while (!command.empty() && command.back() == '\\' && k + 1 < end) {
        command.pop_back();
        std::string next = lines[++k];
        next.erase(0, next.find_first_not_of(' '));
        command += next;
      }
      b.command = command;
      for (++k; k < end && !lines[k].starts_with("$ "); ++k) b.shown.push_back(lines[k]);
      blocks.push_back(std::move(b));
    }
    i = end;
  }
  return ok;
}

// Runs `command` in `dir`; returns its standard output and exit status.
std::pair<std::string, int> run(const std::string& dir, const std::string& command) {
  const std::string shell = "cd '" + dir + "' && " + command;
  FILE* pipe = popen(shell.c_str(), "r");
  if (pipe == nullptr) return {"", -1};
  std::string out;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
  const int status = pclose(pipe);
  return {out, WIFEXITED(status) ? WEXITSTATUS(status) : -1};
}

// Checks the shown lines against the real ones; on a mismatch prints why.
bool matches(const Block& b, const std::vector<std::string>& real, const std::string& where) {
  // Chunks of shown lines between "..." markers.
  std::vector<std::vector<std::string>> chunks(1);
  for (const std::string& line : b.shown) {
    if (line == "...")
      chunks.emplace_back();
    else
      chunks.back().push_back(line);
  }
  const bool open_start = !b.shown.empty() && b.shown.front() == "...";
  const bool open_end = !b.shown.empty() && b.shown.back() == "...";
  size_t at = 0;  // first real line not yet consumed
  for (size_t c = 0; c < chunks.size(); ++c) {
    const std::vector<std::string>& chunk = chunks[c];
    if (chunk.empty()) continue;
    const bool anchored = c == 0 && !open_start;
    size_t found = real.size();
    for (size_t s = at; s + chunk.size() <= real.size(); ++s) {
      bool same = true;
      for (size_t j = 0; j < chunk.size() && same; ++j) same = real[s + j] == chunk[j];
      if (same) {
        found = s;
        break;
      }
      if (anchored) break;
    }
    if (found == real.size()) {
      // Name the first shown line of the chunk that the output lacks.
      std::cerr << where << ": the README shows lines the command does not print";
      for (const std::string& line : chunk) {
        bool present = false;
        for (size_t s = at; s < real.size() && !present; ++s) present = real[s] == line;
        if (!present) {
          std::cerr << "; first missing:\n  README: " << line << "\n";
          break;
        }
      }
      std::cerr << "\nthe command printed:\n";
      for (const std::string& line : real) std::cerr << "  " << line << "\n";
      return false;
    }
    at = found + chunk.size();
  }
  if (!open_end && at != real.size()) {
    std::cerr << where << ": the command prints more than the README shows (add \"...\" or the "
              << "lines), from:\n  " << real[at] << "\n";
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: check_readme README.md DIR [program=path]...\n";
    return 2;
  }
  const std::string readme = argv[1];
  const std::string dir = argv[2];
  std::map<std::string, std::string> programs;
  for (int i = 3; i < argc; ++i) {
    const std::string arg = argv[i];
    const size_t eq = arg.find('=');
    if (eq == std::string::npos || eq == 0) {
      std::cerr << "check_readme: expected program=path, got '" << arg << "'\n";
      return 2;
    }
    programs[arg.substr(0, eq)] = arg.substr(eq + 1);
  }
  std::vector<Block> blocks;
  bool ok = read_blocks(readme, blocks);
  for (const Block& b : blocks) {
    const std::string where = readme + ":" + std::to_string(b.line);
    const size_t space = b.command.find(' ');
    const std::string program = b.command.substr(0, space);
    const auto it = programs.find(program);
    if (it == programs.end()) {
      std::cerr << where << ": no path given for program '" << program << "'\n";
      ok = false;
      continue;
    }
    const std::string command =
        "'" + it->second + "'" + (space == std::string::npos ? "" : b.command.substr(space));
    const auto [out, status] = run(dir, command);
    if (status != 0) {
      std::cerr << where << ": '" << b.command << "' exited with status " << status << "\n";
      ok = false;
      continue;
    }
    if (matches(b, lines_of(out), where))
      std::cout << "ok   " << where << "  $ " << b.command << "\n";
    else
      ok = false;
  }
  if (blocks.empty()) {
    std::cerr << readme << ": no console blocks found\n";
    ok = false;
  }
  return ok ? 0 : 1;
}

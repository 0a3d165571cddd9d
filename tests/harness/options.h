#pragma once
// The tests' command lines: each program names its options and the fields they set, and gets
// the same parsing, the same errors and the same GPU placement options as every other test.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace harness {

// Where the calls of a run must go, checked against cudrop_counters (tests/harness/gpu.h).
struct Placement {
  bool require_gpu = false;      // --require-gpu: exit 77 (skipped) without a usable GPU
  bool expect_gpu = false;       // --expect-gpu: every call on the GPU, none fallen back
  bool expect_cpu = false;       // --expect-cpu: no GPU call
  bool expect_fallback = false;  // --expect-fallback: GPU attempts fell back to the CPU
};

class CommandLine {
 public:
  // usage: printed (with the offending word) when the command line is not understood.
  explicit CommandLine(std::string usage) : usage_(std::move(usage)) {}

  CommandLine &flag(const char *name, bool *field) {
    options_.push_back({name, false, [field](const char *) { *field = true; return true; }});
    return *this;
  }
  // A flag that does more than set one field.
  CommandLine &flag(const char *name, std::function<void()> act) {
    options_.push_back({name, false, [act](const char *) { act(); return true; }});
    return *this;
  }
  CommandLine &number(const char *name, long *field) {
    return value(name, [field](const char *v) { *field = std::strtol(v, nullptr, 0); return true; });
  }
  CommandLine &number(const char *name, int *field) {
    return value(name, [field](const char *v) { *field = int(std::strtol(v, nullptr, 0)); return true; });
  }
  CommandLine &number(const char *name, uint64_t *field) {
    return value(name, [field](const char *v) { *field = std::strtoull(v, nullptr, 0); return true; });
  }
  CommandLine &number(const char *name, double *field) {
    return value(name, [field](const char *v) { *field = std::atof(v); return true; });
  }
  CommandLine &text(const char *name, std::string *field) {
    return value(name, [field](const char *v) { *field = v; return true; });
  }
  // An option with a value that the program checks itself (false: not understood).
  CommandLine &value(const char *name, std::function<bool(const char *)> set) {
    options_.push_back({name, true, std::move(set)});
    return *this;
  }
  CommandLine &placement(Placement *p) {
    return flag("--require-gpu", &p->require_gpu)
        .flag("--expect-gpu", &p->expect_gpu)
        .flag("--expect-cpu", &p->expect_cpu)
        .flag("--expect-fallback", &p->expect_fallback);
  }

  // False, after a message on stderr, for an unknown option, a missing or a refused value.
  bool parse(int argc, char **argv) const {
    for (int i = 1; i < argc; ++i) {
      const Option *option = find(argv[i]);
      if (option == nullptr) return refuse("unknown option", argv[i]);
      if (option->takes_value && i + 1 >= argc) return refuse("a value is missing after", argv[i]);
      if (!option->set(option->takes_value ? argv[++i] : nullptr))
        return refuse("not understood:", (std::string(argv[i - 1]) + " " + argv[i]).c_str());
    }
    return true;
  }

 private:
  struct Option {
    std::string name;
    bool takes_value;
    std::function<bool(const char *)> set;
  };
  const Option *find(const std::string &word) const {
    for (const Option &o : options_)
      if (o.name == word) return &o;
    return nullptr;
  }
  bool refuse(const char *why, const char *word) const {
    std::fprintf(stderr, "%s %s\n%s\n", why, word, usage_.c_str());
    return false;
  }
  std::string usage_;
  std::vector<Option> options_;
};

}  // namespace harness

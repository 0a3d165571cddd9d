#pragma once
// What the one reading of the environment found, variable by variable, for cudrop-info
// (capi/info.cpp): each CUDROP_* setting in effect and where it came from.
#include <string>
#include <vector>

namespace cudrop::env {

enum class Source {
  default_value,  // unset or empty
  environment,    // set and understood
  invalid,        // set, not understood: the default used, with a warning
};

// Whom a setting is for (core/settings.def's audience column).
enum class Audience {
  user,    // the README's settings
  tuning,  // tuning knobs and traces (docs/tuning.md)
  hook,    // test hooks (docs/tuning.md)
};

struct Reading {
  std::string name;       // CUDROP_MODE
  Audience audience = Audience::user;
  const char *doc = "";   // one line: what it does (core/settings.def)
  bool set = false;       // present and non-empty in the environment
  std::string raw;        // its text when set
  std::string effective;  // the value in effect, as text ("auto", "2147483648 bytes", "no limit")
  Source source = Source::default_value;
  std::string warning;    // the warning printed for an invalid value (without "cudrop: ")
};

// Every variable cudrop reads, in reading order (reads the environment first if not yet),
// with the warnings given since (CUDROP_DEVICE beyond the devices there are is found later).
std::vector<Reading> readings();

const char *source_name(Source source);
const char *audience_name(Audience audience);  // "user", "tuning", "hook"

}  // namespace cudrop::env

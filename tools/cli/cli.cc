// The tools' command-line helper (tools/cli/cli.h) on CLI11: it registers
// numeric options as text and converts them itself after parsing, so every
// range and conversion error reads the same, and it rewrites CLI11's parse
// errors into plain words.
#include "tools/cli/cli.h"

#include <CLI/CLI.hpp>

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>

namespace kiln::tools {
namespace {

// 1000000 rather than 1e+06; 0.25 as typed.
std::string NumberText(double v) {
  char buf[64];
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15) std::snprintf(buf, sizeof buf, "%.0f", v);
  else std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// The long name of "-o,--output": "--output".
std::string LongName(const std::string& flags) {
  size_t at = flags.rfind(',');
  return at == std::string::npos ? flags : flags.substr(at + 1);
}

std::string WithDetails(const std::string& help, const std::string& range, const std::string& default_text) {
  std::string details = range;
  if (!default_text.empty()) details += (details.empty() ? "default: " : "; default: ") + default_text;
  return details.empty() ? help : help + " (" + details + ")";
}

std::string Alternatives(const std::vector<std::string>& choices) {
  std::string s;
  for (size_t i = 0; i < choices.size(); ++i)
    s += (i == 0 ? "" : (i + 1 == choices.size() ? " or " : ", ")) + choices[i];
  return s;
}

}  // namespace

std::string Count(size_t n, const std::string& noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

CommandLine::CommandLine(std::string tool, std::string description)
    : tool_(std::move(tool)), app_(std::make_unique<CLI::App>(tool_ + ": " + description, tool_)) {
  app_->get_formatter()->column_width(32);
  app_->set_version_flag("--version", VersionText(tool_), "print the Kiln version, git commit and module format");
}

CommandLine::~CommandLine() = default;

void CommandLine::Positional(const std::string& name, std::string* value, const std::string& help, bool required) {
  positional_name_ = help;
  auto* o = app_->add_option(name, *value, help)->multi_option_policy(CLI::MultiOptionPolicy::Throw);
  if (required) o->required();
}

void CommandLine::Positionals(const std::string& name, std::vector<std::string>* values, const std::string& help) {
  positional_name_ = help;
  app_->add_option(name, *values, help)->required()->expected(1, -1);
}

void CommandLine::Text(const std::string& flags, std::string* value, const std::string& help) {
  app_->add_option(flags, *value, WithDetails(help, "", *value))
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
}

void CommandLine::Choice(const std::string& flags, std::string* value, const std::vector<std::string>& choices,
                         const std::string& help) {
  auto c = std::make_unique<Converter>();
  c->name = LongName(flags);
  c->text = *value;
  c->apply = [name = c->name, value, choices](const std::string& text) -> std::string {
    for (const auto& choice : choices)
      if (text == choice) {
        *value = text;
        return "";
      }
    return name + " must be " + Alternatives(choices) + ", not '" + text + "'";
  };
  app_->add_option(flags, c->text, WithDetails(help, Alternatives(choices), *value))
      ->type_name("TEXT")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  converters_.push_back(std::move(c));
}

void CommandLine::Repeated(const std::string& flags, std::vector<std::string>* values, const std::string& help) {
  // One value per occurrence: without this a repeatable option takes every
  // following word, the module path included.
  app_->add_option(flags, *values, help + " (repeatable)")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

void CommandLine::Flag(const std::string& flags, bool* value, const std::string& help) {
  app_->add_flag(flags, *value, help);
}

void CommandLine::Integer(const std::string& flags, int* value, const std::string& help, int64_t min, int64_t max,
                          const std::string& note, const std::string& default_text) {
  max = std::min<int64_t>(max, INT_MAX);
  min = std::max<int64_t>(min, INT_MIN);
  const std::string range =
      (max == INT_MAX ? "at least " + std::to_string(min) : std::to_string(min) + " to " + std::to_string(max)) +
      (note.empty() ? "" : ", " + note);
  auto c = std::make_unique<Converter>();
  c->name = LongName(flags);
  c->apply = [name = c->name, value, min, max, note](const std::string& text) -> std::string {
    const std::string bound =
        max == INT_MAX ? "at least " + std::to_string(min)
                       : "between " + std::to_string(min) + " and " + std::to_string(max) +
                             (note.empty() ? "" : " (" + note + ")");
    char* end = nullptr;
    errno = 0;
    long long v = std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0') return name + " must be a whole number " + bound + ", not '" + text + "'";
    if (errno == ERANGE || v < min || v > max) return name + " must be " + bound + ", not " + text;
    *value = static_cast<int>(v);
    return "";
  };
  app_->add_option(flags, c->text, WithDetails(help, range, default_text.empty() ? std::to_string(*value) : default_text))
      ->type_name("INT")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  converters_.push_back(std::move(c));
}

void CommandLine::Seconds(const std::string& flags, double* value, const std::string& help, double max,
                          const std::string& default_text) {
  const std::string bound = "more than 0 and at most " + NumberText(max) + " seconds";
  auto c = std::make_unique<Converter>();
  c->name = LongName(flags);
  c->apply = [name = c->name, value, max, bound](const std::string& text) -> std::string {
    char* end = nullptr;
    double v = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || std::isnan(v))
      return name + " must be a number of seconds, " + bound + ", not '" + text + "'";
    if (!(v > 0) || v > max) return name + " must be " + bound + ", not " + text;
    *value = v;
    return "";
  };
  app_->add_option(flags, c->text,
                   WithDetails(help, "seconds, more than 0, at most " + NumberText(max),
                               default_text.empty() ? NumberText(*value) : default_text))
      ->type_name("S")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  converters_.push_back(std::move(c));
}

void CommandLine::Real(const std::string& flags, double* value, const std::string& help, double min, double max) {
  const std::string bound = "between " + NumberText(min) + " and " + NumberText(max);
  auto c = std::make_unique<Converter>();
  c->name = LongName(flags);
  c->apply = [name = c->name, value, min, max, bound](const std::string& text) -> std::string {
    char* end = nullptr;
    double v = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || std::isnan(v)) return name + " must be a number " + bound + ", not '" + text + "'";
    if (v < min || v > max) return name + " must be " + bound + ", not " + text;
    *value = v;
    return "";
  };
  app_->add_option(flags, c->text, WithDetails(help, bound, NumberText(*value)))
      ->type_name("X")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  converters_.push_back(std::move(c));
}

bool CommandLine::Given(const std::string& name) const { return app_->count(name) > 0; }

std::optional<int> CommandLine::Parse(int argc, char** argv) {
  auto fail = [](const std::string& message) {
    std::cerr << "error: " << message << "\n";
    return 1;
  };
  try {
    app_->parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app_->help();
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    std::cout << app_->help();
    return 0;
  } catch (const CLI::CallForVersion& e) {
    std::cout << e.what() << "\n";
    return 0;
  } catch (const CLI::ExtrasError&) {
    auto extras = app_->remaining();
    std::string first = extras.empty() ? "" : extras.front();
    if (first.size() > 1 && first[0] == '-')
      return fail("unknown option '" + first.substr(0, first.find('=')) + "' ('" + tool_ + " --help' lists the options)");
    return fail("unexpected argument '" + first + "' (" + tool_ + " takes one " + positional_name_ + ")");
  } catch (const CLI::RequiredError&) {
    return fail(tool_ + " needs a " + positional_name_ + " ('" + tool_ + " --help' shows the usage)");
  } catch (const CLI::ArgumentMismatch& e) {
    std::string what = e.what();
    std::string name = what.substr(0, what.find(':'));
    if (what.find("missing") != std::string::npos) return fail(name + " needs a value (" + name + "=VALUE)");
    return fail(what);
  } catch (const CLI::ParseError& e) {
    return fail(e.what());
  }
  for (const auto& c : converters_) {
    if (!Given(c->name)) continue;
    if (std::string error = c->apply(c->text); !error.empty()) return fail(error);
  }
  return std::nullopt;
}

}  // namespace kiln::tools

// The tools' command lines, defined through one helper so that every tool
// behaves the same: options and the positional file in any order; an option
// that may repeat (--input, --output) takes exactly one value per
// occurrence, so it never swallows the module path after it; a repeated
// single-value option keeps its last value; every numeric option has a
// stated range, checked with a plain message ("--iterations must be at
// least 1, not 0"); --help shows each option's range and default; --version
// prints the Kiln version, git commit and module format. A command-line
// error prints "error: ..." and exits 1.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace kiln::tools {

// "kiln-compile 0.1.0 (commit 1a2b3c4, module format 0.2)".
std::string VersionText(const std::string& tool);

// "1 input", "2 inputs".
std::string Count(size_t n, const std::string& noun);

class CommandLine {
 public:
  CommandLine(std::string tool, std::string description);
  ~CommandLine();

  // The positional file (the module or source); `help` also names it in
  // messages ("vm-run needs a module file (.kiln)").
  void Positional(const std::string& name, std::string* value, const std::string& help, bool required);
  // One or more positional files, in order (vm-check's modules).
  void Positionals(const std::string& name, std::vector<std::string>* values, const std::string& help);
  // A single text value; a non-empty default is shown in --help.
  void Text(const std::string& flags, std::string* value, const std::string& help);
  // One of `choices`.
  void Choice(const std::string& flags, std::string* value, const std::vector<std::string>& choices,
              const std::string& help);
  // May repeat; one value per occurrence, in order.
  void Repeated(const std::string& flags, std::vector<std::string>* values, const std::string& help);
  void Flag(const std::string& flags, bool* value, const std::string& help);
  // A whole number in [min, max]. `default_text` overrides the shown
  // default (e.g. "the module's, else 1"); `note` explains a special value
  // ("0: one per core").
  void Integer(const std::string& flags, int* value, const std::string& help, int64_t min, int64_t max,
               const std::string& note = "", const std::string& default_text = "");
  // A number of seconds, more than 0 and at most `max`.
  void Seconds(const std::string& flags, double* value, const std::string& help, double max,
               const std::string& default_text = "");

  // A real number in [min, max] (a tolerance).
  void Real(const std::string& flags, double* value, const std::string& help, double min, double max);

  // Whether the option (by its long name, "--replicas") was on the command line.
  bool Given(const std::string& name) const;

  // nullopt: go on; otherwise the tool exits with the value (0 after --help
  // or --version, 1 after an error, which has been printed).
  std::optional<int> Parse(int argc, char** argv);

 private:
  struct Converter {
    std::string name;
    std::string text;  // the value as typed
    std::function<std::string(const std::string&)> apply;  // "" or an error message
  };
  std::string tool_;
  std::unique_ptr<CLI::App> app_;
  std::vector<std::unique_ptr<Converter>> converters_;
  std::string positional_name_;
};

}  // namespace kiln::tools

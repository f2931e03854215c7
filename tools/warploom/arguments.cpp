// tools/warploom/arguments.cpp
#include "arguments.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <system_error>

#include "exit_codes.hpp"

namespace warploom::cli {
namespace {

char lower(char c) {
  return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

// The text without one leading '+', which std::from_chars does not take but users write.
std::string_view unsigned_part(std::string_view text) {
  return text.starts_with('+') ? text.substr(1) : text;
}

// `text` as a long long when it is exactly an integer in decimal digits.
std::optional<long long> parse_integer(std::string_view text, std::errc& error) {
  text = unsigned_part(text);
  long long value = 0;
  auto const [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  error = end == text.data() + text.size() ? ec : std::errc::invalid_argument;
  return error == std::errc() ? std::optional(value) : std::nullopt;
}

// `text` as a double when it is exactly a number (digits, a fraction, an exponent, inf, nan);
// one too large for a double is infinite, one too small 0.
std::optional<double> parse_real(std::string_view text) {
  text = unsigned_part(text);
  double value = 0;
  auto const [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (end != text.data() + text.size()) return std::nullopt;
  if (ec == std::errc::result_out_of_range)  // from_chars leaves the value; strtod rounds it
    return std::strtod(std::string(text).c_str(), nullptr);
  return ec == std::errc() ? std::optional(value) : std::nullopt;
}

// The rule of whole_number(min, max) as the help shows it after the type: INT:>=1, INT:1..100000.
std::string whole_number_rule(long long min, long long max) {
  if (max == std::numeric_limits<long long>::max()) return ">=" + std::to_string(min);
  return std::to_string(min) + ".." + std::to_string(max);
}

// Why `text`, a number outside [min, max], is refused. A value past what a long long holds gets no
// bound printed: a 19-digit limit means nothing to the user.
std::string outside(std::string const& text, bool below, long long min, long long max) {
  if (below) return text + " must be at least " + std::to_string(min);
  if (max == std::numeric_limits<long long>::max()) return text + " is too large";
  return text + " must be at most " + std::to_string(max);
}

// Checks `text` for whole_number; may rewrite integral scientific notation in digits.
std::string check_whole_number(std::string& text, long long min, long long max) {
  std::errc error{};
  if (std::optional<long long> const v = parse_integer(text, error))
    return *v < min || *v > max ? outside(text, *v < min, min, max) : "";
  if (error == std::errc::result_out_of_range)
    return outside(text, text.starts_with('-'), min, max);
  std::optional<double> const real = parse_real(text);
  if (!real || std::isnan(*real)) return "`" + text + "` is not a number";
  if (std::isfinite(*real) && *real != std::trunc(*real))
    return "`" + text + "` is not a whole number";
  // 2^63: the first double a long long cannot hold.
  if (*real < static_cast<double>(min) || *real >= 0x1p63 || *real > static_cast<double>(max))
    return outside(text, *real < static_cast<double>(min), min, max);
  text = std::to_string(static_cast<long long>(*real));
  return "";
}

std::string check_positive_number(std::string const& text) {
  std::optional<double> const v = parse_real(text);
  if (!v || std::isnan(*v)) return "`" + text + "` is not a number";
  if (!std::isfinite(*v)) return "`" + text + "` is not a finite number";
  if (*v <= 0) return text + " must be greater than 0";
  return "";
}

// A word that is a number (-1) is a value, not an option.
bool looks_like_option(std::string const& word) {
  return word.size() > 1 && word[0] == '-' && !parse_real(word);
}

// The spellings of `scope`'s options (--shapes, --no-check, -h), for suggestions.
std::vector<std::string> option_names(CLI::App const& scope) {
  std::vector<std::string> names;
  for (CLI::Option const* o : scope.get_options()) {
    for (std::string const& l : o->get_lnames()) names.push_back("--" + l);
    for (std::string const& s : o->get_snames()) names.push_back("-" + s);
  }
  return names;
}

std::vector<std::string> command_names(CLI::App const& app) {
  std::vector<std::string> names;
  for (CLI::App const* s : app.get_subcommands([](CLI::App const*) { return true; }))
    names.push_back(s->get_name());
  return names;
}

// The first word CLI11 could not place in `scope`, as a message; "" when it placed every word.
// Reported before any other error: a required option may look missing only because it was
// misspelt (`--shape 1024` leaves --shapes unset).
std::string unplaced_word(CLI::App const& scope, bool top_level) {
  std::vector<std::string> const left = scope.remaining();
  if (left.empty()) return "";
  std::string const& word = left.front();
  if (looks_like_option(word)) {
    std::string const name = word.substr(0, word.find('='));
    return "no option `" + name + "`" + did_you_mean(name, option_names(scope));
  }
  if (top_level) {
    std::vector<std::string> const commands = command_names(scope);
    return "no command `" + word + "` (commands: " + comma_list(commands) + ")" +
           did_you_mean(word, commands);
  }
  return "unexpected argument `" + word + "`";
}

// CLI11 words a missing value and a repeated option alike ("--reps: 1 required INT missing",
// "--shapes: At Most 1 required but received 2"); tell them apart by counting the option.
std::string argument_mismatch(CLI::App const& scope, std::string const& what,
                              std::vector<std::string> const& args) {
  std::string const name = what.substr(0, what.find(':'));
  if (!name.starts_with('-') || scope.get_option_no_throw(name) == nullptr) return what;
  auto const given = std::count_if(args.begin(), args.end(), [&](std::string const& a) {
    return a == name || a.starts_with(name + "=");
  });
  if (given > 1) return name + ": given " + std::to_string(given) + " times; give it once";
  return name + ": needs a value";
}

// What was wrong with the command line, naming the argument; `sub` is the subcommand CLI11 got to.
std::string usage_message(CLI::App const& app, CLI::App const* sub, CLI::ParseError const& e,
                          std::vector<std::string> const& args) {
  if (std::string const m = unplaced_word(app, true); !m.empty()) return m;
  CLI::App const& scope = sub ? *sub : app;
  if (sub)
    if (std::string const m = unplaced_word(*sub, false); !m.empty()) return m;
  if (!sub && dynamic_cast<CLI::RequiredError const*>(&e))
    return "name a command (commands: " + comma_list(command_names(app)) + ")";
  if (dynamic_cast<CLI::ArgumentMismatch const*>(&e))
    return argument_mismatch(scope, e.what(), args);
  return e.what();
}

}  // namespace

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Optimal string alignment over three rows: d[i][j] is the distance of a[:i] and b[:j].
  std::vector<std::size_t> before(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t const substitution = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + substitution});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) &&
          lower(a[i - 2]) == lower(b[j - 1]))
        current[j] = std::min(current[j], before[j - 2] + 1);
    }
    before.swap(previous);
    previous.swap(current);
  }
  return previous[b.size()];
}

std::string did_you_mean(std::string_view word, std::vector<std::string> const& candidates) {
  std::string const* best = nullptr;
  std::size_t best_distance = std::max<std::size_t>(word.size(), 3) / 3;
  for (std::string const& c : candidates) {
    std::size_t const d = edit_distance(word, c);
    if (d <= best_distance && (!best || d < best_distance)) best = &c, best_distance = d;
  }
  return best ? "; did you mean `" + *best + "`?" : "";
}

std::string comma_list(std::vector<std::string> const& items) {
  std::string s;
  for (std::string const& i : items) s += (s.empty() ? "" : ", ") + i;
  return s;
}

CLI::Validator whole_number(long long min, long long max) {
  return CLI::Validator(
      [min, max](std::string& text) { return check_whole_number(text, min, max); },
      whole_number_rule(min, max));
}

CLI::Validator positive_number() {
  return CLI::Validator(check_positive_number, ">0");
}

CLI::Validator one_of(std::vector<std::string> values) {
  std::string help;  // as CLI11 shows a set: {burst,sustained}
  for (std::string const& v : values) help += (help.empty() ? "{" : ",") + v;
  help += "}";
  return CLI::Validator(
      [values = std::move(values)](std::string const& text) -> std::string {
        if (std::find(values.begin(), values.end(), text) != values.end()) return "";
        return "`" + text + "` is not one of " + comma_list(values) + did_you_mean(text, values);
      },
      help);
}

std::optional<int> parse_command_line(CLI::App& app, int argc, char const* const* argv) {
  try {
    app.parse(argc, argv);
    return std::nullopt;
  } catch (CLI::Success const& e) {  // --help: CLI11 prints the help of the subcommand given
    return app.exit(e);
  } catch (CLI::ParseError const& e) {
    std::vector<std::string> const args(argv + 1, argv + argc);
    std::vector<CLI::App*> const& subs = app.get_subcommands();
    CLI::App const* const sub = subs.empty() ? nullptr : subs.front();
    std::string const who = sub ? "warploom " + sub->get_name() : "warploom";
    std::fprintf(stderr, "%s: %s\nrun `%s --help` for the options and exit codes\n", who.c_str(),
                 usage_message(app, sub, e, args).c_str(), who.c_str());
    return kUsageError;
  }
}

}  // namespace warploom::cli

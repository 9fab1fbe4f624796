#include "io/JsonReader.h"

#include "io/InputError.h"
#include "io/InputFile.h"
#include "io/Ranges.h"
#include "io/Text.h"

#include <climits>
#include <filesystem>
#include <set>
#include <cmath>
#include <fstream>
#include <sstream>

namespace memx {

namespace {
std::string jsonNumberText(double v)
{
    std::ostringstream os;
    os << v;
    return os.str();
}
}  // namespace

JsonReader::JsonReader(const nlohmann::json& node, std::string file, std::string path)
    : node_(node)
    , file_(std::move(file))
    , path_(std::move(path))
{
}

nlohmann::json JsonReader::parseFile(const std::string& file)
{
    return parseText(InputFile::read(file, kMaxFileBytes, "a JSON file"), file);
}

namespace {
// Finds where nlohmann's parser stops and why: a SAX pass that accepts every
// event and records the first error's byte offset and exception.
class ErrorLocator : public nlohmann::json::json_sax_t {
public:
    std::size_t byte = 0;
    std::string token;
    int id = 0;
    bool failed = false;

    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t&) override { return true; }
    bool string(string_t&) override { return true; }
    bool binary(binary_t&) override { return true; }
    bool start_object(std::size_t) override { return true; }
    bool key(string_t&) override { return true; }
    bool end_object() override { return true; }
    bool start_array(std::size_t) override { return true; }
    bool end_array() override { return true; }
    bool parse_error(std::size_t position, const std::string& lastToken, const nlohmann::json::exception& ex) override
    {
        failed = true;
        byte = position;
        token = lastToken;
        id = ex.id;
        return false;
    }
};

std::string lineColumn(const std::string& text, std::size_t byte)
{
    // Translate the byte offset into a line and column a person can find.
    std::size_t line = 1, col = 1;
    for (std::size_t i = 0; i < text.size() && i + 1 < byte; ++i) {
        if (text[i] == '\n') {
            ++line;
            col = 1;
        } else {
            ++col;
        }
    }
    return "line " + std::to_string(line) + " column " + std::to_string(col);
}
}  // namespace

namespace {
// The strict rules nlohmann's parser does not apply: no key twice in one
// object (it keeps the last), and nesting no deeper than kMaxDepth (reading
// is iterative, but destroying and dumping a value recurse). A SAX pass that
// stops at the first breach and remembers where, as a JSON path.
class StrictRules : public nlohmann::json::json_sax_t {
public:
    std::string breach;  // empty: none
    std::string path;  // where

    bool null() override { return value(); }
    bool boolean(bool) override { return value(); }
    bool number_integer(number_integer_t) override { return value(); }
    bool number_unsigned(number_unsigned_t) override { return value(); }
    bool number_float(number_float_t, const string_t&) override { return value(); }
    bool string(string_t&) override { return value(); }
    bool binary(binary_t&) override { return value(); }
    bool start_object(std::size_t) override { return open(true); }
    bool key(string_t& k) override
    {
        Level& l = levels_.back();
        if (!l.keys.insert(k).second) {
            path = where(levels_.size() - 1) + "/" + k;
            breach = "the key \"" + k + "\" is given twice in one object (a reader would keep only the last)";
            return false;
        }
        l.key = k;
        return true;
    }
    bool end_object() override { return close(); }
    bool start_array(std::size_t) override { return open(false); }
    bool end_array() override { return close(); }
    bool parse_error(std::size_t, const std::string&, const nlohmann::json::exception&) override { return false; }

private:
    struct Level {
        bool object = false;
        std::set<std::string> keys;
        std::string key;
        std::size_t index = 0;
    };
    std::vector<Level> levels_;

    // The path through the first `depth` levels (all of them by default).
    std::string where(std::size_t depth = static_cast<std::size_t>(-1)) const
    {
        std::string p;
        for (std::size_t i = 0; i < levels_.size() && i < depth; ++i)
            p += "/" + (levels_[i].object ? levels_[i].key : std::to_string(levels_[i].index));
        return p;
    }
    bool value()
    {
        if (!levels_.empty() && !levels_.back().object)
            ++levels_.back().index;
        return true;
    }
    bool open(bool object)
    {
        if (levels_.size() >= JsonReader::kMaxDepth) {
            path = where();
            breach = "nests deeper than " + std::to_string(JsonReader::kMaxDepth)
                + " levels, more than any MemX file holds";
            return false;
        }
        levels_.push_back({object, {}, {}, 0});
        return true;
    }
    bool close()
    {
        levels_.pop_back();
        return value();
    }
};
}  // namespace

nlohmann::json JsonReader::parseText(const std::string& text, const std::string& file)
{
    // A NUL byte would end the document for the parser, and whatever follows
    // it would be accepted unread.
    if (const std::size_t nul = text.find('\0'); nul != std::string::npos)
        throw InputError(file, lineColumn(text, nul + 1),
                         "a NUL byte; a JSON file holds none (the file is binary, or was cut and padded)");
    StrictRules rules;
    nlohmann::json::sax_parse(text, &rules);
    if (!rules.breach.empty())
        throw InputError(file, rules.path.empty() ? "/" : rules.path, rules.breach);
    try {
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        // Any exception of the parser (a syntax error, a number that overflows
        // a double, ...): locate it with a second, non-throwing pass.
        ErrorLocator where;
        nlohmann::json::sax_parse(text, &where);
        if (!where.failed)
            throw InputError(file, "", std::string("malformed JSON: ") + e.what());
        // The reported offset is one past the token's end for a number.
        const std::size_t start = where.byte >= where.token.size() ? where.byte - where.token.size() + 1 : where.byte;
        if (where.id == 406)
            throw InputError(file, lineColumn(text, start),
                             "number " + where.token + " does not fit in a double (at most about 1.8e308)");
        throw InputError(file, lineColumn(text, where.byte), "malformed JSON");
    }
}

bool JsonReader::has(const std::string& key) const
{
    return node_.is_object() && node_.contains(key) && !node_.at(key).is_null();
}

JsonReader JsonReader::at(const std::string& key) const
{
    if (!node_.is_object())
        fail("expected an object");
    if (!has(key))
        fail("missing required field", key);
    return JsonReader(node_.at(key), file_, path_ + "/" + key);
}

JsonReader JsonReader::at(std::size_t index) const
{
    if (!node_.is_array())
        fail("expected an array");
    if (index >= node_.size())
        fail("missing element " + std::to_string(index) + " (the array has " + std::to_string(node_.size()) + ")");
    return JsonReader(node_.at(index), file_, path_ + "/" + std::to_string(index));
}

std::vector<JsonReader> JsonReader::items() const
{
    std::vector<JsonReader> out;
    if (node_.is_null())
        return out;
    if (!node_.is_array())
        fail("expected an array");
    for (std::size_t i = 0; i < node_.size(); ++i)
        out.push_back(at(i));
    return out;
}

std::string JsonReader::string(const std::string& key) const
{
    auto child = at(key);
    if (!child.node().is_string())
        fail("expected a string", key);
    return child.node().get<std::string>();
}

std::string JsonReader::string(const std::string& key, const std::string& fallback) const
{
    return has(key) ? string(key) : fallback;
}

std::string JsonReader::name(const std::string& key) const
{
    std::string s = string(key);
    if (const std::string why = Text::nameProblem(s); !why.empty())
        fail(why, key);
    return s;
}

std::string JsonReader::name(const std::string& key, const std::string& fallback) const
{
    return has(key) ? name(key) : fallback;
}

void JsonReader::requireNameKey(const std::string& key) const
{
    if (const std::string why = Text::nameProblem(key); !why.empty())
        fail("the name " + why, Text::oneLine(key));
}

double JsonReader::number(const std::string& key) const
{
    auto child = at(key);
    if (!child.node().is_number())
        fail("expected a number", key);
    double v = child.node().get<double>();
    if (!std::isfinite(v))
        fail("expected a finite number", key);
    return v;
}

double JsonReader::number(const std::string& key, double fallback) const { return has(key) ? number(key) : fallback; }

double JsonReader::positive(const std::string& key) const
{
    double v = number(key);
    if (!(v > 0))
        fail("must be greater than 0 (got " + jsonNumberText(v) + ")", key);
    return v;
}

double JsonReader::positive(const std::string& key, double fallback) const
{
    return has(key) ? positive(key) : fallback;
}

std::vector<int> JsonReader::intList(const std::string& key, int min) const
{
    std::vector<int> out;
    if (!has(key))
        return out;
    const JsonReader list = at(key);
    if (!list.node().is_array())
        list.fail("expected a list of whole numbers");
    for (const JsonReader& item : list.items()) {
        const long long v = item.asInteger();
        if (v < min || v > INT_MAX)
            item.fail("must be between " + std::to_string(min) + " and " + std::to_string(INT_MAX) + " (got "
                      + std::to_string(v) + ")");
        out.push_back(static_cast<int>(v));
    }
    return out;
}

long long JsonReader::integer(const std::string& key) const
{
    auto child = at(key);
    return child.asInteger();
}

long long JsonReader::integer(const std::string& key, long long fallback) const
{
    return has(key) ? integer(key) : fallback;
}

bool JsonReader::boolean(const std::string& key, bool fallback) const
{
    if (!has(key))
        return fallback;
    auto child = at(key);
    if (!child.node().is_boolean())
        fail("expected true or false", key);
    return child.node().get<bool>();
}

std::string JsonReader::asString() const
{
    if (!node_.is_string())
        fail("expected a string");
    return node_.get<std::string>();
}

double JsonReader::asNumber() const
{
    if (!node_.is_number())
        fail("expected a number");
    const double v = node_.get<double>();
    if (!std::isfinite(v))
        fail("expected a finite number");
    return v;
}

long long JsonReader::asInteger() const
{
    if (!node_.is_number_integer())
        fail("expected an integer");
    if (node_.is_number_unsigned() && node_.get<unsigned long long>() > static_cast<unsigned long long>(LLONG_MAX))
        fail("integer " + std::to_string(node_.get<unsigned long long>()) + " is too large");
    return node_.get<long long>();
}

bool JsonReader::allowsOutsideRange() const { return boolean("allow_outside_range", false); }

double JsonReader::inRange(const std::string& key, const Range& r) const
{
    const double v = number(key);
    if (const std::string why = r.whyOutside(v, allowsOutsideRange()); !why.empty())
        fail(why, key);
    return v;
}

double JsonReader::inRange(const std::string& key, const Range& r, double fallback) const
{
    return has(key) ? inRange(key, r) : fallback;
}

int JsonReader::integerInRange(const std::string& key, const Range& r) const
{
    const long long v = integer(key);
    if (v > static_cast<long long>(INT_MAX))
        fail(std::string(r.what) + " " + std::to_string(v) + " is too large (at most " + std::to_string(INT_MAX) + ")",
             key);
    if (const std::string why = r.whyOutside(static_cast<double>(v), allowsOutsideRange()); !why.empty())
        fail(why, key);
    return static_cast<int>(v);
}

int JsonReader::integerInRange(const std::string& key, const Range& r, int fallback) const
{
    return has(key) ? integerInRange(key, r) : fallback;
}

void JsonReader::fail(const std::string& reason, const std::string& key) const
{
    std::string p = key.empty() ? path_ : path_ + "/" + key;
    throw InputError(file_, p.empty() ? "/" : p, reason);
}

void JsonReader::requireFormat(const std::string& expected) const
{
    if (!node_.is_object())
        fail("expected a JSON object with \"format\": \"" + expected + "\"");
    std::string got = string("format", "");
    if (got != expected)
        fail("unsupported format \"" + got + "\"; expected \"" + expected + "\"", "format");
}

}  // namespace memx

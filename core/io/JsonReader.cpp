#include "io/JsonReader.h"

#include "io/InputError.h"

#include <cmath>
#include <fstream>
#include <sstream>

namespace memx {

namespace {
std::string formatNumber(double v)
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
    std::ifstream in(file, std::ios::binary);
    if (!in)
        throw InputError(file, "", "cannot open file");
    std::stringstream buffer;
    buffer << in.rdbuf();
    return parseText(buffer.str(), file);
}

nlohmann::json JsonReader::parseText(const std::string& text, const std::string& file)
{
    try {
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        // Translate the byte offset into a line and column a person can find.
        std::size_t line = 1, col = 1;
        for (std::size_t i = 0; i < text.size() && i + 1 < e.byte; ++i) {
            if (text[i] == '\n') {
                ++line;
                col = 1;
            } else {
                ++col;
            }
        }
        throw InputError(file, "line " + std::to_string(line) + " column " + std::to_string(col),
                         "malformed JSON");
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

double JsonReader::number(const std::string& key, double fallback) const
{
    return has(key) ? number(key) : fallback;
}

double JsonReader::positive(const std::string& key) const
{
    double v = number(key);
    if (!(v > 0))
        fail("must be greater than 0 (got " + formatNumber(v) + ")", key);
    return v;
}

double JsonReader::positive(const std::string& key, double fallback) const
{
    return has(key) ? positive(key) : fallback;
}

long long JsonReader::integer(const std::string& key) const
{
    auto child = at(key);
    if (!child.node().is_number_integer())
        fail("expected an integer", key);
    return child.node().get<long long>();
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

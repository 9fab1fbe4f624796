#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace memx {

struct Range;

// Typed access to a JSON document that turns every problem into an InputError
// naming the file and the JSON path. Readers keep the path as they descend.
class JsonReader {
public:
    JsonReader(const nlohmann::json& node, std::string file, std::string path = "");

    // Strict JSON (docs/FILE_FORMATS.md): one document and nothing after it
    // but white space, no NUL byte, no key twice in an object, nesting at
    // most kMaxDepth deep; a file must be a regular file of at most
    // kMaxFileBytes. Anything else is an InputError with the line or path.
    static constexpr std::size_t kMaxDepth = 64;
    static constexpr std::uintmax_t kMaxFileBytes = 256ull << 20;  // InputFile::kMaxJsonBytes
    static nlohmann::json parseFile(const std::string& file);
    static nlohmann::json parseText(const std::string& text, const std::string& file);

    const nlohmann::json& node() const { return node_; }
    const std::string& path() const { return path_; }
    const std::string& file() const { return file_; }

    bool has(const std::string& key) const;
    JsonReader at(const std::string& key) const;  // required member
    JsonReader at(std::size_t index) const;
    std::vector<JsonReader> items() const;  // array elements (empty if absent)

    std::string string(const std::string& key) const;
    std::string string(const std::string& key, const std::string& fallback) const;
    // A user-given name (Text::nameProblem: one line, no control
    // characters); anything else is refused naming the field.
    std::string name(const std::string& key) const;
    std::string name(const std::string& key, const std::string& fallback) const;
    // The same rule for a name that is this object's member key (a
    // "gpu_types" entry): refused naming the key's path.
    void requireNameKey(const std::string& key) const;
    double number(const std::string& key) const;
    double number(const std::string& key, double fallback) const;
    double positive(const std::string& key) const;  // > 0
    double positive(const std::string& key, double fallback) const;
    long long integer(const std::string& key) const;
    long long integer(const std::string& key, long long fallback) const;
    // A list of whole numbers, each in [min, INT_MAX] (range-checked before
    // narrowing: 4294967296 must not become 0); empty when absent.
    std::vector<int> intList(const std::string& key, int min) const;
    bool boolean(const std::string& key, bool fallback) const;

    // This node's own value, typed (array elements).
    std::string asString() const;
    double asNumber() const;  // finite
    long long asInteger() const;

    // Numbers checked against a plausible range (io/Ranges.h). A value outside
    // it is accepted when this object has "allow_outside_range": true.
    bool allowsOutsideRange() const;
    double inRange(const std::string& key, const Range& r) const;
    double inRange(const std::string& key, const Range& r, double fallback) const;
    int integerInRange(const std::string& key, const Range& r) const;
    int integerInRange(const std::string& key, const Range& r, int fallback) const;

    // Throws InputError for this node (optionally a member of it).
    [[noreturn]] void fail(const std::string& reason, const std::string& key = "") const;
    void requireFormat(const std::string& expected) const;

private:
    const nlohmann::json& node_;
    std::string file_;
    std::string path_;
};

}  // namespace memx

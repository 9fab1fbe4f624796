#pragma once

#include <string>

namespace memx {

class JsonReader;

// A field renamed in a newer file format: the key this object uses for it.
// Files of the older format spell it `older`; an object holding both
// spellings is ambiguous and refused naming the older one.
struct FieldSpelling {
    static std::string of(const JsonReader& j, const std::string& key, const std::string& older);
};

}  // namespace memx

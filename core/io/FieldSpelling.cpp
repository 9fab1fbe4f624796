#include "io/FieldSpelling.h"

#include "io/JsonReader.h"

namespace memx {

std::string FieldSpelling::of(const JsonReader& j, const std::string& key, const std::string& older)
{
    if (j.has(key) && j.has(older))
        j.fail("give " + key + " only (" + older + " is its older name)", older);
    return j.has(older) ? older : key;
}

}  // namespace memx

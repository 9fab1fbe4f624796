#include "io/InputError.h"

namespace memx {

namespace {
std::string compose(const std::string& file, const std::string& field, const std::string& reason)
{
    std::string msg = file.empty() ? std::string("<input>") : file;
    if (!field.empty())
        msg += ": " + field;
    msg += ": " + reason;
    return msg;
}
}  // namespace

InputError::InputError(std::string file, std::string field, std::string reason)
    : std::runtime_error(compose(file, field, reason))
    , file_(std::move(file))
    , field_(std::move(field))
    , reason_(std::move(reason))
{
}

}  // namespace memx

#pragma once

#include <stdexcept>
#include <string>

namespace memx {

// Raised for any bad input (file, command-line value, impossible cluster).
// It names the file, the field (a JSON path such as /nodes/2/gpus/0/type, or a
// CSV line and column) and the reason, so the message alone tells the user
// what to fix.
class InputError : public std::runtime_error {
public:
    InputError(std::string file, std::string field, std::string reason);

    const std::string& file() const { return file_; }
    const std::string& field() const { return field_; }
    const std::string& reason() const { return reason_; }

private:
    std::string file_;
    std::string field_;
    std::string reason_;
};

}  // namespace memx

#pragma once
// The core's std::string text as Qt's: one copy of the shorthand every view
// and the window use (they compile as unity batches, where private copies of
// one name would meet).

#include <QString>

#include <string>

namespace memx {

inline QString qs(const std::string& s) { return QString::fromStdString(s); }

}  // namespace memx

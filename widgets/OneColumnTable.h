#pragma once

class QString;
class QTableWidget;
class QWidget;

namespace memx {

// A read-only table of one stretched, word-wrapped column, one row per item
// on several lines: what the what-if panels show in a narrow dock.
QTableWidget* oneColumnTable(const QString& header, QWidget* parent);

}  // namespace memx

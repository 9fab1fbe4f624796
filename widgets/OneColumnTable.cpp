#include "OneColumnTable.h"

#include <QHeaderView>
#include <QTableWidget>

namespace memx {

QTableWidget* oneColumnTable(const QString& header, QWidget* parent)
{
    auto* t = new QTableWidget(0, 1, parent);
    t->setHorizontalHeaderLabels({header});
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setSelectionMode(QAbstractItemView::SingleSelection);
    t->verticalHeader()->setVisible(false);
    t->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    t->setWordWrap(true);
    t->setMinimumHeight(80);
    return t;
}

}  // namespace memx

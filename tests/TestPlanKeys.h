#pragma once
// Plans as comparable string lists: what tests of the search compare between
// a pruned and a brute-force run (keys identify candidates; Phi to 12 digits).

#include "search/ParetoFront.h"

#include <QStringList>

#include <vector>

namespace memx::test {

inline QStringList keysWithPhi(const std::vector<Plan>& plans)
{
    QStringList out;
    for (const auto& p : plans)
        out << QString::number(p.key) + "@" + QString::number(p.phi, 'g', 12);
    return out;
}

inline QStringList keysOf(const std::vector<Plan>& plans)
{
    QStringList out;
    for (const auto& p : plans)
        out << QString::number(p.key);
    return out;
}

inline QStringList frontKeys(const ParetoFront& f)
{
    QStringList out;
    for (const auto& p : f.points())
        out << QString::number(p.plan.key);
    return out;
}

}  // namespace memx::test

#pragma once
// Checking that a reader refuses bad input with memx::InputError naming the
// file, the field (JSON path, or CSV line and column) and the reason.

#include "io/InputError.h"

#include <QtTest/QtTest>

#include <functional>
#include <string>

namespace memx::test {

// Fails the current test unless `read` throws an InputError for `file` whose
// field is exactly `field` and whose reason contains `reason`.
inline void expectInputError(const std::function<void()>& read, const std::string& file, const QString& field,
                             const QString& reason)
{
    try {
        read();
    } catch (const InputError& e) {
        QCOMPARE(e.file(), file);
        QVERIFY2(e.field() == field.toStdString(), e.what());
        QVERIFY2(e.reason().find(reason.toStdString()) != std::string::npos, e.what());
        return;
    }
    QFAIL("the bad input was accepted");
}

}  // namespace memx::test

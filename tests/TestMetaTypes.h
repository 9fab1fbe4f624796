#pragma once
// Column types of data-driven tests that several test sources use. A type is
// declared to Qt's meta-type system once per program, and the tests of one
// kind share a program (TestMain.h), so such declarations live here.
// std::vector<int> and std::vector<double> need none: Qt 6 declares
// std::vector of any declared type.

#include "model/Recompute.h"
#include "search/Objective.h"

#include <QtTest/QtTest>

Q_DECLARE_METATYPE(memx::Recompute)
Q_DECLARE_METATYPE(memx::WeightProfile)

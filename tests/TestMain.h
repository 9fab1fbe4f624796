#pragma once
// Each test source is one Qt Test class. The tests of one kind are linked into
// one program, not one program each (tests/CMakeLists.txt; docs/BUILD_TIME.md
// has what that saves). MEMX_TEST_MAIN, MEMX_TEST_GUILESS_MAIN and
// MEMX_TEST_APPLESS_MAIN stand where QTEST_MAIN, QTEST_GUILESS_MAIN and
// QTEST_APPLESS_MAIN would: they register the class under its source's name
// (tst_node_choice for tst_node_choice.cpp), and the program's main
// (TestProgramMain.cpp) runs the one named by its first argument, or by
// the name it was started as (build/tests/tst_node_choice is a link to it).
// Each test runs in a process of its own as before; the application object is
// the one Qt Test's macro of the same name makes.

#include <QtTest/QtTest>

#ifdef QT_WIDGETS_LIB
#include <QApplication>
#endif

namespace memx::test {

using TestEntry = int (*)(int argc, char** argv);

// Adds the test of `sourceFile` (its __FILE__) to this program's tests.
bool registerTest(const char* sourceFile, TestEntry entry);

enum class TestApp {
    None,  // QTEST_APPLESS_MAIN
    Core,  // QTEST_GUILESS_MAIN
    Default,  // QTEST_MAIN: QApplication in widget tests, QCoreApplication elsewhere
};

template <class Test, TestApp app> int runTest(int argc, char** argv)
{
    if constexpr (app == TestApp::None) {
        Test test;
        return QTest::qExec(&test, argc, argv);
    } else {
#ifdef QT_WIDGETS_LIB
        using Application = std::conditional_t<app == TestApp::Core, QCoreApplication, QApplication>;
#else
        using Application = QCoreApplication;
#endif
        Application application(argc, argv);
        QCoreApplication::setAttribute(Qt::AA_Use96Dpi, true);
        Test test;
        return QTest::qExec(&test, argc, argv);
    }
}

}  // namespace memx::test

#define MEMX_TEST_REGISTER(Test, app)                                                                                  \
    namespace {                                                                                                        \
    const bool memxTestRegistered##Test = ::memx::test::registerTest(__FILE__, &::memx::test::runTest<Test, app>);     \
    }

#define MEMX_TEST_MAIN(Test) MEMX_TEST_REGISTER(Test, ::memx::test::TestApp::Default)
#define MEMX_TEST_GUILESS_MAIN(Test) MEMX_TEST_REGISTER(Test, ::memx::test::TestApp::Core)
#define MEMX_TEST_APPLESS_MAIN(Test) MEMX_TEST_REGISTER(Test, ::memx::test::TestApp::None)

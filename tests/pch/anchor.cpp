// The one source of the targets that own the tests' precompiled headers
// (tests/CMakeLists.txt, memx_add_test_pch): the header is built with this
// file's flags, and every test of that kind reuses it.

// The one source of memx_core_pch (core/CMakeLists.txt): the core folders'
// precompiled header is built with this file's flags and reused by each.

#pragma once

#include <string>

// Paths baked in by tests/CMakeLists.txt.
namespace memx::test {
inline std::string dataFile(const std::string& rel) { return std::string(MEMX_TEST_DATA_DIR) + "/" + rel; }
inline std::string sampleCluster(const std::string& name) { return std::string(MEMX_SAMPLE_CLUSTERS_DIR) + "/" + name; }
inline std::string cliPath() { return MEMX_CLI_PATH; }
}  // namespace memx::test

#pragma once

// JSON documents compiled into the binary from resources/ (see resources/embed.cmake).
namespace memx::resources {
const char* gpuCatalogJson();
const char* modelPresetsJson();
// Hidden characteristics of the reference simulator: only core/sim reads it.
const char* simGpuProfilesJson();
}  // namespace memx::resources

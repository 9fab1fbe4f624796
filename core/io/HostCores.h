#pragma once

namespace memx {

// How many CPU cores this process may really use: the CPUs its affinity mask
// allows, lowered to the CPU quota of its cgroup (v2 cpu.max, or v1
// cpu.cfs_quota_us / cpu.cfs_period_us), rounded up; at least 1.
// std::thread::hardware_concurrency() counts the host's cores instead, and a
// container limited to 2 of a 64-core host that starts 64 spinning OpenMP
// threads runs many times slower than with 2.
int usableCores();

}  // namespace memx

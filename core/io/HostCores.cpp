#include "io/HostCores.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <thread>

#include <sched.h>

namespace memx {

namespace {

// Cores a quota of `quota` microseconds per `period` gives; 0 when unlimited
// or unreadable.
int quotaCores(double quota, double period)
{
    if (!(quota > 0) || !(period > 0))
        return 0;
    return std::max(1, static_cast<int>(std::ceil(quota / period)));
}

int cgroupCores()
{
    {
        std::ifstream in("/sys/fs/cgroup/cpu.max");  // v2: "max 100000" or "200000 100000"
        std::string quota;
        double period = 0;
        if (in >> quota >> period && quota != "max") {
            try {
                return quotaCores(std::stod(quota), period);
            } catch (...) {
                return 0;
            }
        }
    }
    std::ifstream q("/sys/fs/cgroup/cpu/cpu.cfs_quota_us");  // v1: -1 when unlimited
    std::ifstream p("/sys/fs/cgroup/cpu/cpu.cfs_period_us");
    double quota = 0, period = 0;
    if (q >> quota && p >> period)
        return quotaCores(quota, period);
    return 0;
}

int affinityCores()
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(0, sizeof(set), &set) == 0)
        return CPU_COUNT(&set);
    return static_cast<int>(std::thread::hardware_concurrency());
}

}  // namespace

int usableCores()
{
    static const int cores = [] {
        int n = affinityCores();
        if (const int quota = cgroupCores(); quota > 0)
            n = n > 0 ? std::min(n, quota) : quota;
        return std::max(1, n);
    }();
    return cores;
}

}  // namespace memx

#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace memx {

// Calls body(i) for every i in [0, n) on up to `threads` threads, the
// calling thread one of them, handing the indices out through an atomic
// counter. A body must write only what belongs to its own i, so that what
// the caller reduces afterwards, in index order, is the same whatever the
// thread count. The first exception a body throws stops the others from
// taking new indices and is rethrown here once all have returned.
template <class Body> void parallelFor(std::size_t n, int threads, const Body& body)
{
    const std::size_t workers = std::min<std::size_t>(n, static_cast<std::size_t>(std::max(threads, 1)));
    if (workers <= 1) {
        for (std::size_t i = 0; i < n; ++i)
            body(i);
        return;
    }
    std::atomic<std::size_t> next{0};
    std::atomic<bool> failed{false};
    std::exception_ptr error;
    std::mutex errorMutex;
    const auto work = [&] {
        for (std::size_t i = next++; i < n && !failed.load(std::memory_order_relaxed); i = next++) {
            try {
                body(i);
            } catch (...) {
                const std::lock_guard<std::mutex> lock(errorMutex);
                if (!error)
                    error = std::current_exception();
                failed = true;
            }
        }
    };
    std::vector<std::thread> pool;
    pool.reserve(workers - 1);
    for (std::size_t k = 1; k < workers; ++k)
        pool.emplace_back(work);
    work();
    for (std::thread& t : pool)
        t.join();
    if (error)
        std::rethrow_exception(error);
}

}  // namespace memx

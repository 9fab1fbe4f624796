#include "cli/Interrupt.h"

#include "io/AtomicFile.h"

#include <atomic>
#include <csignal>

#include <unistd.h>

namespace memx::cli {

namespace {

std::atomic<int> g_signal{0};

void leave(int sig)
{
    const char* msg = sig == SIGINT ? "memx-cli: interrupted (SIGINT); files not yet written are left as they were\n"
                                    : "memx-cli: terminated (SIGTERM); files not yet written are left as they were\n";
    std::size_t n = 0;
    while (msg[n])
        ++n;
    [[maybe_unused]] ssize_t w = ::write(STDERR_FILENO, msg, n);
    ::_exit(128 + sig);
}

void onSignal(int sig)
{
    g_signal.store(sig);
    if (!AtomicWrites::inProgress())
        leave(sig);
    // else: the write in progress finishes and its hook leaves.
}

void afterWrites()
{
    if (const int sig = g_signal.load())
        leave(sig);
}

}  // namespace

void installInterruptHandlers()
{
    struct sigaction sa {};
    sa.sa_handler = onSignal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    AtomicWrites::setDoneHook(afterWrites);
}

}  // namespace memx::cli

#include "cli/Interrupt.h"

#include "io/AtomicFile.h"

#include <atomic>
#include <csignal>

#include <sys/syscall.h>
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
    // exit_group is what _exit(2) does, called directly: the sanitizers
    // intercept _exit to run LeakSanitizer's check, which from a signal
    // handler, with the worker threads stopped mid-allocation, can report
    // their in-flight buffers as leaks and abort (abort_on_error) instead of
    // exiting with 128 + sig.
    ::syscall(SYS_exit_group, 128 + sig);
    ::_exit(128 + sig);  // not reached
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
    struct sigaction sa { };
    sa.sa_handler = onSignal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    AtomicWrites::setDoneHook(afterWrites);
}

}  // namespace memx::cli

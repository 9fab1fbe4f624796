#pragma once

#include <string>
#include <string_view>

namespace memx {

// One log line without what launchers and loggers put in front of it.
struct StrippedLogLine {
    std::string content;  // the line as the training script printed it (ANSI colour escapes removed)
    std::string source;  // the stream it came from: "5/" (srun -l), "default0/" (torchrun --tee); "" when none
    std::string timestamp;  // the last timestamp prefix, e.g. "2026-03-02 10:14:05.118204"; "" when none
};

// Removes, in any order and repeated up to 8 deep:
//   "5: "                                 srun -l (task id, right-aligned in wide jobs)
//   "[default0]:", "[rank0]:"             torchrun --tee, PyTorch's rank prefix
//   "stdout: ", "stderr: "                torchrun --redirects via some launchers
//   "INFO:megatron.core.timers:"          Python logging's default format, megatron loggers only
//   "[2026-03-02 10:14:05.118204] "       Megatron's own timestamp (and DeepSpeed's "[...] [INFO] [x.py:12:f] ")
//   "2024-05-01 12:00:01,123 - INFO - "   Python logging "%(asctime)s - [%(name)s - ]%(levelname)s - "
//   "2024-05-01T12:00:01.123Z "           timestamps added by log collectors
//   "[NeMo I 2024-10-09 10:48:44 nemo_logging:393] "
// and ANSI escape sequences (colours) anywhere in the line.
class LogLinePrefixes {
public:
    static StrippedLogLine strip(std::string_view line);
    // The line without ANSI escape sequences (ESC [ ... final byte).
    static std::string withoutAnsi(std::string_view line);
};

}  // namespace memx

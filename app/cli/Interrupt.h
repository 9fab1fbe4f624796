#pragma once

namespace memx::cli {

// SIGINT and SIGTERM stop memx-cli at once with exit status 128 + signal
// (130, 143), after one line on stderr. A file being written is finished
// first (AtomicWrites): every output is either the complete new file or the
// previous one, and no temporary file is left.
void installInterruptHandlers();

}  // namespace memx::cli

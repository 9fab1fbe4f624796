#pragma once

#include <QPalette>

namespace memx {

// A complete dark palette (every role of the active, inactive and disabled
// groups that Fusion and the views read): how the workbench looks on a dark
// desktop, reproducible offscreen. `memx` uses it under MEMX_DARK=1, the GUI
// tests to check the dark look.
QPalette darkPalette();

}  // namespace memx

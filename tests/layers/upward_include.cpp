// Compiled by the layer tests (core/CMakeLists.txt) in two folders' views:
// export/ may use everything below it, so the include compiles there; search/
// sits below export/, so from search's view it must not.
#include "export/PlanJson.h"

int probe() { return 0; }

#pragma once

#include "search/SearchResult.h"

namespace memx {

// The request of a what-if search: the same problem and objective on another
// cluster, for its best plan only (no baselines, no compared profiles, no
// time limit or stop). The prediction store comes along when the GPU types
// are the same ones (a store serves one set of types; another would be
// emptied).
SearchRequest replanRequest(const SearchRequest& request, Cluster cluster);

}  // namespace memx

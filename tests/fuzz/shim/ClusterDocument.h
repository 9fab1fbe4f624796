#pragma once

// Qt-free stand-in for widgets/ClusterDocument.h, so that the project-file
// fuzz target compiles app/gui/ProjectFile.cpp without Qt (the ASan and fuzz
// builds have the GUI off). ProjectFile.cpp uses only isEmptyDocument; this
// is the same test as widgets/ClusterDocument.cpp's.

#include <nlohmann/json.hpp>

namespace memx {

class ClusterDocument {
public:
    static bool isEmptyDocument(const nlohmann::json& doc)
    {
        return doc.is_object() && doc.contains("nodes") && doc["nodes"].is_array() && doc["nodes"].empty();
    }
};

}  // namespace memx

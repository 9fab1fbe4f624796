// Workbench project files (memx-project/1, Project::fromJson in
// app/gui/ProjectFile.cpp), compiled without Qt (it includes core only).
#include "FuzzInput.h"

#include "ProjectFile.h"
#include "io/JsonReader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    return memx::fuzz::acceptOrRefuse([&] {
        const auto doc = memx::JsonReader::parseText(memx::fuzz::text(data, size), "fuzz.memx");
        const memx::Project p = memx::Project::fromJson(doc, "fuzz.memx");
        // What is saved must load again (the save path writes toJson()).
        try {
            (void)memx::Project::fromJson(memx::JsonReader::parseText(p.toJson().dump(), "resaved.memx"),
                                          "resaved.memx");
        } catch (const memx::InputError& e) {
            memx::fuzz::broken(std::string("a loaded project does not load after saving: ") + e.what());
        }
    });
}

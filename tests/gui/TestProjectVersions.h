#pragma once

#include "ProjectFile.h"
#include "TestPaths.h"

#include "hardware/Cluster.h"
#include "model/ModelSpec.h"

#include <QDir>
#include <QStringList>

// Numbered project versions for the save tests (tst_project_kill,
// tst_project_disk_full): version k has global batch 8(k + 1) and, with
// `bulk`, a last-result summary of about a megabyte, as a searched project
// carries, so that a kill or a full disk lands inside a write.
namespace memx::test {

inline Project projectVersion(int k, bool bulk = true)
{
    static const nlohmann::json cluster = Cluster::fromFile(sampleCluster("homogeneous-8xa100.json")).toJson();
    Project p;
    p.cluster = cluster;
    p.model = ModelSpec::resolve("llama2-7b").toJson();
    p.setup.globalBatch = 8 * (k + 1);
    p.setup.microBatchSizes = {1, 2};
    if (bulk) {
        nlohmann::json front = nlohmann::json::array();
        for (int i = 0; i < 40000; ++i)
            front.push_back({i * 1.5, k + i * 0.25});
        p.lastResult = {{"front", front}, {"version", k}};
    }
    return p;
}

// The temporary files a writer leaves in `dir` (.NAME.memx-tmp-PID-XXXXXX).
inline QStringList temporaries(const QString& dir)
{
    return QDir(dir).entryList({QStringLiteral("*.memx-tmp-*")}, QDir::Files | QDir::Hidden | QDir::System);
}

}  // namespace memx::test

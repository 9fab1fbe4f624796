// Megatron-LM / NeMo training logs, through the whole `import-logs` path
// (LogImporter: MegatronLogParser, the argument dump, the summary, the
// per-stage memory). LogImporter reports a bad log in ImportedLog::errors
// and never throws; the rows of an imported log must be valid measurements
// (MeasurementCsv parses what it writes), so a bad value is blamed on the
// log, not on the output CSV.
#include "FuzzInput.h"

#include "measure/LogImporter.h"
#include "measure/MeasurementCsv.h"
#include "measure/MegatronLogParser.h"

#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace {
namespace fs = std::filesystem;

// One file per process, rewritten for every input. Never destroyed: the
// atexit handler that removes it runs after static destructors may have.
const fs::path& logFile()
{
    static const fs::path* file = [] {
        const fs::path dir = fs::temp_directory_path() / ("memx-fuzz-log-" + std::to_string(::getpid()));
        fs::create_directories(dir);
        std::atexit([] {
            std::error_code ec;
            fs::remove_all(logFile().parent_path(), ec);
        });
        return new fs::path(dir / "run_tp1_pp1.log");
    }();
    return *file;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string text = memx::fuzz::text(data, size);
    memx::fuzz::acceptOrRefuse([&] { (void)memx::MegatronLogParser::parse(text, "fuzz.log"); });

    {
        std::ofstream out(logFile(), std::ios::binary | std::ios::trunc);
        out << text;
    }
    memx::LogImportOptions options;
    options.gpuType = "A100-80GB";
    options.allowSetupMismatch = (size % 2) == 1;  // both ways, decided by the input
    memx::LogImporter importer(options);
    const memx::ImportedLog imported = importer.import(logFile().string());
    if (imported.imported()) {
        try {
            (void)memx::MeasurementCsv::parse(memx::MeasurementCsv::write(imported.rows), "imported.csv");
        } catch (const memx::InputError& e) {
            memx::fuzz::broken(std::string("an imported log gives rows the measurement reader refuses: ") + e.what());
        }
    }
    return 0;
}

// Megatron argument dumps ("---- arguments ----" ... "---- end of arguments
// ----"): every dump a log holds, its typed values and the run it describes
// (MegatronArguments::toRun), the way import-logs reads them.
#include "FuzzInput.h"

#include "measure/MegatronArguments.h"
#include "measure/MegatronLog.h"
#include "measure/MegatronLogParser.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    return memx::fuzz::acceptOrRefuse([&] {
        const memx::MegatronLog log = memx::MegatronLogParser::parse(memx::fuzz::text(data, size), "fuzz.log");
        for (const memx::MegatronArguments& args : log.arguments) {
            for (const std::string& name : memx::MegatronArguments::runArgumentNames()) {
                // Each typed read on its own: a wrong type is one refusal, not the end.
                memx::fuzz::acceptOrRefuse([&] { (void)args.integer(name); });
                memx::fuzz::acceptOrRefuse([&] { (void)args.flag(name); });
                memx::fuzz::acceptOrRefuse([&] { (void)args.list(name); });
                (void)args.text(name);
            }
            if (&args != &log.arguments.front())
                (void)args.firstDifference(log.arguments.front());
            memx::fuzz::acceptOrRefuse([&] {
                const memx::DumpedRun run = args.toRun(log.paddedVocab);
                (void)run.unmodelledSetup();
                for (const auto& [column, source] : run.sources)
                    (void)run.where(column);
            });
        }
    });
}

#include "predict/IterationTerms.h"

#include "io/JsonReader.h"
#include "io/Ranges.h"

#include <nlohmann/json.hpp>

#include <limits>

namespace memx {

nlohmann::json IterationTerms::toJson() const
{
    return {{"pipeline_scale", pipeline},
            {"data_parallel_scale", dataParallel},
            {"fixed_scale", fixed},
            {"fitted", fitted},
            {"runs", runs},
            {"loo_mape_unscaled", mapeBefore},
            {"loo_mape_scaled", mapeAfter},
            {"note", note}};
}

IterationTerms IterationTerms::fromJson(const JsonReader& json)
{
    IterationTerms t;
    t.pipeline = json.inRange("pipeline_scale", ranges::termScale, 1.0);
    t.dataParallel = json.inRange("data_parallel_scale", ranges::termScale, 1.0);
    t.fixed = json.inRange("fixed_scale", ranges::termScale, 1.0);
    if (json.has("fitted"))
        for (const auto& item : json.at("fitted").items())
            t.fitted.push_back(item.asString());
    const long long runs = json.integer("runs", 0);
    if (runs < 0 || runs > std::numeric_limits<int>::max())
        json.fail("expected a count of runs, 0 or more", "runs");
    t.runs = static_cast<int>(runs);
    t.mapeBefore = json.number("loo_mape_unscaled", 0);
    t.mapeAfter = json.number("loo_mape_scaled", 0);
    t.note = json.string("note", "");
    return t;
}

}  // namespace memx

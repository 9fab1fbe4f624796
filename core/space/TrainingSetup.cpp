#include "space/TrainingSetup.h"

namespace memx {

const char* toString(ScheduleMode m)
{
    switch (m) {
    case ScheduleMode::Auto: return "auto";
    case ScheduleMode::OneF1B: return "1f1b";
    case ScheduleMode::Interleaved: return "interleaved";
    case ScheduleMode::Both: return "both";
    }
    return "?";
}

const char* toString(RecomputeMode m)
{
    switch (m) {
    case RecomputeMode::Policy: return "policy";
    case RecomputeMode::Enumerate: return "enumerate";
    case RecomputeMode::UniformNone: return "none";
    case RecomputeMode::UniformSelective: return "selective";
    case RecomputeMode::UniformFull: return "full";
    }
    return "?";
}

const char* toString(PlacementMode m)
{
    return m == PlacementMode::Contiguous ? "contiguous" : "all";
}

bool parseScheduleMode(const std::string& s, ScheduleMode& out)
{
    for (auto m : {ScheduleMode::Auto, ScheduleMode::OneF1B, ScheduleMode::Interleaved, ScheduleMode::Both})
        if (s == toString(m)) {
            out = m;
            return true;
        }
    return false;
}

bool parseRecomputeMode(const std::string& s, RecomputeMode& out)
{
    for (auto m : {RecomputeMode::Policy, RecomputeMode::Enumerate, RecomputeMode::UniformNone,
                   RecomputeMode::UniformSelective, RecomputeMode::UniformFull})
        if (s == toString(m)) {
            out = m;
            return true;
        }
    return false;
}

bool parsePlacementMode(const std::string& s, PlacementMode& out)
{
    for (auto m : {PlacementMode::Contiguous, PlacementMode::All})
        if (s == toString(m)) {
            out = m;
            return true;
        }
    return false;
}

}  // namespace memx

#include "search/ObjectiveSpecJson.h"

#include "io/InputError.h"
#include "io/JsonReader.h"
#include "search/Objective.h"

namespace memx {

nlohmann::json ObjectiveSpecJson::write(const ObjectiveSpec& o)
{
    nlohmann::json j = {{"profile", toString(o.profile)},
                        {"custom_weights", {o.custom.time, o.custom.memory, o.custom.variance}},
                        {"variance", toString(o.variance)},
                        {"epsilon_rule", toString(o.epsilonRule)}};
    if (o.epsilonRule == EpsilonRule::Fraction)
        j["epsilon_fraction"] = o.epsilonFraction;
    else if (o.epsilonRule == EpsilonRule::Absolute)
        j["epsilon"] = o.epsilonValue;  // MiB^2, or utilisation^2
    if (o.compareTasks != TaskCompare::PerTask)
        j["compare_tasks"] = toString(o.compareTasks);
    if (o.minHeadroom > 0)
        j["min_headroom"] = {{"fraction", o.minHeadroom}, {"at_upper_bound", o.headroomAtUpper}};
    if (o.maxSlowdown >= 0)
        j["max_slowdown"] = o.maxSlowdown;
    return j;
}

ObjectiveSpec ObjectiveSpecJson::read(const JsonReader& o)
{
    if (!o.node().is_object())
        o.fail("expected the objective as an object");
    ObjectiveSpec spec;
    if (!parseProfile(o.string("profile", toString(spec.profile)), spec.profile))
        o.fail("expected default, safety-first, throughput-first, balanced, custom or auto", "profile");
    if (o.has("custom_weights")) {
        const JsonReader w = o.at("custom_weights");
        if (!w.node().is_array() || w.node().size() != 3)
            w.fail("expected three weights [time, memory, variance]");
        // Stored as written; a search normalises them.
        spec.custom = {w.at(0).asNumber(), w.at(1).asNumber(), w.at(2).asNumber()};
    }
    if (!parseVarianceMode(o.string("variance", toString(spec.variance)), spec.variance))
        o.fail("expected mib or util", "variance");
    // eV's rule. A file written before the rule existed holds only
    // epsilon_fraction (the paper's eV = fraction x Vref), and keeps it.
    const std::string rule = o.string("epsilon_rule", o.has("epsilon_fraction") ? "fraction" : "uncertainty");
    if (!parseEpsilonRule(rule, spec.epsilonRule))
        o.fail("expected uncertainty, fraction or absolute", "epsilon_rule");
    spec.epsilonFraction = o.number("epsilon_fraction", spec.epsilonFraction);
    if (spec.epsilonRule == EpsilonRule::Absolute)
        spec.epsilonValue = o.number("epsilon");
    if (!parseTaskCompare(o.string("compare_tasks", toString(spec.compareTasks)), spec.compareTasks))
        o.fail("expected per-task or per-token", "compare_tasks");
    std::string headroomKey = "min_headroom";
    if (o.has("min_headroom")) {
        const JsonReader h = o.at("min_headroom");
        if (!h.node().is_object())
            h.fail("expected {\"fraction\": ..., \"at_upper_bound\": ...}");
        spec.minHeadroom = h.number("fraction");
        spec.headroomAtUpper = h.boolean("at_upper_bound", false);
        headroomKey = "min_headroom/fraction";
    }
    if (o.has("max_slowdown")) {  // absent is off; a number written is a limit
        spec.maxSlowdown = o.number("max_slowdown");
        if (spec.maxSlowdown < 0)
            o.fail("expected a fraction of at least 0 (0.1 = 10% slower than the fastest plan)", "max_slowdown");
    }
    try {
        spec.validate();
    } catch (const InputError& e) {
        o.fail(e.reason(), e.field() == "min_headroom" ? headroomKey : e.field());
    }
    return spec;
}

}  // namespace memx

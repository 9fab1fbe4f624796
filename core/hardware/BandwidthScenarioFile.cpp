#include "hardware/BandwidthScenarioFile.h"

#include "io/JsonReader.h"
#include "io/Ranges.h"
#include "io/Text.h"

#include <cmath>
#include <set>

namespace memx {

namespace {

std::vector<BandwidthScenario::Scale> readScales(const JsonReader& obj, const Cluster& cluster)
{
    if (!obj.node().is_object())
        obj.fail("expected an object of \"kind:NAME\" / \"link:NAME\" / \"medium:NAME\" to factors");
    std::vector<BandwidthScenario::Scale> out;
    for (const auto& [selector, value] : obj.node().items()) {
        if (selector == "allow_outside_range")
            continue;
        const std::string why = BandwidthScenario::unknownSelector(cluster, selector);
        if (!why.empty())
            obj.fail(why, selector);
        out.push_back({selector, obj.inRange(selector, ranges::bandwidthScale)});
    }
    // Overlapping selectors multiply: what each link ends up with must still be a bandwidth.
    const std::vector<double> factors = BandwidthScenario::factors(cluster, out);
    for (std::size_t i = 0; i < factors.size(); ++i) {
        const Link& link = cluster.links()[i];
        const double scaled = link.bandwidthGBps * factors[i];
        if (!(scaled > 0) || !std::isfinite(scaled))
            obj.fail("scales link " + link.name + " from " + Text::fmt("%g", link.bandwidthGBps) + " GB/s to "
                     + Text::fmt("%g", scaled) + " GB/s");
    }
    return out;
}

}  // namespace

std::vector<BandwidthScenario> BandwidthScenarioFile::load(const std::string& file, const Cluster& cluster)
{
    return fromJson(JsonReader::parseFile(file), file, cluster);
}

std::vector<BandwidthScenario> BandwidthScenarioFile::fromJson(const nlohmann::json& doc, const std::string& file,
                                                               const Cluster& cluster)
{
    const JsonReader root(doc, file);
    root.requireFormat("memx-bandwidth-scenarios/1");
    const JsonReader list = root.at("scenarios");
    if (!list.node().is_array() || list.node().empty())
        list.fail("expected a non-empty array of scenarios");
    std::vector<BandwidthScenario> out;
    std::set<std::string> names;
    for (const JsonReader& item : list.items()) {
        if (!item.node().is_object())
            item.fail("expected a scenario object with \"name\" and \"scale\" or \"profile\"");
        BandwidthScenario sc;
        sc.name = item.name("name");
        if (sc.name.empty())
            item.fail("a scenario needs a name", "name");
        if (!names.insert(sc.name).second)
            item.fail("a second scenario named \"" + sc.name + "\"", "name");
        const bool steady = item.has("scale"), profile = item.has("profile");
        if (steady == profile)
            item.fail("give either \"scale\" (steady) or \"profile\" (segments over time), not "
                      + std::string(steady ? "both" : "neither"));
        if (steady) {
            sc.segments.push_back({0, 1, readScales(item.at("scale"), cluster)});
        } else {
            const JsonReader segments = item.at("profile");
            if (!segments.node().is_array() || segments.node().empty())
                segments.fail("expected a non-empty array of {\"minutes\", \"scale\"} segments");
            double total = 0;
            for (const JsonReader& seg : segments.items()) {
                if (!seg.node().is_object())
                    seg.fail("expected a segment object with \"minutes\" and \"scale\"");
                BandwidthScenario::Segment s;
                s.minutes = seg.inRange("minutes", ranges::scenarioMinutes);
                s.scales = readScales(seg.at("scale"), cluster);
                total += s.minutes;
                sc.segments.push_back(std::move(s));
            }
            for (auto& s : sc.segments)
                s.share = s.minutes / total;
        }
        out.push_back(std::move(sc));
    }
    return out;
}

}  // namespace memx

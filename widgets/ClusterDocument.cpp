// Over 600 lines: the editable cluster, one undoable command per kind of edit, and the JSON they edit.
#include "ClusterDocument.h"

#include "ClusterCommands.h"

#include "hardware/ClusterJson.h"
#include "hardware/GpuCatalog.h"
#include "io/AtomicFile.h"
#include "io/InputError.h"
#include "io/JsonReader.h"

#include <QFileInfo>
#include <QUndoStack>

#include <algorithm>
#include <exception>
#include <optional>
#include <set>

namespace memx {

namespace {

std::string str(const QString& s) { return s.toStdString(); }
QString qstr(const std::string& s) { return QString::fromStdString(s); }

// "field: reason" for edits (the file is the one being edited, so it adds nothing).
QString describe(const InputError& e)
{
    if (e.field().empty())
        return qstr(e.reason());
    return qstr(e.field()) + QStringLiteral(": ") + qstr(e.reason());
}

void setError(QString* error, const QString& text)
{
    if (error)
        *error = text;
}

int nodeIndex(const nlohmann::json& doc, const QString& name)
{
    if (!doc.contains("nodes") || !doc["nodes"].is_array())
        return -1;
    const auto& nodes = doc["nodes"];
    for (std::size_t i = 0; i < nodes.size(); ++i)
        if (nodes[i].is_object() && nodes[i].value("name", std::string()) == str(name))
            return static_cast<int>(i);
    return -1;
}

std::string linkName(const nlohmann::json& link, std::size_t index)
{
    // Same default as Cluster::fromJson.
    return link.is_object() ? link.value("name", "link" + std::to_string(index)) : std::string();
}

int linkIndex(const nlohmann::json& doc, const QString& name)
{
    if (!doc.contains("links") || !doc["links"].is_array())
        return -1;
    const auto& links = doc["links"];
    for (std::size_t i = 0; i < links.size(); ++i)
        if (linkName(links[i], i) == str(name))
            return static_cast<int>(i);
    return -1;
}

std::string selectorNode(const std::string& sel)
{
    auto colon = sel.find(':');
    return colon == std::string::npos ? sel : sel.substr(0, colon);
}

bool linkTouches(const nlohmann::json& link, const std::string& node)
{
    if (!link.is_object())
        return false;
    if (link.contains("within") && link["within"].is_string() && selectorNode(link["within"]) == node)
        return true;
    if (link.contains("between") && link["between"].is_array())
        for (const auto& s : link["between"])
            if (s.is_string() && selectorNode(s) == node)
                return true;
    return false;
}

void renameSelector(nlohmann::json& sel, const std::string& from, const std::string& to)
{
    if (!sel.is_string())
        return;
    std::string s = sel;
    if (selectorNode(s) == from)
        sel = to + s.substr(from.size());
}

QString fieldText(const QString& field) { return QString(field).replace(QLatin1Char('_'), QLatin1Char(' ')); }

nlohmann::json defaultDocument()
{
    const auto& catalog = GpuCatalog::builtin();
    std::string type = catalog.find("A100-80GB") ? "A100-80GB" : catalog.names().front();
    nlohmann::json doc = ClusterJson::document("untitled");
    doc["nodes"].push_back(ClusterJson::node("node0", {{type, 8}}));
    return doc;
}

}  // namespace

ClusterDocument::ClusterDocument(QObject* parent)
    : QObject(parent)
    , json_(defaultDocument())
    , cluster_(parse(json_, "untitled"))
    , undo_(new QUndoStack(this))
{
}

ClusterDocument::~ClusterDocument() = default;

bool ClusterDocument::isModified() const { return !undo_->isClean(); }

bool ClusterDocument::load(const QString& file, QString* error)
{
    try {
        nlohmann::json doc = JsonReader::parseFile(str(file));
        Cluster parsed = parse(doc, str(file));
        json_ = std::move(doc);
        cluster_ = std::move(parsed);
    } catch (const std::exception& e) {
        setError(error, QString::fromUtf8(e.what()));
        return false;
    }
    undo_->clear();
    if (fileName_ != file) {
        fileName_ = file;
        emit fileNameChanged(file);
    }
    emit reset();
    emit changed();
    return true;
}

bool ClusterDocument::setJson(const nlohmann::json& doc, QString* error)
{
    try {
        cluster_ = parse(doc, str(fileName_));
        json_ = doc;
    } catch (const InputError& e) {
        setError(error, describe(e));
        return false;
    } catch (const std::exception& e) {
        setError(error, QString::fromUtf8(e.what()));
        return false;
    }
    undo_->clear();
    emit reset();
    emit changed();
    return true;
}

nlohmann::json ClusterDocument::emptyDocument(const QString& name) { return ClusterJson::document(str(name)); }

bool ClusterDocument::isEmptyDocument(const nlohmann::json& doc) { return Cluster::isEmptyDocument(doc); }

Cluster ClusterDocument::parse(const nlohmann::json& doc, const std::string& file)
{
    return Cluster::fromEditorJson(doc, file, GpuCatalog::builtin());
}

bool ClusterDocument::exportJson(nlohmann::json* out, QString* error) const
{
    if (isEmpty()) {
        setError(error, tr("the cluster has no GPUs: add a node before exporting it"));
        return false;
    }
    nlohmann::json doc = json_;
    if (doc.contains("gpu_types") && doc["gpu_types"].is_object()) {
        std::set<std::string> used;
        for (const auto& t : cluster_.types())
            used.insert(t.name);
        nlohmann::json kept = nlohmann::json::object();
        for (auto it = doc["gpu_types"].begin(); it != doc["gpu_types"].end(); ++it)
            if (used.count(it.key()))
                kept[it.key()] = it.value();
        if (kept.empty())
            doc.erase("gpu_types");
        else
            doc["gpu_types"] = std::move(kept);
    }
    *out = std::move(doc);
    return true;
}

bool ClusterDocument::importFile(const QString& file, QString* error)
{
    nlohmann::json doc;
    try {
        doc = JsonReader::parseFile(str(file));
        parse(doc, str(file));
    } catch (const std::exception& e) {
        setError(error, QString::fromUtf8(e.what()));
        return false;
    }
    if (doc == json_)
        return true;
    undo_->push(
        new ClusterEditCommand(this, tr("Import cluster %1").arg(QFileInfo(file).fileName()), json_, std::move(doc)));
    return true;
}

bool ClusterDocument::save(const QString& file, QString* error)
{
    nlohmann::json doc;
    if (!exportJson(&doc, error))
        return false;
    try {
        writeFileAtomically(str(file), doc.dump(2) + "\n");
    } catch (const std::exception& e) {
        setError(error, QString::fromUtf8(e.what()));
        return false;
    }
    undo_->setClean();
    if (fileName_ != file) {
        fileName_ = file;
        emit fileNameChanged(file);
    }
    return true;
}

QString ClusterDocument::validate(const nlohmann::json& doc) const
{
    try {
        parse(doc, str(fileName_));
    } catch (const InputError& e) {
        return describe(e);
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

bool ClusterDocument::commit(const QString& text, nlohmann::json after, QString* error, const QString& mergeKey,
                             int renameKind, const QString& renameFrom, const QString& renameTo)
{
    if (after == json_)
        return true;  // nothing to do, nothing to undo
    QString reason = validate(after);
    if (!reason.isEmpty()) {
        setError(error, reason);
        return false;
    }
    undo_->push(
        new ClusterEditCommand(this, text, json_, std::move(after), mergeKey, renameKind, renameFrom, renameTo));
    return true;
}

void ClusterDocument::apply(const nlohmann::json& doc)
{
    try {
        cluster_ = parse(doc, str(fileName_));
        json_ = doc;
    } catch (const std::exception&) {
        // Commands only hold validated documents; keep the current one if that ever breaks.
        return;
    }
    emit changed();
}

QString ClusterDocument::uniqueLinkName(const QString& base) const
{
    QString name = base;
    for (int k = 2; linkIndex(json_, name) >= 0; ++k)
        name = base + QLatin1Char('-') + QString::number(k);
    return name;
}

QString ClusterDocument::nextNodeName() const
{
    for (int k = 0;; ++k)
        if (nodeIndex(json_, QStringLiteral("n%1").arg(k)) < 0)
            return QStringLiteral("n%1").arg(k);
}

bool ClusterDocument::setClusterInfo(const QString& field, const QString& value, QString* error)
{
    if (field != QLatin1String("name") && field != QLatin1String("description")) {
        setError(error, tr("%1: not a cluster field (name, description)").arg(field));
        return false;
    }
    nlohmann::json after = json_;
    if (field == QLatin1String("description") && value.isEmpty())
        after.erase("description");
    else
        after[str(field)] = str(value);
    return commit(tr("Set cluster %1").arg(field), std::move(after), error, QStringLiteral("cluster/%1").arg(field));
}

QString ClusterDocument::uniqueNodeName(const QString& base) const
{
    QString name = base;
    for (int k = 2; nodeIndex(json_, name) >= 0; ++k)
        name = base + QString::number(k);
    return name;
}

bool ClusterDocument::addNode(const QString& name, const QString& type, int count, QString* error)
{
    nlohmann::json after = json_;
    after["nodes"].push_back(ClusterJson::node(str(name), {{str(type), count}}));
    return commit(tr("Add node %1").arg(name), std::move(after), error);
}

bool ClusterDocument::addNodeLinked(const QString& name, const QString& type, int count, QString* error)
{
    return addNodeWithLinks(ClusterJson::node(str(name), {{str(type), count}}), nlohmann::json::array(), error);
}

bool ClusterDocument::addNodeWithLinks(const nlohmann::json& node, const nlohmann::json& links, QString* error,
                                       QStringList* linkedTo)
{
    nlohmann::json after = json_;
    const QString name = qstr(node.value("name", std::string()));
    std::vector<std::string> others;
    for (const auto& n : after["nodes"])
        others.push_back(n.value("name", std::string()));
    after["nodes"].push_back(node);
    if (!after.contains("links") || !after["links"].is_array())
        after["links"] = nlohmann::json::array();
    auto unique = [&](const QString& base) {
        QString text = base;
        for (int k = 2; linkIndex(after, text) >= 0; ++k)
            text = base + QLatin1Char('-') + QString::number(k);
        return str(text);
    };
    for (nlohmann::json link : links) {
        link["name"] = unique(qstr(link.value("name", std::string("link"))));
        after["links"].push_back(std::move(link));
    }
    QStringList linked;
    for (const auto& other : others) {
        after["links"].push_back(
            ClusterJson::link(ClusterJson::betweenLink(unique(QStringLiteral("ib-%1-%2").arg(qstr(other), name)),
                                                       "InfiniBand", other, str(name), 25, 5)));
        linked << qstr(other);
    }
    if (!commit(tr("Add node %1").arg(name), std::move(after), error))
        return false;
    if (linkedTo)
        *linkedTo = linked;
    return true;
}

bool ClusterDocument::removeNode(const QString& name, QString* error)
{
    int index = nodeIndex(json_, name);
    if (index < 0) {
        setError(error, tr("no node named \"%1\"").arg(name));
        return false;
    }
    nlohmann::json after = json_;
    after["nodes"].erase(after["nodes"].begin() + index);
    if (after.contains("links") && after["links"].is_array()) {
        auto& links = after["links"];
        nlohmann::json kept = nlohmann::json::array();
        for (auto l : links) {
            if (linkTouches(l, str(name)))
                continue;
            // A fabric across listed nodes loses the node, and goes when it
            // no longer joins two ("*" follows the nodes by itself).
            if (l.is_object() && l.contains("across") && l["across"].is_array()) {
                nlohmann::json rest = nlohmann::json::array();
                std::set<std::string> nodes;
                for (const auto& sel : l["across"])
                    if (!(sel.is_string() && selectorNode(sel) == str(name))) {
                        rest.push_back(sel);
                        if (sel.is_string())
                            nodes.insert(selectorNode(sel));
                    }
                if (nodes.size() < 2)
                    continue;
                l["across"] = std::move(rest);
            }
            kept.push_back(std::move(l));
        }
        links = std::move(kept);
    }
    return commit(tr("Remove node %1").arg(name), std::move(after), error);
}

bool ClusterDocument::renameNode(const QString& from, const QString& to, QString* error)
{
    int index = nodeIndex(json_, from);
    if (index < 0) {
        setError(error, tr("no node named \"%1\"").arg(from));
        return false;
    }
    if (from == to)
        return true;
    nlohmann::json after = json_;
    after["nodes"][index]["name"] = str(to);
    if (after.contains("links") && after["links"].is_array()) {
        for (auto& l : after["links"]) {
            if (!l.is_object())
                continue;
            if (l.contains("within"))
                renameSelector(l["within"], str(from), str(to));
            for (const char* key : {"between", "across"})
                if (l.contains(key) && l[key].is_array())
                    for (auto& s : l[key])
                        renameSelector(s, str(from), str(to));
        }
    }
    return commit(tr("Rename node %1 to %2").arg(from, to), std::move(after), error, {}, ClusterEditCommand::RenameNode,
                  from, to);
}

int ClusterDocument::gpuCount(const QString& node, const QString& type) const
{
    int index = nodeIndex(json_, node);
    if (index < 0)
        return 0;
    int total = 0;
    for (const auto& g : json_["nodes"][index].value("gpus", nlohmann::json::array()))
        if (g.value("type", std::string()) == str(type) && g.contains("count") && g["count"].is_number_integer())
            total += g["count"].get<int>();
    return total;
}

bool ClusterDocument::addGpus(const QString& node, const QString& type, int count, QString* error)
{
    return setGpuCount(node, type, gpuCount(node, type) + count, error, false);
}

bool ClusterDocument::setGpuCount(const QString& node, const QString& type, int count, QString* error, bool mergeTyping)
{
    int index = nodeIndex(json_, node);
    if (index < 0) {
        setError(error, tr("no node named \"%1\"").arg(node));
        return false;
    }
    if (count < 0) {
        setError(error, tr("count: must be between 0 and 4096"));
        return false;
    }
    nlohmann::json after = json_;
    auto& gpus = after["nodes"][index]["gpus"];
    nlohmann::json kept = nlohmann::json::array();
    bool placed = false;
    for (const auto& g : gpus) {
        if (g.value("type", std::string()) != str(type)) {
            kept.push_back(g);
        } else if (!placed && count > 0) {
            nlohmann::json entry = g;
            entry["count"] = count;
            kept.push_back(entry);
            placed = true;
        }
    }
    if (!placed && count > 0)
        kept.push_back(ClusterJson::gpuEntry(str(type), count));
    gpus = std::move(kept);
    QString text = count == 0 ? tr("Remove %1 from %2").arg(type, node)
                              : tr("Set %1 count in %2 to %3").arg(type, node).arg(count);
    return commit(text, std::move(after), error,
                  mergeTyping ? QStringLiteral("count/%1/%2").arg(node, type) : QString());
}

namespace {

// "a100:3" or "a100:2-4" or "a100:1, a100:5" for sorted GPU indices.
QString rangeLabel(const QString& node, const QList<int>& indices)
{
    QStringList parts;
    for (int k = 0; k < indices.size();) {
        int j = k;
        while (j + 1 < indices.size() && indices[j + 1] == indices[j] + 1)
            ++j;
        parts << (j == k ? QStringLiteral("%1:%2").arg(node).arg(indices[k])
                         : QStringLiteral("%1:%2-%3").arg(node).arg(indices[k]).arg(indices[j]));
        k = j + 1;
    }
    return parts.join(QStringLiteral(", "));
}

// The node's GPU listing without the GPUs at `indices` (by position);
// returns the types they were.
QStringList removeFromListing(nlohmann::json& gpus, const QList<int>& indices)
{
    QStringList types;
    int position = 0;
    for (auto& entry : gpus) {
        const int count = entry.value("count", 0);
        int removed = 0;
        for (int k = 0; k < count; ++k, ++position)
            if (indices.contains(position))
                ++removed;
        if (removed > 0 && !types.contains(qstr(entry.value("type", std::string()))))
            types << qstr(entry.value("type", std::string()));
        entry["count"] = count - removed;
    }
    nlohmann::json keptGpus = nlohmann::json::array();
    for (const auto& entry : gpus)
        if (entry.value("count", 0) > 0)
            keptGpus.push_back(entry);
    gpus = std::move(keptGpus);
    return types;
}

// A selector of node `nodeName` over [lo, hi] keeps the surviving GPUs of
// that range, renumbered; nullopt when none survives.
std::optional<std::string> remapSelector(const std::string& sel, const std::string& nodeName, const QList<int>& indices)
{
    if (selectorNode(sel) != nodeName || sel.size() == nodeName.size())
        return sel;
    const std::string range = sel.substr(nodeName.size() + 1);
    const auto dash = range.find('-');
    int lo = 0, hi = 0;
    try {
        lo = std::stoi(range.substr(0, dash));
        hi = dash == std::string::npos ? lo : std::stoi(range.substr(dash + 1));
    } catch (const std::exception&) {
        return sel;  // not ours to fix; the validator names it
    }
    int first = -1, last = -1;
    for (int i = lo; i <= hi; ++i) {
        if (indices.contains(i))
            continue;
        const int shifted
            = i - static_cast<int>(std::count_if(indices.begin(), indices.end(), [i](int r) { return r < i; }));
        if (first < 0)
            first = shifted;
        last = shifted;
    }
    if (first < 0)
        return std::nullopt;
    return nodeName + ":" + std::to_string(first) + (last == first ? "" : "-" + std::to_string(last));
}

// The links after the GPUs at `indices` of node `nodeName` (which keeps
// `remaining`) are gone: selectors renumbered, links left with nothing at
// one end dropped; returns the names of those dropped.
QStringList dropLinks(nlohmann::json& after, const std::string& nodeName, const QList<int>& indices, int remaining)
{
    QStringList dropped;
    if (!after.contains("links") || !after["links"].is_array())
        return dropped;
    const auto remap = [&](const std::string& sel) { return remapSelector(sel, nodeName, indices); };
    nlohmann::json kept = nlohmann::json::array();
    for (std::size_t li = 0; li < after["links"].size(); ++li) {
        nlohmann::json link = after["links"][li];
        bool keep = true;
        if (link.is_object() && link.contains("within") && link["within"].is_string()) {
            const std::string before = link["within"].get<std::string>();
            auto sel = remap(before);
            if (!sel)
                keep = false;
            else if (selectorNode(before) != nodeName)
                keep = true;
            else if (*sel == nodeName)
                keep = remaining >= 2;
            else
                keep = sel->find('-', nodeName.size()) != std::string::npos;  // still two GPUs or more
            if (keep)
                link["within"] = *sel;
        }
        if (link.is_object() && link.contains("between") && link["between"].is_array())
            for (auto& end : link["between"])
                if (end.is_string()) {
                    auto sel = remap(end.get<std::string>());
                    if (sel)
                        end = *sel;
                    else
                        keep = false;
                }
        if (keep)
            kept.push_back(std::move(link));
        else
            dropped << qstr(linkName(after["links"][li], li));
    }
    after["links"] = std::move(kept);
    return dropped;
}

}  // namespace

bool ClusterDocument::removeGpus(const QString& node, QList<int> indices, QString* error, QString* summary)
{
    const int index = nodeIndex(json_, node);
    if (index < 0) {
        setError(error, tr("no node named \"%1\"").arg(node));
        return false;
    }
    const int total = static_cast<int>(cluster_.nodes()[index].devices.size());
    std::sort(indices.begin(), indices.end());
    indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
    if (indices.isEmpty()) {
        setError(error, tr("no GPU selected"));
        return false;
    }
    for (int i : indices)
        if (i < 0 || i >= total) {
            setError(error, tr("node %1 has no GPU %2 (it has GPUs 0-%3)").arg(node).arg(i).arg(total - 1));
            return false;
        }
    const QString what = (indices.size() == 1 ? tr("GPU %1") : tr("%n GPUs %1", nullptr, indices.size()))
                             .arg(rangeLabel(node, indices));
    if (indices.size() == total) {
        if (!removeNode(node, error))
            return false;
        if (summary)
            *summary = tr("removed %1, the last of node %2, so the node and its links are gone").arg(what, node);
        return true;
    }

    nlohmann::json after = json_;
    // GPUs of the node by position: which listing entry holds each one.
    const QStringList types = removeFromListing(after["nodes"][index]["gpus"], indices);
    const QStringList dropped = dropLinks(after, str(node), indices, total - static_cast<int>(indices.size()));
    if (!commit(tr("Remove %1").arg(what), std::move(after), error))
        return false;
    if (summary) {
        *summary = tr("removed %1 (%2); node %3 now has %4 GPUs")
                       .arg(what, types.join(QStringLiteral(", ")), node)
                       .arg(total - indices.size());
        if (!dropped.isEmpty())
            *summary += tr("; removed link %1 (nothing left at one end)").arg(dropped.join(QStringLiteral(", ")));
    }
    return true;
}

bool ClusterDocument::addLink(const LinkSpec& spec, QString* error, QString* createdName)
{
    QString name = spec.name;
    if (name.isEmpty()) {
        QString a = qstr(selectorNode(str(spec.a)));
        QString b = spec.b.isEmpty() ? QString() : qstr(selectorNode(str(spec.b)));
        QString base = spec.kind.toLower() + QLatin1Char('-') + a;
        if (!b.isEmpty() && b != a)
            base += QLatin1Char('-') + b;
        name = uniqueLinkName(base);
    }
    ClusterJson::Link out = spec.b.isEmpty()
        ? ClusterJson::withinLink(str(name), str(spec.kind), str(spec.a), spec.bandwidthGBps, spec.latencyUs)
        : ClusterJson::betweenLink(str(name), str(spec.kind), str(spec.a), str(spec.b), spec.bandwidthGBps,
                                   spec.latencyUs);
    out.shared = spec.shared;
    out.medium = str(spec.medium);
    nlohmann::json link = ClusterJson::link(out);
    nlohmann::json after = json_;
    if (!after.contains("links") || !after["links"].is_array())
        after["links"] = nlohmann::json::array();
    after["links"].push_back(link);
    if (!commit(tr("Add link %1").arg(name), std::move(after), error))
        return false;
    if (createdName)
        *createdName = name;
    return true;
}

bool ClusterDocument::removeLink(const QString& name, QString* error)
{
    int index = linkIndex(json_, name);
    if (index < 0) {
        setError(error, tr("no link named \"%1\"").arg(name));
        return false;
    }
    nlohmann::json after = json_;
    after["links"].erase(after["links"].begin() + index);
    return commit(tr("Remove link %1").arg(name), std::move(after), error);
}

bool ClusterDocument::editLink(const QString& name, const QString& field, const nlohmann::json& value, QString* error)
{
    int index = linkIndex(json_, name);
    if (index < 0) {
        setError(error, tr("no link named \"%1\"").arg(name));
        return false;
    }
    nlohmann::json after = json_;
    auto& link = after["links"][index];
    const std::string key = str(field);
    if (value.is_null())
        link.erase(key);
    else
        link[key] = value;
    if (key == "within" && !value.is_null())
        link.erase("between");
    else if (key == "between" && !value.is_null())
        link.erase("within");
    if (key == "name") {
        if (!value.is_string()) {
            setError(error, tr("name: expected a string"));
            return false;
        }
        QString to = qstr(value.get<std::string>());
        if (to != name && linkIndex(json_, to) >= 0) {
            setError(error, tr("/links/%1/name: duplicate link name \"%2\"").arg(index).arg(to));
            return false;
        }
        return commit(tr("Rename link %1 to %2").arg(name, to), std::move(after), error, {},
                      ClusterEditCommand::RenameLink, name, to);
    }
    return commit(tr("Edit link %1 %2").arg(name, fieldText(field)), std::move(after), error,
                  QStringLiteral("link/%1/%2").arg(name, field));
}

bool ClusterDocument::setTypeOverride(const QString& type, const QString& field, const nlohmann::json& value,
                                      QString* error)
{
    nlohmann::json after = json_;
    if (!after.contains("gpu_types") || !after["gpu_types"].is_object())
        after["gpu_types"] = nlohmann::json::object();
    auto& types = after["gpu_types"];
    if (!types.contains(str(type)) || !types[str(type)].is_object())
        types[str(type)] = nlohmann::json::object();
    auto& entry = types[str(type)];
    const std::string key = str(field);
    const std::string prefix = "calibration.";
    if (key.rfind(prefix, 0) == 0) {
        const std::string sub = key.substr(prefix.size());
        if (!entry.contains("calibration") || !entry["calibration"].is_object())
            entry["calibration"] = nlohmann::json::object();
        if (value.is_null())
            entry["calibration"].erase(sub);
        else
            entry["calibration"][sub] = value;
        if (entry["calibration"].empty())
            entry.erase("calibration");
    } else if (value.is_null()) {
        entry.erase(key);
    } else {
        entry[key] = value;
    }
    if (entry.empty())
        types.erase(str(type));
    if (types.empty())
        after.erase("gpu_types");
    return commit(tr("Set %1 %2").arg(type, fieldText(field)), std::move(after), error,
                  QStringLiteral("type/%1/%2").arg(type, field));
}

}  // namespace memx

#include "GuiProbe.h"

#include "ClusterCanvas.h"
#include "ClusterDocument.h"
#include "GpuPalette.h"
#include "MainWindow.h"
#include "SearchController.h"

#include <QAbstractButton>
#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QGraphicsItem>
#include <QGroupBox>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPixmap>
#include <QSaveFile>
#include <QScreen>
#include <QTabBar>
#include <QTabWidget>
#include <QTimer>

namespace memx {

namespace {

QJsonObject rectJson(const QRect& r)
{
    return QJsonObject{{QStringLiteral("x"), r.x()},           {QStringLiteral("y"), r.y()},
                       {QStringLiteral("w"), r.width()},       {QStringLiteral("h"), r.height()},
                       {QStringLiteral("cx"), r.center().x()}, {QStringLiteral("cy"), r.center().y()}};
}

QRect globalRect(const QWidget* w) { return QRect(w->mapToGlobal(QPoint(0, 0)), w->size()); }

// What a control shows, as a user would read it.
QString shownText(const QWidget* w)
{
    if (auto* b = qobject_cast<const QAbstractButton*>(w))
        return b->text();
    if (auto* l = qobject_cast<const QLabel*>(w))
        return l->text().left(4000);
    if (auto* e = qobject_cast<const QLineEdit*>(w))
        return e->text();
    if (auto* s = qobject_cast<const QAbstractSpinBox*>(w))
        return s->text();
    if (auto* c = qobject_cast<const QComboBox*>(w))
        return c->currentText();
    if (auto* g = qobject_cast<const QGroupBox*>(w))
        return g->title();
    if (auto* d = qobject_cast<const QDockWidget*>(w))
        return d->windowTitle();
    return {};
}

bool isControl(const QWidget* w)
{
    return qobject_cast<const QAbstractButton*>(w) || qobject_cast<const QLabel*>(w)
        || qobject_cast<const QLineEdit*>(w) || qobject_cast<const QAbstractSpinBox*>(w)
        || qobject_cast<const QComboBox*>(w) || qobject_cast<const QGroupBox*>(w) || qobject_cast<const QDockWidget*>(w)
        || !w->objectName().isEmpty();
}

// The dock (or top-level window) a widget sits in: tells same-named fields apart.
QString placeOf(const QWidget* w)
{
    for (const QWidget* p = w; p; p = p->parentWidget()) {
        if (auto* d = qobject_cast<const QDockWidget*>(p))
            return d->windowTitle();
        if (p->isWindow())
            return p->windowTitle();
    }
    return {};
}

QJsonObject widgetJson(const QWidget* w)
{
    QJsonObject o = rectJson(globalRect(w));
    o[QStringLiteral("class")] = QString::fromLatin1(w->metaObject()->className());
    if (!w->objectName().isEmpty())
        o[QStringLiteral("name")] = w->objectName();
    const QString text = shownText(w);
    if (!text.isEmpty())
        o[QStringLiteral("text")] = text;
    o[QStringLiteral("enabled")] = w->isEnabled();
    o[QStringLiteral("place")] = placeOf(w);
    if (w->hasFocus())
        o[QStringLiteral("focus")] = true;
    return o;
}

// The input a user types into for a form row: the buddy itself, or the first
// visible input of a row that stacks one with a line under it (SetupPanel's
// fields and their reasons).
const QWidget* inputOf(const QWidget* buddy)
{
    if (qstrcmp(buddy->metaObject()->className(), "QWidget") != 0)
        return buddy;
    for (const QWidget* c : buddy->findChildren<QWidget*>(Qt::FindDirectChildrenOnly))
        if (c->isVisible()
            && (qobject_cast<const QAbstractSpinBox*>(c) || qobject_cast<const QLineEdit*>(c)
                || qobject_cast<const QComboBox*>(c)))
            return c;
    return buddy;
}

// Labelled fields (a form's label and its buddy), tab bars, controls.
void collect(const QWidget* top, QJsonArray& widgets, QJsonArray& fields, QJsonArray& tabs)
{
    QList<const QWidget*> all{top};
    for (const QWidget* w : top->findChildren<QWidget*>())
        all.append(w);
    for (const QWidget* w : all) {
        if (!w->isVisible())
            continue;
        if (isControl(w))
            widgets.append(widgetJson(w));
        if (auto* l = qobject_cast<const QLabel*>(w); l && l->buddy() && l->buddy()->isVisible()) {
            QJsonObject f = widgetJson(inputOf(l->buddy()));
            f[QStringLiteral("label")] = l->text().remove(QLatin1Char('&')).remove(QLatin1Char(':')).trimmed();
            fields.append(f);
        }
        if (auto* bar = qobject_cast<const QTabBar*>(w)) {
            for (int i = 0; i < bar->count(); ++i) {
                QJsonObject t = rectJson(QRect(bar->mapToGlobal(bar->tabRect(i).topLeft()), bar->tabRect(i).size()));
                t[QStringLiteral("text")] = bar->tabText(i).remove(QLatin1Char('&'));
                t[QStringLiteral("current")] = bar->currentIndex() == i;
                t[QStringLiteral("place")] = placeOf(bar);
                tabs.append(t);
            }
        }
    }
}

QJsonObject canvasJson(const ClusterCanvas* canvas)
{
    auto itemRect = [canvas](const QGraphicsItem* item) {
        const QRect inView = canvas->mapFromScene(item->sceneBoundingRect()).boundingRect();
        return QRect(canvas->viewport()->mapToGlobal(inView.topLeft()), inView.size());
    };
    const nlohmann::json& doc = canvas->document()->json();
    QJsonObject nodes, gpus, links;
    if (doc.contains("nodes")) {
        for (const auto& n : doc["nodes"]) {
            const QString name = QString::fromStdString(n.value("name", std::string()));
            if (const QGraphicsItem* item = canvas->nodeItem(name))
                nodes[name] = rectJson(itemRect(item));
            for (int i = 0;; ++i) {
                const QGraphicsItem* tile = canvas->gpuItem(name, i);
                if (!tile)
                    break;
                gpus[name + QLatin1Char(':') + QString::number(i)] = rectJson(itemRect(tile));
            }
        }
    }
    if (doc.contains("links")) {
        for (const auto& l : doc["links"]) {
            const QString name = QString::fromStdString(l.value("name", std::string()));
            if (const QGraphicsItem* item = canvas->linkItem(name))
                links[name] = rectJson(itemRect(item));
        }
    }
    QJsonObject o = rectJson(globalRect(canvas->viewport()));
    o[QStringLiteral("nodes")] = nodes;
    o[QStringLiteral("gpus")] = gpus;
    o[QStringLiteral("links")] = links;
    o[QStringLiteral("hint")] = canvas->emptyHint();
    const CanvasSelection s = canvas->selection();
    o[QStringLiteral("selection")] = QJsonObject{{QStringLiteral("kind"), static_cast<int>(s.kind)},
                                                 {QStringLiteral("node"), s.node},
                                                 {QStringLiteral("gpu"), s.gpuIndex},
                                                 {QStringLiteral("link"), s.link}};
    return o;
}

QJsonObject paletteJson(const GpuPalette* palette)
{
    QJsonObject rows;
    for (int i = 0; i < palette->count(); ++i) {
        const QRect r = palette->visualItemRect(palette->item(i));
        if (!r.isValid() || !palette->viewport()->rect().contains(r.center()))
            continue;  // scrolled out of sight: a script cannot click it
        rows[palette->typeNameAt(i)] = rectJson(QRect(palette->viewport()->mapToGlobal(r.topLeft()), r.size()));
    }
    return rows;
}

}  // namespace

void GuiProbe::attachIfRequested(MainWindow* window)
{
    const QString folder = qEnvironmentVariable("MEMX_GUI_PROBE");
    if (folder.isEmpty())
        return;
    new GuiProbe(window, folder);  // owned by the window
}

GuiProbe::GuiProbe(MainWindow* window, const QString& folder) : QObject(window), window_(window), folder_(folder)
{
    auto* timer = new QTimer(this);
    timer->setInterval(100);
    connect(timer, &QTimer::timeout, this, &GuiProbe::answerRequest);
    timer->start();
}

QByteArray GuiProbe::state() const
{
    QJsonObject o;
    o[QStringLiteral("title")] = window_->windowTitle();
    o[QStringLiteral("dirty")] = window_->isDirty();
    o[QStringLiteral("searching")] = window_->controller()->isRunning();
    QJsonArray stale;
    for (const std::string& c : window_->staleChanges())
        stale.append(QString::fromStdString(c));
    o[QStringLiteral("stale")] = stale;
    if (const SearchResult* r = window_->result()) {
        // Whether the plan shown gives each GPU type its own TP and DP (only FlagScale runs it).
        const Plan* shown = window_->planByKey(window_->selectedPlan());
        const bool perMesh = shown && shown->perMesh();
        o[QStringLiteral("result")]
            = QJsonObject{{QStringLiteral("plans"), static_cast<int>(r->best.size())},
                          {QStringLiteral("incomplete"), QString::fromStdString(r->incomplete)},
                          {QStringLiteral("selected"), QString::number(window_->selectedPlan())},
                          {QStringLiteral("summary"), window_->planSummary()},
                          {QStringLiteral("per_mesh"), perMesh}};
    }
    if (auto* tabs = window_->findChild<QTabWidget*>())
        o[QStringLiteral("tab")] = tabs->tabText(tabs->currentIndex()).remove(QLatin1Char('&'));
    if (auto* status = window_->findChild<QLabel*>(QStringLiteral("statusLabel")))
        o[QStringLiteral("status")] = status->text();
    o[QStringLiteral("document")]
        = QJsonDocument::fromJson(QByteArray::fromStdString(window_->document()->json().dump())).object();

    QJsonArray windows, widgets, fields, tabs;
    for (const QWidget* top : QApplication::topLevelWidgets()) {
        if (!top->isVisible())
            continue;
        windows.append(QJsonObject{{QStringLiteral("class"), QString::fromLatin1(top->metaObject()->className())},
                                   {QStringLiteral("title"), top->windowTitle()},
                                   {QStringLiteral("modal"), top->isModal()},
                                   {QStringLiteral("active"), top->isActiveWindow()}});
        collect(top, widgets, fields, tabs);
    }
    o[QStringLiteral("windows")] = windows;
    if (QWidget* modal = QApplication::activeModalWidget()) {
        QJsonObject m{{QStringLiteral("class"), QString::fromLatin1(modal->metaObject()->className())},
                      {QStringLiteral("title"), modal->windowTitle()}};
        if (auto* box = qobject_cast<QMessageBox*>(modal))
            m[QStringLiteral("text")] = box->text();
        o[QStringLiteral("modal")] = m;
    }
    if (QWidget* focus = QApplication::focusWidget())
        o[QStringLiteral("focus")] = widgetJson(focus);
    o[QStringLiteral("widgets")] = widgets;
    o[QStringLiteral("fields")] = fields;
    o[QStringLiteral("tabs")] = tabs;
    if (auto* canvas = window_->findChild<ClusterCanvas*>(); canvas && canvas->isVisible())
        o[QStringLiteral("canvas")] = canvasJson(canvas);
    if (auto* palette = window_->findChild<GpuPalette*>(); palette && palette->isVisible())
        o[QStringLiteral("palette")] = paletteJson(palette);
    return QJsonDocument(o).toJson(QJsonDocument::Indented);
}

void GuiProbe::answerRequest()
{
    QFile request(QDir(folder_).filePath(QStringLiteral("request")));
    if (!request.exists() || !request.open(QIODevice::ReadOnly))
        return;
    // "NAME" or "NAME json": the second form answers with the state only (a
    // walk polling for a condition needs no screenshot every half second).
    const QByteArray asked = request.readAll();
    request.close();
    if (asked.trimmed().isEmpty())
        return;  // caught between the writer's truncate and its write: next time
    if (answering_)
        return;  // a state dump that let events run: the outer call answers
    answering_ = true;
    const QStringList words = QString::fromUtf8(asked).split(QLatin1Char(' '), Qt::SkipEmptyParts);
    const bool stateOnly = words.size() > 1 && words.at(1).trimmed() == QLatin1String("json");
    QString name = words.isEmpty() ? QString() : words.front().trimmed();
    // A name, not a path: the answer stays in the probe's folder.
    name.remove(QLatin1Char('/'));
    if (name.isEmpty() || name.startsWith(QLatin1Char('.')))
        name = QStringLiteral("unnamed");
    const QDir dir(folder_);
    QSaveFile json(dir.filePath(name + QStringLiteral(".json")));
    if (json.open(QIODevice::WriteOnly)) {
        json.write(state());
        json.commit();
    }
    if (stateOnly) {
        done(asked);
        return;
    }
    const QPixmap screen = QGuiApplication::primaryScreen()->grabWindow(0);
    const QString png = dir.filePath(name + QStringLiteral(".png"));
    screen.save(png + QStringLiteral(".part"), "PNG");
    QFile::remove(png);
    QFile::rename(png + QStringLiteral(".part"), png);
    done(asked);
}

// Removes the request answered, last (the script waits for this), but not a
// newer one the script wrote meanwhile: removing that one unread would tell
// the script it was answered (gui_walk once found no dump after "searched").
void GuiProbe::done(const QByteArray& asked)
{
    answering_ = false;
    QFile request(QDir(folder_).filePath(QStringLiteral("request")));
    if (request.open(QIODevice::ReadOnly)) {
        const bool same = request.readAll() == asked;
        request.close();
        if (same)
            request.remove();
    }
}

}  // namespace memx

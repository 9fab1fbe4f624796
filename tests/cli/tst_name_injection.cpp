// Names are data, never code. Every user-given name (cluster, node, link,
// medium, GPU type, vendor, model, scenario, run id) is one line of text:
// a control character in it is refused on reading, naming the field. Names
// that are legal but hostile to a shell or YAML ($(...), backticks, quotes,
// ${...}, non-ASCII letters) go through search and export as data:
// shellcheck finds nothing in the scripts, running them with stub torchrun,
// srun and hostname executes nothing else, and the YAML reads back as the
// types the hostfile names.
#include "CliRunner.h"
#include "TestFiles.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include "TestMain.h"

namespace tst_name_injection {

namespace {

using memx::test::CliResult;
using memx::test::describe;
using memx::test::runCli;

// Each would create a file named PWNED* in the working directory if a
// script ran it. Node names may not hold spaces, ':', '/' or '+' (a
// selector's syntax), so those use ${IFS}.
const QString kClusterName = QStringLiteral("lab \"cluster\" '$(touch PWNED_cluster)' `touch PWNED_tick` ${HOME} # x");
const QString kNode0 = QStringLiteral("n0$(touch${IFS}PWNED_node0)");
const QString kNode1 = QStringLiteral("n1`touch${IFS}PWNED_node1`'\"");
const QString kType = QStringLiteral("Größe-GPU$(touch${IFS}PWNED_type)'\"${x}");
const QString kVendor = QStringLiteral("nvidia");
const QString kLink = QStringLiteral("ib $(touch PWNED_link); `touch PWNED_link2`");
const QString kModelName = QStringLiteral("llama's \"7b\" $(touch PWNED_model) `touch PWNED_model2` ${HOME} Größe");

QJsonObject typeSpec(const QString& vendor)
{
    // An A100-80GB-like card defined by the file itself.
    return QJsonObject{{"vendor", vendor}, {"peak_tflops_bf16", 312},
                       {"memory_gib", 80}, {"memory_bandwidth_gbps", 2039},
                       {"sm_count", 108},  {"precisions", QJsonArray{"bf16", "fp16", "fp32", "tf32"}}};
}

QJsonObject cluster(const QString& name, const QString& node0, const QString& node1, const QString& type,
                    const QString& link, const QString& vendor = kVendor, const QString& medium = QString())
{
    QJsonObject c{{"format", "memx-cluster/1"}, {"name", name}};
    c["gpu_types"] = QJsonObject{{type, typeSpec(vendor)}};
    QJsonArray nodes;
    for (const QString& n : {node0, node1})
        nodes.append(QJsonObject{{"name", n}, {"gpus", QJsonArray{QJsonObject{{"type", type}, {"count", 4}}}}});
    c["nodes"] = nodes;
    QJsonArray links;
    links.append(QJsonObject{{"name", "nvl0"}, {"kind", "NVLink"}, {"within", node0}, {"bandwidth_gbps", 240}});
    links.append(QJsonObject{{"name", "nvl1"}, {"kind", "NVLink"}, {"within", node1}, {"bandwidth_gbps", 240}});
    QJsonObject ib{{"name", link},
                   {"kind", "InfiniBand"},
                   {"between", QJsonArray{node0, node1}},
                   {"bandwidth_gbps", 25}};
    if (!medium.isEmpty())
        ib["medium"] = medium;
    links.append(ib);
    c["links"] = links;
    return c;
}

QJsonObject model(const QString& name)
{
    return QJsonObject{{"format", "memx-model/1"}, {"name", name},   {"num_layers", 32},
                       {"hidden", 4096},           {"heads", 32},    {"query_groups", 32},
                       {"ffn_hidden", 11008},      {"vocab", 32000}, {"seq_len", 4096}};
}

bool writeJson(const QString& path, const QJsonObject& o)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(QJsonDocument(o).toJson()) > 0;
}

bool writeText(const QString& path, const QByteArray& text, bool executable = false)
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(text) != text.size())
        return false;
    f.close();
    return !executable || f.setPermissions(f.permissions() | QFileDevice::ExeOwner | QFileDevice::ExeUser);
}

QStringList filesNamed(const QString& dir, const QString& pattern)
{
    QStringList out;
    QDirIterator it(dir, {pattern}, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext())
        out << it.next();
    return out;
}

struct Ran {
    int exitCode = -1;
    QString out;
};

Ran run(const QString& program, const QStringList& args, const QString& workDir, const QProcessEnvironment& env)
{
    QProcess p;
    p.setWorkingDirectory(workDir);
    p.setProcessEnvironment(env);
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(program, args);
    if (!p.waitForStarted(30000))
        return {-2, QStringLiteral("cannot start ") + program};
    p.closeWriteChannel();
    if (!p.waitForFinished(120000)) {
        p.kill();
        p.waitForFinished(5000);
        return {-3, QStringLiteral("timed out: ") + program + " " + args.join(' ')};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -4, QString::fromUtf8(p.readAll())};
}

}  // namespace

class TestNameInjection : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_tmp;
    QString m_stubs;  // torchrun, srun, hostname that only record
    QString m_search;
    QProcessEnvironment stubbedEnvironment(const QString& hostName) const;
    void checkScripts(const QString& dir, const QString& hostName);

private slots:
    void initTestCase();
    void controlCharactersRefused_data();
    void controlCharactersRefused();
    void runIdWithControlCharacterRefused();
    void hostileNamesSearchAndExportAsData();
    void megatronScriptsRunNothingElse();
    void flagScaleYamlReadsBackTheNames();
    void profilingScriptsRunNothingElse();
};

void TestNameInjection::initTestCase()
{
    QVERIFY(m_tmp.isValid());
    m_stubs = m_tmp.filePath("stubs");
    QVERIFY(QDir().mkpath(m_stubs));
    // torchrun records its arguments, one per line; srun drops its own
    // options and runs the task; hostname answers what the test sets.
    QVERIFY(writeText(m_stubs + "/torchrun", "#!/bin/bash\nprintf '%s\\n' \"$@\" >> \"$STUB_LOG\"\n", true));
    QVERIFY(writeText(m_stubs + "/srun", "#!/bin/bash\nwhile [ \"${1#--}\" != \"$1\" ]; do shift; done\nexec \"$@\"\n",
                      true));
    QVERIFY(writeText(m_stubs + "/hostname", "#!/bin/bash\necho \"$STUB_HOSTNAME\"\n", true));
    QVERIFY2(!QStandardPaths::findExecutable("shellcheck").isEmpty(),
             "shellcheck is missing: ./scripts/install-deps installs it");
}

QProcessEnvironment TestNameInjection::stubbedEnvironment(const QString& hostName) const
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("PATH", m_stubs + ":" + env.value("PATH"));
    env.insert("STUB_HOSTNAME", hostName);
    env.insert("MEGATRON_DIR", m_tmp.filePath("megatron"));
    env.remove("DATA_ARGS");
    env.remove("TRAIN_ARGS");
    return env;
}

void TestNameInjection::controlCharactersRefused_data()
{
    QTest::addColumn<QJsonObject>("clusterJson");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("what");
    const QString nl = QStringLiteral("x\ntouch PWNED");
    const QString ok0 = "n0", ok1 = "n1", type = "GPU-X", link = "ib";
    QTest::newRow("cluster name, line feed") << cluster(nl, ok0, ok1, type, link) << "/name"
                                             << "line feed";
    QTest::newRow("node name, line feed") << cluster("c", "n0\ntouch", ok1, type, link) << "/nodes/0/name"
                                          << "line feed";
    QTest::newRow("node name, carriage return") << cluster("c", ok0, "n1\rx", type, link) << "/nodes/1/name"
                                                << "carriage return";
    QTest::newRow("link name, escape") << cluster("c", ok0, ok1, type, QStringLiteral("ib\x1b[2J")) << "/links/2/name"
                                       << "U+001B";
    QTest::newRow("GPU type key, line feed") << cluster("c", ok0, ok1, "GPU\nX", link) << "/gpu_types/GPU\\nX"
                                             << "line feed";
    QTest::newRow("vendor, NEL (a YAML line break)")
        << cluster("c", ok0, ok1, type, link, QString::fromUtf8("nv\xc2\x85x")) << "/gpu_types/GPU-X/vendor"
        << "U+0085";
    QTest::newRow("medium, line separator")
        << cluster("c", ok0, ok1, type, link, kVendor, QString::fromUtf8("fabric\xe2\x80\xa8x")) << "/links/2/medium"
        << "line separator";
    QTest::newRow("cluster name, tab") << cluster("a\tb", ok0, ok1, type, link) << "/name"
                                       << "tab";
}

void TestNameInjection::controlCharactersRefused()
{
    QFETCH(QJsonObject, clusterJson);
    QFETCH(QString, field);
    QFETCH(QString, what);
    const QString file = m_tmp.filePath("bad-cluster.json");
    QVERIFY(writeJson(file, clusterJson));
    const QStringList args{"validate", file};
    RUN_EXPECT(r, args, 2);
    QVERIFY2(r.err.contains(file) && r.err.contains(field) && r.err.contains(what), qPrintable(describe(args, r)));
    QVERIFY2(r.err.contains("one line of printable text"), qPrintable(r.err));
    // The message itself stays on one line: the name is not echoed raw.
    QCOMPARE(r.err.trimmed().count('\n'), 0);

    // A model whose name breaks its line is refused the same way.
    const QString modelFile = m_tmp.filePath("bad-model.json");
    QVERIFY(writeJson(modelFile, model("llama\n$(touch PWNED)")));
    const QString okCluster = m_tmp.filePath("ok-cluster.json");
    QVERIFY(writeJson(okCluster, cluster("c", "n0", "n1", "GPU-X", "ib")));
    const QStringList margs{"search", "--cluster", okCluster, "--model", modelFile, "--gbs", "8", "-q"};
    RUN_EXPECT(m, margs, 2);
    QVERIFY2(m.err.contains(modelFile) && m.err.contains("/name") && m.err.contains("line feed"),
             qPrintable(describe(margs, m)));
}

void TestNameInjection::runIdWithControlCharacterRefused()
{
    // A measurement whose run id holds a line feed inside a quoted CSV cell.
    const QString cl = m_tmp.filePath("ok-cluster.json");
    QVERIFY(writeJson(cl, cluster("c", "n0", "n1", "GPU-X", "ib")));
    const QString runs = m_tmp.filePath("runs.csv");
    const QStringList pargs{"profile-plan", "--cluster", cl, "--model", "llama2-7b", "--out", runs};
    RUN_EXPECT(p, pargs, 0);
    QFile f(runs);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QList<QByteArray> lines = f.readAll().split('\n');
    f.close();
    int first = 0;  // the first run row: after the format comment and the header
    while (first < lines.size() && (lines[first].startsWith('#') || lines[first].startsWith("run_id")))
        ++first;
    QVERIFY(first < lines.size());
    const int comma = lines[first].indexOf(',');
    QVERIFY(comma > 0);
    lines[first] = "\"evil\ntouch PWNED\"" + lines[first].mid(comma);
    QVERIFY(writeText(runs, lines.join('\n')));
    const QStringList args{"simulate", "--cluster", cl, "--runs", runs, "--out", m_tmp.filePath("sim.csv")};
    RUN_EXPECT(r, args, 2);
    QVERIFY2(r.err.contains(runs) && r.err.contains("run_id") && r.err.contains("line feed"),
             qPrintable(describe(args, r)));
}

void TestNameInjection::hostileNamesSearchAndExportAsData()
{
    const QString cl = m_tmp.filePath("hostile-cluster.json");
    QVERIFY(writeJson(cl, cluster(kClusterName, kNode0, kNode1, kType, kLink)));
    const QString md = m_tmp.filePath("hostile-model.json");
    QVERIFY(writeJson(md, model(kModelName)));
    m_search = m_tmp.filePath("search.json");
    const QStringList args{"search", "--cluster", cl, "--model", md, "--gbs", "16", "--mbs", "1", "--max-pp", "2",
                           "--keep", "3", "--json", m_search, "-q",
                           // both targets must run the pick: FlagScale refuses interleaving
                           "--schedule", "1f1b"};
    RUN_EXPECT(r, args, 0);
    for (const char* target : {"megatron", "flagscale"}) {
        const QString out = m_tmp.filePath(QStringLiteral("export-") + target);
        const QStringList eargs{"export", "--plan", m_search, "--target", target, "--out", out, "-q"};
        RUN_EXPECT(e, eargs, 0);
        QVERIFY2(!filesNamed(out, "*").isEmpty(), target);
    }
    // Exporting ran nothing either.
    QVERIFY2(filesNamed(m_tmp.path(), "PWNED*").isEmpty(), qPrintable(filesNamed(m_tmp.path(), "PWNED*").join(' ')));
}

void TestNameInjection::checkScripts(const QString& dir, const QString& hostName)
{
    const QStringList scripts = filesNamed(dir, "*.sh");
    QVERIFY(!scripts.isEmpty());
    const QString work = m_tmp.filePath("work-" + QFileInfo(dir).fileName());
    QVERIFY(QDir().mkpath(work));
    QProcessEnvironment env = stubbedEnvironment(hostName);
    const QString log = work + "/torchrun.log";
    env.insert("STUB_LOG", log);
    for (const QString& s : scripts) {
        const Ran lint = run("shellcheck", {"-s", "bash", s}, work, env);
        QVERIFY2(lint.exitCode == 0, qPrintable(s + ":\n" + lint.out));
        QVERIFY2(QFileInfo(s).isExecutable(), qPrintable(s));
        if (QFileInfo(s).fileName() == "sbatch.sh") {
            env.insert("SLURM_SUBMIT_DIR", dir);
            const Ran sb = run("bash", {s}, work, env);
            QVERIFY2(sb.exitCode == 0, qPrintable(s + ":\n" + sb.out));
            env.remove("SLURM_SUBMIT_DIR");
        } else {
            const Ran ran = run("bash", {s}, work, env);
            QVERIFY2(ran.exitCode == 0, qPrintable(s + ":\n" + ran.out));
        }
    }
    QFile f(log);
    QVERIFY2(f.open(QIODevice::ReadOnly), "torchrun was never started");
    const QString args = QString::fromUtf8(f.readAll());
    QVERIFY2(args.contains("--tensor-model-parallel-size") || args.contains("pretrain_gpt.py"), qPrintable(args));
    const QStringList pwned = filesNamed(m_tmp.path(), "PWNED*");
    QVERIFY2(pwned.isEmpty(), qPrintable("a name ran as a command: " + pwned.join(' ')));
}

void TestNameInjection::megatronScriptsRunNothingElse()
{
    if (m_search.isEmpty())
        QSKIP("needs hostileNamesSearchAndExportAsData");
    // The hostfile's first host is what Slurm's task on that node calls itself.
    const QString dir = m_tmp.filePath("export-megatron");
    QFile hf(dir + "/hostfile");
    QVERIFY(hf.open(QIODevice::ReadOnly));
    QString host;
    for (const QString& line : QString::fromUtf8(hf.readAll()).split('\n'))
        if (!line.startsWith('#') && !line.trimmed().isEmpty()) {
            host = line.section(' ', 0, 0);
            break;
        }
    QVERIFY(!host.isEmpty());
    QVERIFY2(!host.contains('$') && !host.contains('`') && !host.contains('\''), qPrintable(host));
    checkScripts(dir, host);
}

void TestNameInjection::flagScaleYamlReadsBackTheNames()
{
    if (m_search.isEmpty())
        QSKIP("needs hostileNamesSearchAndExportAsData");
    // Debian's python3-yaml (scripts/install-deps) reads every YAML file; the
    // device types are the hostfile's type= words and every comment stays one.
    const QString dir = m_tmp.filePath("export-flagscale");
    const QString py = QStringLiteral(
        "import sys, yaml\n"
        "d = sys.argv[1]\n"
        "exp = yaml.safe_load(open(d + '/conf/train_hetero.yaml', encoding='utf-8'))\n"
        "train = yaml.safe_load(open(d + '/conf/train/memx_plan.yaml', encoding='utf-8'))\n"
        "types = train['system']['hetero']['hetero_device_types']\n"
        "hosts = [l.split() for l in open(d + '/hostfile') if l.strip() and not l.startswith('#')]\n"
        "host_types = [w[2].split('=', 1)[1] for w in hosts]\n"
        "assert all(isinstance(t, str) for t in types), types\n"
        "assert sorted(set(types)) == sorted(set(host_types)), (types, host_types)\n"
        "assert set(exp['experiment']['envs']['device_type_specific']) == set(types), exp['experiment']['envs']\n"
        "assert exp['experiment']['runner']['hostfile'].endswith('/hostfile'), exp['experiment']['runner']\n"
        "assert exp['experiment']['exp_name'].startswith('memx_'), exp['experiment']['exp_name']\n"
        "print('ok', types)\n");
    if (QFileInfo("/usr/bin/python3").isExecutable()) {
        const Ran r = run("/usr/bin/python3", {"-c", py, dir}, m_tmp.path(), QProcessEnvironment::systemEnvironment());
        QVERIFY2(r.exitCode == 0 && r.out.startsWith("ok"), qPrintable(r.out));
    } else {
        QFAIL("/usr/bin/python3 with python3-yaml is needed (scripts/install-deps installs them)");
    }
    // Only comments hold a name as given; values hold its safe form.
    for (const QString& file : filesNamed(dir, "*.yaml") + QStringList{dir + "/hostfile"}) {
        QFile f(file);
        QVERIFY(f.open(QIODevice::ReadOnly));
        for (const QString& line : QString::fromUtf8(f.readAll()).split('\n'))
            if (line.contains("$(") || line.contains('`'))
                QVERIFY2(line.trimmed().startsWith('#'), qPrintable(file + ": " + line));
    }
}

void TestNameInjection::profilingScriptsRunNothingElse()
{
    const QString cl = m_tmp.filePath("hostile-cluster.json");
    if (!QFileInfo::exists(cl))
        QSKIP("needs hostileNamesSearchAndExportAsData");
    const QString scripts = m_tmp.filePath("profiling-scripts");
    const QStringList args{"profile-plan",
                           "--cluster",
                           cl,
                           "--model",
                           m_tmp.filePath("hostile-model.json"),
                           "--out",
                           m_tmp.filePath("profiling-runs.csv"),
                           "--scripts",
                           scripts};
    RUN_EXPECT(r, args, 0);
    QStringList all = filesNamed(scripts, "*.sh");
    QVERIFY(!all.isEmpty());
    // Three of them are enough to run; shellcheck reads them all.
    const QString few = m_tmp.filePath("profiling-few");
    QVERIFY(QDir().mkpath(few));
    for (int i = 0; i < all.size(); ++i) {
        if (i < 3)
            QVERIFY(QFile::copy(all[i], few + "/" + QFileInfo(all[i]).fileName()));
        const Ran lint
            = run("shellcheck", {"-s", "bash", all[i]}, m_tmp.path(), QProcessEnvironment::systemEnvironment());
        QVERIFY2(lint.exitCode == 0, qPrintable(all[i] + ":\n" + lint.out));
    }
    checkScripts(few, "n0");
}

MEMX_TEST_GUILESS_MAIN(TestNameInjection)
}  // namespace tst_name_injection

#include "tst_name_injection.moc"

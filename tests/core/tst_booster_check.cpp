// Learned-model files are checked before XGBoost reads them (issue #14,
// item 4): a damaged booster is refused with a message naming the tree and
// node, a file changed after training fails its checksum, and random damage
// never crashes the loader. The model is tests/data/predictors'
// megatron_ci_small_mixed.json (400 trees of the 35-feature schema).
#include "TestPaths.h"

#include "io/InputError.h"
#include "predict/PredictorFile.h"

#include <QTemporaryDir>
#include "TestMain.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <random>

namespace tst_booster_check {

using namespace memx;

namespace {

// The fixture without its checksum, as files written before the checksum
// existed: damage then reaches the structural checks, which name it.
nlohmann::json modelDoc()
{
    std::ifstream in(test::dataFile("predictors/megatron_ci_small_mixed.json"));
    nlohmann::json doc = nlohmann::json::parse(in);
    doc.erase("booster_checksum");
    return doc;
}

nlohmann::json& tree(nlohmann::json& doc, int i)
{
    return doc["booster"]["learner"]["gradient_booster"]["model"]["trees"][static_cast<std::size_t>(i)];
}

// The first internal node of tree i (a node with children).
std::size_t internalNode(const nlohmann::json& t)
{
    for (std::size_t k = 0; k < t["left_children"].size(); ++k)
        if (t["left_children"][k].get<int>() != -1)
            return k;
    return 0;
}

std::string write(const QTemporaryDir& dir, const nlohmann::json& doc)
{
    const std::string path = dir.filePath("model.json").toStdString();
    std::ofstream(path) << doc.dump();
    return path;
}

// The load's error message, or "" when it loads.
std::string loadError(const std::string& path)
{
    try {
        PredictorFile::load(path);
        return "";
    } catch (const InputError& e) {
        return e.what();
    }
}

}  // namespace

class TestBoosterCheck : public QObject {
    Q_OBJECT
private slots:
    void damageIsNamed_data();
    void damageIsNamed();
    void checksumCatchesAnEditedFile();
    void randomDamageNeverCrashes();
};

void TestBoosterCheck::damageIsNamed_data()
{
    QTest::addColumn<QString>("damage");
    QTest::addColumn<QString>("message");
    QTest::newRow("child outside the tree") << "child"
                                            << "tree 3, node";
    QTest::newRow("root as a child") << "root"
                                     << "child 0 outside the tree's";
    QTest::newRow("node with two parents") << "twoParents"
                                           << "tree 3, node 1:";
    QTest::newRow("wrong parent") << "parent"
                                  << "tree 3, node 2: parent 1, but it is the child of node 0";
    QTest::newRow("array too short") << "short"
                                     << "tree 3: 1 entries for";
    QTest::newRow("split feature 99") << "feature"
                                      << "split feature 99 outside the 35 features";
    QTest::newRow("tree count") << "count"
                                << "401 trees declared, 400 present";
    QTest::newRow("leaf weight not a number") << "weight"
                                              << "is not a finite number";
    // Found by tests/fuzz (fuzz_predictor): a short split_type crashed XGBoost.
    QTest::newRow("split types too short") << "splitTypeShort"
                                           << "trees/3/split_type: tree 3: 1 entries for";
    QTest::newRow("categorical split") << "categorical"
                                       << "split type 1 (MemX models split numerically: 0)";
    // Found by tests/fuzz (fuzz_predictor): an output group outside the two corrupted XGBoost's heap.
    QTest::newRow("tree output group 7") << "treeInfo"
                                         << "tree_info: tree 3: output 7 (0: time, 1: memory)";
    QTest::newRow("three targets") << "targets"
                                   << "num_target 3, num_class 0: a MemX model predicts two targets";
}

void TestBoosterCheck::damageIsNamed()
{
    QFETCH(QString, damage);
    QFETCH(QString, message);
    nlohmann::json doc = modelDoc();
    nlohmann::json& t = tree(doc, 3);
    const std::size_t k = internalNode(t);
    if (damage == "child")
        t["left_children"][k] = 100000;
    else if (damage == "root")
        t["right_children"][k] = 0;
    else if (damage == "twoParents") {
        std::size_t j = k + 1;  // another internal node
        while (j < t["left_children"].size() && t["left_children"][j].get<int>() == -1)
            ++j;
        QVERIFY(j < t["left_children"].size());
        t["right_children"][j] = 1;
    } else if (damage == "parent")
        t["parents"][2] = 1;
    else if (damage == "short")
        t["split_conditions"] = nlohmann::json::array({0.5});
    else if (damage == "feature")
        t["split_indices"][k] = 99;
    else if (damage == "count")
        doc["booster"]["learner"]["gradient_booster"]["model"]["gbtree_model_param"]["num_trees"] = "401";
    else if (damage == "weight")
        t["base_weights"][k] = "NaN";
    else if (damage == "splitTypeShort")
        t["split_type"] = nlohmann::json::array({0});
    else if (damage == "categorical")
        t["split_type"][k] = 1;
    else if (damage == "treeInfo")
        doc["booster"]["learner"]["gradient_booster"]["model"]["tree_info"][3] = 7;
    else if (damage == "targets")
        doc["booster"]["learner"]["learner_model_param"]["num_target"] = "3";
    QTemporaryDir dir;
    const std::string err = loadError(write(dir, doc));
    QVERIFY2(err.find(message.toStdString()) != std::string::npos, err.c_str());
    QVERIFY2(err.find("model.json") != std::string::npos, err.c_str());  // names the file
}

void TestBoosterCheck::checksumCatchesAnEditedFile()
{
    QTemporaryDir dir;
    const std::string path = dir.filePath("saved.json").toStdString();
    {
        const PredictorFile::Loaded loaded
            = PredictorFile::load(test::dataFile("predictors/megatron_ci_small_mixed.json"));
        PredictorFile::save(path, *loaded.predictor, loaded.metadata);
    }
    QCOMPARE(loadError(path), std::string());  // a saved file loads, checksum and all
    std::ifstream in(path);
    nlohmann::json doc = nlohmann::json::parse(in);
    QVERIFY(doc.contains("booster_checksum"));
    // A plausible edit the structure check cannot see: one split value.
    nlohmann::json& t = tree(doc, 0);
    const std::size_t k = internalNode(t);
    t["split_conditions"][k] = t["split_conditions"][k].get<double>() + 1.0;
    const std::string err = loadError(write(dir, doc));
    QVERIFY2(err.find("booster_checksum") != std::string::npos && err.find("changed or damaged") != std::string::npos,
             err.c_str());
}

void TestBoosterCheck::randomDamageNeverCrashes()
{
    // 300 single-value changes to the node arrays of random trees: each file
    // loads or is refused with an InputError; nothing else happens.
    const nlohmann::json original = modelDoc();
    std::mt19937 rng(12345);
    const char* arrays[] = {"left_children", "right_children", "split_indices", "parents"};
    QTemporaryDir dir;
    int refused = 0;
    for (int trial = 0; trial < 300; ++trial) {
        nlohmann::json doc = original;
        nlohmann::json& t = tree(doc, static_cast<int>(rng() % 400));
        const char* key = arrays[rng() % 4];
        const std::size_t n = t[key].size();
        t[key][rng() % n] = static_cast<int>(rng() % (n + 6)) - 3;
        try {
            PredictorFile::load(write(dir, doc));
        } catch (const InputError&) {
            ++refused;
        }
    }
    qInfo("300 damaged files: %d refused, %d loaded (a change that keeps a valid tree)", refused, 300 - refused);
    QVERIFY(refused > 100);
}

MEMX_TEST_APPLESS_MAIN(TestBoosterCheck)
}  // namespace tst_booster_check

#include "tst_booster_check.moc"

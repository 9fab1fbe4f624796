#include "predict/XgboostModel.h"

#include "io/HostCores.h"

#include <xgboost/c_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

namespace memx {

namespace {

void check(int rc, const char* what)
{
    if (rc != 0) {
        const char* err = XGBGetLastError();
        throw std::runtime_error(std::string("XGBoost: ") + what + " failed: " + (err ? err : "(no message)"));
    }
}

// Owns a DMatrixHandle for the duration of training.
struct DMatrix {
    DMatrixHandle h = nullptr;
    DMatrix() = default;
    DMatrix(const DMatrix&) = delete;
    DMatrix& operator=(const DMatrix&) = delete;
    ~DMatrix()
    {
        if (h)
            XGDMatrixFree(h);
    }
};

// Owns a BoosterHandle until release().
struct Booster {
    BoosterHandle h = nullptr;
    Booster() = default;
    Booster(const Booster&) = delete;
    Booster& operator=(const Booster&) = delete;
    ~Booster()
    {
        if (h)
            XGBoosterFree(h);
    }
    void* release() { return std::exchange(h, nullptr); }
};

const char* kPredictConfig = "{\"type\":0,\"training\":false,\"iteration_begin\":0,\"iteration_end\":0,"
                             "\"strict_shape\":false,\"missing\":NaN,\"cache_id\":0}";

std::string arrayInterface(const float* data, std::size_t rows, std::size_t cols)
{
    // __array_interface__ (version 3) of a read-only row-major float32 matrix.
    return "{\"data\":[" + std::to_string(reinterpret_cast<std::uintptr_t>(data)) + ",true],\"shape\":["
        + std::to_string(rows) + "," + std::to_string(cols) + "],\"typestr\":\"<f4\",\"version\":3}";
}

}  // namespace

XgboostModel::XgboostModel(void* booster) : booster_(booster) { }

XgboostModel::XgboostModel(XgboostModel&& other) noexcept
    : booster_(std::exchange(other.booster_, nullptr))
    , numFeatures_(std::exchange(other.numFeatures_, 0))
{
}

XgboostModel& XgboostModel::operator=(XgboostModel&& other) noexcept
{
    if (this != &other) {
        if (booster_)
            XGBoosterFree(static_cast<BoosterHandle>(booster_));
        booster_ = std::exchange(other.booster_, nullptr);
        numFeatures_ = std::exchange(other.numFeatures_, 0);
    }
    return *this;
}

XgboostModel::~XgboostModel()
{
    if (booster_)
        XGBoosterFree(static_cast<BoosterHandle>(booster_));
}

void XgboostModel::configure()
{
    bst_ulong n = 0;
    check(XGBoosterGetNumFeature(static_cast<BoosterHandle>(booster_), &n), "XGBoosterGetNumFeature");
    numFeatures_ = static_cast<std::size_t>(n);
    if (numFeatures_ == 0)
        throw std::runtime_error("XGBoost: model has no features");
    // The first prediction configures the learner lazily, which is not
    // thread-safe; do it here, once, so predict() can be shared by threads.
    std::vector<float> row(numFeatures_, std::numeric_limits<float>::quiet_NaN());
    float out[2];
    predict(row.data(), 1, numFeatures_, out);
}

void XgboostModel::setThreads(int threads)
{
    check(XGBoosterSetParam(static_cast<BoosterHandle>(booster_), "nthread", std::to_string(threads).c_str()),
          "XGBoosterSetParam(nthread)");
    configure();  // a changed parameter re-configures lazily: do it now, not in a shared predict()
}

XgboostModel XgboostModel::train(const std::vector<float>& features, std::size_t rows, std::size_t cols,
                                 const std::vector<float>& labels2, const TrainParams& params)
{
    if (rows == 0 || cols == 0)
        throw std::invalid_argument("XgboostModel::train: no training rows or no features");
    if (features.size() != rows * cols)
        throw std::invalid_argument("XgboostModel::train: features has " + std::to_string(features.size())
                                    + " values, expected rows x cols = " + std::to_string(rows * cols));
    if (labels2.size() != 2 * rows)
        throw std::invalid_argument("XgboostModel::train: labels2 has " + std::to_string(labels2.size())
                                    + " values, expected 2 x rows = " + std::to_string(2 * rows));
    for (float y : labels2)
        if (!std::isfinite(y))
            throw std::invalid_argument("XgboostModel::train: a label is not finite");
    if (params.rounds < 1 || params.maxDepth < 1 || !(params.eta > 0)
        || !(params.subsample > 0 && params.subsample <= 1))
        throw std::invalid_argument("XgboostModel::train: invalid hyper-parameters");

    DMatrix d;
    check(XGDMatrixCreateFromMat(features.data(), static_cast<bst_ulong>(rows), static_cast<bst_ulong>(cols),
                                 std::numeric_limits<float>::quiet_NaN(), &d.h),
          "XGDMatrixCreateFromMat");
    // 2 x rows floats make an (rows, 2) label: one booster, num_target = 2.
    check(XGDMatrixSetFloatInfo(d.h, "label", labels2.data(), static_cast<bst_ulong>(labels2.size())),
          "XGDMatrixSetFloatInfo(label)");

    Booster b;
    check(XGBoosterCreate(&d.h, 1, &b.h), "XGBoosterCreate");
    auto set = [&](const char* name, const std::string& value) {
        check(XGBoosterSetParam(b.h, name, value.c_str()), (std::string("XGBoosterSetParam(") + name + ")").c_str());
    };
    set("validate_parameters", "1");
    set("objective", "reg:squarederror");
    set("tree_method", "hist");
    set("max_depth", std::to_string(params.maxDepth));
    set("eta", std::to_string(params.eta));
    set("subsample", std::to_string(params.subsample));
    set("seed", std::to_string(params.seed));
    set("base_score", "0");
    set("verbosity", "0");
    // Small tables train fastest on one thread; XGBoost's default is every
    // core of the host, which in a CPU-limited container oversubscribes it.
    set("nthread", std::to_string(std::min<std::size_t>(static_cast<std::size_t>(usableCores()), 1 + rows / 4096)));
    for (int i = 0; i < params.rounds; ++i)
        check(XGBoosterUpdateOneIter(b.h, i, d.h), "XGBoosterUpdateOneIter");

    XgboostModel model(b.release());
    model.setThreads(usableCores());  // configures too
    return model;
}

void XgboostModel::predict(const float* features, std::size_t rows, std::size_t cols, float* out2) const
{
    if (!booster_)
        throw std::logic_error("XgboostModel::predict on a moved-from model");
    if (rows == 0)
        return;
    if (cols != numFeatures_)
        throw std::invalid_argument("XgboostModel::predict: " + std::to_string(cols) + " features, model expects "
                                    + std::to_string(numFeatures_));
    const std::string values = arrayInterface(features, rows, cols);
    const bst_ulong* shape = nullptr;
    bst_ulong dim = 0;
    const float* result = nullptr;
    check(XGBoosterPredictFromDense(static_cast<BoosterHandle>(booster_), values.c_str(), kPredictConfig, nullptr,
                                    &shape, &dim, &result),
          "XGBoosterPredictFromDense");
    bst_ulong total = 1;
    for (bst_ulong i = 0; i < dim; ++i)
        total *= shape[i];
    if (total != 2 * rows)
        throw std::runtime_error("XGBoost: prediction has " + std::to_string(total) + " values, expected "
                                 + std::to_string(2 * rows) + " (is this a two-target model?)");
    // Thread-local buffer: copy before the next XGBoost call.
    std::copy(result, result + 2 * rows, out2);
}

std::string XgboostModel::saveJson() const
{
    if (!booster_)
        throw std::logic_error("XgboostModel::saveJson on a moved-from model");
    bst_ulong len = 0;
    const char* data = nullptr;
    check(XGBoosterSaveModelToBuffer(static_cast<BoosterHandle>(booster_), "{\"format\":\"json\"}", &len, &data),
          "XGBoosterSaveModelToBuffer");
    return std::string(data, static_cast<std::size_t>(len));
}

XgboostModel XgboostModel::loadJson(const std::string& json)
{
    Booster b;
    check(XGBoosterCreate(nullptr, 0, &b.h), "XGBoosterCreate");
    check(XGBoosterLoadModelFromBuffer(b.h, json.data(), static_cast<bst_ulong>(json.size())),
          "XGBoosterLoadModelFromBuffer");
    XgboostModel model(b.release());
    model.setThreads(usableCores());  // configures too
    return model;
}

std::map<std::string, double> XgboostModel::gainImportance(const std::vector<std::string>& featureNames) const
{
    if (!booster_)
        throw std::logic_error("XgboostModel::gainImportance on a moved-from model");
    if (featureNames.size() != numFeatures_)
        throw std::invalid_argument("XgboostModel::gainImportance: " + std::to_string(featureNames.size())
                                    + " names for " + std::to_string(numFeatures_) + " features");
    std::map<std::string, double> result;
    for (const auto& n : featureNames)
        result[n] = 0.0;
    bst_ulong nFeatures = 0;
    const char** names = nullptr;
    bst_ulong dim = 0;
    const bst_ulong* shape = nullptr;
    const float* scores = nullptr;
    check(XGBoosterFeatureScore(static_cast<BoosterHandle>(booster_), "{\"importance_type\":\"gain\"}", &nFeatures,
                                &names, &dim, &shape, &scores),
          "XGBoosterFeatureScore");
    // Without feature names in the booster, XGBoost names features f0, f1, ...
    for (bst_ulong i = 0; i < nFeatures; ++i) {
        const std::string n = names[i];
        std::size_t idx = featureNames.size();
        if (n.size() > 1 && n[0] == 'f' && n.find_first_not_of("0123456789", 1) == std::string::npos)
            idx = static_cast<std::size_t>(std::stoul(n.substr(1)));
        if (idx >= featureNames.size())
            throw std::runtime_error("XGBoost: unexpected feature name in importance: " + n);
        result[featureNames[idx]] = static_cast<double>(scores[i]);
    }
    return result;
}

}  // namespace memx

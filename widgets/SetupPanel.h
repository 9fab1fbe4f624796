#pragma once

#include "model/ModelSpec.h"
#include "space/TrainingSetup.h"

#include <QWidget>

#include <optional>
#include <vector>

class QCheckBox;
class QComboBox;
class QFormLayout;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace memx {

// Edits what the user fixes about training: the model and the TrainingSetup
// fields a person usually touches. Fields the panel does not show (tensor
// parallel sizes, virtual stages, thresholds) keep the values of
// the last setSetup().
//
// List fields ("1,2,4") are parsed as the user types; text that is not a list
// of whole numbers at or above the field's minimum is refused in place: the
// field turns red, a label says why, and setup() keeps the last valid list.
class SetupPanel : public QWidget {
    Q_OBJECT
public:
    explicit SetupPanel(QWidget* parent = nullptr);

    ModelSpec model() const;
    TrainingSetup setup() const;
    void setModel(const ModelSpec& model);
    void setSetup(const TrainingSetup& setup);

    // Loads a memx-model/1 JSON file (what "Custom model file…" does after its
    // file dialog). On failure the model is unchanged and errorText() says why.
    bool loadModelFile(const QString& path);

    // Empty when every field holds a valid value.
    QString errorText() const;
    bool isValid() const { return errorText().isEmpty(); }
    // Gives the focus to the first field whose text is refused; false
    // when none is (the error is the model's, or there is none).
    bool focusFirstInvalid();

    // Parses "1, 2 4" (commas and/or spaces). `allowDefault`: empty text or
    // "default" gives an empty list. Returns nullopt and sets `reason` when the
    // text is not a list of whole numbers >= minimum.
    static std::optional<std::vector<int>> parseList(const QString& text, int minimum, bool allowDefault,
                                                     QString* reason = nullptr);
    static QString formatList(const std::vector<int>& values, bool allowDefault);

signals:
    // On every accepted change, by the user or by a setter; not for refused text.
    void changed();

private:
    void addModelRows(QFormLayout* form);
    void addBatchRows(QFormLayout* form);
    void addChoiceRows(QFormLayout* form);
    void addOptionRows(QFormLayout* form);
    void connectInputs();
    struct ListField {
        QLineEdit* edit = nullptr;
        QLabel* reason = nullptr;  // why the text is refused; hidden while valid
        QString name;
        int minimum = 1;
        bool allowDefault = false;
        std::vector<int> value;  // last valid
        QString error;
    };

    // A whole number in a range (global batch, max pipeline stages): text
    // outside it is refused in place, as a list field's is, and when Qt puts
    // the last value back on leaving the field, the line under it says so.
    struct SpinField {
        QSpinBox* spin = nullptr;
        QLabel* reason = nullptr;
        QString name;
        QString unit;  // after the range in words ("sequences"), may be empty
        QString typed;  // the refused text
        QString error;  // blocking while the refused text is in the field
    };
    QWidget* addSpinField(SpinField& field, const QString& objectName, int minimum, int maximum);
    void onSpinEdited(SpinField& field);
    void onSpinFinished(SpinField& field);
    QString rangeInWords(const SpinField& field) const;

    void buildModelRow();
    QWidget* addListField(ListField& field, const QString& objectName, const QString& placeholder,
                          const QString& toolTip);
    void onListEdited(ListField& field);
    void onModelChosen(int index);
    void showModelSummary();
    void refreshErrors();
    void setListText(ListField& field, const std::vector<int>& values);

    struct CustomModel {
        ModelSpec spec;
        QString label;
    };
    void rebuildModelCombo();
    void selectModelIndex(int index);

    TrainingSetup base_;
    std::vector<CustomModel> customModels_;  // combo entries after the presets (loaded files, setModel())
    ModelSpec model_;
    int modelIndex_ = 0;  // last accepted combo index
    QString modelError_;

    QComboBox* modelCombo_ = nullptr;
    QLabel* modelSummary_ = nullptr;
    SpinField globalBatch_;
    ListField microBatchSizes_;
    ListField seqLens_;
    ListField queryGroups_;
    QCheckBox* distributedOptimizer_ = nullptr;
    QCheckBox* overlapGradReduce_ = nullptr;
    QCheckBox* overlapParamGather_ = nullptr;
    QCheckBox* sequenceParallel_ = nullptr;
    QCheckBox* flashAttention_ = nullptr;
    QDoubleSpinBox* attentionDropout_ = nullptr;
    QDoubleSpinBox* hiddenDropout_ = nullptr;
    double shownAttentionDropout_ = 0;  // what setSetup put in the boxes (rounded to their decimals)
    double shownHiddenDropout_ = 0;
    QComboBox* schedule_ = nullptr;
    QComboBox* meshes_ = nullptr;
    QComboBox* precision_ = nullptr;
    QComboBox* recompute_ = nullptr;
    SpinField maxPipeline_;
    QLabel* errorLabel_ = nullptr;  // why the last model file was not loaded
};

}  // namespace memx

#pragma once

namespace CLI {
class App;
}

namespace memx::cli {

// `--attention-dropout R` and `--hidden-dropout R` (search, profile-plan):
// the same descriptions, defaults and checks everywhere.
struct DropoutRates {
    double attention = 0.0;
    double hidden = 0.0;
};

void addDropoutOptions(CLI::App* command, DropoutRates& rates);
// Throws InputError naming the option when a rate is outside [0, 1).
void checkDropoutRates(const DropoutRates& rates);

}  // namespace memx::cli

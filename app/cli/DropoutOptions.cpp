#include "cli/DropoutOptions.h"

#include "io/InputError.h"
#include "io/Text.h"

#include <CLI/CLI.hpp>

#include <utility>

namespace memx::cli {

void addDropoutOptions(CLI::App* command, DropoutRates& rates)
{
    command
        ->add_option("--attention-dropout", rates.attention,
                     "Dropout rate on the attention probabilities (Megatron's default is 0.1; above 0, unfused "
                     "attention keeps a mask and the dropped-out scores)")
        ->capture_default_str();
    command
        ->add_option("--hidden-dropout", rates.hidden,
                     "Dropout rate after the attention projection and FC2 (Megatron's default is 0.1; above 0, each "
                     "layer keeps two 1-byte masks)")
        ->capture_default_str();
}

void checkDropoutRates(const DropoutRates& rates)
{
    for (auto [option, rate] :
         {std::pair{"--attention-dropout", rates.attention}, std::pair{"--hidden-dropout", rates.hidden}})
        if (!(rate >= 0 && rate < 1))
            throw InputError(option, Text::shortest(rate), "a dropout rate must be in [0, 1) (0 turns it off)");
}

}  // namespace memx::cli

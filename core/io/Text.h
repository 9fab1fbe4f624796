#pragma once

#include <string>
#include <vector>

namespace memx {

// Small text helpers shared by the reports, exports and messages.
struct Text {
    // printf-style formatting of one number, e.g. Text::fmt("%.1f", 2.25) == "2.2".
    static std::string fmt(const char* format, double value);
    // The shortest digits that read back as exactly `value` ("0.1", "2", "1e-07").
    static std::string shortest(double value);
    // The same as Python's repr of a float: whole numbers end in ".0" ("0.0",
    // "2.0"); what Megatron prints and what its YAML and flags read.
    static std::string pyFloat(double value);
    // "1,2,4" (or with another separator).
    static std::string joinInts(const std::vector<int>& values, const char* separator = ",");
    static std::string join(const std::vector<std::string>& values, const char* separator = ", ");
    // Table cells: `s` padded with spaces to `width` on the right (left-aligned)
    // or on the left (right-aligned); longer text is kept whole.
    static std::string pad(std::string s, std::size_t width);
    static std::string rpad(std::string s, std::size_t width);
    // Offset of the first byte that is not part of well-formed UTF-8 (no
    // overlong forms, surrogates or code points above U+10FFFF), or
    // std::string::npos when all of `s` is; what JSON output needs.
    static std::size_t invalidUtf8(const std::string& s);

    // Names are one line of text (the rule every reader applies to a
    // user-given name: cluster, node, link, medium, GPU type, vendor, model,
    // scenario, run id). A control character would end a line of a shell
    // script, a comment or YAML that the name is written into: C0 controls
    // (line feed, carriage return, tab, escape, ...), DEL, the C1 controls
    // U+0080-U+009F (U+0085 ends a YAML line) and the line and paragraph
    // separators U+2028/U+2029. controlCharacter gives the byte offset of the
    // first one, or std::string::npos; nameProblem says what is wrong in
    // words ("holds a line feed (U+000A) at byte 4; ...") or is empty.
    static std::size_t controlCharacter(const std::string& s);
    static std::string nameProblem(const std::string& s);
    // `s` with every such character written as a visible escape ("\n",
    // "\x1b", "\u2028"): what goes into a comment line, a message or a
    // YAML comment, so that no name can start a line of its own there.
    static std::string oneLine(const std::string& s);
    // A YAML double-quoted scalar holding exactly `s` (JSON's escapes, which
    // YAML 1.1 and 1.2 read alike); "${" is written "\\${" so that
    // OmegaConf (FlagScale's Hydra configs) reads it as text, not as an
    // interpolation.
    static std::string yamlQuoted(const std::string& s);
    // One POSIX shell word that the shell reads back as exactly `s`: plain
    // when it holds only [A-Za-z0-9_./,=:-] (and is not empty), else in
    // single quotes, with each ' written '\''.
    static std::string shellWord(const std::string& s);
    // `s` with every byte outside [A-Za-z0-9_.-] replaced by '_' ("_" when
    // empty): a host or type name safe as a file name, a hostfile word, a
    // plain YAML scalar or a shell word.
    static std::string safeName(const std::string& s);
};

}  // namespace memx

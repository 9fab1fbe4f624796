#pragma once

#include <string>

namespace memx {

// What a measured peak counts (docs/PRECISION.md, "Memory kinds"):
//   allocated  PyTorch's max_memory_allocated: tensors only (Megatron's
//              "max allocated" log line, Megatron-LM CI);
//   reserved   max_memory_reserved: what the caching allocator holds, with
//              its rounding and fragmentation;
//   device     what nvidia-smi shows: reserved plus the CUDA context and the
//              communication library's buffers; what runs out of memory.
enum class MemoryKind { Allocated = 0, Reserved = 1, Device = 2 };

inline const char* toString(MemoryKind k)
{
    switch (k) {
    case MemoryKind::Allocated: return "allocated";
    case MemoryKind::Reserved: return "reserved";
    case MemoryKind::Device: return "device";
    }
    return "?";
}

inline bool parseMemoryKind(const std::string& s, MemoryKind& out)
{
    if (s == "allocated")
        out = MemoryKind::Allocated;
    else if (s == "reserved")
        out = MemoryKind::Reserved;
    else if (s == "device")
        out = MemoryKind::Device;
    else
        return false;
    return true;
}

}  // namespace memx

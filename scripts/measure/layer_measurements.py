#!/usr/bin/env python3
"""Measure LLaMA-style transformer layers on one GPU with PyTorch.

Writes a memx-style measurement CSV: forward+backward time per layer and the
activation memory one layer keeps per micro-batch, for LLaMA2-7B and LLaMA3-8B
layer shapes, several micro-batch sizes and sequence lengths, with and without
full recomputation (torch.utils.checkpoint). Used to check the analytic model
on real hardware (docs/ANALYTIC_ACCURACY.md, "Own measurements").

The layer is the LLaMA block as eager PyTorch runs it: RMSNorm, fused QKV
projection, causal scaled_dot_product_attention (FlashAttention backend),
output projection, RMSNorm, SwiGLU MLP. No rotary embedding, no dropout.
Weights are bf16; no optimizer state (only layer time and activations are
measured here).

Usage: layer_measurements.py OUT.csv
"""
import csv
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

MODELS = {
    # name: hidden, heads, query groups, head dim, ffn
    "llama2-7b": (4096, 32, 32, 128, 11008),
    "llama3-8b": (4096, 32, 8, 128, 14336),
}
LAYERS = 4
WARMUP = 3
REPEATS = 10


class RMSNorm(nn.Module):
    def __init__(self, h):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(h))

    def forward(self, x):
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-5)).to(x.dtype) * self.weight


class Block(nn.Module):
    def __init__(self, h, a, g, d, f):
        super().__init__()
        self.a, self.g, self.d = a, g, d
        self.n1 = RMSNorm(h)
        self.qkv = nn.Linear(h, (a + 2 * g) * d, bias=False)
        self.o = nn.Linear(a * d, h, bias=False)
        self.n2 = RMSNorm(h)
        self.w13 = nn.Linear(h, 2 * f, bias=False)
        self.w2 = nn.Linear(f, h, bias=False)

    def forward(self, x):
        b, s, _ = x.shape
        q, k, v = self.qkv(self.n1(x)).split([self.a * self.d, self.g * self.d, self.g * self.d], dim=-1)
        q = q.view(b, s, self.a, self.d).transpose(1, 2)
        k = k.view(b, s, self.g, self.d).transpose(1, 2)
        v = v.view(b, s, self.g, self.d).transpose(1, 2)
        if self.g != self.a:
            k = k.repeat_interleave(self.a // self.g, dim=1)
            v = v.repeat_interleave(self.a // self.g, dim=1)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.o(y.transpose(1, 2).reshape(b, s, self.a * self.d))
        gate, up = self.w13(self.n2(x)).chunk(2, dim=-1)
        return x + self.w2(F.silu(gate) * up)


def run_stack(blocks, x, full):
    for blk in blocks:
        x = checkpoint(blk, x, use_reentrant=False) if full else blk(x)
    return x


def matmul_ceiling():
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    for _ in range(3):
        a @ b
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    n = 20
    for _ in range(n):
        a @ b
    torch.cuda.synchronize()
    return 2 * 8192**3 * n / (time.perf_counter() - t0) / 1e12


def main():
    out = sys.argv[1]
    props = torch.cuda.get_device_properties(0)
    ceiling = matmul_ceiling()
    print(f"device {props.name}, {props.total_memory / 2**30:.1f} GiB, torch {torch.__version__}, "
          f"bf16 matmul {ceiling:.0f} TFLOP/s", flush=True)
    rows = []
    for model, (h, a, g, d, f) in MODELS.items():
        blocks = nn.ModuleList([Block(h, a, g, d, f) for _ in range(LAYERS)]).cuda().to(torch.bfloat16)
        for seq in (2048, 4096, 8192):
            for mbs in (1, 2, 4):
                for full in (False, True):
                    torch.cuda.empty_cache()
                    x = torch.randn(mbs, seq, h, device="cuda", dtype=torch.bfloat16, requires_grad=True)
                    grad = torch.randn_like(x)
                    try:
                        # Activation memory: what the forward leaves allocated.
                        torch.cuda.synchronize()
                        m0 = torch.cuda.memory_allocated()
                        y = run_stack(blocks, x, full)
                        torch.cuda.synchronize()
                        kept = torch.cuda.memory_allocated() - m0 - y.numel() * y.element_size()
                        y.backward(grad)
                        x.grad = None
                        blocks.zero_grad(set_to_none=True)
                        del y
                        for _ in range(WARMUP):
                            run_stack(blocks, x, full).backward(grad)
                        start = torch.cuda.Event(enable_timing=True)
                        end = torch.cuda.Event(enable_timing=True)
                        torch.cuda.reset_peak_memory_stats()
                        start.record()
                        for _ in range(REPEATS):
                            run_stack(blocks, x, full).backward(grad)
                        end.record()
                        torch.cuda.synchronize()
                        ms = start.elapsed_time(end) / REPEATS / LAYERS
                        peak = torch.cuda.max_memory_allocated()
                    except torch.cuda.OutOfMemoryError:
                        print(f"{model} seq {seq} mbs {mbs} full {full}: OOM", flush=True)
                        continue
                    finally:
                        x.grad = None
                        blocks.zero_grad(set_to_none=True)
                    row = {
                        "source": "measured",
                        "gpu": props.name,
                        "torch": torch.__version__,
                        "model": model,
                        "hidden": h, "heads": a, "query_groups": g, "head_dim": d, "ffn_hidden": f,
                        "layers_measured": LAYERS,
                        "micro_batch": mbs,
                        "seq_len": seq,
                        "recompute": "full" if full else "none",
                        "fwd_bwd_ms_per_layer": round(ms, 4),
                        "activation_bytes_per_layer": kept // LAYERS,
                        "peak_allocated_bytes": peak,
                        "matmul_tflops_ceiling": round(ceiling, 1),
                    }
                    rows.append(row)
                    print(f"{model} seq {seq} mbs {mbs} {row['recompute']}: {ms:.3f} ms/layer, "
                          f"{kept / LAYERS / 2**20:.1f} MiB/layer", flush=True)
        del blocks
    with open(out, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    main()

"""Language-model pieces written the way users write them today, each a
small module whose forward returns the loss:

- `GQA`: Llama-style grouped-query attention (n_kv_heads < n_heads), the
  keys and values repeated per query head by `repeat_interleave` (an int
  number of repeats, `repeats="int"`, or a tensor of repeats as some
  code bases write it, `repeats="tensor"`).
- `SmoothedCE`: cross-entropy with `label_smoothing` and `ignore_index`,
  through F.cross_entropy or nn.CrossEntropyLoss.
- `MoE`: a top-2 mixture-of-experts MLP: router logits, softmax, `topk`,
  `one_hot` per-expert masks, an `einsum` combine (`combine="mask"`) or an
  `index_add` of the routed tokens' outputs (`combine="index_add"`).
- `MHA`: nn.MultiheadAttention with an attention mask and a key padding
  mask.
- `DataDependent`: boolean-mask indexing in a submodule, which tracing
  refuses (the importer's error names the module).
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class GQA(nn.Module):
    def __init__(self, vocab_size=16, dim=32, n_heads=4, n_kv_heads=2,
                 repeats="int"):
        super().__init__()
        self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
        self.head_dim = dim // n_heads
        self.repeats = repeats
        self.embed = nn.Embedding(vocab_size, dim)
        self.wq = nn.Linear(dim, n_heads * self.head_dim, bias=False)
        self.wk = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(n_heads * self.head_dim, dim, bias=False)
        self.head = nn.Linear(dim, vocab_size, bias=False)

    def repeat_kv(self, x):
        n_rep = self.n_heads // self.n_kv_heads
        if self.repeats == "tensor":
            counts = torch.full((self.n_kv_heads,), n_rep, dtype=torch.long)
            return torch.repeat_interleave(x, counts, dim=1,
                                           output_size=self.n_heads)
        return torch.repeat_interleave(x, n_rep, dim=1)

    def forward(self, idx, targets):
        x = self.embed(idx)
        B, T, _ = x.shape
        q = self.wq(x).view(B, T, self.n_heads, self.head_dim).transpose(1, 2)
        k = self.wk(x).view(B, T, self.n_kv_heads, self.head_dim).transpose(1, 2)
        v = self.wv(x).view(B, T, self.n_kv_heads, self.head_dim).transpose(1, 2)
        k, v = self.repeat_kv(k), self.repeat_kv(v)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)
        causal = torch.ones(T, T, dtype=torch.bool).tril()
        scores = scores.masked_fill(~causal, float("-inf"))
        y = (F.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(B, T, -1)
        logits = self.head(x + self.wo(y))
        return F.cross_entropy(logits.flatten(0, 1), targets.flatten())


class SmoothedCE(nn.Module):
    def __init__(self, vocab_size=16, dim=32, smoothing=0.1, ignore_index=0,
                 module_loss=False):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim)
        self.head = nn.Linear(dim, vocab_size)
        self.smoothing, self.ignore_index = smoothing, ignore_index
        self.loss = nn.CrossEntropyLoss(label_smoothing=smoothing,
                                        ignore_index=ignore_index) \
            if module_loss else None

    def forward(self, idx, targets):
        logits = self.head(torch.tanh(self.embed(idx))).flatten(0, 1)
        if self.loss is not None:
            return self.loss(logits, targets.flatten())
        return F.cross_entropy(logits, targets.flatten(),
                               label_smoothing=self.smoothing,
                               ignore_index=self.ignore_index)


class Expert(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.w1 = nn.Linear(dim, hidden, bias=False)
        self.w2 = nn.Linear(hidden, dim, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)))


class MoE(nn.Module):
    def __init__(self, vocab_size=16, dim=32, hidden=48, n_experts=4, top_k=2,
                 combine="mask"):
        super().__init__()
        self.n_experts, self.top_k, self.combine = n_experts, top_k, combine
        self.embed = nn.Embedding(vocab_size, dim)
        self.router = nn.Linear(dim, n_experts, bias=False)
        self.experts = nn.ModuleList([Expert(dim, hidden)
                                      for _ in range(n_experts)])
        self.head = nn.Linear(dim, vocab_size, bias=False)

    def moe(self, x):
        probs = F.softmax(self.router(x), dim=-1)
        weights, chosen = torch.topk(probs, self.top_k, dim=-1)
        weights = weights / weights.sum(-1, keepdim=True)
        if self.combine == "index_add":
            return self.index_add_combine(x, weights, chosen)
        # gates[n, e]: the weight of expert e for token n (0 if not chosen).
        masks = F.one_hot(chosen, self.n_experts).to(x.dtype)
        gates = torch.einsum("nk,nke->ne", weights, masks)
        outs = torch.stack([e(x) for e in self.experts], dim=1)
        return torch.einsum("ne,ned->nd", gates, outs)

    def index_add_combine(self, x, weights, chosen):
        # Every (token, slot) pair routed to its expert; each expert's
        # weighted outputs added back to its tokens' rows.
        flat = chosen.flatten()
        token = torch.arange(x.shape[0]).repeat_interleave(self.top_k)
        w = weights.flatten().unsqueeze(-1)
        out = torch.zeros_like(x)
        for i, expert in enumerate(self.experts):
            hit = (flat == i).to(x.dtype).unsqueeze(-1)
            y = expert(x[token]) * w * hit
            out = out.index_add(0, token, y)
        return out

    def forward(self, idx, targets):
        x = self.embed(idx)
        B, T, C = x.shape
        h = x + self.moe(x.reshape(B * T, C)).view(B, T, C)
        logits = self.head(h)
        return F.cross_entropy(logits.flatten(0, 1), targets.flatten())


class MHA(nn.Module):
    def __init__(self, vocab_size=16, dim=32, n_heads=4, pad=0):
        super().__init__()
        self.pad = pad
        self.embed = nn.Embedding(vocab_size, dim)
        self.attn = nn.MultiheadAttention(dim, n_heads, batch_first=True)
        self.head = nn.Linear(dim, vocab_size)

    def forward(self, idx, targets):
        x = self.embed(idx)
        T = idx.shape[1]
        causal = torch.ones(T, T, dtype=torch.bool).triu(1)
        padding = idx == self.pad
        # Keep the first token of every sequence visible (no all-masked row).
        padding[:, 0] = False
        y, _ = self.attn(x, x, x, attn_mask=causal, key_padding_mask=padding,
                         need_weights=False)
        logits = self.head(x + y)
        return F.cross_entropy(logits.flatten(0, 1), targets.flatten())


class KeepLarge(nn.Module):
    def forward(self, x):
        return x[x.abs() > 0.5].sum() + x.sum()


class DataDependent(nn.Module):
    """A forward whose output shape depends on values: boolean-mask
    indexing (aten.nonzero) in h.1.keep; tracing refuses it."""

    def __init__(self, vocab_size=16, dim=8):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim)
        self.h = nn.ModuleList([nn.Linear(dim, dim),
                                nn.ModuleDict({"keep": KeepLarge()})])

    def forward(self, idx, targets):
        return self.h[1]["keep"](self.h[0](self.embed(idx)))

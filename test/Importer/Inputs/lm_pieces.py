"""The language-model ops the GPT-2-style and Llama-style test models do
not use, in one small decoder block written the way users write them:
an embedding with a padding row, a causal mask from position comparisons
(`arange`, `>=` on int64, `~`, `.to(dtype)`, `triu`, `.bool()`), rotary
embeddings in their rotate-half form (slices, `neg`, `cat`), attention
scores by `baddbmm` with an additive mask, a layer norm by hand with
`var_mean`, an exact (erf) GELU, dropout, and a loss that sums
cross-entropy with an ignored label (`ignore_index=0`) and a negative
log-likelihood picked by `gather`.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class Pieces(nn.Module):
    def __init__(self, vocab_size=16, dim=32, n_head=2, max_seq=16, dropout=0.1):
        super().__init__()
        self.n_head, self.dropout = n_head, dropout
        self.embed = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.fc1 = nn.Linear(dim, 2 * dim)
        self.fc2 = nn.Linear(2 * dim, dim)
        self.gain = nn.Parameter(torch.ones(dim))
        self.head = nn.Linear(dim, vocab_size, bias=False)
        head_dim = dim // n_head
        angles = torch.outer(torch.arange(max_seq).float(),
                             1.0 / 100 ** (torch.arange(0, head_dim, 2).float() / head_dim))
        self.register_buffer("cos", torch.cat((angles, angles), -1).cos(), persistent=False)
        self.register_buffer("sin", torch.cat((angles, angles), -1).sin(), persistent=False)

    def norm(self, x):
        var, mean = torch.var_mean(x, dim=-1, keepdim=True, unbiased=False)
        return (x - mean) * torch.rsqrt(var + 1e-5) * self.gain

    def attention(self, x):
        B, T, C = x.shape
        H, D = self.n_head, C // self.n_head
        q, k, v = (t.view(B, T, H, D).transpose(1, 2) for t in self.qkv(x).chunk(3, dim=-1))
        cos, sin = self.cos[:T], self.sin[:T]
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        pos = torch.arange(T, device=x.device)
        causal = pos[:, None] >= pos[None, :]
        bias = (~causal).to(x.dtype) * -1e4
        scores = torch.baddbmm(bias.expand(B * H, T, T), q.reshape(B * H, T, D),
                               k.reshape(B * H, T, D).transpose(1, 2), alpha=1 / math.sqrt(D))
        future = torch.ones(T, T, device=x.device).triu(diagonal=1).bool()
        scores = scores.masked_fill(future, float("-inf"))
        att = F.dropout(F.softmax(scores, dim=-1), self.dropout, self.training)
        y = torch.bmm(att, v.reshape(B * H, T, D)).view(B, H, T, D)
        return self.proj(y.transpose(1, 2).reshape(B, T, C))

    def forward(self, idx, targets):
        x = self.embed(idx)
        x = x + self.attention(self.norm(x))
        x = x + F.dropout(self.fc2(F.gelu(self.fc1(self.norm(x)))), self.dropout, self.training)
        logits = self.head(self.norm(x))
        ce = F.cross_entropy(logits.flatten(0, 1), targets.flatten(), ignore_index=0)
        logp = F.log_softmax(logits, dim=-1)
        picked = logp.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
        return ce - picked.mean()


class Refused(nn.Module):
    """Forms the MLIR lowering refuses (test/Importer/unsupported.test): an
    embedding scaled by token frequency, a Bernoulli draw with
    probabilities from a tensor, cross-entropy with class weights, a sum of
    booleans."""

    def __init__(self, vocab_size=16, dim=8):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim, scale_grad_by_freq=True)
        self.head = nn.Linear(dim, vocab_size)
        self.register_buffer("class_weight", torch.linspace(0.5, 1.5, vocab_size))

    def forward(self, idx, targets):
        x = self.embed(idx)
        x = x * torch.bernoulli(torch.sigmoid(x.detach()))
        logits = self.head(x)
        n = (targets != 0).sum()
        ce = F.cross_entropy(logits.flatten(0, 1), targets.flatten(), weight=self.class_weight)
        return ce * n / n

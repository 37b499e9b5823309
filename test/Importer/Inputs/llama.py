"""A Llama-style language model written the way users write one: RMSNorm,
rotary position embeddings (the rotation of interleaved pairs, computed with
slicing, stack and cat on precomputed cos/sin buffers), grouped multi-head
causal attention in its math form (grouped-query attention when n_kv_head <
n_head: each key and value head repeated for its query heads by
repeat_interleave), a SwiGLU MLP, no biases, an untied LM head, and
`forward(idx, targets)` returning the loss.

The importer tests construct it with --module-args; `llama_60m()` is the
~60 M-parameter model of the LM benchmark, `llama3_8b()` Llama 3 8B's shape
(for --meta: 16 GB of bf16 weights otherwise).
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return x * self.weight


def rotary_tables(head_dim, max_seq, theta=10000.0):
    """cos and sin of every position times every pair's frequency,
    max_seq x head_dim/2."""
    freqs = 1.0 / (theta ** (torch.arange(0, head_dim, 2).float() / head_dim))
    angles = torch.outer(torch.arange(max_seq).float(), freqs)
    return angles.cos(), angles.sin()


def apply_rotary(x, cos, sin):
    """Rotates the pairs (x[..., 2i], x[..., 2i+1]) of x (B, H, T, D) by the
    angles of their positions."""
    x1, x2 = x[..., 0::2], x[..., 1::2]
    r1 = x1 * cos - x2 * sin
    r2 = x1 * sin + x2 * cos
    return torch.stack([r1, r2], dim=-1).flatten(-2)


class Attention(nn.Module):
    def __init__(self, dim, n_head, max_seq, n_kv_head=None):
        super().__init__()
        self.n_head = n_head
        self.n_kv_head = n_kv_head or n_head
        self.head_dim = dim // n_head
        kv_dim = self.n_kv_head * self.head_dim
        self.wq = nn.Linear(dim, dim, bias=False)
        self.wk = nn.Linear(dim, kv_dim, bias=False)
        self.wv = nn.Linear(dim, kv_dim, bias=False)
        self.wo = nn.Linear(dim, dim, bias=False)
        cos, sin = rotary_tables(self.head_dim, max_seq)
        self.register_buffer("cos", cos, persistent=False)
        self.register_buffer("sin", sin, persistent=False)

    def forward(self, x):
        B, T, C = x.shape
        q = self.wq(x).view(B, T, self.n_head, self.head_dim).transpose(1, 2)
        k = self.wk(x).view(B, T, self.n_kv_head, self.head_dim).transpose(1, 2)
        v = self.wv(x).view(B, T, self.n_kv_head, self.head_dim).transpose(1, 2)
        cos, sin = self.cos[:T], self.sin[:T]
        q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)
        if self.n_kv_head != self.n_head:
            rep = self.n_head // self.n_kv_head
            k = k.repeat_interleave(rep, dim=1)
            v = v.repeat_interleave(rep, dim=1)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)
        causal = torch.ones(T, T, dtype=torch.bool, device=x.device).tril()
        scores = torch.where(causal, scores, torch.full_like(scores, float("-inf")))
        y = F.softmax(scores, dim=-1) @ v
        return self.wo(torch.cat([y[:, h] for h in range(self.n_head)], dim=-1))


class FeedForward(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.w1 = nn.Linear(dim, hidden, bias=False)
        self.w2 = nn.Linear(hidden, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class Block(nn.Module):
    def __init__(self, dim, n_head, hidden, max_seq, n_kv_head=None):
        super().__init__()
        self.attention_norm = RMSNorm(dim)
        self.attention = Attention(dim, n_head, max_seq, n_kv_head)
        self.ffn_norm = RMSNorm(dim)
        self.feed_forward = FeedForward(dim, hidden)

    def forward(self, x):
        x = x + self.attention(self.attention_norm(x))
        return x + self.feed_forward(self.ffn_norm(x))


class Llama(nn.Module):
    def __init__(self, vocab_size=512, dim=128, n_layer=4, n_head=4,
                 hidden=None, max_seq=64, freeze_embedding=False,
                 n_kv_head=None):
        super().__init__()
        hidden = hidden or 4 * dim * 2 // 3
        self.tok_embeddings = nn.Embedding(vocab_size, dim)
        self.layers = nn.ModuleList([Block(dim, n_head, hidden, max_seq,
                                           n_kv_head)
                                     for _ in range(n_layer)])
        self.norm = RMSNorm(dim)
        self.output = nn.Linear(dim, vocab_size, bias=False)
        if freeze_embedding:
            self.tok_embeddings.weight.requires_grad_(False)

    def forward(self, idx, targets):
        h = self.tok_embeddings(idx)
        for layer in self.layers:
            h = layer(h)
        logits = self.output(self.norm(h))
        return F.cross_entropy(logits.flatten(0, 1), targets.flatten())


class LlamaLogits(Llama):
    """The same model whose forward returns the logits (for --loss ce)."""

    def forward(self, idx):
        h = self.tok_embeddings(idx)
        for layer in self.layers:
            h = layer(h)
        return self.output(self.norm(h))


def llama_60m(max_seq=512):
    """About 60 M parameters: 8 layers, d=512, 8 heads, SwiGLU hidden 1408,
    vocabulary 32000 (two 16 M embedding tables, untied)."""
    return Llama(vocab_size=32000, dim=512, n_layer=8, n_head=8, hidden=1408,
                 max_seq=max_seq)


def llama3_8b(n_layer=32, max_seq=4096):
    """Llama 3 8B's shape: 32 layers, d=4096, 32 query heads sharing 8 key
    and value heads, SwiGLU hidden 14336, vocabulary 128256 (rotary theta
    500000 changes no shape; the default 10000 is kept)."""
    return Llama(vocab_size=128256, dim=4096, n_layer=n_layer, n_head=32,
                 n_kv_head=8, hidden=14336, max_seq=max_seq)


def shifted_ce(logits, idx):
    """A loss function for --loss FILE.py:shifted_ce: next-token
    cross-entropy of the logits of forward(idx) against idx itself."""
    return F.cross_entropy(logits[:, :-1].flatten(0, 1), idx[:, 1:].flatten())


def token_losses(logits, idx):
    """A mistaken loss function: one loss per token, not their mean."""
    return F.cross_entropy(logits[:, :-1].flatten(0, 1), idx[:, 1:].flatten(),
                           reduction="none")

"""Small modules whose integer and boolean inputs the importer bounds and
remat-run fills (input-bounds.test)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Emb(nn.Module):
    """Token ids into a 10-row table, labels of 3 classes."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4)
        self.fc = nn.Linear(4, 3)

    def forward(self, idx, targets):
        logits = self.fc(self.emb(idx))
        return F.cross_entropy(logits.view(-1, 3), targets.view(-1))


class PaddedAttention(nn.Module):
    """One attention head over a padded batch: keys where the boolean
    key_padding_mask is True are masked out (masked_fill with -inf, as
    nn.MultiheadAttention does), then a 3-class cross-entropy per token."""

    def __init__(self, d=8, classes=3):
        super().__init__()
        self.q, self.k, self.v = (nn.Linear(d, d) for _ in range(3))
        self.out = nn.Linear(d, classes)
        self.scale = 1.0 / math.sqrt(d)

    def forward(self, x, key_padding_mask, targets):
        scores = self.q(x) @ self.k(x).transpose(1, 2) * self.scale
        scores = scores.masked_fill(key_padding_mask[:, None, :],
                                    float("-inf"))
        h = scores.softmax(-1) @ self.v(x)
        logits = self.out(h)
        return F.cross_entropy(logits.flatten(0, 1), targets.flatten())

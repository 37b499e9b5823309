"""A step made of views for test/Importer/view-ops.test: reshape, view,
transpose, permute, unsqueeze, squeeze, slice, select, split, expand and
t (the linear layers' weights) in the forward; their backwards add more."""
import torch
import torch.nn as nn


class Views(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(12, 12)
        self.head = nn.Linear(6, 10)

    def forward(self, x):
        n = x.shape[0]
        y = self.fc(x.reshape(n, 12)).view(n, 3, 4)
        y = y.permute(0, 2, 1).transpose(1, 2)
        y = y.unsqueeze(1).squeeze(1)
        a, b = y.split(2, dim=2)
        z = a[:, 1:3] * b.select(2, 0).unsqueeze(2)[:, 0:2].expand(n, 2, 2)
        return self.head(torch.cat([z.reshape(n, 4), z[:, 0]], dim=1))

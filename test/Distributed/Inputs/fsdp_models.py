"""Models of the fully sharded data-parallel tests (remat-import-torch
--shard N --fsdp): parameters whose dimension 0 does not divide by the
ranks (padded shards), and one that cannot be sharded at all."""
import torch
import torch.nn as nn


class OddMLP(nn.Module):
    """Three linear layers with 7, 5 and 4 output rows (4 classes: the
    runners' labels are 0..3): over 2 ranks the last shard of fc1's and
    fc2's parameters is padded, fc3's divide evenly."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(12, 7)
        self.fc2 = nn.Linear(7, 5)
        self.fc3 = nn.Linear(5, 4)

    def forward(self, x):
        x = torch.relu(self.fc1(x))
        x = torch.tanh(self.fc2(x))
        return self.fc3(x)


class ScaledLinear(nn.Module):
    """A linear layer times a learned scalar: the scalar (0-d) parameter
    has no dimension 0 to shard."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 4)
        self.scale = nn.Parameter(torch.tensor(0.5))

    def forward(self, x):
        return self.fc(x) * self.scale



class DeepMLP(nn.Module):
    """Six 16 x 16 linear layers and a 16 x 4 one on a small batch (4
    classes): the gathered weights (1,024 bytes a layer) outweigh the
    activations, and the backward pass of each layer needs its weight
    again (remat-import-torch-fsdp-regather.test, docs/Distributed.md)."""

    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(16, 16) for _ in range(6))
        self.head = nn.Linear(16, 4)

    def forward(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x))
        return self.head(x)

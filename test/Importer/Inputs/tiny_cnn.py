"""A tiny CNN for the importer tests: conv (strided, padded) + batch norm +
ReLU, max pool, a second conv with bias, global average pool, linear head."""
import torch.nn as nn


class TinyCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, stride=2, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(3, stride=2, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.avg = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = self.pool(self.relu(self.bn1(self.conv1(x))))
        x = self.relu(self.conv2(x))
        return self.fc(self.avg(x).flatten(1))


class WithUnsupported(nn.Module):
    """Uses ops the MLIR lowering does not cover (grouped conv, sort)."""

    def __init__(self):
        super().__init__()
        self.dw = nn.Conv2d(4, 4, 3, groups=4, padding=1)
        self.fc = nn.Linear(4 * 8 * 8, 10)

    def forward(self, x):
        x = self.dw(x)
        x = x.sort(dim=-1).values
        return self.fc(x.flatten(1))

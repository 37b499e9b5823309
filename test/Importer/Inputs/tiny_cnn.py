"""A tiny CNN for the importer tests: conv (strided, padded) + batch norm +
ReLU, max pool, a second conv with bias, global average pool, linear head."""
import torch
import torch.nn as nn
import torch.nn.functional as F


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
    """Uses ops the MLIR lowering does not cover (transposed conv, sort)."""

    def __init__(self):
        super().__init__()
        self.up = nn.ConvTranspose2d(4, 4, 2, stride=2)
        self.fc = nn.Linear(4 * 16 * 16, 10)

    def forward(self, x):
        x = self.up(x)
        x = x.sort(dim=-1).values
        return self.fc(x.flatten(1))


class TinyMobile(nn.Module):
    """mobilenet_v2's pieces: conv-BN-ReLU6 stem, inverted residual blocks
    (1x1 expand, 3x3 depthwise strided, 1x1 project, residual add), a
    grouped conv with bias, global average pool, dropout, linear head."""

    def __init__(self):
        super().__init__()
        from torchvision.models.mobilenetv2 import InvertedResidual
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1, bias=False),
                                  nn.BatchNorm2d(8), nn.ReLU6())
        self.b1 = InvertedResidual(8, 8, 1, 4)
        self.b2 = InvertedResidual(8, 16, 2, 4)
        self.grouped = nn.Conv2d(16, 16, 3, padding=2, dilation=2, groups=4)
        self.drop = nn.Dropout(0.2)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = self.grouped(self.b2(self.b1(self.stem(x))))
        return self.fc(self.drop(x.mean((2, 3))))


class TinyViT(nn.Module):
    """A vision-transformer block (torchvision's EncoderBlock: layer norm,
    multi-head self-attention, GELU MLP, residuals) on 4x4 patches, a class
    token, a final layer norm and a linear head."""

    def __init__(self):
        super().__init__()
        import torch
        from torchvision.models.vision_transformer import EncoderBlock
        self.patch = nn.Conv2d(3, 16, 4, stride=4)
        self.cls = nn.Parameter(torch.zeros(1, 1, 16))
        self.pos = nn.Parameter(torch.zeros(1, 17, 16))
        self.block = EncoderBlock(2, 16, 32, 0.0, 0.0)
        self.ln = nn.LayerNorm(16)
        self.head = nn.Linear(16, 10)

    def forward(self, x):
        import torch
        x = self.patch(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1)
        x = self.block(x + self.pos)
        return self.head(self.ln(x)[:, 0])


class TinyConvNet(nn.Module):
    """TinyCNN without batch norm, whose samples are independent: the
    data-parallel test's model (batch norm couples a batch's samples)."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, stride=2, padding=1, bias=False)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(3, stride=2, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.avg = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = self.pool(self.relu(self.conv1(x)))
        x = self.relu(self.conv2(x))
        return self.fc(self.avg(x).flatten(1))


class TinyPools(nn.Module):
    """densenet's, squeezenet's and vgg16's pools on small images: an
    average pool (12x12 -> 6x6, padded), a max pool with
    ceil_mode (6x6 -> 3x3, the last window partial), then adaptive average
    pooling to a size that divides nothing: 3x3 -> 2x5 (overlapping windows
    in height, repeated inputs in width; vgg16's 7x7 pool grows 1x1)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.gate = nn.Sigmoid()  # regnet's squeeze-excitation gate
        self.avgpool = nn.AvgPool2d(3, stride=2, padding=1)
        self.maxpool = nn.MaxPool2d(3, stride=2, ceil_mode=True)
        self.pool = nn.AdaptiveAvgPool2d((2, 5))
        self.fc = nn.Linear(4 * 2 * 5, 10)

    def forward(self, x):
        x = self.conv(x)
        x = self.pool(self.maxpool(self.avgpool(x * self.gate(x))))
        return self.fc(x.flatten(1))


class TinyBN(nn.Module):
    """Batch norm's running statistics: a 2-d batch norm with momentum 0.3,
    one without affine parameters, a 1-d batch norm on features."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 4, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(4, momentum=0.3)
        self.conv2 = nn.Conv2d(4, 4, 3, stride=2, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(4, affine=False)
        self.fc1 = nn.Linear(4, 6)
        self.bn3 = nn.BatchNorm1d(6)
        self.fc2 = nn.Linear(6, 10)

    def forward(self, x):
        x = self.bn1(self.conv1(x)).relu()
        x = self.bn2(self.conv2(x)).relu()
        return self.fc2(self.bn3(self.fc1(x.mean((2, 3)))).relu())


class CumulativeBN(nn.Module):
    """A batch norm with momentum=None (a cumulative average: the update
    depends on num_batches_tracked's value)."""

    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm1d(4, momentum=None)
        self.fc = nn.Linear(4, 10)

    def forward(self, x):
        return self.fc(self.bn(x))


class NameClash(nn.Module):
    """Parameters named like values the emitter makes: %c1 (the loss
    tangent's constant), %r and %a0 (payload names), %x (the input)."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Parameter(torch.linspace(-0.4, 0.4, 32).reshape(4, 8))
        self.r = nn.Parameter(torch.linspace(-0.1, 0.2, 4))
        self.a0 = nn.Parameter(torch.linspace(0.5, 1.5, 4))
        self.x = nn.Parameter(torch.linspace(0.3, -0.3, 4))

    def forward(self, inp):
        h = torch.sigmoid(inp.flatten(1) @ self.c1.t() + self.r)
        return h * self.a0 + self.x


class TinySwin(nn.Module):
    """swin_t's data movement: a cyclic shift (roll), padding
    (constant_pad_nd), a gather with a constant index tensor built in
    forward (a tensor constant of the traced code, aten.index), stochastic
    depth (bernoulli_ on a new tensor), a linear head."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.fc = nn.Linear(4 * 3 * 10, 10)

    def forward(self, x):
        x = torch.roll(self.conv(x), shifts=(2, 2), dims=(2, 3))
        x = F.pad(x, (1, 1, 1, 1))
        order = torch.tensor([9, 0, 4])
        x = x[:, :, order]
        keep = torch.empty(x.shape[0], 1, 1, 1).bernoulli_(0.8) / 0.8
        return self.fc((x * keep).flatten(1))


class TinyInPlace(nn.Module):
    """efficientnet_b0's classifier: an in-place dropout on the flattened
    pooled features, a view of the pool's result. Functionalized, the
    view's gradient leaves as_strided, as_strided_scatter, new_empty and
    zero in the joint graph."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.drop = nn.Dropout(0.2, inplace=True)
        self.fc = nn.Linear(4, 10)

    def forward(self, x):
        x = F.adaptive_avg_pool2d(torch.relu(self.conv(x)), 1)
        return self.fc(self.drop(torch.flatten(x, 1)))


class StridedRefused(nn.Module):
    """An as_strided the lowering refuses: the feature map read through
    transposed strides (positions not in row-major order)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.fc = nn.Linear(4, 10)

    def forward(self, x):
        y = self.conv(x)  # 2 x 4 x 4 x 4
        return self.fc(y.as_strided((2, 16, 4), (64, 1, 16)).mean(1))


class TwoInputs(nn.Module):
    """Two float inputs: an image and a gain per sample and class."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.fc = nn.Linear(4, 10)

    def forward(self, x, gain):
        return self.fc(torch.relu(self.conv(x)).mean((2, 3))) * gain


class FrozenStem(TinyCNN):
    """TinyCNN with its first convolution frozen (requires_grad=False): a
    resident argument with no gradient, no update and no optimizer state."""

    def __init__(self):
        super().__init__()
        self.conv1.weight.requires_grad_(False)


class TinyResNet(nn.Module):
    """ResNet in miniature, from torchvision's own BasicBlock: a conv-BN-ReLU
    stem, two residual blocks (the second strided, with a 1x1 projection on
    its shortcut), global average pool, linear head (bench/fsdp.py)."""

    def __init__(self):
        super().__init__()
        from torchvision.models.resnet import BasicBlock
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1, bias=False),
                                  nn.BatchNorm2d(8), nn.ReLU())
        self.block1 = BasicBlock(8, 8)
        self.block2 = BasicBlock(8, 16, stride=2, downsample=nn.Sequential(
            nn.Conv2d(8, 16, 1, stride=2, bias=False), nn.BatchNorm2d(16)))
        self.avg = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = self.block2(self.block1(self.stem(x)))
        return self.fc(self.avg(x).flatten(1))

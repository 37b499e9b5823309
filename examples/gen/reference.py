#!/usr/bin/env python3
# ===- reference.py - Independent loss values for the examples -------------===#
#
# Pure-Python (double precision, standard library only) forward passes of the
# examples in examples/ and examples/generated/, on the same deterministic inputs the
# drivers build (see examples/README.md, "Inputs"):
#
#   argument i of the step, flat row-major index k:
#     parameters:  scale_i * sin(0.37 k + 0.5 i + 0.25), scale_i = 0.1 for
#                  rank-1 tensors, 1/sqrt(prod(shape[:-1])) otherwise;
#     inputs:      sin(0.37 k + 0.5 i + 0.25), except `y` (one-hot labels):
#                  y[b, c] = 1 if c == (3 b + 1) mod C else 0.
#
# It shares no code with the MLIR: it is the hand check of the loss that the
# lit tests in test/Examples/ compare against. The gradients are checked
# separately by the `--main gradcheck` drivers of gen_training_step.py.
#
# Usage: reference.py [mlp|cnn|residual|resnet4|resnet8|unet3|transformer2|transformer2ln|
#                     resnet8_b64|unet4_b64|transformer3_s64|convresnet4...]
#
# ===----------------------------------------------------------------------===#

import math
import sys


def init(i, shape, param):
    n = 1
    for d in shape:
        n *= d
    if not param:
        scale = 1.0
    elif len(shape) == 1:
        scale = 0.1
    else:
        fan_in = n // shape[-1]
        scale = 1.0 / math.sqrt(fan_in)
    flat = [scale * math.sin(0.37 * k + 0.5 * i + 0.25) for k in range(n)]
    return reshape(flat, shape)


def reshape(flat, shape):
    if len(shape) == 1:
        return list(flat)
    step = len(flat) // shape[0]
    return [reshape(flat[j * step:(j + 1) * step], shape[1:]) for j in range(shape[0])]


def onehot(rows, classes):
    return [[1.0 if c == (3 * b + 1) % classes else 0.0 for c in range(classes)]
            for b in range(rows)]


def linear(x, w, b):
    return [[sum(xr[k] * w[k][j] for k in range(len(w))) + b[j] for j in range(len(b))]
            for xr in x]


def matmul(x, w):
    return [[sum(xr[k] * w[k][j] for k in range(len(w))) for j in range(len(w[0]))]
            for xr in x]


def relu(x):
    if isinstance(x, list):
        return [relu(v) for v in x]
    return max(x, 0.0)


def softmax_ce(logits, y):
    total = 0.0
    for z, t in zip(logits, y):
        m = max(z)
        lse = m + math.log(sum(math.exp(v - m) for v in z))
        total -= sum(tc * (v - lse) for v, tc in zip(z, t))
    return total / len(logits)


def mlp():
    shapes = [[32, 64], [64], [64, 64], [64], [64, 10], [10]]
    p = [init(i, s, True) for i, s in enumerate(shapes)]
    x = init(6, [8, 32], False)
    y = onehot(8, 10)
    a1 = relu(linear(x, p[0], p[1]))
    a2 = relu(linear(a1, p[2], p[3]))
    return softmax_ce(linear(a2, p[4], p[5]), y)


def conv_nhwc_hwcf(x, w, b):
    n, h, wd, c = len(x), len(x[0]), len(x[0][0]), len(x[0][0][0])
    kh, kw, f = len(w), len(w[0]), len(w[0][0][0])
    oh, ow = h - kh + 1, wd - kw + 1
    return [[[[b[fi] + sum(x[ni][i + a][j + e][ci] * w[a][e][ci][fi]
                            for a in range(kh) for e in range(kw) for ci in range(c))
               for fi in range(f)] for j in range(ow)] for i in range(oh)]
            for ni in range(n)]


def maxpool2(x):
    return [[[[max(img[2 * i + a][2 * j + e][fi] for a in range(2) for e in range(2))
               for fi in range(len(img[0][0]))] for j in range(len(img[0]) // 2)]
             for i in range(len(img) // 2)] for img in x]


def cnn():
    shapes = [[3, 3, 3, 4], [4], [3, 3, 4, 8], [8], [72, 10], [10]]
    p = [init(i, s, True) for i, s in enumerate(shapes)]
    x = init(6, [4, 10, 10, 3], False)
    y = onehot(4, 10)
    a1 = relu(conv_nhwc_hwcf(x, p[0], p[1]))
    a2 = relu(conv_nhwc_hwcf(a1, p[2], p[3]))
    pooled = maxpool2(a2)
    flat = [[v for row in img for col in row for v in col] for img in pooled]
    return softmax_ce(linear(flat, p[4], p[5]), y)


def residual():
    blocks, d, h = 5, 32, 64
    shapes = []
    for _ in range(blocks):
        shapes += [[d, h], [h, d]]
    p = [init(i, s, True) for i, s in enumerate(shapes)]
    x = init(2 * blocks, [8, d], False)
    target = init(2 * blocks + 1, [8, d], False)
    for i in range(blocks):
        u = relu(matmul(x, p[2 * i]))
        v = matmul(u, p[2 * i + 1])
        x = [[a + c for a, c in zip(r, s)] for r, s in zip(x, v)]
    return 0.5 / len(x) * sum((a - t) ** 2 for r, s in zip(x, target) for a, t in zip(r, s))


def add(a, b):
    return [[u + v for u, v in zip(r, s)] for r, s in zip(a, b)]


def transpose(a):
    return [list(c) for c in zip(*a)]


def mse(out, target):
    return 0.5 / len(out) * sum((a - t) ** 2 for r, s in zip(out, target)
                                for a, t in zip(r, s))


def args_of(shapes, inputs):
    p = [init(i, s, True) for i, s in enumerate(shapes)]
    n = len(shapes)
    return p, [init(n + j, s, False) for j, s in enumerate(inputs)]


def resnet(blocks, b=8, d=32, h=64, c=10):
    shapes = []
    for _ in range(blocks):
        shapes += [[d, h], [h], [h, d], [d]]
    shapes += [[d, c], [c]]
    p, (x,) = args_of(shapes, [[b, d]])
    for i in range(blocks):
        u = relu(linear(x, p[4 * i], p[4 * i + 1]))
        x = add(x, linear(u, p[4 * i + 2], p[4 * i + 3]))
    return softmax_ce(linear(x, p[-2], p[-1]), onehot(b, c))


def unet(widths, b=8):
    levels = len(widths) - 1
    shapes = []
    for i in range(levels):
        shapes += [[widths[i], widths[i + 1]], [widths[i + 1]]]
    for i in reversed(range(levels)):
        shapes += [[widths[i + 1], widths[i]], [widths[i]]]
    p, (x, target) = args_of(shapes, [[b, widths[0]], [b, widths[0]]])
    enc = [x]
    for i in range(levels):
        enc.append(relu(linear(enc[i], p[2 * i], p[2 * i + 1])))
    d = enc[levels]
    for j, i in enumerate(reversed(range(levels))):
        k = 2 * levels + 2 * j
        d = add(relu(linear(d, p[k], p[k + 1])), enc[i])
    return mse(d, target)


def layernorm(x, gamma, beta, eps=1e-5):
    out = []
    for r in x:
        mean = sum(r) / len(r)
        var = sum((a - mean) ** 2 for a in r) / len(r)
        out.append([(a - mean) / math.sqrt(var + eps) * g + c
                    for a, g, c in zip(r, gamma, beta)])
    return out


def transformer(blocks, s=8, d=32, f=64, c=10, ln=False):
    per_block = ([[d], [d]] if ln else []) + [[d, d]] * 4 + \
        ([[d], [d]] if ln else []) + [[d, f], [f], [f, d], [d]]
    shapes = per_block * blocks + [[d, c], [c]]
    p, (x,) = args_of(shapes, [[s, d]])
    n = len(per_block)
    for i in range(blocks):
        blk = list(p[n * i:n * (i + 1)])
        a = layernorm(x, blk.pop(0), blk.pop(0)) if ln else x
        wq, wk, wv, wo = blk[:4]
        blk = blk[4:]
        q, k, v = matmul(a, wq), matmul(a, wk), matmul(a, wv)
        scores = [[e / math.sqrt(d) for e in r] for r in matmul(q, transpose(k))]
        probs = []
        for r in scores:
            m = max(r)
            e = [math.exp(a - m) for a in r]
            probs.append([a / sum(e) for a in e])
        x = add(x, matmul(matmul(probs, v), wo))
        m = layernorm(x, blk.pop(0), blk.pop(0)) if ln else x
        w1, b1, w2, b2 = blk
        x = add(x, linear(relu(linear(m, w1, b1)), w2, b2))
    return softmax_ce(linear(x, p[-2], p[-1]), onehot(s, c))


def pad_hw(x, p):
    out = []
    for img in x:
        h, w, c = len(img), len(img[0]), len(img[0][0])
        zero_row = [[0.0] * c for _ in range(w + 2 * p)]
        rows = [list(zero_row) for _ in range(p)]
        rows += [[[0.0] * c] * p + row + [[0.0] * c] * p for row in img]
        rows += [list(zero_row) for _ in range(p)]
        out.append(rows)
    return out


def conv_resnet(blocks, b=4, s=8, d=8, c=10):
    shapes = []
    for _ in range(blocks):
        shapes += [[3, 3, d, d], [d], [3, 3, d, d], [d]]
    shapes += [[d, c], [c]]
    p, (x,) = args_of(shapes, [[b, s, s, d]])
    for i in range(blocks):
        u = relu(conv_nhwc_hwcf(pad_hw(x, 1), p[4 * i], p[4 * i + 1]))
        v = conv_nhwc_hwcf(pad_hw(u, 1), p[4 * i + 2], p[4 * i + 3])
        x = [[[[e + f for e, f in zip(px, pv)] for px, pv in zip(rx, rv)]
              for rx, rv in zip(ix, iv)] for ix, iv in zip(x, v)]
    pooled = [[sum(img[i][j][ch] for i in range(s) for j in range(s)) / (s * s)
               for ch in range(d)] for img in x]
    return softmax_ce(linear(pooled, p[-2], p[-1]), onehot(b, c))


MODELS = {
    "mlp": mlp, "cnn": cnn, "residual": residual,
    # examples/generated/ (configurations as in examples/gen/regenerate.sh)
    "resnet4": lambda: resnet(4), "resnet8": lambda: resnet(8),
    "unet3": lambda: unet([64, 48, 32, 16]),
    "transformer2": lambda: transformer(2),
    "transformer2ln": lambda: transformer(2, ln=True),
    "resnet8_b64": lambda: resnet(8, b=64, h=128),
    "unet4_b64": lambda: unet([64, 48, 32, 24, 16], b=64),
    "transformer3_s64": lambda: transformer(3, s=64, ln=True),
    "convresnet4": lambda: conv_resnet(4),
}

if __name__ == "__main__":
    for which in sys.argv[1:] or sorted(MODELS):
        print("%s loss = %.9g" % (which, MODELS[which]()))

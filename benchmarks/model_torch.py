"""PyTorch equivalents of the model suite (examples/models/), built from the
same weights, for benchmarks/compare_models.py: each takes the same input
the Kiln program takes (the embedding bag's ids as int64, torch's index
type) and computes the same math. The NHWC MobileNet block runs channels_last
(a permuted view of the NHWC input, no copy), as torch would run it."""
import openblas_core  # noqa: F401  (before torch: OpenBLAS's kernels for this CPU)
import torch
import torch.nn.functional as F

t = lambda a: torch.from_numpy(a.copy())


class Transformer(torch.nn.Module):
    def __init__(self, m, w):
        super().__init__()
        self.m = m
        self.p = torch.nn.ParameterDict({k: torch.nn.Parameter(t(v), requires_grad=False) for k, v in w.items()})

    def forward(self, x):
        m, p = self.m, self.p
        B = x.shape[0]
        xn = F.layer_norm(x, (m.D,), p["ln1_g"], p["ln1_b"], m.EPS)
        q, k, v = ((xn @ p["w" + n] + p["b" + n]).view(B, m.S, m.H, m.DH).transpose(1, 2) for n in "qkv")
        s = (q @ k.transpose(-1, -2)) * (m.DH ** -0.5)
        ctx = (torch.softmax(s, -1) @ v).transpose(1, 2).reshape(B, m.S, m.D)
        h = x + ctx @ p["wo"] + p["bo"]
        hn = F.layer_norm(h, (m.D,), p["ln2_g"], p["ln2_b"], m.EPS)
        return h + F.gelu(hn @ p["w1"] + p["b1"], approximate="tanh") @ p["w2"] + p["b2"]


def _bn(n, w, i, eps):
    bn = torch.nn.BatchNorm2d(n, eps=eps)
    bn.weight.data, bn.bias.data = t(w["bn%s_g" % i]), t(w["bn%s_b" % i])
    bn.running_mean.data, bn.running_var.data = t(w["bn%s_m" % i]), t(w["bn%s_v" % i])
    return bn


class ResNetBlock(torch.nn.Module):
    def __init__(self, m, w):
        super().__init__()
        self.c1 = torch.nn.Conv2d(m.C, m.C, 3, padding=1, bias=False)
        self.c2 = torch.nn.Conv2d(m.C, m.C, 3, padding=1, bias=False)
        self.c1.weight.data, self.c2.weight.data = t(w["conv1"]), t(w["conv2"])
        self.b1, self.b2 = _bn(m.C, w, "1", m.EPS), _bn(m.C, w, "2", m.EPS)

    def forward(self, x):
        return torch.relu(self.b2(self.c2(torch.relu(self.b1(self.c1(x))))) + x)


class MobileNetBlock(torch.nn.Module):
    def __init__(self, m, w):
        super().__init__()
        self.expand = torch.nn.Conv2d(m.C, m.E, 1, bias=False)
        self.dw = torch.nn.Conv2d(m.E, m.E, 3, padding=1, groups=m.E, bias=False)
        self.project = torch.nn.Conv2d(m.E, m.C, 1, bias=False)
        for name in ("expand", "dw", "project"):  # HWIO -> OIHW
            getattr(self, name).weight.data = t(w[name].transpose(3, 2, 0, 1))
        self.b1, self.b2, self.b3 = (_bn(n, w, i, m.EPS) for i, n in (("1", m.E), ("2", m.E), ("3", m.C)))
        self.to(memory_format=torch.channels_last)

    def forward(self, x):  # x: NHWC
        xc = x.permute(0, 3, 1, 2)  # NCHW view, channels_last in memory
        y = F.relu6(self.b1(self.expand(xc)))
        y = F.relu6(self.b2(self.dw(y)))
        return (self.b3(self.project(y)) + xc).permute(0, 2, 3, 1)


class GRU(torch.nn.Module):
    def __init__(self, m, w):
        super().__init__()
        self.gru = torch.nn.GRU(m.I, m.H, batch_first=True)
        self.gru.weight_ih_l0.data, self.gru.weight_hh_l0.data = t(w["w_i"].T), t(w["w_h"].T)
        self.gru.bias_ih_l0.data, self.gru.bias_hh_l0.data = t(w["b_i"]), t(w["b_h"])

    def forward(self, x):
        return self.gru(x)[1][0]


class EmbeddingBag(torch.nn.Module):
    def __init__(self, m, w):
        super().__init__()
        self.emb = torch.nn.Embedding(m.V, m.D)
        self.emb.weight.data = t(w["table"])
        self.w, self.b = t(w["w"]), t(w["b"])

    def forward(self, ids):
        return self.emb(ids).mean(1) @ self.w + self.b


MODULES = {"transformer": Transformer, "resnet_block": ResNetBlock, "mobilenet_block": MobileNetBlock,
           "gru": GRU, "embedding_bag": EmbeddingBag}


def build(name, m, w):
    mod = MODULES[name](m, w).eval()
    for p in mod.parameters():
        p.requires_grad_(False)
    return mod

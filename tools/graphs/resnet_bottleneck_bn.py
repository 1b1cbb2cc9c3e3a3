#!/usr/bin/env python3
"""Writes a oneDNN graph JSON of ResNet-50 bottleneck blocks with BatchNormInference nodes.

Each block (identity shortcut, as ResNet-50's conv2_x blocks 2 and 3): 1x1 conv C->C/4, BN, ReLU;
3x3 conv C/4->C/4, BN, ReLU; 1x1 conv C/4->C, BN; Add(residual); ReLU. Convolutions have no bias
(as exported from PyTorch); weights and BN parameters are constant tensors (their values are
seeded by partita). Usage: resnet_bottleneck_bn.py OUT.json [--blocks 3] [--channels 256]
[--size 56] [--format NCX|NXC]
"""
import argparse
import json


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--blocks", type=int, default=3)
    ap.add_argument("--channels", type=int, default=256)
    ap.add_argument("--size", type=int, default=56)
    ap.add_argument("--format", choices=["NCX", "NXC"], default="NCX")
    a = ap.parse_args()
    nxc = a.format == "NXC"
    ids = iter(range(1 << 30))
    ops = []

    def act_dims(c):
        return [1, a.size, a.size, c] if nxc else [1, c, a.size, a.size]

    def lt(tid, shape, prop):
        strides, acc = [], 1
        for d in reversed(shape):
            strides.insert(0, acc)
            acc *= d
        return {"id": tid, "dtype": "f32", "shape": shape, "stride": strides, "layout_type": "strided",
                "property_type": prop}

    def op(kind, name, inputs, out, attrs):
        ops.append({"id": len(ops), "name": name, "kind": kind, "attrs": attrs, "inputs": inputs, "outputs": [out]})

    def conv(x, cin, cout, k, name):
        pad = k // 2
        w = lt(next(ids), [cout, cin, k, k], "constant")
        y = lt(next(ids), act_dims(cout), "variable")
        attrs = {"strides": {"type": "s64[]", "value": [1, 1]}, "pads_begin": {"type": "s64[]", "value": [pad, pad]},
                 "pads_end": {"type": "s64[]", "value": [pad, pad]}, "dilations": {"type": "s64[]", "value": [1, 1]},
                 "groups": {"type": "s64", "value": 1}, "auto_pad": {"type": "string", "value": "None"},
                 "data_format": {"type": "string", "value": a.format},
                 "weights_format": {"type": "string", "value": "OIX"}}
        op("Convolution", name, [x, w], y, attrs)
        return y

    def bn(x, c, name):
        params = [lt(next(ids), [c], "constant") for _ in range(4)]
        y = lt(next(ids), x["shape"], "variable")
        op("BatchNormInference", name, [x] + params, y,
           {"epsilon": {"type": "f32", "value": 1e-5}, "data_format": {"type": "string", "value": a.format}})
        return y

    def unary(kind, x, name):
        y = lt(next(ids), x["shape"], "variable")
        op(kind, name, [x], y, {})
        return y

    c, mid = a.channels, a.channels // 4
    x = lt(next(ids), act_dims(c), "variable")
    for b in range(a.blocks):
        p = "block%d_" % b
        y = unary("ReLU", bn(conv(x, c, mid, 1, p + "conv1"), mid, p + "bn1"), p + "relu1")
        y = unary("ReLU", bn(conv(y, mid, mid, 3, p + "conv2"), mid, p + "bn2"), p + "relu2")
        y = bn(conv(y, mid, c, 1, p + "conv3"), c, p + "bn3")
        s = lt(next(ids), y["shape"], "variable")
        op("Add", p + "add", [y, x], s, {"auto_broadcast": {"type": "string", "value": "numpy"}})
        x = unary("ReLU", s, p + "relu3")
    g = {"version": "3.0.0", "engine_kind": "cpu", "fpmath_mode": "strict", "fpmath_mode_apply_to_int": "false",
         "graph": ops}
    with open(a.out, "w") as f:
        json.dump(g, f, indent=1)


if __name__ == "__main__":
    main()

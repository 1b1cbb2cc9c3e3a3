package io.partita.backend.dnnl.internal.ops;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A 2-D convolution's sizes, resolved: images, channels (all and per group), spatial sizes,
 * kernel, strides, dilations (1 = none), begin paddings (auto_pad already applied; negative crops),
 * and the source's strides in (n, c, h, w) order whatever the data format.
 */
record ConvShape(int n, int ic, int ih, int iw, int oc, int oh, int ow, int kh, int kw, int sh, int sw, int dh,
        int dw, int pt, int pl, int groups, long sN, long sC, long sH, long sW) {

    int icg() {
        return ic / groups;
    }

    int ocg() {
        return oc / groups;
    }

    /** Rows of the GEMM's reduction: input channels per group times kernel taps. */
    int k() {
        return icg() * kh * kw;
    }

    /** Output pixels per image. */
    int pixels() {
        return oh * ow;
    }

    /** Extent of the dilated kernel along H and W. */
    int effKh() {
        return (kh - 1) * dh + 1;
    }

    int effKw() {
        return (kw - 1) * dw + 1;
    }

    /**
     * Copies weights given by their strides in (o, i, h, w) order (elements, from the segment's start)
     * into {@code dst} densely in that order: one bulk copy when they are dense already (an ONNX or
     * oneDNN OIHW tensor), else element by element. Constant weights are prepared in a graph's first
     * execution, before the JIT has compiled much: ResNet-50's 25 M weights read one by one through the
     * segment, with index arithmetic per element, were a quarter of its first iteration.
     */
    void denseWeights(MemorySegment w, long so, long si, long sh, long sw, float[] dst) {
        int icg = icg();
        int taps = kh * kw;
        if (so == (long) icg * taps && si == taps && sh == kw && sw == 1) {
            MemorySegment.copy(w, ValueLayout.JAVA_FLOAT_UNALIGNED, 0, dst, 0,
                    Math.multiplyExact(oc, icg * taps));
            return;
        }
        int at = 0;
        for (int o = 0; o < oc; o++) {
            for (int i = 0; i < icg; i++) {
                for (int y = 0; y < kh; y++) {
                    for (int x = 0; x < kw; x++) {
                        dst[at++] = w.get(ValueLayout.JAVA_FLOAT_UNALIGNED,
                                4L * (o * so + i * si + y * sh + x * sw));
                    }
                }
            }
        }
    }

    /** Multiply-adds times two. */
    long flops() {
        return 2L * n * oc * pixels() * k();
    }
}

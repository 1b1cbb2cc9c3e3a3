package io.partita.backend.dnnl.internal.ops;

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

    /** Multiply-adds times two. */
    long flops() {
        return 2L * n * oc * pixels() * k();
    }
}

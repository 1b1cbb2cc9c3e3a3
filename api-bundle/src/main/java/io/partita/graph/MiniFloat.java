package io.partita.graph;

/**
 * 8-bit floating-point formats (OCP FP8): E5M2 (IEEE-like, with infinities) and E4M3 (no
 * infinities, one NaN pattern, largest finite 448). Encoding rounds half to even; E4M3 saturates
 * to +-448 on overflow, E5M2 overflows to infinity.
 */
enum MiniFloat {
    E5M2(5, 2, 15, true),
    E4M3(4, 3, 7, false);

    private final int expBits;
    private final int manBits;
    private final int bias;
    private final boolean ieee;
    private final double maxFinite;
    private final double[] decoded = new double[256];

    MiniFloat(int expBits, int manBits, int bias, boolean ieee) {
        this.expBits = expBits;
        this.manBits = manBits;
        this.bias = bias;
        this.ieee = ieee;
        int maxExp = (1 << expBits) - 1;
        // E5M2's top exponent is inf/NaN; E4M3 uses it for numbers except mantissa all ones.
        double maxMantissa = ieee ? 2 - Math.scalb(1.0, -manBits) : 2 - Math.scalb(2.0, -manBits);
        this.maxFinite = Math.scalb(maxMantissa, (ieee ? maxExp - 1 : maxExp) - bias);
        for (int b = 0; b < 256; b++) {
            decoded[b] = decodeSlow(b);
        }
    }

    public double maxFinite() {
        return maxFinite;
    }

    public double decode(int bits) {
        return decoded[bits & 0xff];
    }

    private double decodeSlow(int bits) {
        int sign = (bits >>> 7) & 1;
        int exp = (bits >>> manBits) & ((1 << expBits) - 1);
        int man = bits & ((1 << manBits) - 1);
        int maxExp = (1 << expBits) - 1;
        double v;
        if (ieee && exp == maxExp) {
            v = man == 0 ? Double.POSITIVE_INFINITY : Double.NaN;
        } else if (!ieee && exp == maxExp && man == (1 << manBits) - 1) {
            v = Double.NaN;
        } else if (exp == 0) {
            v = Math.scalb((double) man, 1 - bias - manBits);
        } else {
            v = Math.scalb(1.0 + Math.scalb((double) man, -manBits), exp - bias);
        }
        return sign == 1 ? -v : v;
    }

    public int encode(double v) {
        int sign = (Double.doubleToRawLongBits(v) >>> 63) != 0 ? 0x80 : 0;
        int maxExp = (1 << expBits) - 1;
        if (Double.isNaN(v)) {
            return ieee ? (maxExp << manBits) | (1 << (manBits - 1)) : 0x7f;
        }
        double a = Math.abs(v);
        if (Double.isInfinite(a)) {
            return sign | (ieee ? maxExp << manBits : 0x7e);
        }
        int e = Math.getExponent(a);
        int minNormalExp = 1 - bias;
        double quantum = Math.scalb(1.0, Math.max(e, minNormalExp) - manBits);
        double q = Math.rint(a / quantum) * quantum;
        if (q > maxFinite) {
            return sign | (ieee ? maxExp << manBits : 0x7e);
        }
        if (q == 0) {
            return sign;
        }
        int qe = Math.getExponent(q);
        if (qe < minNormalExp) {
            return sign | (int) (q / Math.scalb(1.0, minNormalExp - manBits));
        }
        int man = (int) Math.round((Math.scalb(q, -qe) - 1.0) * (1 << manBits));
        return sign | ((qe + bias) << manBits) | man;
    }
}

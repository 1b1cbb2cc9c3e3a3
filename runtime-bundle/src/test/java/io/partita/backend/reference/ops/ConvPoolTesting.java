package io.partita.backend.reference.ops;

import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.testing.OpRunner;

/** Helpers of the convolution/pooling/interpolation kernel tests. */
final class ConvPoolTesting {
    private ConvPoolTesting() {
    }

    static long[] l(long... v) {
        return v;
    }

    static LogicalTensor f32(long id, long... dims) {
        return LogicalTensor.of(id, DataType.F32, dims);
    }

    static LogicalTensor s32(long id, long... dims) {
        return LogicalTensor.of(id, DataType.S32, dims);
    }

    static LogicalTensor anyShape(long id) {
        return LogicalTensor.unknownRank(id, DataType.F32);
    }

    /** A builder for an op with data_format NCX and weights_format OIX/IOX already set where they apply. */
    static Op.Builder op(OpKind kind) {
        return Op.builder(0, kind);
    }

    /** Convolution-family attributes: strides, dilations, pads, NCX and the channels-first weights format. */
    static Op.Builder conv(OpKind kind, long[] strides, long[] dilations, long[] pb, long[] pe) {
        boolean transposed = kind.name().startsWith("ConvTranspose");
        return op(kind).attr("strides", strides).attr("dilations", dilations).attr("pads_begin", pb)
                .attr("pads_end", pe).attr("data_format", "NCX").attr("weights_format", transposed ? "IOX" : "OIX");
    }

    static Op.Builder pool(OpKind kind, long[] kernel, long[] strides, long[] pb, long[] pe) {
        return op(kind).attr("kernel", kernel).attr("strides", strides).attr("pads_begin", pb).attr("pads_end", pe)
                .attr("data_format", "NCX");
    }

    static double[] run1(Op op, double[]... inputs) {
        List<double[]> out = OpRunner.run(op, inputs);
        return out.get(0);
    }

    static double[] seq(int n, double start) {
        double[] v = new double[n];
        for (int i = 0; i < n; i++) {
            v[i] = start + i;
        }
        return v;
    }

    /** Small random integers, exact in f32 and in sums of products. */
    static double[] ints(int n, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        double[] v = new double[n];
        for (int i = 0; i < n; i++) {
            v[i] = r.nextInt(7) - 3;
        }
        return v;
    }

    static int count(long[] dims) {
        long n = 1;
        for (long d : dims) {
            n *= d;
        }
        return (int) n;
    }

    static double dot(double[] a, double[] b) {
        if (a.length != b.length) {
            throw new AssertionError("lengths " + a.length + " and " + b.length);
        }
        double s = 0;
        for (int i = 0; i < a.length; i++) {
            s += a[i] * b[i];
        }
        return s;
    }

    /**
     * Permutes a dense tensor: result dim i is source dim perm[i].
     *
     * @return the permuted data (dims {@code dims[perm[i]]})
     */
    static double[] permute(double[] data, long[] dims, int... perm) {
        int rank = dims.length;
        long[] outDims = new long[rank];
        for (int i = 0; i < rank; i++) {
            outDims[i] = dims[perm[i]];
        }
        long[] srcStrides = LogicalTensor.denseStrides(dims);
        double[] out = new double[data.length];
        long[] idx = new long[rank];
        for (int flat = 0; flat < out.length; flat++) {
            long rem = flat;
            for (int i = rank - 1; i >= 0; i--) {
                idx[i] = rem % outDims[i];
                rem /= outDims[i];
            }
            long off = 0;
            for (int i = 0; i < rank; i++) {
                off += idx[i] * srcStrides[perm[i]];
            }
            out[flat] = data[(int) off];
        }
        return out;
    }

    static long[] permuteDims(long[] dims, int... perm) {
        long[] out = new long[dims.length];
        for (int i = 0; i < dims.length; i++) {
            out[i] = dims[perm[i]];
        }
        return out;
    }

    /** NCX -> NXC permutation of a rank. */
    static int[] toNxc(int rank) {
        int[] p = new int[rank];
        p[0] = 0;
        for (int i = 1; i < rank - 1; i++) {
            p[i] = i + 1;
        }
        p[rank - 1] = 1;
        return p;
    }

    /** NXC -> NCX. */
    static int[] fromNxc(int rank) {
        int[] p = new int[rank];
        p[0] = 0;
        p[1] = rank - 1;
        for (int i = 2; i < rank; i++) {
            p[i] = i - 1;
        }
        return p;
    }

    /** [A, B, X...] -> [X..., B, A] (OIX -> XIO, IOX -> XOI). */
    static int[] toSpatialFirst(int rank) {
        int[] p = new int[rank];
        for (int i = 0; i < rank - 2; i++) {
            p[i] = i + 2;
        }
        p[rank - 2] = 1;
        p[rank - 1] = 0;
        return p;
    }

    /** [X..., B, A] -> [A, B, X...]. */
    static int[] fromSpatialFirst(int rank) {
        int[] p = new int[rank];
        p[0] = rank - 1;
        p[1] = rank - 2;
        for (int i = 2; i < rank; i++) {
            p[i] = i - 2;
        }
        return p;
    }

    /**
     * Convolution straight from oneDNN's formula: dst(n, g*OCg+oc, o) = bias + sum over ic, k of
     * src(n, g*ICg+ic, o*S + k*D - PL) * w(g*OCg+oc, ic, k); NCX data, OIX weights, any spatial rank.
     */
    static double[] naiveConv(double[] x, long[] xd, double[] w, long[] wd, double[] bias, int groups, long[] s,
            long[] d, long[] pl, long[] outSp) {
        int ns = xd.length - 2;
        int n = (int) xd[0];
        int oc = (int) wd[0];
        int icg = (int) wd[1];
        int ocg = oc / groups;
        long[] inSp = Arrays.copyOfRange(xd, 2, xd.length);
        long[] k = Arrays.copyOfRange(wd, 2, wd.length);
        int outSize = count(outSp);
        int kSize = count(k);
        int inSize = count(inSp);
        double[] y = new double[n * oc * outSize];
        long[] o = new long[ns];
        long[] kk = new long[ns];
        for (int b = 0; b < n; b++) {
            for (int c = 0; c < oc; c++) {
                int gi = c / ocg;
                for (int p = 0; p < outSize; p++) {
                    unravel(p, outSp, o);
                    double acc = bias == null ? 0 : bias[c];
                    for (int ic = 0; ic < icg; ic++) {
                        for (int q = 0; q < kSize; q++) {
                            unravel(q, k, kk);
                            long flat = 0;
                            boolean inside = true;
                            for (int i = 0; i < ns; i++) {
                                long pos = o[i] * s[i] + kk[i] * d[i] - pl[i];
                                if (pos < 0 || pos >= inSp[i]) {
                                    inside = false;
                                    break;
                                }
                                flat = flat * inSp[i] + pos;
                            }
                            if (inside) {
                                acc += x[(int) ((b * xd[1] + gi * icg + ic) * inSize + flat)]
                                        * w[(c * icg + ic) * kSize + q];
                            }
                        }
                    }
                    y[(b * oc + c) * outSize + p] = acc;
                }
            }
        }
        return y;
    }

    static void unravel(long flat, long[] dims, long[] idx) {
        for (int i = dims.length - 1; i >= 0; i--) {
            idx[i] = flat % dims[i];
            flat /= dims[i];
        }
    }
}

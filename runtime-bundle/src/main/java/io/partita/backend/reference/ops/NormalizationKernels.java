package io.partita.backend.reference.ops;

import java.util.function.BiConsumer;

import io.partita.backend.reference.kernel.Broadcasting;
import io.partita.backend.reference.kernel.RefContext;
import io.partita.backend.reference.kernel.RefOp;
import io.partita.backend.reference.kernel.RefTensor;
import io.partita.graph.OpKind;

/**
 * BatchNorm (inference, forward training, training backward), LayerNorm (forward, backward),
 * GroupNorm and RMSNorm. Statistics are biased (divide by the element count), computed in two
 * passes; {@code inv = 1 / sqrt(variance + epsilon)} with epsilon the f32 attribute value.
 * The backward ops give the full gradient, mean and variance being functions of src.
 */
final class NormalizationKernels {
    private NormalizationKernels() {
    }

    /** momentum when BatchNormForwardTraining has none, as oneDNN's graph backend uses. */
    static final double DEFAULT_MOMENTUM = 0.5;

    static void register(BiConsumer<OpKind, RefOp> r) {
        r.accept(OpKind.BatchNormInference, NormalizationKernels::batchNormInference);
        r.accept(OpKind.BatchNormForwardTraining, NormalizationKernels::batchNormForwardTraining);
        r.accept(OpKind.BatchNormTrainingBackward, NormalizationKernels::batchNormTrainingBackward);
        r.accept(OpKind.LayerNorm, NormalizationKernels::layerNorm);
        r.accept(OpKind.LayerNormBackward, NormalizationKernels::layerNormBackward);
        r.accept(OpKind.GroupNorm, NormalizationKernels::groupNorm);
        r.accept(OpKind.RMSNorm, NormalizationKernels::rmsNorm);
    }

    /** A tensor viewed as [outer, C, inner] around its channel axis (per data_format). */
    private record ChannelView(int outer, int channels, int inner) {
        static ChannelView of(RefTensor t, String dataFormat) {
            long[] d = t.dims();
            int axis = "NCX".equals(dataFormat) ? 1 : d.length - 1;
            long outer = 1;
            long inner = 1;
            for (int i = 0; i < axis; i++) {
                outer *= d[i];
            }
            for (int i = axis + 1; i < d.length; i++) {
                inner *= d[i];
            }
            return new ChannelView((int) outer, (int) d[axis], (int) inner);
        }

        int channelOf(int flat) {
            return (flat / inner) % channels;
        }
    }

    private static double eps(RefContext ctx) {
        return ctx.op().floatAttr("epsilon");
    }

    private static ChannelView view(RefContext ctx) {
        return ChannelView.of(ctx.in(0), ctx.op().stringAttr("data_format"));
    }

    /** dst = gamma * (x - mean) / sqrt(variance + eps) + beta, per channel. */
    private static void batchNormInference(RefContext ctx) {
        ChannelView v = view(ctx);
        double[] x = ctx.in(0).data();
        double[] gamma = ctx.in(1).data();
        double[] beta = ctx.in(2).data();
        double[] mean = ctx.in(3).data();
        double[] var = ctx.in(4).data();
        double[] y = ctx.out(0).data();
        double e = eps(ctx);
        for (int i = 0; i < x.length; i++) {
            int c = v.channelOf(i);
            y[i] = gamma[c] * (x[i] - mean[c]) / Math.sqrt(var[c] + e) + beta[c];
        }
    }

    /** Per-channel biased mean and variance of src. */
    private static double[][] channelStats(double[] x, ChannelView v) {
        double[] mean = new double[v.channels()];
        double[] var = new double[v.channels()];
        for (int i = 0; i < x.length; i++) {
            mean[v.channelOf(i)] += x[i];
        }
        long count = (long) v.outer() * v.inner();
        for (int c = 0; c < mean.length; c++) {
            mean[c] /= count;
        }
        for (int i = 0; i < x.length; i++) {
            double d = x[i] - mean[v.channelOf(i)];
            var[v.channelOf(i)] += d * d;
        }
        for (int c = 0; c < var.length; c++) {
            var[c] /= count;
        }
        return new double[][] {mean, var};
    }

    /**
     * Normalizes with the batch statistics; running_mean = momentum * mean + (1 - momentum) *
     * batch_mean, likewise running_variance with the (biased) batch_variance; no gamma/beta means
     * scale 1 and shift 0.
     */
    private static void batchNormForwardTraining(RefContext ctx) {
        ChannelView v = view(ctx);
        double[] x = ctx.in(0).data();
        double[] oldMean = ctx.in(1).data();
        double[] oldVar = ctx.in(2).data();
        double[] gamma = ctx.hasInput(3) ? ctx.in(3).data() : null;
        double[] beta = ctx.hasInput(4) ? ctx.in(4).data() : null;
        double e = eps(ctx);
        double m = ctx.op().hasAttr("momentum") ? ctx.op().floatAttr("momentum") : DEFAULT_MOMENTUM;
        double[][] stats = channelStats(x, v);
        double[] mean = stats[0];
        double[] var = stats[1];
        double[] y = ctx.out(0).data();
        for (int i = 0; i < x.length; i++) {
            int c = v.channelOf(i);
            double n = (x[i] - mean[c]) / Math.sqrt(var[c] + e);
            y[i] = gamma == null ? n : gamma[c] * n + beta[c];
        }
        double[] runMean = ctx.out(1).data();
        double[] runVar = ctx.out(2).data();
        double[] batchMean = ctx.out(3).data();
        double[] batchVar = ctx.out(4).data();
        for (int c = 0; c < mean.length; c++) {
            runMean[c] = m * oldMean[c] + (1 - m) * mean[c];
            runVar[c] = m * oldVar[c] + (1 - m) * var[c];
            batchMean[c] = mean[c];
            batchVar[c] = var[c];
        }
    }

    /**
     * With xhat = (x - mean) * inv and M elements per channel: diff_beta = sum dy, diff_gamma =
     * sum dy * xhat, diff_src = gamma * inv * (dy - diff_beta / M - xhat * diff_gamma / M).
     */
    private static void batchNormTrainingBackward(RefContext ctx) {
        ChannelView v = view(ctx);
        double[] x = ctx.in(0).data();
        double[] dy = ctx.in(1).data();
        double[] mean = ctx.in(2).data();
        double[] var = ctx.in(3).data();
        double[] gamma = ctx.hasInput(4) ? ctx.in(4).data() : null;
        double e = eps(ctx);
        int channels = v.channels();
        double[] inv = new double[channels];
        for (int c = 0; c < channels; c++) {
            inv[c] = 1 / Math.sqrt(var[c] + e);
        }
        double[] sumDy = new double[channels];
        double[] sumDyXhat = new double[channels];
        for (int i = 0; i < x.length; i++) {
            int c = v.channelOf(i);
            sumDy[c] += dy[i];
            sumDyXhat[c] += dy[i] * (x[i] - mean[c]) * inv[c];
        }
        double count = (double) v.outer() * v.inner();
        double[] dx = ctx.out(0).data();
        for (int i = 0; i < x.length; i++) {
            int c = v.channelOf(i);
            double xhat = (x[i] - mean[c]) * inv[c];
            double g = gamma == null ? 1 : gamma[c];
            dx[i] = g * inv[c] * (dy[i] - sumDy[c] / count - xhat * sumDyXhat[c] / count);
        }
        if (ctx.outputCount() > 1) {
            System.arraycopy(sumDyXhat, 0, ctx.out(1).data(), 0, channels);
            System.arraycopy(sumDy, 0, ctx.out(2).data(), 0, channels);
        }
    }

    /** The number of rows (leading dims) and columns (normalized dims from begin_norm_axis). */
    private static int[] rowsCols(RefContext ctx) {
        long[] d = ctx.in(0).dims();
        int b = (int) Math.floorMod(ctx.op().longAttr("begin_norm_axis"), d.length);
        long rows = 1;
        for (int i = 0; i < b; i++) {
            rows *= d[i];
        }
        long cols = 1;
        for (int i = b; i < d.length; i++) {
            cols *= d[i];
        }
        return new int[] {(int) rows, (int) cols};
    }

    /**
     * dst = (x - mean) * inv * gamma + beta over each row; gamma/beta only with use_affine (and
     * both given); mean and variance are written when the op has those outputs.
     */
    private static void layerNorm(RefContext ctx) {
        int[] rc = rowsCols(ctx);
        int rows = rc[0];
        int cols = rc[1];
        double[] x = ctx.in(0).data();
        boolean affine = ctx.op().boolAttr("use_affine") && ctx.inputCount() == 3;
        double[] gamma = affine ? ctx.in(1).data() : null;
        double[] beta = affine ? ctx.in(2).data() : null;
        double[] y = ctx.out(0).data();
        double[] meanOut = ctx.outputCount() > 1 ? ctx.out(1).data() : null;
        double[] varOut = ctx.outputCount() > 2 ? ctx.out(2).data() : null;
        double e = eps(ctx);
        for (int r = 0; r < rows; r++) {
            int base = r * cols;
            double mean = 0;
            for (int j = 0; j < cols; j++) {
                mean += x[base + j];
            }
            mean /= cols;
            double var = 0;
            for (int j = 0; j < cols; j++) {
                double d = x[base + j] - mean;
                var += d * d;
            }
            var /= cols;
            double inv = 1 / Math.sqrt(var + e);
            for (int j = 0; j < cols; j++) {
                double n = (x[base + j] - mean) * inv;
                y[base + j] = affine ? n * gamma[j] + beta[j] : n;
            }
            if (meanOut != null) {
                meanOut[r] = mean;
            }
            if (varOut != null) {
                varOut[r] = var;
            }
        }
    }

    /**
     * Per row, with xhat = (x - mean) * inv and g = dy * gamma: diff_src = inv * (g - mean(g) -
     * xhat * mean(g * xhat)); diff_gamma = sum over rows of dy * xhat, diff_beta = sum of dy.
     * Without use_affine gamma is 1.
     */
    private static void layerNormBackward(RefContext ctx) {
        int[] rc = rowsCols(ctx);
        int rows = rc[0];
        int cols = rc[1];
        double[] x = ctx.in(0).data();
        double[] dy = ctx.in(1).data();
        double[] mean = ctx.in(2).data();
        double[] var = ctx.in(3).data();
        double[] gamma = ctx.op().boolAttr("use_affine") && ctx.hasInput(4) ? ctx.in(4).data() : null;
        double e = eps(ctx);
        double[] dx = ctx.out(0).data();
        double[] dGamma = ctx.outputCount() > 1 ? ctx.out(1).data() : null;
        double[] dBeta = ctx.outputCount() > 2 ? ctx.out(2).data() : null;
        for (int r = 0; r < rows; r++) {
            int base = r * cols;
            double inv = 1 / Math.sqrt(var[r] + e);
            double sumG = 0;
            double sumGXhat = 0;
            for (int j = 0; j < cols; j++) {
                double xhat = (x[base + j] - mean[r]) * inv;
                double g = dy[base + j] * (gamma == null ? 1 : gamma[j]);
                sumG += g;
                sumGXhat += g * xhat;
                if (dGamma != null) {
                    dGamma[j] += dy[base + j] * xhat;
                }
                if (dBeta != null) {
                    dBeta[j] += dy[base + j];
                }
            }
            for (int j = 0; j < cols; j++) {
                double xhat = (x[base + j] - mean[r]) * inv;
                double g = dy[base + j] * (gamma == null ? 1 : gamma[j]);
                dx[base + j] = inv * (g - sumG / cols - xhat * sumGXhat / cols);
            }
        }
    }

    /**
     * Statistics per (n, group) over the group's C / groups channels and all spatial positions;
     * dst = gamma[c] * (x - mean) * inv + beta[c] with use_affine (and gamma/beta given).
     */
    private static void groupNorm(RefContext ctx) {
        ChannelView v = view(ctx);
        double[] x = ctx.in(0).data();
        int batch = (int) ctx.in(0).dim(0);
        int groups = (int) ctx.op().longAttr("groups");
        int perGroup = v.channels() / groups;
        int outerPerBatch = batch == 0 ? 0 : v.outer() / batch;
        boolean affine = ctx.op().boolAttr("use_affine") && ctx.inputCount() == 3;
        double[] gamma = affine ? ctx.in(1).data() : null;
        double[] beta = affine ? ctx.in(2).data() : null;
        int[] statOf = new int[x.length];
        for (int i = 0; i < x.length; i++) {
            int o = i / (v.channels() * v.inner());
            int n = o / outerPerBatch;
            statOf[i] = n * groups + v.channelOf(i) / perGroup;
        }
        double count = (double) perGroup * outerPerBatch * v.inner();
        double[] mean = new double[batch * groups];
        double[] var = new double[batch * groups];
        for (int i = 0; i < x.length; i++) {
            mean[statOf[i]] += x[i];
        }
        for (int s = 0; s < mean.length; s++) {
            mean[s] /= count;
        }
        for (int i = 0; i < x.length; i++) {
            double d = x[i] - mean[statOf[i]];
            var[statOf[i]] += d * d;
        }
        for (int s = 0; s < var.length; s++) {
            var[s] /= count;
        }
        double e = eps(ctx);
        double[] y = ctx.out(0).data();
        for (int i = 0; i < x.length; i++) {
            int s = statOf[i];
            double n = (x[i] - mean[s]) / Math.sqrt(var[s] + e);
            int c = v.channelOf(i);
            y[i] = affine ? gamma[c] * n + beta[c] : n;
        }
        if (ctx.outputCount() > 1) {
            System.arraycopy(mean, 0, ctx.out(1).data(), 0, mean.length);
            System.arraycopy(var, 0, ctx.out(2).data(), 0, var.length);
        }
    }

    /**
     * rrms = 1 / sqrt(mean(x^2) + eps) over each row (normalized dims from begin_norm_axis);
     * dst = x * rrms * gamma with gamma broadcast to src (numpy rules), or 1 without gamma.
     */
    private static void rmsNorm(RefContext ctx) {
        int[] rc = rowsCols(ctx);
        int rows = rc[0];
        int cols = rc[1];
        RefTensor src = ctx.in(0);
        double[] x = src.data();
        double[] gamma = ctx.hasInput(1) ? ctx.in(1).data() : null;
        int[] gOff = gamma == null ? null : Broadcasting.offsets(src.dims(), ctx.in(1).dims());
        double[] y = ctx.out(0).data();
        double[] rrmsOut = ctx.outputCount() > 1 ? ctx.out(1).data() : null;
        double e = eps(ctx);
        for (int r = 0; r < rows; r++) {
            int base = r * cols;
            double ms = 0;
            for (int j = 0; j < cols; j++) {
                ms += x[base + j] * x[base + j];
            }
            ms /= cols;
            double rrms = 1 / Math.sqrt(ms + e);
            for (int j = 0; j < cols; j++) {
                int i = base + j;
                y[i] = x[i] * rrms * (gamma == null ? 1 : gamma[gOff[i]]);
            }
            if (rrmsOut != null) {
                rrmsOut[r] = rrms;
            }
        }
    }
}

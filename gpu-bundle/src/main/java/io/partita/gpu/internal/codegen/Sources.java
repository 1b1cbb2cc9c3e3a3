package io.partita.gpu.internal.codegen;

import java.util.List;

/**
 * The OpenCL C kernels. Every kernel reads its shapes and strides (in elements) from a
 * {@code meta} buffer of longs, so sources depend only on the structure of a partition (which
 * epilogue, how many operands), never on its dims.
 */
public final class Sources {
    private Sources() {
    }

    /** Tile edge of the MatMul kernel: work-groups of TILE x TILE items, one output element each. */
    public static final int TILE = 16;

    /** MatMul meta header: M, N, K, sAm, sAk, sBk, sBn, sCm, sCn, then (sPm, sPn) per epilogue operand. */
    public static int matmulHeader(int operands) {
        return 9 + 2 * operands;
    }

    /**
     * Tiled MatMul {@code C = epilogue(A x B)} over a batch: global size (N rounded up to the tile,
     * batch x M rounded up). After the header the meta holds, per batch entry, the element offsets
     * of A, B, C and each epilogue operand (numpy broadcasting resolved on the host).
     */
    public static String matmul(List<PostOp> posts, int operands) {
        StringBuilder p = new StringBuilder();
        StringBuilder params = new StringBuilder();
        for (int j = 0; j < operands; j++) {
            params.append(", __global const float* P").append(j);
        }
        String epilogue = PostOp.epilogue(posts, j -> "P" + j + "[bt[" + (3 + j) + "] + m * meta[" + (9 + 2 * j)
                + "] + n * meta[" + (10 + 2 * j) + "]]");
        p.append(Eltwise.PRELUDE).append("#define TS ").append(TILE).append('\n').append("""
                __kernel __attribute__((reqd_work_group_size(TS, TS, 1)))
                void matmul(__global const float* A, __global const float* B, __global float* C%s, __global const long* meta) {
                    const long M = meta[0], N = meta[1], K = meta[2];
                    const long sAm = meta[3], sAk = meta[4], sBk = meta[5], sBn = meta[6], sCm = meta[7], sCn = meta[8];
                    const int ln = get_local_id(0), lm = get_local_id(1);
                    const long mTiles = (M + TS - 1) / TS;
                    const long b = get_group_id(1) / mTiles;
                    const long m = (get_group_id(1) %% mTiles) * TS + lm;
                    const long n = get_group_id(0) * TS + ln;
                    __global const long* bt = meta + %d + b * %d;
                    __global const float* a = A + bt[0];
                    __global const float* w = B + bt[1];
                    __local float As[TS][TS + 1];
                    __local float Bs[TS][TS + 1];
                    float acc = 0.0f;
                    for (long k0 = 0; k0 < K; k0 += TS) {
                        const long ka = k0 + ln;
                        const long kb = k0 + lm;
                        As[lm][ln] = (m < M && ka < K) ? a[m * sAm + ka * sAk] : 0.0f;
                        Bs[lm][ln] = (kb < K && n < N) ? w[kb * sBk + n * sBn] : 0.0f;
                        barrier(CLK_LOCAL_MEM_FENCE);
                        for (int kk = 0; kk < TS; kk++) {
                            acc = fma(As[lm][kk], Bs[kk][ln], acc);
                        }
                        barrier(CLK_LOCAL_MEM_FENCE);
                    }
                    if (m < M && n < N) {
                        float v = acc;
                %s        C[bt[2] + m * sCm + n * sCn] = v;
                    }
                }
                """.formatted(params, matmulHeader(operands), 3 + operands, epilogue));
        return p.toString();
    }

    /** Rows of C one work item of {@link #matmulRows} computes. */
    public static final int ROWS = 8;

    /**
     * Work items per group of {@link #matmulRows} along the columns: a CPU driver runs them as the
     * lanes of its vector registers, so this should cover the widest vector (16 floats).
     */
    public static final int LANES = 16;

    /**
     * MatMul for devices whose compute units are CPU cores (PoCL): no local memory or barriers;
     * each work item computes {@value #ROWS} rows of one column of C in registers, so the work
     * items of a group, which such drivers run as SIMD lanes, read consecutive columns of B and
     * share each element of A. Global size (N, batch x ceil(M / ROWS)); same meta as {@link #matmul}.
     */
    public static String matmulRows(List<PostOp> posts, int operands, boolean unitColumns, boolean narrow) {
        StringBuilder params = new StringBuilder();
        for (int j = 0; j < operands; j++) {
            params.append(", __global const float* P").append(j);
        }
        String epilogue = PostOp.epilogue(posts, j -> "P" + j + "[bt[" + (3 + j) + "] + m * (IDX) meta[" + (9 + 2 * j)
                + "] + n * (IDX) meta[" + (10 + 2 * j) + "]]");
        // Literal unit strides and 32-bit indices let drivers that run work items as SIMD lanes
        // (PoCL) turn the column loads and stores into vector accesses instead of gathers.
        String defines = "#define RM " + ROWS + "\n#define IDX " + (narrow ? "int" : "long") + "\n#define SBN "
                + (unitColumns ? "1" : "((IDX) meta[6])") + "\n#define SCN " + (unitColumns ? "1" : "((IDX) meta[8])") + "\n";
        return Eltwise.PRELUDE + defines + """
                __kernel void matmul(__global const float* A, __global const float* B, __global float* C%s, __global const long* meta) {
                    const IDX M = (IDX) meta[0], N = (IDX) meta[1], K = (IDX) meta[2];
                    const IDX sAm = (IDX) meta[3], sAk = (IDX) meta[4], sBk = (IDX) meta[5], sCm = (IDX) meta[7];
                    const IDX n = (IDX) get_global_id(0);
                    if (n >= N) {
                        return;
                    }
                    const IDX mBlocks = (M + RM - 1) / RM;
                    const IDX b = (IDX) get_global_id(1) / mBlocks;
                    const IDX m0 = ((IDX) get_global_id(1) %% mBlocks) * RM;
                    __global const long* bt = meta + %d + b * %d;
                    __global const float* a = A + bt[0] + m0 * sAm;
                    __global const float* w = B + bt[1] + n * SBN;
                    float acc[RM];
                    for (int r = 0; r < RM; r++) {
                        acc[r] = 0.0f;
                    }
                    const int rows = (int) min((IDX) RM, M - m0);
                    if (rows == RM) {
                        for (IDX k = 0; k < K; k++) {
                            const float bv = w[k * sBk];
                            for (int r = 0; r < RM; r++) {
                                acc[r] = fma(a[r * sAm + k * sAk], bv, acc[r]);
                            }
                        }
                    } else {
                        for (IDX k = 0; k < K; k++) {
                            const float bv = w[k * sBk];
                            for (int r = 0; r < rows; r++) {
                                acc[r] = fma(a[r * sAm + k * sAk], bv, acc[r]);
                            }
                        }
                    }
                    for (int r = 0; r < rows; r++) {
                        const IDX m = m0 + r;
                        float v = acc[r];
                %s        C[bt[2] + m * sCm + n * SCN] = v;
                    }
                }
                """.formatted(params, matmulHeader(operands), 3 + operands, epilogue);
    }

    /**
     * Elementwise over the output's elements in row-major order: {@code v = head(loads)}, then the
     * epilogue, stored through the output's strides. Meta: total, rank R, then per operand (output
     * first, then inputs) a base offset, R dims to decompose the element index over and R strides.
     *
     * @param head expression of {@code X0[o1]}, {@code X1[o2]}, ... (the loads of the inputs)
     */
    public static String elementwise(int inputs, String head, List<PostOp> posts, int extraOperands) {
        StringBuilder params = new StringBuilder();
        for (int j = 0; j < inputs; j++) {
            params.append(", __global const float* X").append(j);
        }
        for (int j = 0; j < extraOperands; j++) {
            params.append(", __global const float* P").append(j);
        }
        int ops = 1 + inputs + extraOperands;
        String epilogue = PostOp.epilogue(posts, j -> "P" + j + "[off[" + (1 + inputs + j) + "]]");
        return Eltwise.PRELUDE + """
                __kernel void eltwise(__global float* Y%s, __global const long* meta) {
                    const long i = get_global_id(0);
                    if (i >= meta[0]) {
                        return;
                    }
                    const int R = (int) meta[1];
                    long off[%d];
                    for (int j = 0; j < %d; j++) {
                        __global const long* d = meta + 3 + j * (1 + 2 * R);
                        __global const long* s = d + R;
                        long rem = i;
                        long o = d[-1];
                        for (int r = R - 1; r >= 0; r--) {
                            const long c = rem %% d[r];
                            rem /= d[r];
                            o += c * s[r];
                        }
                        off[j] = o;
                    }
                    float v = %s;
                %s    Y[off[0]] = v;
                }
                """.formatted(params, ops, ops, head, epilogue);
    }

    /** The load of input {@code j} in {@link #elementwise}. */
    public static String load(int j) {
        return "X" + j + "[off[" + (1 + j) + "]]";
    }

    /**
     * SoftMax along the middle axis of a dense [outer, len, inner] tensor, one line per work item.
     * Meta: outer, len, inner, infAsZero.
     */
    public static String softmax() {
        return Eltwise.PRELUDE + """
                __kernel void softmax(__global const float* X, __global float* Y, __global const long* meta) {
                    const long outer = meta[0], len = meta[1], inner = meta[2];
                    const long w = get_global_id(0);
                    if (w >= outer * inner) {
                        return;
                    }
                    const long base = (w / inner) * len * inner + (w % inner);
                    float mx = -INFINITY;
                    for (long k = 0; k < len; k++) {
                        mx = p_max(mx, X[base + k * inner]);
                    }
                    if (meta[3] != 0 && mx == -INFINITY) {
                        for (long k = 0; k < len; k++) {
                            Y[base + k * inner] = 0.0f;
                        }
                        return;
                    }
                    float sum = 0.0f;
                    for (long k = 0; k < len; k++) {
                        const float e = exp(X[base + k * inner] - mx);
                        Y[base + k * inner] = e;
                        sum += e;
                    }
                    const float inv = 1.0f / sum;
                    for (long k = 0; k < len; k++) {
                        Y[base + k * inner] *= inv;
                    }
                }
                """;
    }

    /**
     * LayerNorm over the last {@code cols} elements of each of {@code rows} dense rows, one row per
     * work item; optional affine (gamma, beta of cols elements) and mean/variance outputs. Meta: rows, cols.
     */
    public static String layerNorm(boolean affine, int stats) {
        StringBuilder params = new StringBuilder("__global const float* X");
        if (affine) {
            params.append(", __global const float* G, __global const float* Bt");
        }
        params.append(", __global float* Y");
        if (stats > 0) {
            params.append(", __global float* Mean");
        }
        if (stats > 1) {
            params.append(", __global float* Var");
        }
        return """
                __kernel void layernorm(%s, __global const long* meta, const float eps) {
                    const long rows = meta[0], cols = meta[1];
                    const long r = get_global_id(0);
                    if (r >= rows) {
                        return;
                    }
                    __global const float* x = X + r * cols;
                    __global float* y = Y + r * cols;
                    float mean = 0.0f;
                    for (long j = 0; j < cols; j++) {
                        mean += x[j];
                    }
                    mean /= (float) cols;
                    float var = 0.0f;
                    for (long j = 0; j < cols; j++) {
                        const float d = x[j] - mean;
                        var = fma(d, d, var);
                    }
                    var /= (float) cols;
                    const float inv = 1.0f / sqrt(var + eps);
                    for (long j = 0; j < cols; j++) {
                        const float nrm = (x[j] - mean) * inv;
                        y[j] = %s;
                    }
                    %s
                    %s
                }
                """.formatted(params, affine ? "fma(nrm, G[j], Bt[j])" : "nrm", stats > 0 ? "Mean[r] = mean;" : "",
                stats > 1 ? "Var[r] = var;" : "");
    }

    /** Convolution meta header before the epilogue operands' strides (5 per operand, canonical n, c, d, h, w order). */
    public static final int CONV_HEADER = 39;

    /**
     * Direct convolution, one output element per work item, over canonical 3-D spatial geometry
     * (1-D and 2-D padded with unit dims). Meta: out dims N OC OD OH OW, out strides, src dims
     * N IC ID IH IW, src strides, weights strides (o i kd kh kw), kernel, strides, dilations (1 =
     * dense), begin pads (3 each), in-channels and out-channels per group, then per epilogue
     * operand its strides over the output (n c d h w).
     */
    public static String convolution(List<PostOp> posts, int operands) {
        StringBuilder params = new StringBuilder();
        for (int j = 0; j < operands; j++) {
            params.append(", __global const float* P").append(j);
        }
        String epilogue = PostOp.epilogue(posts, j -> {
            int b = CONV_HEADER + 5 * j;
            return "P" + j + "[n * meta[" + b + "] + oc * meta[" + (b + 1) + "] + od * meta[" + (b + 2) + "] + oh * meta["
                    + (b + 3) + "] + ow * meta[" + (b + 4) + "]]";
        });
        return Eltwise.PRELUDE + """
                __kernel void conv(__global const float* S, __global const float* W, __global float* Y%s, __global const long* meta) {
                    const long OC = meta[1], OD = meta[2], OH = meta[3], OW = meta[4];
                    const long i = get_global_id(0);
                    if (i >= meta[0] * OC * OD * OH * OW) {
                        return;
                    }
                    const long ow = i %% OW;
                    long t = i / OW;
                    const long oh = t %% OH;
                    t /= OH;
                    const long od = t %% OD;
                    t /= OD;
                    const long oc = t %% OC;
                    const long n = t / OC;
                    const long ID = meta[12], IH = meta[13], IW = meta[14];
                    const long KD = meta[25], KH = meta[26], KW = meta[27];
                    const long icpg = meta[37];
                    const long g = oc / meta[38];
                    const long d0 = od * meta[28] - meta[34], h0 = oh * meta[29] - meta[35], w0 = ow * meta[30] - meta[36];
                    float acc = 0.0f;
                    for (long ic = 0; ic < icpg; ic++) {
                        __global const float* s = S + n * meta[15] + (g * icpg + ic) * meta[16];
                        __global const float* w = W + oc * meta[20] + ic * meta[21];
                        for (long kd = 0; kd < KD; kd++) {
                            const long id = d0 + kd * meta[31];
                            if (id < 0 || id >= ID) {
                                continue;
                            }
                            for (long kh = 0; kh < KH; kh++) {
                                const long ih = h0 + kh * meta[32];
                                if (ih < 0 || ih >= IH) {
                                    continue;
                                }
                                for (long kw = 0; kw < KW; kw++) {
                                    const long iw = w0 + kw * meta[33];
                                    if (iw < 0 || iw >= IW) {
                                        continue;
                                    }
                                    acc = fma(s[id * meta[17] + ih * meta[18] + iw * meta[19]],
                                            w[kd * meta[22] + kh * meta[23] + kw * meta[24]], acc);
                                }
                            }
                        }
                    }
                    float v = acc;
                %s    Y[n * meta[5] + oc * meta[6] + od * meta[7] + oh * meta[8] + ow * meta[9]] = v;
                }
                """.formatted(params, epilogue);
    }

    /**
     * Convolution as an implicit GEMM for CPU OpenCL devices: rows are output pixels, columns
     * output channels, the reduction runs over input channels and kernel positions without an
     * im2col buffer. Each work item computes {@value #ROWS} consecutive pixels of one output
     * channel; the lanes of a group take consecutive channels, so weight loads are contiguous
     * (unit channel stride, e.g. XIO weights) and source loads are shared. Global size (OC rounded
     * to {@value #LANES}, ceil(N * OD * OH * OW / ROWS)); same meta as {@link #convolution}.
     */
    public static String convolutionRows(List<PostOp> posts, int operands, boolean unitChannels) {
        StringBuilder params = new StringBuilder();
        for (int j = 0; j < operands; j++) {
            params.append(", __global const float* P").append(j);
        }
        String epilogue = PostOp.epilogue(posts, j -> {
            int b = CONV_HEADER + 5 * j;
            return "P" + j + "[n * meta[" + b + "] + oc * meta[" + (b + 1) + "] + od * meta[" + (b + 2) + "] + oh * meta["
                    + (b + 3) + "] + ow * meta[" + (b + 4) + "]]";
        });
        String defines = "#define RM " + ROWS + "\n#define SWO " + (unitChannels ? "1" : "meta[20]") + "\n";
        return Eltwise.PRELUDE + defines + """
                __kernel void conv(__global const float* S, __global const float* W, __global float* Y%s, __global const long* meta) {
                    const long OC = meta[1], OD = meta[2], OH = meta[3], OW = meta[4];
                    const long oc = get_global_id(0);
                    if (oc >= OC) {
                        return;
                    }
                    const long pixels = meta[0] * OD * OH * OW;
                    const long p0 = get_global_id(1) * RM;
                    const long ID = meta[12], IH = meta[13], IW = meta[14];
                    const long KD = meta[25], KH = meta[26], KW = meta[27];
                    const long icpg = meta[37];
                    const long g = oc / meta[38];
                    long base[RM];
                    long d0[RM], h0[RM], w0[RM];
                    float acc[RM];
                    const int rows = (int) min((long) RM, pixels - p0);
                    for (int r = 0; r < RM; r++) {
                        const long p = p0 + (r < rows ? r : 0);
                        const long ow = p %% OW;
                        long t = p / OW;
                        const long oh = t %% OH;
                        t /= OH;
                        const long od = t %% OD;
                        const long n = t / OD;
                        base[r] = n * meta[15] + g * icpg * meta[16];
                        d0[r] = od * meta[28] - meta[34];
                        h0[r] = oh * meta[29] - meta[35];
                        w0[r] = ow * meta[30] - meta[36];
                        acc[r] = 0.0f;
                    }
                    __global const float* w = W + oc * SWO;
                    for (long ic = 0; ic < icpg; ic++) {
                        for (long kd = 0; kd < KD; kd++) {
                            for (long kh = 0; kh < KH; kh++) {
                                for (long kw = 0; kw < KW; kw++) {
                                    const float wv = w[ic * meta[21] + kd * meta[22] + kh * meta[23] + kw * meta[24]];
                                    for (int r = 0; r < RM; r++) {
                                        const long id = d0[r] + kd * meta[31];
                                        const long ih = h0[r] + kh * meta[32];
                                        const long iw = w0[r] + kw * meta[33];
                                        const bool in = id >= 0 && id < ID && ih >= 0 && ih < IH && iw >= 0 && iw < IW;
                                        const float x = in ? S[base[r] + ic * meta[16] + id * meta[17] + ih * meta[18] + iw * meta[19]] : 0.0f;
                                        acc[r] = fma(x, wv, acc[r]);
                                    }
                                }
                            }
                        }
                    }
                    for (int r = 0; r < rows; r++) {
                        const long p = p0 + r;
                        const long ow = p %% OW;
                        long t = p / OW;
                        const long oh = t %% OH;
                        t /= OH;
                        const long od = t %% OD;
                        const long n = t / OD;
                        float v = acc[r];
                %s        Y[n * meta[5] + oc * meta[6] + od * meta[7] + oh * meta[8] + ow * meta[9]] = v;
                    }
                }
                """.formatted(params, epilogue);
    }

    /**
     * Max or average pooling, one output element per work item. Meta: out dims N C OD OH OW, out
     * strides, src dims, src strides, kernel, strides, dilations, begin pads (3 each), mode (0 max,
     * 1 average over the whole window, 2 average over its in-range positions), lowest value as float bits.
     */
    public static String pooling() {
        return """
                __kernel void pool(__global const float* S, __global float* Y, __global const long* meta) {
                    const long C = meta[1], OD = meta[2], OH = meta[3], OW = meta[4];
                    const long i = get_global_id(0);
                    if (i >= meta[0] * C * OD * OH * OW) {
                        return;
                    }
                    const long ow = i % OW;
                    long t = i / OW;
                    const long oh = t % OH;
                    t /= OH;
                    const long od = t % OD;
                    t /= OD;
                    const long c = t % C;
                    const long n = t / C;
                    const long ID = meta[12], IH = meta[13], IW = meta[14];
                    const long KD = meta[20], KH = meta[21], KW = meta[22];
                    const long d0 = od * meta[23] - meta[29], h0 = oh * meta[24] - meta[30], w0 = ow * meta[25] - meta[31];
                    const long mode = meta[32];
                    __global const float* s = S + n * meta[15] + c * meta[16];
                    float mx = 0.0f;
                    float sum = 0.0f;
                    long count = 0;
                    for (long kd = 0; kd < KD; kd++) {
                        const long id = d0 + kd * meta[26];
                        if (id < 0 || id >= ID) {
                            continue;
                        }
                        for (long kh = 0; kh < KH; kh++) {
                            const long ih = h0 + kh * meta[27];
                            if (ih < 0 || ih >= IH) {
                                continue;
                            }
                            for (long kw = 0; kw < KW; kw++) {
                                const long iw = w0 + kw * meta[28];
                                if (iw < 0 || iw >= IW) {
                                    continue;
                                }
                                const float x = s[id * meta[17] + ih * meta[18] + iw * meta[19]];
                                mx = (count == 0 || x > mx) ? x : mx;
                                sum += x;
                                count++;
                            }
                        }
                    }
                    float v;
                    if (mode == 0) {
                        v = count == 0 ? as_float((int) meta[33]) : mx;
                    } else {
                        const long div = mode == 1 ? KD * KH * KW : count;
                        v = div == 0 ? 0.0f : sum / (float) div;
                    }
                    Y[n * meta[5] + c * meta[6] + od * meta[7] + oh * meta[8] + ow * meta[9]] = v;
                }
                """;
    }

    /**
     * A Reduce* op, one output element per work item, summing in the source's row-major order.
     * Meta: outputs, rank R, reduced elements per output, then R kept dims (1 where reduced), R
     * reduced dims (1 where kept), R source strides and R destination strides (0 where reduced).
     */
    public static String reduction(io.partita.graph.OpKind kind) {
        String init;
        String step;
        String finish;
        switch (kind) {
            case ReduceL1 -> {
                init = "0.0f";
                step = "acc + fabs(x)";
                finish = "acc";
            }
            case ReduceL2 -> {
                init = "0.0f";
                step = "fma(x, x, acc)";
                finish = "sqrt(acc)";
            }
            case ReduceMax -> {
                init = "-INFINITY";
                step = "p_max(acc, x)";
                finish = "acc";
            }
            case ReduceMin -> {
                init = "INFINITY";
                step = "p_min(acc, x)";
                finish = "acc";
            }
            case ReduceMean -> {
                init = "0.0f";
                step = "acc + x";
                finish = "acc / (float) count";
            }
            case ReduceProd -> {
                init = "1.0f";
                step = "acc * x";
                finish = "acc";
            }
            case ReduceSum -> {
                init = "0.0f";
                step = "acc + x";
                finish = "acc";
            }
            default -> throw new IllegalArgumentException(kind.spelling() + " is not a reduction");
        }
        return Eltwise.PRELUDE + """
                __kernel void reduce(__global const float* X, __global float* Y, __global const long* meta) {
                    const long i = get_global_id(0);
                    if (i >= meta[0]) {
                        return;
                    }
                    const int R = (int) meta[1];
                    const long count = meta[2];
                    __global const long* kept = meta + 3;
                    __global const long* red = kept + R;
                    __global const long* sx = red + R;
                    __global const long* sy = sx + R;
                    long rem = i;
                    long xo = 0;
                    long yo = 0;
                    for (int r = R - 1; r >= 0; r--) {
                        const long c = rem %% kept[r];
                        rem /= kept[r];
                        xo += c * sx[r];
                        yo += c * sy[r];
                    }
                    float acc = %s;
                    for (long j = 0; j < count; j++) {
                        long q = j;
                        long o = xo;
                        for (int r = R - 1; r >= 0; r--) {
                            const long c = q %% red[r];
                            q /= red[r];
                            o += c * sx[r];
                        }
                        const float x = X[o];
                        acc = %s;
                    }
                    Y[yo] = %s;
                }
                """.formatted(init, step, finish);
    }
}

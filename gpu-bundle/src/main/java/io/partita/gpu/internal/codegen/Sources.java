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

    /**
     * Elementwise over the output's elements in row-major order: {@code v = head(loads)}, then the
     * epilogue, stored through the output's strides. Meta: total, rank R, then per operand (output
     * first, then inputs) R dims to decompose the element index over and R strides.
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
                        __global const long* d = meta + 2 + 2 * j * R;
                        __global const long* s = d + R;
                        long rem = i;
                        long o = 0;
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
}

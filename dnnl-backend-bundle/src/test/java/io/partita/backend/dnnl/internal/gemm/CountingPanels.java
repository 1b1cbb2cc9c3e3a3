package io.partita.backend.dnnl.internal.gemm;

import java.util.concurrent.atomic.AtomicLong;

/** B[k, n] row-major packed panel by panel on request, counting the requests. */
final class CountingPanels implements PanelSource.Packing {
    final float[] b;
    final int k;
    final int n;
    final AtomicLong packs = new AtomicLong();

    CountingPanels(float[] b, int k, int n) {
        this.b = b;
        this.k = k;
        this.n = n;
    }

    @Override
    public int k() {
        return k;
    }

    @Override
    public int n() {
        return n;
    }

    @Override
    public void pack(int panel, int k0, int kc, float[] to, int at) {
        packs.incrementAndGet();
        int j0 = panel * Sgemm.NR;
        int cols = Math.min(Sgemm.NR, n - j0);
        for (int kk = 0; kk < kc; kk++) {
            System.arraycopy(b, (k0 + kk) * n + j0, to, at + kk * Sgemm.NR, cols);
        }
    }
}

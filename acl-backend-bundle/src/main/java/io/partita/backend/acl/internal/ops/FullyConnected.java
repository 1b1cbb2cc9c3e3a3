package io.partita.backend.acl.internal.ops;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT_UNALIGNED;

import io.partita.backend.acl.internal.memory.AuxTensor;
import io.partita.backend.acl.internal.simd.Gemm;
import io.partita.cache.Lease;

/**
 * Fully connected / MatMul: A [m, k] (stored [k, m] when transposed; leading batch dims folded
 * into m) times weights [k, n] (stored [n, k] when transposed), plus bias [n], optionally ReLU.
 * Constant weights are reshaped once into the unified constant cache; other weights are reshaped
 * each run into the {@code reshaped_b} auxiliary tensor, and a transposed A into {@code a_t}.
 */
public final class FullyConnected implements Operator {
    /** The descriptor: equal descriptors share one primitive. */
    public record Desc(int m, int k, int n, boolean transA, boolean transB, boolean bias, boolean relu,
            boolean constantB) {
    }

    private final Desc d;

    public FullyConnected(Desc d) {
        this.d = d;
    }

    @Override
    public List<AuxTensor> auxTensors() {
        List<AuxTensor> aux = new ArrayList<>();
        if (!d.constantB()) {
            aux.add(new AuxTensor("reshaped_b", Gemm.packedLength(d.k(), d.n()) * Float.BYTES, 0, 1));
        }
        if (d.transA()) {
            aux.add(new AuxTensor("a_t", (long) d.m() * d.k() * Float.BYTES, 0, 1));
        }
        return aux;
    }

    @Override
    public void run(Run r) {
        MemorySegment a = r.input(0);
        MemorySegment w = r.input(1);
        int k = d.k(), n = d.n(), m = d.m();
        Gemm.Source src = d.transB() ? (kk, nn) -> w.getAtIndex(JAVA_FLOAT_UNALIGNED, (long) nn * k + kk)
                : (kk, nn) -> w.getAtIndex(JAVA_FLOAT_UNALIGNED, (long) kk * n + nn);
        long bytes = Gemm.packedLength(k, n) * Float.BYTES;
        try (Lease lease = d.constantB() ? r.constant(1, "gemm_panels", bytes, dst -> Gemm.pack(src, k, n, dst, 0)) : null) {
            MemorySegment b;
            if (lease != null) {
                b = lease.segment();
            } else {
                b = r.pool().segment("reshaped_b");
                Gemm.pack(src, k, n, b, 0);
            }
            if (d.transA()) {
                MemorySegment at = r.pool().segment("a_t");
                for (int i = 0; i < m; i++) {
                    for (int kk = 0; kk < k; kk++) {
                        at.setAtIndex(JAVA_FLOAT_UNALIGNED, (long) i * k + kk, a.getAtIndex(JAVA_FLOAT_UNALIGNED, (long) kk * m + i));
                    }
                }
                a = at;
            }
            Gemm.multiply(m, n, k, a, 0, k, b, 0, r.output(0), 0, n, d.bias() ? r.input(2) : null, 0, d.relu());
        }
    }
}

package io.partita.backend.acl.internal.memory;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Groups auxiliary tensors into blobs: a tensor joins an existing blob when its lifetime overlaps
 * none of the blob's tensors, else opens a new one; a blob is as large as its largest tensor.
 * Largest tensors are placed first so that small ones fill in behind them (ACL's blob lifetime
 * manager orders by size the same way), which keeps the pool small.
 */
public final class BlobLifetimeManager {
    /** Blob alignment: a cache line, and a whole number of vectors of any width. */
    public static final long ALIGNMENT = 64;

    private BlobLifetimeManager() {
    }

    public static BlobPlan plan(List<AuxTensor> tensors) {
        Set<String> names = new HashSet<>();
        for (AuxTensor t : tensors) {
            if (!names.add(t.name())) {
                throw new IllegalArgumentException("auxiliary tensor " + t.name() + " is declared twice");
            }
        }
        List<AuxTensor> order = new ArrayList<>(tensors);
        order.sort(Comparator.comparingLong(AuxTensor::bytes).reversed().thenComparing(AuxTensor::name));
        List<List<AuxTensor>> blobs = new ArrayList<>();
        Map<String, Integer> blobOf = new HashMap<>();
        Map<String, Long> bytes = new HashMap<>();
        for (AuxTensor t : order) {
            int chosen = -1;
            for (int b = 0; b < blobs.size() && chosen < 0; b++) {
                if (blobs.get(b).stream().noneMatch(t::overlaps)) {
                    chosen = b;
                }
            }
            if (chosen < 0) {
                blobs.add(new ArrayList<>());
                chosen = blobs.size() - 1;
            }
            blobs.get(chosen).add(t);
            blobOf.put(t.name(), chosen);
            bytes.put(t.name(), t.bytes());
        }
        List<Long> offsets = new ArrayList<>();
        List<Long> sizes = new ArrayList<>();
        long at = 0;
        for (List<AuxTensor> blob : blobs) {
            long size = blob.get(0).bytes(); // the first placed is the largest
            offsets.add(at);
            sizes.add(size);
            at = Math.addExact(at, align(size));
        }
        return new BlobPlan(offsets, sizes, blobOf, bytes, at);
    }

    static long align(long bytes) {
        return Math.addExact(bytes, ALIGNMENT - 1) & -ALIGNMENT;
    }
}

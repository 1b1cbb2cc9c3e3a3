package io.partita.backend.acl.internal.memory;

import java.util.List;
import java.util.Map;

/**
 * Where each auxiliary tensor of an operator lives in a pool: blobs laid out one after the other
 * (each 64-byte aligned), tensors sharing a blob when their lifetimes do not overlap.
 *
 * @param blobOffsets byte offset of each blob in the pool
 * @param blobSizes byte size of each blob: the largest tensor it holds
 * @param blobOfTensor the blob index of each tensor, by name
 * @param poolBytes the size a pool needs
 */
public record BlobPlan(List<Long> blobOffsets, List<Long> blobSizes, Map<String, Integer> blobOfTensor,
        Map<String, Long> tensorBytes, long poolBytes) {

    public BlobPlan {
        blobOffsets = List.copyOf(blobOffsets);
        blobSizes = List.copyOf(blobSizes);
        blobOfTensor = Map.copyOf(blobOfTensor);
        tensorBytes = Map.copyOf(tensorBytes);
    }

    /** Byte offset of a tensor in the pool. */
    public long offsetOf(String tensor) {
        return blobOffsets.get(blob(tensor));
    }

    public long bytesOf(String tensor) {
        blob(tensor);
        return tensorBytes.get(tensor);
    }

    public int blob(String tensor) {
        Integer b = blobOfTensor.get(tensor);
        if (b == null) {
            throw new IllegalArgumentException("no auxiliary tensor named " + tensor + " in this plan; declared: "
                    + blobOfTensor.keySet());
        }
        return b;
    }

    public int blobCount() {
        return blobSizes.size();
    }
}

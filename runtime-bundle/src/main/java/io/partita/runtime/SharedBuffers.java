package io.partita.runtime;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import io.partita.graph.Engine;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Tensor;

/**
 * The intermediate buffers of a compiled graph: blocks of one arena, each shared by tensors whose
 * lifetimes (from the partition writing them to the last partition reading them) do not overlap.
 *
 * <p>Why: with one buffer per tensor, ResNet-50 writes about 100 MB of activations per inference
 * into memory last touched one inference ago, so every store misses the caches. Reusing the
 * block of a tensor that just died keeps a layer's output where the previous layers' outputs
 * were, in L2/L3.
 *
 * <p>A call {@link #reset}s the blocks and takes them in partition order, best fit (the smallest
 * free block that is large enough), so the same shapes give the same assignment every call and
 * steady state allocates nothing. A tensor's block is given back after the last partition reading
 * it ran, so a partition's outputs never share memory with its own inputs or with each other.
 * Blocks are freed only with the arena (a memoized plan may still name them).
 */
final class SharedBuffers {
    /** A block, and the tensor view last made of it (reused while the logical tensor is the same). */
    private static final class Block {
        final MemorySegment memory;
        boolean busy;
        Tensor view;

        Block(MemorySegment memory) {
            this.memory = memory;
        }
    }

    /** Sizes blocks are rounded up to: a slightly larger tensor of another call still fits. */
    private static final long GRANULE = 4096;

    /**
     * Bytes between consecutive blocks' offsets within a 4 KB page: 17 cache lines, so the blocks
     * of a kernel's output and operand (e.g. a residual) do not start at the same or neighbouring
     * line of a page, whatever offsets malloc would have given them. A kernel that loads the
     * residual's next tile right after storing the output's last one otherwise meets addresses
     * equal in their low 12 bits, which the core takes for a dependency until the stores complete
     * (4K aliasing): a 1x1 convolution 256 -> 1024 at 14x14 with a residual, its blocks 64 bytes
     * apart in the page, took 1.6-2.0 ms against 0.75 ms without the residual.
     */
    private static final long STAGGER = 17 * 64;

    private final Arena arena;
    private final List<Block> blocks = new ArrayList<>();

    SharedBuffers(Arena arena) {
        this.arena = arena;
    }

    /** Marks every block free: the start of a call's assignment. */
    void reset() {
        for (Block b : blocks) {
            b.busy = false;
        }
    }

    /** Bytes a new block for {@code lt} would take (0 if a free block fits). */
    long growthFor(LogicalTensor lt) {
        return find(size(lt)) != null ? 0 : round(size(lt));
    }

    /**
     * A tensor for {@code lt} in a free block (allocated when none fits); the block is busy until
     * {@link #release}.
     */
    Tensor take(LogicalTensor lt, Engine engine) {
        long size = size(lt);
        Block b = find(size);
        if (b == null) {
            long bytes = round(size);
            long at = (long) blocks.size() * STAGGER % GRANULE;
            b = new Block(arena.allocate(bytes + GRANULE, GRANULE).asSlice(at, bytes));
            blocks.add(b);
        }
        b.busy = true;
        if (b.view == null || !b.view.logicalTensor().equals(lt) || !b.view.engine().equals(engine)) {
            b.view = Tensor.of(lt, engine, b.memory.asSlice(0, size));
        }
        return b.view;
    }

    /** Gives back the block of a tensor {@link #take} returned. */
    void release(Tensor t) {
        for (Block b : blocks) {
            if (b.busy && b.view == t) {
                b.busy = false;
                return;
            }
        }
    }

    int count() {
        return blocks.size();
    }

    void clear() {
        blocks.clear();
    }

    private Block find(long size) {
        Block best = null;
        for (Block b : blocks) {
            if (!b.busy && b.memory.byteSize() >= size
                    && (best == null || b.memory.byteSize() < best.memory.byteSize())) {
                best = b;
            }
        }
        return best;
    }

    private static long size(LogicalTensor lt) {
        return Math.max(lt.memSize(), 1);
    }

    private static long round(long size) {
        return (size + GRANULE - 1) / GRANULE * GRANULE;
    }
}

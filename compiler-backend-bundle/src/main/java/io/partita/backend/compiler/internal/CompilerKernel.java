package io.partita.backend.compiler.internal;

import java.lang.foreign.MemorySegment;
import java.util.List;

import io.partita.backend.compiler.internal.exec.Parallel;
import io.partita.backend.compiler.internal.exec.Program;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;
import io.partita.spi.Kernel;

/** A compiled partition: its program, run on the backend's pool; stateless, so threads share it. */
final class CompilerKernel implements Kernel {
    private final CompilerBackend backend;
    private final Program program;

    CompilerKernel(CompilerBackend backend, Program program) {
        this.backend = backend;
        this.program = program;
    }

    @Override
    public void execute(Stream stream, List<Tensor> inputs, List<Tensor> outputs) {
        program.execute(inputs, outputs, sharedAcrossThreads(inputs, outputs) ? backend.pool() : Parallel.CALLER);
    }

    @Override
    public void close() {
        program.close();
    }

    /** Tensors in a confined arena can only be touched by their owner: then the caller runs alone. */
    private static boolean sharedAcrossThreads(List<Tensor> in, List<Tensor> out) {
        for (Tensor t : in) {
            if (!accessibleByAll(t.data())) {
                return false;
            }
        }
        for (Tensor t : out) {
            if (!accessibleByAll(t.data())) {
                return false;
            }
        }
        return true;
    }

    private static boolean accessibleByAll(MemorySegment s) {
        return !s.isNative() || s.scope().isAlive() && s.isAccessibleBy(POOL_PROBE);
    }

    /** Any thread other than the owner of a confined arena. */
    private static final Thread POOL_PROBE = Thread.ofPlatform().unstarted(() -> { });
}

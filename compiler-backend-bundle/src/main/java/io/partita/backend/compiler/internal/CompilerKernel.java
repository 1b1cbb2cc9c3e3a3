package io.partita.backend.compiler.internal;

import java.util.List;

import io.partita.backend.compiler.internal.exec.Parallel;
import io.partita.backend.compiler.internal.exec.Program;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;
import io.partita.spi.Kernel;

/** A compiled partition: its program, run on the runtime's thread team of its engine; stateless, so threads share it. */
final class CompilerKernel implements Kernel {
    private final CompilerBackend backend;
    private final Program program;
    /** The generated classes the program uses, as cache blobs. */
    private final List<byte[]> blobs;
    private final int engineIndex;

    CompilerKernel(CompilerBackend backend, Program program, List<byte[]> blobs, int engineIndex) {
        this.backend = backend;
        this.program = program;
        this.blobs = List.copyOf(blobs);
        this.engineIndex = engineIndex;
    }

    @Override
    public List<byte[]> cacheBlobs() {
        return blobs;
    }

    @Override
    public void execute(Stream stream, List<Tensor> inputs, List<Tensor> outputs) {
        program.execute(inputs, outputs, Kernel.sharedAcrossThreads(inputs, outputs) ? backend.pool(engineIndex) : Parallel.CALLER);
    }

    @Override
    public void close() {
        program.close();
    }
}

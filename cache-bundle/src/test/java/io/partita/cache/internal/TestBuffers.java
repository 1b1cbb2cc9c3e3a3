package io.partita.cache.internal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicInteger;

import io.partita.cache.BufferProducer;
import io.partita.cache.ConstantBuffer;

/** Buffers that count their frees and carry a tag, and producers that count their calls. */
final class TestBuffers {
    private TestBuffers() {
    }

    /** A host buffer whose first long holds a tag; frees are counted and double frees fail. */
    static final class Tagged implements ConstantBuffer {
        final ConstantBuffer inner;
        final AtomicInteger frees;

        Tagged(long size, long tag, AtomicInteger frees) {
            this.inner = ConstantBuffer.allocateHost(size);
            this.frees = frees;
            if (size >= 8) {
                inner.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, tag);
            }
        }

        long tag() {
            return inner.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
        }

        @Override
        public long byteSize() {
            return inner.byteSize();
        }

        @Override
        public MemorySegment segment() {
            return inner.segment();
        }

        @Override
        public void free() {
            frees.incrementAndGet();
            inner.free(); // a second free throws: the arena is already closed
        }
    }

    /** Counts calls; produces tagged buffers of a fixed size. */
    static final class CountingProducer implements BufferProducer {
        final long size;
        final AtomicInteger calls = new AtomicInteger();
        final AtomicInteger frees = new AtomicInteger();

        CountingProducer(long size) {
            this.size = size;
        }

        @Override
        public ConstantBuffer produce() {
            return new Tagged(size, calls.incrementAndGet(), frees);
        }
    }
}

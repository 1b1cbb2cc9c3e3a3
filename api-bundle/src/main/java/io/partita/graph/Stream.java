package io.partita.graph;

import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Function;

/**
 * An execution queue on an engine. CPU execution is synchronous; device backends keep their
 * queue state as an {@linkplain #attachment attachment} of the stream.
 */
public final class Stream {
    private final Engine engine;
    private final ConcurrentMap<Object, Object> attachments = new ConcurrentHashMap<>();

    public Stream(Engine engine) {
        this.engine = Objects.requireNonNull(engine, "engine");
    }

    public Engine engine() {
        return engine;
    }

    /**
     * Per-stream state owned by a backend (e.g. an OpenCL command queue), created on first use.
     * The key should be an object private to the backend.
     */
    public <T> T attachment(Object key, Class<T> type, Function<Stream, T> factory) {
        return type.cast(attachments.computeIfAbsent(key, k -> factory.apply(this)));
    }

    /** Waits until everything submitted to this stream has finished. */
    public void waitAll() {
        for (Object a : attachments.values()) {
            if (a instanceof Waitable w) {
                w.waitAll();
            }
        }
    }

    /** Implemented by stream attachments that queue work asynchronously. */
    public interface Waitable {
        void waitAll();
    }

    @Override
    public String toString() {
        return "Stream[" + engine + "]";
    }
}

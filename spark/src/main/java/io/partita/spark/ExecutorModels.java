package io.partita.spark;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.partita.cache.DeviceKind;
import io.partita.graph.GraphRuntime;

/**
 * The models of this JVM (an executor, or the driver in local mode): one runtime per
 * {@link RuntimeSettings} and one compiled model per (model digest, {@link ModelSettings}), shared
 * by every task the JVM runs. The first task to ask compiles; tasks asking meanwhile wait for that
 * compile instead of starting their own, and a failed compile is forgotten so the next task tries
 * again (and reports its own error).
 */
public final class ExecutorModels {
    private static final Logger LOG = LoggerFactory.getLogger(ExecutorModels.class);

    private static final ConcurrentHashMap<RuntimeSettings, GraphRuntime> RUNTIMES = new ConcurrentHashMap<>();
    private static final ConcurrentHashMap<Key, CompletableFuture<LoadedModel>> MODELS = new ConcurrentHashMap<>();
    private static final AtomicLong LOADS = new AtomicLong();

    private record Key(String digest, ModelSettings settings) {
    }

    private ExecutorModels() {
    }

    /** The result of {@link #acquire}: the model, and whether this call compiled it. */
    record Acquired(LoadedModel model, boolean compiledHere) {
    }

    /**
     * The compiled model for these bytes and settings, compiling it when this JVM has none yet.
     * {@code bytes} is called only by the compiling task (on an executor it fetches the broadcast).
     */
    static Acquired acquire(String digest, ModelSettings settings, Supplier<ModelBytes> bytes) {
        Key key = new Key(digest, settings);
        CompletableFuture<LoadedModel> mine = new CompletableFuture<>();
        CompletableFuture<LoadedModel> existing = MODELS.putIfAbsent(key, mine);
        if (existing != null) {
            return new Acquired(join(existing), false);
        }
        try {
            LoadedModel m = LoadedModel.load(runtime(settings.runtime()), bytes.get(), settings);
            LOADS.incrementAndGet();
            mine.complete(m);
            return new Acquired(m, true);
        } catch (RuntimeException | Error e) {
            MODELS.remove(key, mine);
            mine.completeExceptionally(e);
            throw e;
        }
    }

    private static LoadedModel join(CompletableFuture<LoadedModel> f) {
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while another task compiled the model", e);
        } catch (ExecutionException | CompletionException e) {
            Throwable c = e.getCause();
            if (c instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException("compiling the model failed in another task: " + c, c);
        }
    }

    /** The runtime for these settings, created on first use. */
    static GraphRuntime runtime(RuntimeSettings s) {
        return RUNTIMES.computeIfAbsent(s, ExecutorModels::create);
    }

    private static GraphRuntime create(RuntimeSettings s) {
        GraphRuntime rt = GraphRuntime.standalone(s.backends(), caches -> {
            if (!s.persistentCacheDir().isEmpty()) {
                caches.setPersistentCacheDirectory(Path.of(s.persistentCacheDir()));
                caches.setPersistentCacheCapacity(s.persistentCacheMegabytes());
                // generated CPU kernels too (the store's default is the gpu engine only)
                caches.setPersistentCacheEnabled(DeviceKind.CPU, true);
                caches.setPersistentCacheEnabled(DeviceKind.GPU, true);
            }
        });
        rt.setThreads(s.threads());
        LOG.info("Partita runtime for {}: backends {}", s, rt.backends().stream().map(b -> b.id()).toList());
        return rt;
    }

    /** Models compiled by this JVM so far (a test checks that concurrent tasks compile once). */
    public static long loads() {
        return LOADS.get();
    }
}

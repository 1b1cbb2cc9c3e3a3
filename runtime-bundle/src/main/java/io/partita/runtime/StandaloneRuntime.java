package io.partita.runtime;

import java.util.ServiceLoader;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.partita.cache.CacheManager;
import io.partita.graph.GraphRuntimeFactory;
import io.partita.graph.InvalidArgumentException;
import io.partita.graph.PartitaException;
import io.partita.spi.Backend;
import io.partita.spi.BackendFactory;

/**
 * Plain class path mode: each runtime gets its own cache manager (environment read once, when it
 * is created) and the backends {@link ServiceLoader} finds, ranked by their default rank.
 */
public final class StandaloneRuntime implements GraphRuntimeFactory {
    private static final Logger LOG = LoggerFactory.getLogger(StandaloneRuntime.class);

    /** For {@link ServiceLoader}. */
    public StandaloneRuntime() {
    }

    @Override
    public RuntimeCore discover() {
        return discover(java.util.Set.of(), c -> { });
    }

    @Override
    public RuntimeCore discover(java.util.Set<String> backendIds, java.util.function.Consumer<CacheManager> cacheSetup) {
        CacheManager caches = newCacheManager();
        // before the backends exist: they take their cache settings (e.g. the persistent store) when created
        cacheSetup.accept(caches);
        RuntimeCore core = new RuntimeCore(caches);
        ClassLoader cl = loader();
        java.util.Set<String> found = new java.util.TreeSet<>();
        java.util.List<Backend> added = new java.util.ArrayList<>();
        java.util.function.Consumer<Backend> offer = b -> {
            found.add(b.id());
            if (wanted(backendIds, b.id())) {
                core.addBackend(b, b.defaultRank());
                added.add(b);
            } else {
                b.close(); // its caches (and any threads of its own) are not wanted
            }
        };
        for (ServiceLoader.Provider<BackendFactory> p : ServiceLoader.load(BackendFactory.class, cl).stream().toList()) {
            try {
                offer.accept(p.get().create(caches));
            } catch (java.util.ServiceConfigurationError | RuntimeException e) {
                LOG.warn("skipping backend factory {}: {}", p.type().getName(), e.toString());
            }
        }
        for (ServiceLoader.Provider<Backend> p : ServiceLoader.load(Backend.class, cl).stream().toList()) {
            try {
                offer.accept(p.get());
            } catch (java.util.ServiceConfigurationError | RuntimeException e) {
                LOG.warn("skipping backend {}: {}", p.type().getName(), e.toString());
            }
        }
        for (String id : backendIds) {
            if (!found.contains(id) && !id.equals(io.partita.backend.reference.ReferenceBackend.ID)) {
                added.forEach(Backend::close); // the caller gets no runtime: nothing may keep their threads
                throw new InvalidArgumentException("backend '" + id + "' is not on the class path; found " + found
                        + " (and the reference backend, always present)");
            }
        }
        return core;
    }

    private static boolean wanted(java.util.Set<String> backendIds, String id) {
        return backendIds.isEmpty() || backendIds.contains(id);
    }

    @Override
    public RuntimeCore referenceOnly() {
        return new RuntimeCore(newCacheManager());
    }

    /** A runtime with exactly these backends (plus the reference) and caches of its own. */
    public static RuntimeCore of(Backend... backends) {
        return of(newCacheManager(), backends);
    }

    /** A runtime with exactly these backends (plus the reference), at their default ranks. */
    public static RuntimeCore of(CacheManager caches, Backend... backends) {
        RuntimeCore core = new RuntimeCore(caches);
        for (Backend b : backends) {
            core.addBackend(b, b.defaultRank());
        }
        return core;
    }

    /** A cache manager from the cache bundle's {@link ServiceLoader} registration. */
    public static CacheManager newCacheManager() {
        return ServiceLoader.load(CacheManager.class, loader()).findFirst()
                .or(() -> ServiceLoader.load(CacheManager.class, StandaloneRuntime.class.getClassLoader()).findFirst())
                .orElseThrow(() -> new PartitaException("no cache manager on the class path: add the cache-bundle jar"
                        + " (it provides META-INF/services/" + CacheManager.class.getName() + ")"));
    }

    private static ClassLoader loader() {
        ClassLoader cl = Thread.currentThread().getContextClassLoader();
        return cl != null ? cl : StandaloneRuntime.class.getClassLoader();
    }
}

package io.partita.graph;

import java.util.ServiceLoader;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Creates runtimes on a plain class path, where there is no service registry. The runtime
 * implementation registers one through {@code META-INF/services}; the API names no
 * implementation class. In an OSGi framework use the {@link GraphRuntime} service instead.
 */
@ProviderType
public interface GraphRuntimeFactory {

    /** A runtime over the backends {@link ServiceLoader} finds, each at its default rank. */
    GraphRuntime discover();

    /** A runtime with only the reference backend. */
    GraphRuntime referenceOnly();

    /**
     * A runtime over some of the backends {@link ServiceLoader} finds, with caches set up by the
     * caller before any backend is created: for hosts that embed the runtime and carry its
     * settings themselves (a Spark executor gets them from the job, not from its environment).
     *
     * @param backendIds the backend ids to keep (the reference backend is always there); empty
     *     keeps every backend found
     * @param cacheSetup applied to the runtime's new cache manager (which has read the
     *     environment already), e.g. to set the persistent cache directory
     * @throws InvalidArgumentException naming the ids found when one of {@code backendIds} is not
     *     on the class path
     */
    GraphRuntime discover(java.util.Set<String> backendIds,
            java.util.function.Consumer<io.partita.cache.CacheManager> cacheSetup);

    /**
     * The factory on the class path (the thread's context class loader first, then the API's).
     *
     * @throws PartitaException naming what is missing when there is none
     */
    static GraphRuntimeFactory find() {
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        for (ClassLoader cl : new ClassLoader[] {context, GraphRuntimeFactory.class.getClassLoader()}) {
            if (cl == null) {
                continue;
            }
            var found = ServiceLoader.load(GraphRuntimeFactory.class, cl).findFirst();
            if (found.isPresent()) {
                return found.get();
            }
        }
        throw new PartitaException("no Partita runtime on the class path: add the runtime-bundle jar"
                + " (it provides META-INF/services/" + GraphRuntimeFactory.class.getName() + ")");
    }
}

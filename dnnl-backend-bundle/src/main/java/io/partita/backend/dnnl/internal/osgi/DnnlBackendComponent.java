package io.partita.backend.dnnl.internal.osgi;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.Designate;

import java.util.Map;

import io.partita.backend.dnnl.internal.DnnlBackend;
import io.partita.cache.CacheManager;
import io.partita.cache.config.ConfigProperties;
import io.partita.graph.GraphRuntime;
import io.partita.spi.Backend;
import io.partita.spi.ForwardingBackend;

/**
 * Registers the DNNL-style backend (rank 100 unless configured). Config Admin properties are
 * applied as {@link ConfigProperties} does: text coerced to the declared type, only changed ones
 * applied, a removed one restored to its default, a malformed one logged naming PID, key, value and
 * expected form while the previous setting stays. {@code service.ranking} and {@code enabled} are
 * read by the runtime from the service properties.
 */
@Component(service = Backend.class, configurationPid = DnnlBackendComponent.PID, property = "service.ranking:Integer=" + DnnlBackend.DEFAULT_RANK)
@Designate(ocd = DnnlConfig.class)
public class DnnlBackendComponent extends ForwardingBackend {
    static final String PID = "io.partita.backend.dnnl";

    private final DnnlBackend backend;
    private final ConfigProperties config;

    @Activate
    public DnnlBackendComponent(@Reference CacheManager caches, Map<String, Object> properties) {
        this(new DnnlBackend(caches), properties);
    }

    private DnnlBackendComponent(DnnlBackend backend, Map<String, Object> properties) {
        super(backend);
        this.backend = backend;
        int initialThreads = backend.threads(); // PARTITA_DNNL_THREADS or all cores: what removing the property restores
        this.config = new ConfigProperties(PID)
                .integer("threads", 0, GraphRuntime.MAX_THREADS,
                        n -> backend.setThreads(n == 0 ? initialThreads : n), () -> backend.setThreads(initialThreads));
        configure(properties);
    }

    @Modified
    void configure(Map<String, Object> properties) {
        config.update(properties);
    }

    @Deactivate
    void deactivate() {
        backend.close();
    }
}

package io.partita.backend.dnnl.internal.osgi;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.Designate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.partita.backend.dnnl.internal.DnnlBackend;
import io.partita.backend.dnnl.internal.ThreadSetting;
import io.partita.cache.CacheManager;
import io.partita.spi.Backend;
import io.partita.spi.ForwardingBackend;

/**
 * Registers the DNNL-style backend (rank 100 unless configured). A malformed {@code threads} value
 * is logged with the value and the expected form, and the previous setting stays.
 */
@Component(service = Backend.class, configurationPid = "io.partita.backend.dnnl", property = "service.ranking:Integer=" + DnnlBackend.DEFAULT_RANK)
@Designate(ocd = DnnlConfig.class)
public class DnnlBackendComponent extends ForwardingBackend {
    private static final Logger LOG = LoggerFactory.getLogger(DnnlBackendComponent.class);

    private final DnnlBackend backend;

    @Activate
    public DnnlBackendComponent(@Reference CacheManager caches, DnnlConfig config) {
        this(new DnnlBackend(caches), config);
    }

    private DnnlBackendComponent(DnnlBackend backend, DnnlConfig config) {
        super(backend);
        this.backend = backend;
        configure(config);
    }

    @Modified
    void configure(DnnlConfig config) {
        String t = config.threads();
        if (t != null && !t.isBlank()) {
            try {
                backend.setThreads(ThreadSetting.parse("io.partita.backend.dnnl threads", t));
            } catch (IllegalArgumentException e) {
                LOG.error("refused: {}", e.getMessage());
            }
        }
    }

    @Deactivate
    void deactivate() {
        backend.close();
    }
}

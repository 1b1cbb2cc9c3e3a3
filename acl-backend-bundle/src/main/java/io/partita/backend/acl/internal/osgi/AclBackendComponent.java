package io.partita.backend.acl.internal.osgi;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.Designate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.partita.backend.acl.internal.AclBackend;
import io.partita.cache.CacheManager;
import io.partita.spi.Backend;
import io.partita.spi.ForwardingBackend;

/**
 * Registers the ACL-style backend (rank 50 unless configured). A malformed pool cap or memory
 * manager is logged with the value and what is accepted, and the previous setting stays.
 */
@Component(service = Backend.class, configurationPid = "io.partita.backend.acl", property = "service.ranking:Integer=" + AclBackend.DEFAULT_RANK)
@Designate(ocd = AclConfig.class)
public class AclBackendComponent extends ForwardingBackend {
    private static final Logger LOG = LoggerFactory.getLogger(AclBackendComponent.class);

    private final AclBackend backend;

    @Activate
    public AclBackendComponent(@Reference CacheManager caches, AclConfig config) {
        this(new AclBackend(caches), config);
    }

    private AclBackendComponent(AclBackend backend, AclConfig config) {
        super(backend);
        this.backend = backend;
        configure(config);
    }

    @Modified
    void configure(AclConfig config) {
        try {
            backend.setPoolCapMegabytes(AclSettings.poolCapMb(config.pool_cap_mb()));
        } catch (IllegalArgumentException e) {
            LOG.error("refused: {}", e.getMessage());
        }
        try {
            backend.setCachedMemory(AclSettings.cachedMemory(config.memory_manager()));
        } catch (IllegalArgumentException e) {
            LOG.error("refused: {}", e.getMessage());
        }
    }

    @Deactivate
    void deactivate() {
        backend.close();
    }
}

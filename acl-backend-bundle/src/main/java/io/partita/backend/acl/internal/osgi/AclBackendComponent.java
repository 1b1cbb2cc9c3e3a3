package io.partita.backend.acl.internal.osgi;

import java.util.Map;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.Designate;

import io.partita.backend.acl.internal.AclBackend;
import io.partita.cache.CacheManager;
import io.partita.cache.config.ConfigProperties;
import io.partita.spi.Backend;
import io.partita.spi.ForwardingBackend;

/**
 * Registers the ACL-style backend (rank 50 unless configured). Config Admin properties are applied
 * as {@link ConfigProperties} does: text coerced to the declared type, only changed ones applied, a
 * removed one restored to its default, a malformed one logged naming PID, key, value and what is
 * accepted while the previous setting stays. {@code service.ranking} and {@code enabled} are read
 * by the runtime from the service properties.
 */
@Component(service = Backend.class, configurationPid = AclBackendComponent.PID, property = "service.ranking:Integer=" + AclBackend.DEFAULT_RANK)
@Designate(ocd = AclConfig.class)
public class AclBackendComponent extends ForwardingBackend {
    static final String PID = "io.partita.backend.acl";

    private final AclBackend backend;
    private final ConfigProperties config;

    @Activate
    public AclBackendComponent(@Reference CacheManager caches, Map<String, Object> properties) {
        this(new AclBackend(caches), properties);
    }

    private AclBackendComponent(AclBackend backend, Map<String, Object> properties) {
        super(backend);
        this.backend = backend;
        this.config = new ConfigProperties(PID)
                .longInteger("pool.cap.mb", 0, AclSettings.MAX_POOL_CAP_MB, backend::setPoolCapMegabytes,
                        () -> backend.setPoolCapMegabytes(AclBackend.DEFAULT_POOL_CAP_MB))
                .text("memory.manager", "cached or on-demand",
                        v -> backend.setCachedMemory(AclSettings.cachedMemory(v)), () -> backend.setCachedMemory(true));
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

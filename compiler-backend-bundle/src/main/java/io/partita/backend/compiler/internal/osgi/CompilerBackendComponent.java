package io.partita.backend.compiler.internal.osgi;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.Designate;

import io.partita.backend.compiler.internal.CompilerBackend;
import io.partita.cache.CacheManager;
import io.partita.spi.Backend;
import io.partita.spi.ForwardingBackend;

/**
 * Registers the graph-compiler backend (rank 150 unless configured: the runtime reads
 * {@code service.ranking} and {@code enabled} from the configuration; a malformed value is logged and
 * the current one stays).
 */
@Component(service = Backend.class, configurationPid = "io.partita.backend.compiler",
        property = "service.ranking:Integer=" + CompilerBackend.DEFAULT_RANK)
@Designate(ocd = CompilerConfig.class)
public class CompilerBackendComponent extends ForwardingBackend {
    private final CompilerBackend backend;

    @Activate
    public CompilerBackendComponent(@Reference CacheManager caches) {
        this(new CompilerBackend(caches));
    }

    private CompilerBackendComponent(CompilerBackend backend) {
        super(backend);
        this.backend = backend;
    }

    @Deactivate
    void deactivate() {
        backend.close();
    }
}

package io.partita.gpu.internal.osgi;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.Designate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.partita.cache.CacheManager;
import io.partita.gpu.internal.GpuBackend;
import io.partita.gpu.internal.plan.Planner;
import io.partita.spi.Backend;
import io.partita.spi.ForwardingBackend;

/**
 * Registers the gpu engine (rank 100 unless configured). Activation only records the settings:
 * devices are discovered on first use and programs are built when partitions compile, so DS
 * activation never waits on the OpenCL driver.
 */
@Component(service = Backend.class, configurationPid = "io.partita.gpu", property = "service.ranking:Integer=" + GpuBackend.DEFAULT_RANK)
@Designate(ocd = GpuConfig.class)
public class GpuBackendComponent extends ForwardingBackend {
    private static final Logger LOG = LoggerFactory.getLogger(GpuBackendComponent.class);

    private final GpuBackend backend;

    @Activate
    public GpuBackendComponent(@Reference CacheManager caches, GpuConfig config) {
        this(new GpuBackend(caches), config);
    }

    private GpuBackendComponent(GpuBackend backend, GpuConfig config) {
        super(backend);
        this.backend = backend;
        configure(config);
    }

    @Modified
    void configure(GpuConfig config) {
        backend.configure(config.enabled(), config.devices());
        try {
            backend.setMatMulKernel(Planner.MatMulKernel.parse(config.matmul_kernel()));
        } catch (IllegalArgumentException e) {
            LOG.error("io.partita.gpu refused: {}; the previous MatMul kernel stays", e.getMessage());
        }
    }

    @Deactivate
    void deactivate() {
        backend.close();
    }
}

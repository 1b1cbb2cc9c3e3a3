package io.partita.gpu.internal.osgi;

import java.util.Map;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.Designate;

import io.partita.cache.CacheManager;
import io.partita.cache.config.ConfigProperties;
import io.partita.gpu.internal.GpuBackend;
import io.partita.gpu.internal.plan.Planner;
import io.partita.spi.Backend;
import io.partita.spi.ForwardingBackend;

/**
 * Registers the gpu engine (rank 100 unless configured). Activation only records the settings:
 * devices are discovered on first use and programs are built when partitions compile, so DS
 * activation never waits on the OpenCL driver. Config Admin properties are applied as
 * {@link ConfigProperties} does (text coerced to the declared type, only changed ones applied, a
 * removed one restored to its default, a malformed one logged and the previous setting kept), so
 * devices are discovered again only when {@code enabled} or {@code devices} change.
 */
@Component(service = Backend.class, configurationPid = GpuBackendComponent.PID, property = "service.ranking:Integer=" + GpuBackend.DEFAULT_RANK)
@Designate(ocd = GpuConfig.class)
public class GpuBackendComponent extends ForwardingBackend {
    static final String PID = "io.partita.gpu";

    private final GpuBackend backend;
    private final ConfigProperties config;
    private boolean enabled = true;
    private String devices = "";

    @Activate
    public GpuBackendComponent(@Reference CacheManager caches, Map<String, Object> properties) {
        this(new GpuBackend(caches), properties);
    }

    private GpuBackendComponent(GpuBackend backend, Map<String, Object> properties) {
        super(backend);
        this.backend = backend;
        this.config = new ConfigProperties(PID)
                .bool("enabled", on -> select(on, devices), () -> select(true, devices))
                .text("devices", "comma-separated device positions or parts of device names",
                        d -> select(enabled, d), () -> select(enabled, ""))
                .text("matmul.kernel", "auto, tiled or rows",
                        k -> backend.setMatMulKernel(Planner.MatMulKernel.parse(k)),
                        () -> backend.setMatMulKernel(Planner.MatMulKernel.parse("auto")));
        configure(properties);
    }

    private void select(boolean on, String selection) {
        enabled = on;
        devices = selection;
        backend.configure(on, selection);
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

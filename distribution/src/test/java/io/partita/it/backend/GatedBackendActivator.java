package io.partita.it.backend;

import java.util.Hashtable;

import org.osgi.framework.BundleActivator;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;

import io.partita.spi.Backend;

/** Registers the gated backend at rank 500, above dnnl (the test bundle is built on the fly, without DS). */
public final class GatedBackendActivator implements BundleActivator {
    @Override
    public void start(BundleContext context) {
        Hashtable<String, Object> props = new Hashtable<>();
        props.put(Constants.SERVICE_RANKING, 500);
        context.registerService(Backend.class, new GatedBackend(context), props);
    }

    @Override
    public void stop(BundleContext context) {
        // the framework unregisters the service
    }
}

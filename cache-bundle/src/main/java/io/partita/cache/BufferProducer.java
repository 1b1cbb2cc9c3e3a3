package io.partita.cache;

import org.osgi.annotation.versioning.ConsumerType;

/** Computes a constant tensor (e.g. reorders weights into a blocked layout) into a new buffer. */
@ConsumerType
@FunctionalInterface
public interface BufferProducer {
    ConstantBuffer produce() throws Exception;
}

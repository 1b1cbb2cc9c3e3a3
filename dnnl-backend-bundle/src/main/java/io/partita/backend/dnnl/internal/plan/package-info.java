/** From a compile request to a primitive descriptor: the base op, its post-op chain and where operands come from. */
package io.partita.backend.dnnl.internal.plan;

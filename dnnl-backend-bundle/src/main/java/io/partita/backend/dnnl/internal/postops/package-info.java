/** Post-ops: activations and broadcast binary ops applied to a primitive's output rows while they are in cache. */
package io.partita.backend.dnnl.internal.postops;

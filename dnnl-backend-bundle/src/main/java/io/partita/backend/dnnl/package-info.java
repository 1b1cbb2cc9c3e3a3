/**
 * DNNL-style primitives with post-op fusion and Vector API kernels land here (issue: DNNL-style backend).
 * This bundle is deliberately empty until then: it registers no service and claims no op.
 */
package io.partita.backend.dnnl;
